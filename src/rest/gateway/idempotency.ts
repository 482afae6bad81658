import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestContext } from '../../core/context.js';
import { toApiError } from '../../core/error-mapping.js';
import { claimIdempotencyKey, requestFingerprint, runOnce } from '../../core/requests/idempotency.js';
import { problemResponse, send, type GatewayResponse } from './responses.js';
import type { CompiledRoute } from './routes.js';

/** The Idempotency-Key under which the request's response is stored, or null (a GET, no key, no caller). */
export function idempotencyKeyOf(request: FastifyRequest, contextValue: RequestContext): string | null {
  const key = request.method !== 'GET' ? request.headers['idempotency-key'] : undefined;
  return typeof key === 'string' && contextValue.caller ? key : null;
}

/**
 * Sends the answer of a request: a POST or DELETE of a signed-in caller with an Idempotency-Key
 * (core/requests/idempotency.ts) runs once per caller and key, and a repeat gets the stored response again.
 */
export async function sendOnce(
  request: FastifyRequest, reply: FastifyReply, route: CompiledRoute, contextValue: RequestContext,
  answer: () => Promise<GatewayResponse>, onUnexpectedError: (error: unknown) => void,
) {
  const key = idempotencyKeyOf(request, contextValue);
  const caller = contextValue.caller;
  if (key === null || !caller) return send(reply, await answer());
  // A write with an Idempotency-Key runs once per caller and key; repeats get its response again.
  const fingerprint = requestFingerprint(request.method, request.url, request.body);
  const claim = await claimIdempotencyKey(contextValue.app.pool, caller, key, fingerprint);
  // The operation's answer; a refusal of the request itself (400, 415, ...) is one too, stored like any other.
  const execute = () => answer()
    .catch((error: unknown) => problemResponse(toApiError(error, onUnexpectedError), request.url, route.row.publicApiResponse));
  const outcome = claim.execute ? await runOnce(contextValue, claim.recordId, fingerprint, execute) : { replayed: true as const, response: claim.response };
  if (outcome.replayed) return send(reply.header('idempotent-replayed', 'true'), { ...outcome.response, headers: {} });
  return send(reply, outcome.response);
}
