import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppDeps, RequestContext } from '../core/context.js';
import type { HttpMethod } from '../rest/route-table.js';

/**
 * Routes outside the route table, only where an operation needs the raw request or response
 * (uploads, downloads, callbacks, feeds). They call the same services with the same request
 * context. An area exports one `AreaRoutes` from `src/http/<area>.ts` and names it in
 * its manifest's `rawRoutes`.
 */
export interface AreaRoutes {
  /** The documented operations these routes serve (counted by `npm run coverage:routes`). */
  operations: {
    method: HttpMethod;
    path: string;
    summary?: string;
    /** How callers prove who they are: a bearer credential (the default), or a provider signature. */
    authentication?: 'bearer' | 'signature' | 'none';
    /** Our own addition, not one of the documented operations (not counted as one; swept all the same). */
    extension?: true;
  }[];
  /** `deps` is for routes that must not pay for a request context (callback ingestion). */
  register(server: FastifyInstance, contextFor: (request: FastifyRequest) => Promise<RequestContext>, deps: AppDeps): Promise<void> | void;
}
