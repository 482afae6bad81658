import type { RouteRow } from './route-table.js';

/** Our extension (issue 33): person ↔ organization relationships, from either contact's side. */
export const relationshipRoutes: RouteRow[] = [
  { method: 'GET', path: '/api/contacts/{contactid}/relationships', field: 'Query.contactRelationships', extension: true, summary: 'The relationships of a person or an organization' },
  {
    method: 'POST', path: '/api/contacts/{contactid}/relationships/{relationshipid}', field: 'Mutation.saveContactRelationship', body: 'input', extension: true,
    summary: 'Creates (relationshipid 0) or changes a relationship of the contact',
  },
  {
    method: 'DELETE', path: '/api/contacts/{contactid}/relationships/{relationshipid}', field: 'Mutation.deleteContactRelationship', extension: true,
    summary: 'Deletes a relationship of the contact (auditid in the query string checked when given)',
  },
];
