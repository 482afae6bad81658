import type { RouteRow } from './route-table.js';

/*
 * Our additions (CORE-RECORDS §5, collision-checked against the documented paths). The payment
 * plans of a type stay at their documented paths under /api/membershiptypes/{id}/… (billing).
 * The list's literal path comes before the record's, which would otherwise take "items" as an id.
 */

const TYPES = '/api/membershiptypes';
const MEMBERSHIPS = '/api/memberships';

export const membershipRoutes: RouteRow[] = [
  { method: 'GET', path: TYPES, field: 'Query.membershipTypes', extension: true, summary: 'The membership types, one page (options), staff only.' },
  { method: 'GET', path: `${TYPES}/{membershiptypeid}`, field: 'Query.membershipType', extension: true, summary: 'One membership type with its levels, staff only.' },
  {
    method: 'POST', path: `${TYPES}/{membershiptypeid}`, field: 'Mutation.saveMembershipType', body: 'input', extension: true,
    summary: 'Creates (0) or updates a membership type with its levels, staff only.',
  },
  {
    method: 'DELETE', path: `${TYPES}/{membershiptypeid}/{auditid}`, field: 'Mutation.deleteMembershipType', emptyResponse: true, extension: true,
    summary: 'Deletes a membership type nothing uses (409 naming what uses it), staff only.',
  },
  { method: 'POST', path: `${MEMBERSHIPS}/items`, field: 'Query.memberships', body: 'filter', extension: true, summary: 'Membership terms by contact, type, level, status or good standing, staff only.' },
  { method: 'GET', path: `${MEMBERSHIPS}/{membershipid}`, field: 'Query.membership', extension: true, summary: 'One membership term, staff only.' },
  {
    method: 'POST', path: `${MEMBERSHIPS}/{membershipid}`, field: 'Mutation.saveMembership', body: 'input', extension: true,
    summary: 'Enrols a contact (0) or changes a membership term, staff only.',
  },
  {
    method: 'POST', path: `${MEMBERSHIPS}/{membershipid}/activate/{auditid}`, field: 'Mutation.activateMembership', extension: true,
    summary: 'Activates a pending membership term (staff approval), staff only.',
  },
  {
    method: 'POST', path: `${MEMBERSHIPS}/{membershipid}/renew/{auditid}`, field: 'Mutation.renewMembership', body: 'input', extension: true,
    summary: 'Renews a membership: a new term from the day after this one ends, staff only.',
  },
  {
    method: 'POST', path: `${MEMBERSHIPS}/{membershipid}/cancel/{auditid}`, field: 'Mutation.cancelMembership', body: 'input', extension: true,
    summary: 'Cancels a membership term (final), staff only.',
  },
];
