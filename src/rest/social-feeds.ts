import type { RouteRow } from './route-table.js';

export const socialFeedRoutes: RouteRow[] = [
  { method: 'GET', path: '/api/social/feeds', field: 'Query.socialFeeds' },
  { method: 'GET', path: '/api/social/feeds/{socialfeedid}', field: 'Query.socialFeed' },
  { method: 'POST', path: '/api/social/feeds/{socialfeedid}', field: 'Mutation.saveSocialFeed', body: 'input' },
  { method: 'GET', path: '/api/social/feeds/{socialfeedid}/comments', field: 'Query.socialFeedComments' },
  { method: 'GET', path: '/api/social/feeds/{socialfeedid}/comments/{socialfeedcommentid}', field: 'Query.socialFeedComment' },
  { method: 'POST', path: '/api/social/feeds/{socialfeedid}/comments/{socialfeedcommentid}', field: 'Mutation.saveSocialFeedComment', body: 'input' },
  { method: 'POST', path: '/api/social/feeds/{socialfeedid}/like', field: 'Mutation.likeSocialFeed', emptyResponse: true },
  { method: 'POST', path: '/api/social/feeds/{socialfeedid}/unlike', field: 'Mutation.unlikeSocialFeed', emptyResponse: true },
];
