import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestInfo } from '../core/context.js';
import type { TenantCorsOrigins } from '../services/cors-origins/cors-origins.js';

const ALLOW_METHODS = 'GET, POST, DELETE';
const ALLOW_HEADERS = 'Authorization, Content-Type, X-Request-Id, Apollo-Require-Preflight, X-Read-Primary, Idempotency-Key, X-Tenant-Key';
const EXPOSE_HEADERS = 'X-Request-Id, Retry-After, WWW-Authenticate, ETag, Content-Disposition, Idempotent-Replayed, Allow';
/** How long a browser may reuse a preflight answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * CORS: an allowed origin — one of `CORS_ORIGINS` (every request), or one the tenant a request
 * names allows (services/cors-origins/cors-origins.ts) — gets `Access-Control-Allow-Origin` on every answer and
 * its preflight answered with the methods and headers it may use. Any other origin gets no
 * `Access-Control-*` header at all (the browser then refuses), and its preflight the same empty
 * 204, so a preflight never depends on whether the path exists. Bearer tokens, not cookies: no
 * credentials mode. An OPTIONS that is no preflight (no Origin or no
 * Access-Control-Request-Method) is an ordinary request: the server's 405 (or 404).
 */
export function addCors(server: FastifyInstance, options: { origins: ReadonlySet<string>; tenantOrigins: TenantCorsOrigins }): void {
  const allows = async (origin: string, request: FastifyRequest) => {
    if (options.origins.has(origin)) return true;
    const { tenantKey, host } = requestInfo(request);
    return options.tenantOrigins.allows(origin, { tenantKey, host });
  };
  server.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    if (origin === undefined) return done();
    const preflight = request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
    // The answer depends on Origin: caches must keep one per origin.
    reply.header('vary', 'Origin');
    allows(origin, request).then((allowed) => {
      if (allowed) reply.header('access-control-allow-origin', origin).header('access-control-expose-headers', EXPOSE_HEADERS);
      if (!preflight) return done();
      answerPreflight(reply, allowed);
    }, done);
  });
}

function answerPreflight(reply: FastifyReply, allowed: boolean): void {
  if (allowed) {
    reply
      .header('access-control-allow-methods', ALLOW_METHODS)
      .header('access-control-allow-headers', ALLOW_HEADERS)
      .header('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS));
  }
  void reply.code(204).header('content-length', '0').send();
}
