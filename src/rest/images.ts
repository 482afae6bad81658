import type { RouteRow } from './route-table.js';

/** The Images operations with JSON in and out; uploads and byte downloads are in src/http/images.ts. */
export const imageRoutes: RouteRow[] = [
  { method: 'POST', path: '/api/images/image/{imageid}', field: 'Mutation.saveImage', body: 'input' },
  { method: 'DELETE', path: '/api/images/image/{imageid}', field: 'Mutation.deleteImage', emptyResponse: true },
  { method: 'GET', path: '/api/images/usage/{imageusageid}', field: 'Query.imageUsage' },
];
