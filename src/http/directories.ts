import rateLimit from '@fastify/rate-limit';
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TooManyRequests } from '../core/errors.js';
import type { AreaRoutes } from './area-routes.js';

/** The public directory operations (served by the route table): `/api/directory/directories/{id}/public/…`. */
const PUBLIC_PATH = /^\/+api\/+directory\/+directories\/+[^/?]+\/+public(?:\/|$)/i;

/** How long a public answer may be reused without asking again. */
const MAX_AGE_SECONDS = 60;

export function isPublicDirectoryPath(url: string): boolean {
  return PUBLIC_PATH.test(url);
}

/**
 * What the public directory needs beyond its route rows: a per-client-address rate limit
 * (@fastify/rate-limit's in-memory store: the limit holds per instance, so behind N instances a
 * client gets up to N times DIRECTORY_PUBLIC_RATE_LIMIT_PER_MINUTE), checked before any database
 * work; and cacheable answers: an ETag (SHA-256 of the body), `Cache-Control` (public for an
 * anonymous caller, private for a signed-in one, who is always served its own tenant) varying on
 * what settles the tenant, and 304 for a matching If-None-Match. No documented operation is served
 * here: the hooks wrap the gateway's routes.
 */
export const directoryPublicRoutes: AreaRoutes = {
  operations: [],
  async register(server, _contextFor, deps) {
    await server.register(rateLimit, { global: false });
    const limit = server.createRateLimit({ max: deps.config.DIRECTORY_PUBLIC_RATE_LIMIT_PER_MINUTE, timeWindow: 60_000 });
    server.addHook('onRequest', async (request: FastifyRequest) => {
      if (!isPublicDirectoryPath(request.url)) return;
      const verdict = await limit(request);
      // `isAllowed` means "exempt" (an allow list); `isExceeded` is the verdict.
      if (!verdict.isAllowed && verdict.isExceeded) throw new TooManyRequests(Math.max(1, verdict.ttlInSeconds));
    });
    server.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      if ((request.method !== 'GET' && request.method !== 'HEAD') || reply.statusCode !== 200 || typeof payload !== 'string' || !isPublicDirectoryPath(request.url)) return payload;
      const etag = `"${createHash('sha256').update(payload).digest('base64url')}"`;
      reply.header('etag', etag);
      reply.header('cache-control', `${request.headers.authorization ? 'private' : 'public'}, max-age=${MAX_AGE_SECONDS}`);
      reply.header('vary', 'Authorization, X-Tenant-Key, Host');
      if (etagMatches(request.headers['if-none-match'], etag)) {
        reply.code(304);
        return '';
      }
      return payload;
    });
  },
};

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}
