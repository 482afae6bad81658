import type { RouteRow } from './route-table.js';

const BASE = '/api/categorylists';

export const categoryListRoutes: RouteRow[] = [
  { method: 'POST', path: `${BASE}/{categorylistid}`, field: 'Mutation.saveCategoryList', body: 'input' },
  { method: 'DELETE', path: `${BASE}/{categorylistid}/{auditid}`, field: 'Mutation.deleteCategoryList', emptyResponse: true },
  { method: 'GET', path: `${BASE}/{categorylistid}/{auditid}/items`, field: 'Query.categoryList' },
  { method: 'GET', path: `${BASE}/all`, field: 'Query.categoryLists' },
  { method: 'GET', path: `${BASE}/certificationcategoryitem/lookup`, field: 'Query.certificationCategoryItemLookup' },
  { method: 'GET', path: `${BASE}/contactcategoryitem/lookup`, field: 'Query.contactCategoryItemLookup' },
  { method: 'GET', path: `${BASE}/lookup/{categorytypeid}/{showemptylists}`, field: 'Query.categoryListLookup' },
  { method: 'GET', path: `${BASE}/lookup/categorytypeid`, field: 'Query.categoryTypeLookup' },
  { method: 'GET', path: `${BASE}/lookup/reassigncategorylist/{categorytypeid}`, field: 'Query.categoryListReassignLookup' },
  { method: 'GET', path: `${BASE}/productcategoryitems/lookup`, field: 'Query.productCategoryItemLookup' },
  { method: 'GET', path: `${BASE}/projectcategoryitem/lookup`, field: 'Query.projectCategoryItemLookup' },
  { method: 'GET', path: `${BASE}/publiccontactcategoryitem/lookup`, field: 'Query.publicContactCategoryItemLookup' },
  { method: 'POST', path: `${BASE}/salescategory/{categorylistid}`, field: 'Mutation.saveSalesCategoryList', body: 'input' },
  { method: 'GET', path: `${BASE}/salescategory/lookup`, field: 'Query.salesCategoryLookup' },
];
