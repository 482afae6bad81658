import { defineArea } from '../core/area.js';
import { Chapter, ChapterZipCodeRun, ContactChapter } from '../entities/chapter.js';

/** Chapters (organizations in a hierarchy), contact-chapter links and the postal-code assignment job. */
export const chaptersArea = defineArea({
  name: 'chapters',
  entities: [Chapter, ContactChapter, ChapterZipCodeRun],
});
