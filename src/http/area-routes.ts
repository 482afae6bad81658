import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RequestContext } from '../core/context.js';
import { calendarFeedRoutes } from './calendars.js';

/**
 * Routes outside the route table, only where an operation needs the raw request or response
 * (uploads, downloads, callbacks, feeds). They call the same services with the same request
 * context. An area exports one from `src/http/<area>.ts` and lists it in `areaRoutes` below.
 */
export type AreaRoutes = (server: FastifyInstance, contextFor: (request: FastifyRequest) => Promise<RequestContext>) => Promise<void> | void;

export const areaRoutes: AreaRoutes[] = [calendarFeedRoutes];
