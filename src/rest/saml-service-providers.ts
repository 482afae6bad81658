import { SAML_METADATA_CONTENT_TYPE } from '../services/saml-service-providers.js';
import type { RouteRow } from './route-table.js';

export const samlServiceProviderRoutes: RouteRow[] = [
  { method: 'GET', path: '/api/saml/serviceproviders', field: 'Query.samlServiceProviders' },
  { method: 'POST', path: '/api/saml/serviceproviders', field: 'Mutation.saveSamlServiceProvider', body: 'input' },
  { method: 'GET', path: '/api/saml/serviceproviders/{samlserviceproviderid}', field: 'Query.samlServiceProvider' },
  { method: 'DELETE', path: '/api/saml/serviceproviders/{samlserviceproviderid}', field: 'Mutation.deleteSamlServiceProvider' },
  // Answered by the area route in http/saml-service-providers.ts (a file download); this row documents it.
  { method: 'GET', path: '/api/saml/serviceproviders/{samlserviceproviderid}/download', field: 'Query.samlServiceProviderMetadata', produces: SAML_METADATA_CONTENT_TYPE },
];
