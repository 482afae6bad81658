import type { RouteRow } from './route-table.js';

export const directoryRoutes: RouteRow[] = [
  { method: 'POST', path: '/api/directory/adddirectorylistingsbymembershiptype/save', field: 'Mutation.addDirectoryListingsByMembershipType', body: 'input', emptyResponse: true },
  { method: 'GET', path: '/api/directory/all/{modifiedsince}', field: 'Query.directoryListingsModifiedSince' },
  { method: 'GET', path: '/api/directory/directories', field: 'Query.directories' },
  { method: 'GET', path: '/api/directory/directories/{directoryid}', field: 'Query.directory' },
  { method: 'POST', path: '/api/directory/directories/{directoryid}', field: 'Mutation.saveDirectory', body: 'input' },
  { method: 'DELETE', path: '/api/directory/directories/{directoryid}', field: 'Mutation.deleteDirectory', emptyResponse: true },
  { method: 'GET', path: '/api/directory/directories/{directoryid}/public/details/{id}', field: 'Query.publicDirectoryListing' },
  { method: 'GET', path: '/api/directory/directories/{directoryid}/public/find', field: 'Query.publicDirectorySearch' },
  { method: 'GET', path: '/api/directory/directories/{directoryid}/public/index', field: 'Query.publicDirectoryIndex' },
  { method: 'GET', path: '/api/directory/directories/chapters/{chapterid}', field: 'Query.chapterDirectories' },
  { method: 'GET', path: '/api/directory/directories/setup', field: 'Query.directoriesSetup', queryModel: 'filter' },
  { method: 'GET', path: '/api/directory/directorylistingtypes', field: 'Query.directoryListingTypes' },
  { method: 'POST', path: '/api/directory/directorylistingtypes', field: 'Mutation.saveDirectoryListingType', body: 'input' },
  { method: 'GET', path: '/api/directory/directorylistingtypes/{directorylistingtypeid}', field: 'Query.directoryListingType' },
  { method: 'DELETE', path: '/api/directory/directorylistingtypes/{directorylistingtypeid}/{auditid}', field: 'Mutation.deleteDirectoryListingType', emptyResponse: true },
];
