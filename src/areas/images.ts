import { defineArea } from '../core/area.js';
import { FileContent, FileContentChunk, StoredFile } from '../entities/file.js';
import { StoredImage } from '../entities/image.js';
import { imageAreaRoutes } from '../http/images.js';
import { ImageResolver } from '../resolvers/images.js';
import { imageRoutes } from '../rest/images.js';
import { purgeUnusedFilesJob } from '../services/files/files.js';
import { seedImages } from '../services/images/images.js';

/** The file service every area stores bytes in, and the images built on it. */
export const imagesArea = defineArea({
  name: 'images',
  entities: [FileContent, FileContentChunk, StoredFile, StoredImage],
  resolvers: [ImageResolver],
  routes: imageRoutes,
  rawRoutes: [imageAreaRoutes],
  jobs: [purgeUnusedFilesJob],
  demo: seedImages,
});
