import type { RouteRow } from './route-table.js';

/** Our extension (issue 38): staff define the tenant's custom fields. No documented path starts with /api/customfields. */
const FIELDS = '/api/customfields';

export const customFieldRoutes: RouteRow[] = [
  { method: 'GET', path: FIELDS, field: 'Query.customFields', extension: true, summary: 'The custom field definitions, one page (staff).' },
  { method: 'GET', path: `${FIELDS}/{customfieldid}`, field: 'Query.customField', extension: true, summary: 'One custom field definition (staff).' },
  { method: 'POST', path: `${FIELDS}/{customfieldid}`, field: 'Mutation.saveCustomField', body: 'input', extension: true, summary: 'Defines (0) or changes a custom field (staff).' },
  {
    method: 'POST', path: `${FIELDS}/{customfieldid}/retire/{auditid}`, field: 'Mutation.retireCustomField', extension: true,
    summary: 'Retires a custom field, keeping its values (staff).',
  },
  { method: 'POST', path: `${FIELDS}/{customfieldid}/restore/{auditid}`, field: 'Mutation.restoreCustomField', extension: true, summary: 'Restores a retired custom field (staff).' },
];
