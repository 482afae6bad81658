import type { RouteRow } from './route-table.js';

export const termsOfUseRoutes: RouteRow[] = [
  { method: 'GET', path: '/api/setup/termsofuse', field: 'Query.termsOfUseList' },
  { method: 'GET', path: '/api/setup/termsofuse/{termsofuseid}', field: 'Query.termsOfUse' },
  { method: 'POST', path: '/api/setup/termsofuse/{termsofuseid}', field: 'Mutation.saveTermsOfUse', body: 'input' },
  { method: 'DELETE', path: '/api/setup/termsofuse/{termsofuseid}/{auditid}', field: 'Mutation.deleteTermsOfUse', emptyResponse: true },
  { method: 'GET', path: '/api/setup/termsofuse/gdpr/backoffice', field: 'Query.backOfficeTermsOfUse' },
  { method: 'GET', path: '/api/setup/termsofuse/lookup', field: 'Query.termsOfUseLookup' },
  { method: 'POST', path: '/api/setup/termsofuse/terms/takeaction', field: 'Mutation.takeTermsOfUseAction', body: 'input', emptyResponse: true },
  { method: 'GET', path: '/api/setup/termsofuse/usertermsacceptance/hub', field: 'Query.hubTermsAcceptances', query: { options: 'filter' } },
  { method: 'POST', path: '/api/setup/termsofuse/usertermsacceptance/hub', field: 'Query.hubTermsAcceptances', body: 'filter' },
  { method: 'GET', path: '/api/setup/termsofuse/usertermsacceptance/staff', field: 'Query.staffTermsAcceptances', query: { options: 'filter' } },
  { method: 'POST', path: '/api/setup/termsofuse/usertermsacceptance/staff', field: 'Query.staffTermsAcceptances', body: 'filter' },
  { method: 'GET', path: '/api/setup/termsofuse/view/{termsofuseid}', field: 'Query.termsOfUseView' },
];
