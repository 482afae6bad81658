import type { RouteRow } from './route-table.js';

export const benefitPackageRoutes: RouteRow[] = [
  { method: 'GET', path: '/api/benefitpackages', field: 'Query.benefitPackages' },
  { method: 'GET', path: '/api/benefitpackages/{benefitpackageid}', field: 'Query.benefitPackage' },
  { method: 'POST', path: '/api/benefitpackages/{benefitpackageid}', field: 'Mutation.saveBenefitPackage', body: 'input' },
  { method: 'DELETE', path: '/api/benefitpackages/{benefitpackageid}', field: 'Mutation.deleteBenefitPackage', emptyResponse: true },
  { method: 'GET', path: '/api/benefitpackages/{benefitpackageid}/assignmentlist', field: 'Query.benefitPackageAssignments' },
  { method: 'GET', path: '/api/benefitpackages/copy/{benefitpackageid}', field: 'Query.benefitPackageCopyTemplate' },
  { method: 'POST', path: '/api/benefitpackages/copy/{benefitpackageid}', field: 'Mutation.copyBenefitPackage', body: 'input' },
];
