import { createHash } from 'node:crypto';
import type pg from 'pg';
import { ApiError, BadInput } from './errors.js';

/**
 * Idempotency keys on writes (Stripe's model). A POST or DELETE carrying `Idempotency-Key`
 * claims the key for its caller (tenant and credential): the first request executes and its
 * response (any status below 500) is kept for 24 hours; a repeat with the same request gets that
 * response again, the same key with a different request is a 422, and a repeat while the first
 * still runs is a 409 (Retry-After: 1) — so concurrent repeats execute once. A response that
 * failed with 5xx is not kept: the key is released and a retry executes. A claim whose request
 * never finished (its process died) may be taken over by a repeat after a minute.
 */

const KEY = /^[\x21-\x7e]{1,255}$/;
const RETENTION = '24 hours';
const ABANDONED_AFTER = '60 seconds';

export interface StoredResponse {
  statusCode: number;
  contentType: string | null;
  body: string | null;
}

export type IdempotencyClaim = { execute: true; recordId: number } | { execute: false; response: StoredResponse };

export function requestFingerprint(method: string, url: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${url}\n${typeof body === 'string' ? body : ''}`).digest('hex');
}

export async function claimIdempotencyKey(
  pool: pg.Pool, caller: { tenantId: number; credentialId: number }, key: string, fingerprint: string,
): Promise<IdempotencyClaim> {
  if (!KEY.test(key)) throw BadInput.field('Idempotency-Key', 'must be 1 to 255 visible ASCII characters');
  const claimed = await pool.query<{ id: number }>(
    `INSERT INTO idempotency_record (tenant_id, credential_id, key, request_hash, state)
       VALUES ($1, $2, $3, $4, 'running')
     ON CONFLICT (tenant_id, credential_id, key) DO UPDATE
       SET state = 'running', request_hash = EXCLUDED.request_hash, status_code = NULL, response_body = NULL, content_type = NULL,
           created_at = now(), updated_at = now()
       WHERE idempotency_record.created_at < now() - interval '${RETENTION}'
          OR (idempotency_record.state = 'running' AND idempotency_record.updated_at < now() - interval '${ABANDONED_AFTER}'
              AND idempotency_record.request_hash = EXCLUDED.request_hash)
     RETURNING id`,
    [caller.tenantId, caller.credentialId, key, fingerprint],
  );
  if (claimed.rows[0]) return { execute: true, recordId: claimed.rows[0].id };
  const { rows } = await pool.query<{ request_hash: string; state: string; status_code: number | null; content_type: string | null; response_body: string | null }>(
    'SELECT request_hash, state, status_code, content_type, response_body FROM idempotency_record WHERE tenant_id = $1 AND credential_id = $2 AND key = $3',
    [caller.tenantId, caller.credentialId, key],
  );
  const record = rows[0];
  // Released between the two statements (its request failed): the caller may simply retry.
  if (!record) throw new ApiError(409, 'CONFLICT', 'A request with this Idempotency-Key has just failed; retry it.', [], { 'Retry-After': '1' });
  if (record.request_hash !== fingerprint) {
    throw new ApiError(422, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used for a different request.', [{ field: 'Idempotency-Key', message: 'was used for a different request' }]);
  }
  if (record.state !== 'done' || record.status_code === null) {
    throw new ApiError(409, 'CONFLICT', 'A request with this Idempotency-Key is still in progress.', [], { 'Retry-After': '1' });
  }
  return { execute: false, response: { statusCode: record.status_code, contentType: record.content_type, body: record.response_body } };
}

/** Keeps the response of the request that claimed the key (a 5xx releases the key instead). */
export async function finishIdempotencyKey(pool: pg.Pool, recordId: number, response: StoredResponse): Promise<void> {
  if (response.statusCode >= 500) {
    await releaseIdempotencyKey(pool, recordId);
    return;
  }
  await pool.query(
    "UPDATE idempotency_record SET state = 'done', status_code = $2, content_type = $3, response_body = $4, updated_at = now() WHERE id = $1",
    [recordId, response.statusCode, response.contentType, response.body],
  );
}

export async function releaseIdempotencyKey(pool: pg.Pool, recordId: number): Promise<void> {
  await pool.query('DELETE FROM idempotency_record WHERE id = $1', [recordId]);
}

/** Records past their retention, removed by the hourly clean-up. */
export const EXPIRED_IDEMPOTENCY_RECORDS = `DELETE FROM idempotency_record WHERE created_at < now() - interval '${RETENTION}'`;
