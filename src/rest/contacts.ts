import type { RouteRow } from './route-table.js';

/** Our extension (issue 33): staff manage people and organizations. Paths collision-checked in CORE-RECORDS.md §5. */
export const contactRoutes: RouteRow[] = [
  { method: 'GET', path: '/api/contacts/items', field: 'Query.contacts', queryModel: 'filter', extension: true, summary: 'One page of people and organizations with the total (staff).' },
  { method: 'POST', path: '/api/contacts/items', field: 'Query.contacts', body: 'filter', extension: true, summary: 'One page of people and organizations with the total, filtered by the body (staff).' },
  { method: 'GET', path: '/api/contacts/{contactid}', field: 'Query.contact', extension: true, summary: 'One person or organization, archived or not (staff).' },
  { method: 'POST', path: '/api/contacts/{contactid}', field: 'Mutation.saveContact', body: 'input', extension: true, summary: 'Creates (contactid 0) or updates a person or organization (staff).' },
  { method: 'DELETE', path: '/api/contacts/{contactid}/{auditid}', field: 'Mutation.deleteContact', extension: true, summary: 'Archives a contact and what hangs on it, answering what it did (staff).' },
  { method: 'POST', path: '/api/contacts/{contactid}/restore', field: 'Mutation.restoreContact', extension: true, summary: 'Restores an archived contact; revives nothing else (staff).' },
];
