import type pg from 'pg';
import type { RequestContext } from '../context.js';
import { ApiError } from '../errors.js';

/**
 * A fixed-window request counter shared by every instance (one upserted row per bucket and
 * window in PostgreSQL): `limit` requests per `windowSeconds`, then 429 with Retry-After until
 * the window ends. One statement per guarded request.
 */
export async function takeRateLimitToken(pool: pg.Pool, bucket: string, limit: number, windowSeconds: number): Promise<void> {
  const { rows } = await pool.query<{ count: number; retry_after: number }>(
    `INSERT INTO rate_limit_window (bucket, window_start, count)
       VALUES ($1, to_timestamp(floor(extract(epoch FROM now()) / $2) * $2), 1)
     ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limit_window.count + 1
     RETURNING count, ceil(extract(epoch FROM window_start + make_interval(secs => $2) - now()))::int AS retry_after`,
    [bucket.slice(0, 200), windowSeconds],
  );
  const row = rows[0];
  if (row.count > limit) {
    throw new ApiError(429, 'RATE_LIMITED', `Too many requests: at most ${limit} in ${windowSeconds} seconds. Try again later.`, [], {
      'Retry-After': String(Math.max(1, row.retry_after)),
    });
  }
}

/**
 * Anonymous callers of public operations are counted per client address and interface (`scope`),
 * shared by every instance: beyond PUBLIC_RATE_LIMIT_PER_MINUTE a 429 with Retry-After.
 */
export async function limitAnonymous(ctx: RequestContext, scope: string): Promise<void> {
  const limit = ctx.app.config.PUBLIC_RATE_LIMIT_PER_MINUTE;
  if (limit > 0 && !ctx.caller) await takeRateLimitToken(ctx.app.pool, `${scope}:${ctx.request.ip}`, limit, 60);
}
