import type { RouteRow } from './route-table.js';

export const vendorRoutes: RouteRow[] = [
  { method: 'GET', path: '/api/vendors', field: 'Query.vendors' },
  { method: 'POST', path: '/api/vendors', field: 'Mutation.saveVendor', body: 'input' },
  { method: 'GET', path: '/api/vendors/{vendorid}', field: 'Query.vendor' },
  { method: 'DELETE', path: '/api/vendors/{vendorid}', field: 'Mutation.deleteVendor' },
  { method: 'POST', path: '/api/vendors/duplicatecheck', field: 'Query.vendorDuplicateCheck', body: 'input' },
  { method: 'GET', path: '/api/vendors/search', field: 'Query.vendors', query: { 'this[]': 'text' } },
];
