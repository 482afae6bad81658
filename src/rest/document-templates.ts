import { DOCUMENT_GENERATION_TYPES } from '../services/document-templates/document-generation.js';
import type { RouteRow } from './route-table.js';

const BASE = '/api/documentgenerationtemplates';

export const documentTemplateRoutes: RouteRow[] = [
  { method: 'GET', path: BASE, field: 'Query.documentGenerationTemplates' },
  { method: 'GET', path: `${BASE}/{documentgenerationtemplateid}`, field: 'Query.documentGenerationTemplate' },
  { method: 'POST', path: `${BASE}/{documentgenerationtemplateid}`, field: 'Mutation.saveDocumentGenerationTemplate', body: 'input' },
  { method: 'DELETE', path: `${BASE}/{documentgenerationtemplateid}/{auditid}`, field: 'Mutation.deleteDocumentGenerationTemplate', emptyResponse: true },
  { method: 'GET', path: `${BASE}/availablemergefields/{documentgenerationtypeid}`, field: 'Query.documentGenerationAvailableMergeFields' },
  { method: 'POST', path: `${BASE}/copy/{documentgenerationtemplateid}`, field: 'Mutation.copyDocumentGenerationTemplate' },
  { method: 'GET', path: `${BASE}/lookup/{documentgenerationtype}`, field: 'Query.documentGenerationTemplateLookup' },
  // The 17 fixed-type lookups: the same field with the type fixed by the route (literal routes win over lookup/{documentgenerationtype}).
  ...DOCUMENT_GENERATION_TYPES.map((type): RouteRow => ({
    method: 'GET', path: `${BASE}/lookup/${type.lookupPath}`, field: 'Query.documentGenerationTemplateLookup', args: { documentGenerationType: type.id },
  })),
];
