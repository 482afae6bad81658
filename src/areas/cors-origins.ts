import { defineArea } from '../core/area.js';
import { TenantCorsOrigin } from '../entities/cors-origin.js';
import { CorsOriginResolver } from '../resolvers/cors-origins.js';
import { corsOriginRoutes } from '../rest/cors-origins.js';

/** Each tenant's allowed browser origins (CORS): see services/cors-origins/cors-origins.ts and http/cors.ts. */
export const corsOriginsArea = defineArea({
  name: 'cors-origins',
  entities: [TenantCorsOrigin],
  resolvers: [CorsOriginResolver],
  routes: corsOriginRoutes,
});
