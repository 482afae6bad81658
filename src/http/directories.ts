import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AreaRoutes } from './area-routes.js';

/** The public directory operations (served by the route table): `/api/directory/directories/{id}/public/…`. */
const PUBLIC_PATH = /^\/+api\/+directory\/+directories\/+[^/?]+\/+public(?:\/|$)/i;

/** How long a public answer may be reused without asking again. */
const MAX_AGE_SECONDS = 60;

export function isPublicDirectoryPath(url: string): boolean {
  return PUBLIC_PATH.test(url);
}

/**
 * What the public directory needs beyond its route rows (the gateway's shared per-address rate
 * limit for anonymous callers applies to them as to every public operation): cacheable answers.
 * An ETag (SHA-256 of the body), `Cache-Control` (public for an anonymous caller, private for a
 * signed-in one, who is always served its own tenant) varying on what settles the tenant, and 304
 * for a matching If-None-Match. No documented operation is served here: the hook wraps the
 * gateway's routes.
 */
export const directoryPublicRoutes: AreaRoutes = {
  operations: [],
  register(server) {
    // Callback form: every response passes this hook, and an async hook costs a promise and a microtask hop each (app.ts).
    server.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
      if ((request.method !== 'GET' && request.method !== 'HEAD') || reply.statusCode !== 200 || typeof payload !== 'string' || !isPublicDirectoryPath(request.url)) return done(null, payload);
      const etag = `"${createHash('sha256').update(payload).digest('base64url')}"`;
      reply.header('etag', etag);
      reply.header('cache-control', `${request.headers.authorization ? 'private' : 'public'}, max-age=${MAX_AGE_SECONDS}`);
      reply.header('vary', 'Authorization, X-Tenant-Key, Host');
      if (etagMatches(request.headers['if-none-match'], etag)) {
        reply.code(304);
        return done(null, '');
      }
      done(null, payload);
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
