import { defineArea } from '../core/area.js';
import { Chapter, ChapterZipCodeRun, ContactChapter } from '../entities/chapter.js';
import { ChapterResolver } from '../resolvers/chapters.js';
import { chapterRoutes } from '../rest/chapters.js';
import { chapterJobs } from '../services/chapters/chapter-zip-codes.js';
import { seedChapters } from '../services/chapters/chapters.js';

/** Chapters (organizations in a hierarchy), contact-chapter links and the postal-code assignment job. */
export const chaptersArea = defineArea({
  name: 'chapters',
  entities: [Chapter, ContactChapter, ChapterZipCodeRun],
  resolvers: [ChapterResolver],
  routes: chapterRoutes,
  jobs: chapterJobs(),
  demo: seedChapters,
});
