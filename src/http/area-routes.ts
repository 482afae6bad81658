import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppDeps, RequestContext } from '../core/context.js';
import type { HttpMethod } from '../rest/route-table.js';

/** An operation a raw route serves, as the OpenAPI document describes it (src/rest/openapi.ts). */
export interface RawOperation {
  method: HttpMethod;
  path: string;
  summary?: string;
  /** How callers prove who they are: a bearer credential (the default), or a provider signature. */
  authentication?: 'bearer' | 'signature' | 'none';
  /** Roles required beyond signing in (as `ctx.requireRole` checks them). */
  roles?: readonly string[];
  /** Path parameters that are not int32 ids (the default): their JSON Schema. */
  pathRules?: Record<string, Record<string, unknown>>;
  /** A multipart/form-data upload: one part `file` of these media types, at most `maxBytes` (UPLOAD_MAX_BYTES' default), and the text fields of input model `fields`. */
  upload?: { fileTypes: readonly string[]; maxBytes: number; fields?: string };
  /** What a 200 answers: a JSON model (`schema`, a component name), file bytes of `mediaTypes`, or nothing. */
  answers?: { mediaTypes: readonly string[]; schema?: string | Record<string, unknown> };
  /** Statuses it answers beyond the generic ones of its inputs and credential (304, 403, 409...). */
  statuses?: readonly number[];
  /** Our own addition, not one of the documented operations (not counted as one; swept all the same). */
  extension?: true;
}

/**
 * Routes outside the route table, only where an operation needs the raw request or response
 * (uploads, downloads, callbacks, feeds). They call the same services with the same request
 * context. An area exports one `AreaRoutes` from `src/http/<area>.ts` and names it in
 * its manifest's `rawRoutes`.
 */
export interface AreaRoutes {
  /** The documented operations these routes serve (counted by `npm run coverage:routes`). */
  operations: RawOperation[];
  /** `deps` is for routes that must not pay for a request context (callback ingestion). */
  register(server: FastifyInstance, contextFor: (request: FastifyRequest) => Promise<RequestContext>, deps: AppDeps): Promise<void> | void;
}
