import type { RouteRow } from './route-table.js';

/** Our addition (no documented path): a tenant's allowed browser origins. The body of the POST is the JSON array of origins. */
export const corsOriginRoutes: RouteRow[] = [
  { method: 'GET', path: '/api/setup/corsorigins', field: 'Query.corsOrigins', extension: true, summary: 'The browser origins this tenant allows (CORS), staff only.' },
  { method: 'POST', path: '/api/setup/corsorigins', field: 'Mutation.saveCorsOrigins', body: 'origins', extension: true, summary: 'Replaces the browser origins this tenant allows (CORS), staff only; the body is a JSON array of origins.' },
];
