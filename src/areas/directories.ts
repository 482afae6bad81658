import { defineArea } from '../core/area.js';
import { Directory, DirectoryListing, DirectoryListingType } from '../entities/directory.js';
import { directoryPublicRoutes } from '../http/directories.js';
import { DirectoryResolver } from '../resolvers/directories.js';
import { directoryRoutes } from '../rest/directories.js';
import { seedDirectories } from '../services/directories/directory-demo.js';
import { directoryReconcileJob } from '../services/directories/directory-listings.js';

export const directoriesArea = defineArea({
  name: 'directories',
  entities: [DirectoryListingType, Directory, DirectoryListing],
  resolvers: [DirectoryResolver],
  routes: directoryRoutes,
  rawRoutes: [directoryPublicRoutes],
  jobs: [directoryReconcileJob],
  demo: seedDirectories,
});
