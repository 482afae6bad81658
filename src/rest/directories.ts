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
  // Our extension (issue 33): a listing's gallery; images are uploaded, captioned and deleted through /api/images.
  { method: 'GET', path: '/api/directory/listings/{directorycontactid}/gallery', field: 'Query.directoryGalleryImages', extension: true, summary: 'A listing\'s gallery images in order, with captions' },
  {
    method: 'POST', path: '/api/directory/listings/{directorycontactid}/gallery/order', field: 'Mutation.reorderDirectoryGalleryImages', body: 'imageIds', extension: true,
    summary: 'Puts a listing\'s gallery images in the order given (a JSON array of every ImageId)',
  },
];
