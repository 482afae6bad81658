import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestContext } from '../../core/context.js';
import { toApiError } from '../../core/error-mapping.js';
import { claimIdempotencyKey, finishIdempotencyKey, releaseIdempotencyKey, requestFingerprint } from '../../core/idempotency.js';
import { problemResponse, send, type GatewayResponse } from './responses.js';
import type { CompiledRoute } from './routes.js';

/**
 * Sends the answer of a request: a POST or DELETE of a signed-in caller with an Idempotency-Key
 * (core/idempotency.ts) runs once per caller and key, and a repeat gets the stored response again.
 */
export async function sendOnce(
  request: FastifyRequest, reply: FastifyReply, route: CompiledRoute, contextValue: RequestContext,
  answer: () => Promise<GatewayResponse>, onUnexpectedError: (error: unknown) => void,
) {
  const key = request.method !== 'GET' ? request.headers['idempotency-key'] : undefined;
  const caller = contextValue.caller;
  if (typeof key !== 'string' || !caller) return send(reply, await answer());
  // A write with an Idempotency-Key runs once per caller and key; repeats get its response again.
  const { pool } = contextValue.app;
  const claim = await claimIdempotencyKey(pool, caller, key, requestFingerprint(request.method, request.url, request.body));
  if (!claim.execute) return send(reply.header('idempotent-replayed', 'true'), { ...claim.response, headers: {} });
  let response: GatewayResponse;
  try {
    response = await answer();
  } catch (error) {
    const apiError = toApiError(error, onUnexpectedError);
    // A refusal of the request itself (400, 415, ...) is its answer; a failure (5xx) may be retried.
    await (apiError.status >= 500 ? releaseIdempotencyKey(pool, claim.recordId) : finishIdempotencyKey(pool, claim.recordId, problemResponse(apiError, request.url, route.row.publicApiResponse)));
    throw apiError;
  }
  await finishIdempotencyKey(pool, claim.recordId, response);
  return send(reply, response);
}
