import type { EntityManager } from '@mikro-orm/postgresql';
import { RequestContext, type AppDeps, type RequestInfo } from '../context.js';

/**
 * A job runs with no request: these stand in for the HTTP request's facts, and for the
 * application's dependencies where a job is given none (any use of them is a programming error,
 * reported as such rather than as `undefined`).
 */
const JOB_REQUEST: RequestInfo = { id: 'job', ip: '127.0.0.1', userAgent: null, tenantKey: null, host: null };
const NO_DEPS = new Proxy({}, {
  get(_target, key) {
    throw new Error(`A background job has no application dependency "${String(key)}"`);
  },
}) as AppDeps;

/**
 * A request context for background work on behalf of one tenant (as its back office), so that
 * jobs call the same services as requests do (`createInvoice`, the kit's record helpers) with
 * `ctx.em` confined to that tenant by the tenant filter.
 */
export function jobContext(em: EntityManager, tenantId: number, deps: AppDeps = NO_DEPS): RequestContext {
  return new RequestContext(deps, em, { tenantId, loginId: 0, contactId: null, roles: ['staff'], credentialId: 0 }, JOB_REQUEST);
}
