import type { RouteRow } from './route-table.js';

export const signatureRoutes: RouteRow[] = [
  { method: 'GET', path: '/api/signatures/{signatureid}', field: 'Query.signature' },
  { method: 'POST', path: '/api/signatures/{signatureid}', field: 'Mutation.saveSignature', body: 'input' },
  { method: 'DELETE', path: '/api/signatures/{signatureid}', field: 'Mutation.deleteSignature', emptyResponse: true },
  { method: 'GET', path: '/api/signatures/currentusersignatures', field: 'Query.currentUserSignatures' },
  { method: 'GET', path: '/api/signatures/items', field: 'Query.signatures' },
  { method: 'GET', path: '/api/signatures/lookup', field: 'Query.signatureLookup' },
  { method: 'GET', path: '/api/signatures/managesignaturedialog', field: 'Query.manageSignatureDialog' },
];
