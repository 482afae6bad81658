import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../core/context.js';
import { ApiError, BadInput, ServiceUnavailable } from '../core/errors.js';
import { TENANT_KEY_PATTERN } from '../core/values.js';
import { CALLBACK_PROVIDERS, type CallbackProvider } from '../entities/callback.js';
import { shapeProblem, urlValidationToken } from '../services/callbacks/callback-formats.js';
import {
  CallbackSecrets, encryptedToken, SIGNATURE_HEADER, signatureValid, signedDigest, storeCallback, TIMESTAMP_HEADER, type TenantSecret,
} from '../services/callbacks/callbacks.js';
import { closeUnreadBody } from '../rest/gateway/responses.js';
import { nestingDepth } from '../core/requests/json-depth.js';
import type { AreaRoutes } from './area-routes.js';

/** Largest callback body accepted; larger is a 413 before anything is stored. */
export const CALLBACK_BODY_LIMIT = 1024 * 1024;

/** The headers kept with a stored callback (besides the remote address). */
const KEPT_HEADERS = ['content-type', 'user-agent', 'x-request-id', TIMESTAMP_HEADER, SIGNATURE_HEADER];

/**
 * The inbound provider callbacks (`/api/callback/*`). They are outside the route table because
 * the signature is computed over the raw bytes of the body: this scope alone reads bodies as
 * bytes. Each POST: the tenant from `?tenant=<tenant key>`, then the signature (401, nothing
 * stored), the JSON and its outer shape (400), then the callback and its processing job are
 * committed together and only then answered 200 with an empty body (503 if that fails, so the
 * provider retries). The body limit (413) applies before any of it.
 */
export const callbackRoutes: AreaRoutes = {
  operations: [
    { method: 'POST', path: '/api/callback/emailprovider1', summary: 'Signed provider callback: X-Callback-Timestamp and X-Callback-Signature (HMAC-SHA256 of "<timestamp>.<raw body>" with the tenant\'s secret), tenant key in ?tenant=. 200 once stored.', authentication: 'signature' },
    { method: 'GET', path: '/api/callback/emailprovider2', summary: 'The provider\'s probe: 200 with an empty body.', authentication: 'none' },
    { method: 'POST', path: '/api/callback/emailprovider2', summary: 'Signed provider callback: X-Callback-Timestamp and X-Callback-Signature (HMAC-SHA256 of "<timestamp>.<raw body>" with the tenant\'s secret), tenant key in ?tenant=. 200 once stored.', authentication: 'signature' },
    { method: 'POST', path: '/api/callback/emailprovider3', summary: 'Signed provider callback: X-Callback-Timestamp and X-Callback-Signature (HMAC-SHA256 of "<timestamp>.<raw body>" with the tenant\'s secret), tenant key in ?tenant=. 200 once stored.', authentication: 'signature' },
    { method: 'POST', path: '/api/callback/emailprovider4', summary: 'Signed provider callback: X-Callback-Timestamp and X-Callback-Signature (HMAC-SHA256 of "<timestamp>.<raw body>" with the tenant\'s secret), tenant key in ?tenant=. 200 once stored.', authentication: 'signature' },
    { method: 'POST', path: '/api/callback/meetingprovider', summary: 'Signed provider callback: X-Callback-Timestamp and X-Callback-Signature (HMAC-SHA256 of "<timestamp>.<raw body>" with the tenant\'s secret), tenant key in ?tenant=. 200 once stored.', authentication: 'signature' },
  ],
  async register(server, _contextFor, deps) {
    const secrets = new CallbackSecrets(deps.pool);
    await server.register(async (scope) => {
      // Refused before the body is read (hostile traffic costs no body buffering): a malformed
      // tenant key, or signature headers that are missing, malformed or stale.
      scope.addHook('onRequest', (request, reply, done) => {
        if (request.method !== 'POST') return done();
        const given = (request.query as Record<string, unknown>).tenant;
        const { [TIMESTAMP_HEADER]: timestamp, [SIGNATURE_HEADER]: signature } = request.headers;
        if (typeof given !== 'string' || !TENANT_KEY_PATTERN.test(given.toLowerCase()) || !signedDigest(timestamp, signature)) {
          closeUnreadBody(request, reply);
          return done(notAuthenticated());
        }
        done();
      });
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: CALLBACK_BODY_LIMIT }, (_request, body, done) => done(null, body));
      // The provider's probe (GET, and HEAD through Fastify): answered, nothing else.
      scope.get('/api/callback/emailprovider2', async (_request, reply) => reply.code(200).send());
      for (const provider of CALLBACK_PROVIDERS) {
        scope.post(`/api/callback/${provider}`, { bodyLimit: CALLBACK_BODY_LIMIT }, (request, reply) => receive(deps, secrets, provider, request, reply));
      }
    });
  },
};

async function receive(deps: AppDeps, secrets: CallbackSecrets, provider: CallbackProvider, request: FastifyRequest, reply: FastifyReply) {
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  const given = (request.query as Record<string, unknown>).tenant;
  const tenantKey = typeof given === 'string' ? given.toLowerCase() : '';
  if (!TENANT_KEY_PATTERN.test(tenantKey)) throw notAuthenticated();
  const { [TIMESTAMP_HEADER]: timestamp, [SIGNATURE_HEADER]: signature } = request.headers;
  let found: TenantSecret | null;
  try {
    found = await secrets.authenticate(tenantKey, provider, (secret) => signatureValid(secret, timestamp, signature, body));
  } catch (error) {
    request.log.error({ err: error }, 'callback secret lookup failed');
    throw new ServiceUnavailable();
  }
  if (!found) throw notAuthenticated();

  const { text, value } = parseJson(body);
  const problem = shapeProblem(provider, value);
  if (problem) throw BadInput.field('body', problem);
  const plainToken = urlValidationToken(provider, value);
  if (plainToken) return reply.code(200).send({ plainToken, encryptedToken: encryptedToken(found.secret, plainToken) });

  const headers: Record<string, string> = { 'remote-address': request.ip };
  for (const name of KEPT_HEADERS) {
    const given = request.headers[name];
    if (typeof given === 'string') headers[name] = given.slice(0, 500);
  }
  await storeCallback(deps.pool, { tenantId: found.tenantId, provider, headers, body: text }, (error) => {
    request.log.error({ err: error, provider }, 'callback not stored');
  }, { prepared: !deps.config.DATABASE_PGBOUNCER });
  deps.metrics.callbacksStored.inc({ provider });
  return reply.code(200).send();
}

function notAuthenticated(): ApiError {
  return new ApiError(401, 'UNAUTHENTICATED', 'The callback could not be authenticated (unknown tenant, or a missing, wrong or expired signature).', [], {
    'WWW-Authenticate': 'Callback-Signature',
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** No provider nests its events deeper; deeper is refused before parsing (a parser's recursion has limits too). */
export const CALLBACK_MAX_NESTING = 32;

function parseJson(body: Buffer): { text: string; value: unknown } {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw BadInput.field('body', 'is not UTF-8');
  }
  if (nestingDepth(text) > CALLBACK_MAX_NESTING) throw BadInput.field('body', `nests deeper than ${CALLBACK_MAX_NESTING} levels`);
  try {
    return { text, value: JSON.parse(text) };
  } catch {
    throw BadInput.field('body', text.trim() ? 'is not valid JSON' : 'is required');
  }
}
