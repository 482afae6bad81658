import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { RequestContext } from '../context.js';
import { ApiError, BadInput } from '../errors.js';
import { inTransaction } from '../data/records.js';

/**
 * Idempotency keys on writes (Stripe's model). A POST or DELETE carrying `Idempotency-Key` runs
 * once for its caller (tenant and credential) and key: its response (any status below 500) is
 * kept for 24 hours; a repeat with the same request gets that response again, the same key with
 * a different request is a 422, and a repeat while the first still runs is a 409 (Retry-After: 1)
 * — so concurrent repeats execute once. A response that failed with 5xx is not kept: nothing of
 * the request is, and a retry executes.
 *
 * Once even when a process dies mid-request: the operation runs in one database transaction
 * that holds the key's record locked (`FOR UPDATE`) and stores the response in that record
 * before it commits. Either the writes and their response commit together (a repeat replays
 * the response) or neither does (a repeat runs afresh); and the lock of a dead process's
 * request is released by PostgreSQL when its connection ends, so no timeout decides when a
 * key may run again.
 */

/** 1 to 255 visible ASCII characters (also the OpenAPI document's pattern for the header). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
const RETENTION = '24 hours';

export interface StoredResponse {
  statusCode: number;
  contentType: string | null;
  body: string | null;
}

/** What a request under a key does: run (the key's record `recordId` holds no response yet), or answer the stored response. */
export type IdempotencyClaim = { execute: true; recordId: number } | { execute: false; response: StoredResponse };

/** A key's record as read: its response, if one is stored and still kept. */
interface KeyRecord {
  request_hash: string;
  state: string;
  status_code: number | null;
  content_type: string | null;
  response_body: string | null;
  expired: boolean;
}

const RECORD_COLUMNS = `request_hash, state, status_code, content_type, response_body, created_at < now() - interval '${RETENTION}' AS expired`;

export function requestFingerprint(method: string, url: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${url}\n${typeof body === 'string' ? body : ''}`).digest('hex');
}

/**
 * Makes sure the key has a record (committed at once, so that concurrent repeats all find it)
 * and answers its stored response if it has one; otherwise the request runs with `runOnce`.
 */
export async function claimIdempotencyKey(
  pool: pg.Pool, caller: { tenantId: number; credentialId: number }, key: string, fingerprint: string,
): Promise<IdempotencyClaim> {
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) throw BadInput.field('Idempotency-Key', 'must be 1 to 255 visible ASCII characters');
  const inserted = await pool.query<{ id: number }>(
    `INSERT INTO idempotency_record (tenant_id, credential_id, key, request_hash, state) VALUES ($1, $2, $3, $4, 'open')
     ON CONFLICT (tenant_id, credential_id, key) DO NOTHING RETURNING id`,
    [caller.tenantId, caller.credentialId, key, fingerprint],
  );
  if (inserted.rows[0]) return { execute: true, recordId: inserted.rows[0].id };
  // A plain read never waits for the request that may be running under the key.
  const { rows } = await pool.query<KeyRecord & { id: number }>(
    `SELECT id, ${RECORD_COLUMNS} FROM idempotency_record WHERE tenant_id = $1 AND credential_id = $2 AND key = $3`,
    [caller.tenantId, caller.credentialId, key],
  );
  const record = rows[0];
  if (!record) throw inProgress(); // removed by the clean-up between the two statements
  const stored = storedResponse(record, fingerprint);
  return stored ? { execute: false, response: stored } : { execute: true, recordId: record.id };
}

export type IdempotentOutcome<R> = { replayed: false; response: R } | { replayed: true; response: StoredResponse };

/**
 * Runs `execute` (the operation, up to its shaped response) once under the claimed key: in one
 * transaction on `ctx.em`, in which the services' own transactions take part, holding the key's
 * record locked, storing the response before the commit. A request that finds the record locked
 * is a repeat while the first runs (409). A refusal (4xx) is stored without the writes the
 * refused operation made; a 5xx answer rolls everything back and leaves the key free.
 */
export async function runOnce<R extends StoredResponse>(ctx: RequestContext, recordId: number, fingerprint: string, execute: () => Promise<R>): Promise<IdempotentOutcome<R>> {
  try {
    return await inTransaction(ctx, async (): Promise<IdempotentOutcome<R>> => {
      const [record] = await ctx.em.execute<KeyRecord[]>(`SELECT ${RECORD_COLUMNS} FROM idempotency_record WHERE id = ? FOR UPDATE SKIP LOCKED`, [recordId]);
      if (!record) throw inProgress();
      // Answered between the claim and this lock.
      const stored = storedResponse(record, fingerprint);
      if (stored) return { replayed: true, response: stored };
      const response = await withRefusalUndone(ctx, execute); // a 5xx throws, rolling everything back
      await ctx.em.execute(
        `UPDATE idempotency_record SET state = 'done', request_hash = ?, status_code = ?, content_type = ?, response_body = ?, created_at = now(), updated_at = now() WHERE id = ?`,
        [fingerprint, response.statusCode, response.contentType, response.body, recordId],
      );
      return { replayed: false, response };
    });
  } catch (error) {
    if (error instanceof FailedAnswer) return { replayed: false, response: error.response as R };
    throw error;
  }
}

/**
 * `execute` in a nested transaction (a savepoint) that a refusal rolls back: a refusal may come
 * from a failed statement (a unique violation answered as 409), after which nothing more could
 * run in the transaction — the refusal could not be stored. So under a key a request either
 * applies its writes and answers below 400, or applies none.
 */
async function withRefusalUndone<R extends StoredResponse>(ctx: RequestContext, execute: () => Promise<R>): Promise<R> {
  try {
    return await inTransaction(ctx, async () => {
      const response = await execute();
      if (response.statusCode >= 400) throw new FailedAnswer(response);
      return response;
    });
  } catch (error) {
    if (!(error instanceof FailedAnswer && error.response.statusCode < 500)) throw error;
    ctx.em.clear(); // nor does the commit write what the refused operation left unflushed
    return error.response as R;
  }
}

/** An operation's answer that must not commit its writes, carried out of the transaction that it rolls back. */
class FailedAnswer extends Error {
  constructor(readonly response: StoredResponse) {
    super(`answered ${response.statusCode}`);
  }
}

/** The response a repeat gets (a 422 when the key was used for another request); null when none is kept. */
function storedResponse(record: KeyRecord, fingerprint: string): StoredResponse | null {
  if (record.state !== 'done' || record.status_code === null || record.expired) return null;
  if (record.request_hash !== fingerprint) {
    throw new ApiError(422, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used for a different request.', [{ field: 'Idempotency-Key', message: 'was used for a different request' }]);
  }
  return { statusCode: record.status_code, contentType: record.content_type, body: record.response_body };
}

function inProgress(): ApiError {
  return new ApiError(409, 'CONFLICT', 'A request with this Idempotency-Key is still in progress.', [], { 'Retry-After': '1' });
}

/** Records past their retention, removed by the hourly clean-up. */
export const EXPIRED_IDEMPOTENCY_RECORDS = `DELETE FROM idempotency_record WHERE created_at < now() - interval '${RETENTION}'`;
