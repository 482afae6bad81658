import type { RouteRow } from './route-table.js';

/** GET .../{samlserviceproviderid}/download is an area route (http/saml-service-providers.ts): it answers the file itself. */
export const samlServiceProviderRoutes: RouteRow[] = [
  { method: 'GET', path: '/api/saml/serviceproviders', field: 'Query.samlServiceProviders' },
  { method: 'POST', path: '/api/saml/serviceproviders', field: 'Mutation.saveSamlServiceProvider', body: 'input' },
  { method: 'GET', path: '/api/saml/serviceproviders/{samlserviceproviderid}', field: 'Query.samlServiceProvider' },
  { method: 'DELETE', path: '/api/saml/serviceproviders/{samlserviceproviderid}', field: 'Mutation.deleteSamlServiceProvider' },
];
