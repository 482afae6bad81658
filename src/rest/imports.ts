import type { RouteRow } from './route-table.js';

/** Contact imports (our extension): the upload, the rejected rows and the export are raw routes (http/imports.ts). */
export const importsRoutes: RouteRow[] = [
  { method: 'GET', path: '/api/imports/{importid}', field: 'Query.contactImport', extension: true, summary: 'A contact import: state, progress and counts.' },
  { method: 'GET', path: '/api/imports/{importid}/preview', field: 'Query.contactImportPreview', extension: true, summary: 'Headers, first rows and suggested column mapping of an uploaded file.' },
  { method: 'GET', path: '/api/imports/{importid}/rows', field: 'Query.contactImportRows', extension: true, summary: 'Row outcomes of an import\'s runs (options: DryRun, Outcome, Skip, Take).' },
  { method: 'POST', path: '/api/imports/{importid}/start', field: 'Mutation.startContactImport', body: 'input', extension: true, summary: 'Starts a dry run or the import of an uploaded file.' },
  { method: 'POST', path: '/api/imports/{importid}/cancel', field: 'Mutation.cancelContactImport', extension: true, summary: 'Cancels the run under way after its current batch.' },
];
