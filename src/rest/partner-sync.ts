import type { RouteRow } from './route-table.js';

/** The documents answer "200 only"; we answer the PartnerTransactionResult (writes) and the change page (feed). */
export const partnerSyncRoutes: RouteRow[] = [
  { method: 'GET', path: '/api/partnersync/getchangessince/{utcdatetime}', field: 'Query.partnerChanges', summary: 'Our changes since the instant, as a page of PartnerAudit-shaped changes (Changes, NextCursor); query take and after page it.' },
  { method: 'GET', path: '/api/partnersync/getcontactauditbynationalid/{nationalid}', field: 'Query.partnerContactAudit' },
  { method: 'DELETE', path: '/api/partnersync/organization/delete', field: 'Mutation.deletePartnerOrganization' },
  { method: 'POST', path: '/api/partnersync/organization/move', field: 'Mutation.movePartnerOrganization', body: 'transaction' },
  { method: 'POST', path: '/api/partnersync/organization/upsert', field: 'Mutation.upsertPartnerOrganization', body: 'transaction' },
  { method: 'DELETE', path: '/api/partnersync/person/delete', field: 'Mutation.deletePartnerPerson' },
  { method: 'POST', path: '/api/partnersync/person/move', field: 'Mutation.movePartnerPerson', body: 'transaction' },
  { method: 'POST', path: '/api/partnersync/person/upsert', field: 'Mutation.upsertPartnerPerson', body: 'transaction' },
];
