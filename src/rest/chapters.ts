import type { RouteRow } from './route-table.js';

const BASE = '/api/chapters';

export const chapterRoutes: RouteRow[] = [
  { method: 'GET', path: `${BASE}/{chapterid}`, field: 'Query.chapter' },
  { method: 'DELETE', path: `${BASE}/{chapterid}`, field: 'Mutation.deleteChapter', emptyResponse: true },
  { method: 'POST', path: `${BASE}/{chapterid}/{forcesave}`, field: 'Mutation.saveChapter', body: 'input' },
  { method: 'GET', path: `${BASE}/chapters/contacts/lookup/{includeparent}`, field: 'Query.chapterContactsLookup' },
  { method: 'GET', path: `${BASE}/chapters/lookup`, field: 'Query.chaptersLookup' },
  { method: 'GET', path: `${BASE}/chaptersformembership/contacts/lookup`, field: 'Query.chaptersForMembershipContactsLookup' },
  { method: 'GET', path: `${BASE}/chaptersformembership/lookup`, field: 'Query.chaptersForMembershipLookup' },
  { method: 'GET', path: `${BASE}/childchapterids/lookup`, field: 'Query.childChapterIdsLookup' },
  { method: 'GET', path: `${BASE}/childchapters/lookup`, field: 'Query.childChaptersLookup' },
  { method: 'POST', path: `${BASE}/contactchapter`, field: 'Mutation.linkContactChapter', body: 'input', emptyResponse: true },
  { method: 'GET', path: `${BASE}/contactchapter/{contactid}`, field: 'Query.contactChapter' },
  // "200 only": answers the run (RunId, State, progress) all the same.
  { method: 'GET', path: `${BASE}/contactchapter/assignzipcodes`, field: 'Mutation.assignChapterZipCodes' },
  { method: 'DELETE', path: `${BASE}/contactchapter/delete/{contactid}/{chapterid}`, field: 'Mutation.deleteContactChapter', emptyResponse: true },
  { method: 'GET', path: `${BASE}/contactchapter/lookup/{contactid}`, field: 'Query.contactChapterLookup' },
  { method: 'POST', path: `${BASE}/contactchapter/markasprimary/{contactid}/{chapterid}`, field: 'Mutation.markContactChapterPrimary', emptyResponse: true },
  { method: 'GET', path: `${BASE}/items`, field: 'Query.chapters' },
  { method: 'GET', path: `${BASE}/membershiptypeoptionchildchapterids/lookup/{includetoplevelselection}`, field: 'Query.membershipTypeOptionChildChapterIds' },
  { method: 'GET', path: `${BASE}/parentchapter/lookup`, field: 'Query.parentChapterLookup' },
];
