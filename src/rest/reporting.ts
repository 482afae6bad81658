import type { RouteRow } from './route-table.js';

export const reportingRoutes: RouteRow[] = [
  { method: 'GET', path: '/api/reporting', field: 'Query.reports', query: { options: 'filter' } },
  { method: 'POST', path: '/api/reporting', field: 'Query.reports', body: 'filter' },
  { method: 'DELETE', path: '/api/reporting/{reportid}/{auditid}', field: 'Mutation.deleteReport', emptyResponse: true },
  { method: 'POST', path: '/api/reporting/add', field: 'Mutation.addReport', body: 'input' },
  { method: 'POST', path: '/api/reporting/contactreports/{contactid}', field: 'Query.contactReportList', body: 'parameters' },
  { method: 'GET', path: '/api/reporting/contactreports/{contactid}', field: 'Query.contactReports' },
  { method: 'GET', path: '/api/reporting/tenantreports', field: 'Query.tenantReports', query: { 'this[]': 'text' } },
  { method: 'GET', path: '/api/reporting/widget/reportfavorites', field: 'Query.reportFavorites' },
];
