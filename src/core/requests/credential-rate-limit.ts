import type pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import { ApiError } from '../errors.js';

/** Length of one counting window; the limit is per minute. */
const WINDOW_MS = 60_000;
/** How often counted requests are added to the shared total (and the others' counts learnt back). */
export const FLUSH_INTERVAL_MS = 1_000;

/** One credential's counts in the current window, as this instance knows them. */
interface CredentialWindow {
  /** Epoch milliseconds at which the window began (minutes aligned, the same on every instance). */
  start: number;
  /** The shared total in PostgreSQL when this instance last read or added to it. */
  shared: number;
  /** Requests admitted here and being added to the shared total right now. */
  flushing: number;
  /** Requests admitted here and not yet added to the shared total. */
  pending: number;
  /** The first request of the window reads the shared total; the others of that moment wait for it. */
  loading: Promise<void> | null;
}

/**
 * Signed-in callers are limited per credential (an API key or a session) to `limit` requests a
 * minute, counted across all instances in the same `rate_limit_window` table as the per-address
 * limit (bucket `credential:<id>`, fixed one-minute windows) — but without a statement per
 * request: each instance counts in memory and adds its counts to the shared row once a second
 * (one statement for all credentials it saw), learning the other instances' counts from the
 * same statement. The first request of a credential in a window reads the shared row once.
 *
 * Tolerance: an instance decides on the shared total as of its last flush, and flushes within a
 * second of admitting a request, so across instances a credential may get up to about one second
 * of its traffic (summed over the instances) beyond the limit before every instance refuses —
 * at 6,000/min, about 100 requests. On one instance the limit is exact. Windows follow each
 * instance's clock (aligned to the minute), so instances whose clocks differ by a second share a
 * window for all but that second.
 */
export class CredentialRateLimiter {
  private readonly windows = new Map<number, CredentialWindow>();
  private readonly timer: NodeJS.Timeout | null;
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly pool: pg.Pool,
    /** Requests per credential and minute; 0 turns the limit off. */
    readonly limit: number,
    private readonly log: FastifyBaseLogger,
  ) {
    this.timer = limit > 0 ? setInterval(() => void this.flush(), FLUSH_INTERVAL_MS).unref() : null;
  }

  /** Counts one request of `credentialId`; past the limit a 429 with Retry-After (seconds to the window's end). */
  async take(credentialId: number): Promise<void> {
    if (this.limit <= 0) return;
    const now = Date.now();
    const start = now - (now % WINDOW_MS);
    let window = this.windows.get(credentialId);
    if (!window || window.start !== start) {
      window = { start, shared: 0, flushing: 0, pending: 0, loading: null };
      window.loading = this.load(credentialId, window);
      this.windows.set(credentialId, window);
    }
    if (window.loading) await window.loading;
    if (window.shared + window.flushing + window.pending >= this.limit) {
      const retryAfter = Math.max(1, Math.ceil((window.start + WINDOW_MS - Date.now()) / 1000));
      throw new ApiError(429, 'RATE_LIMITED', `Too many requests: at most ${this.limit} a minute per credential. Try again later.`, [], {
        'Retry-After': String(retryAfter),
      });
    }
    window.pending++;
  }

  /** Reads what the other instances have counted for this credential in this window so far. */
  private async load(credentialId: number, window: CredentialWindow): Promise<void> {
    try {
      const { rows } = await this.pool.query<{ count: number }>(
        'SELECT count FROM rate_limit_window WHERE bucket = $1 AND window_start = to_timestamp($2::float8 / 1000)',
        [bucketOf(credentialId), window.start],
      );
      window.shared = rows[0]?.count ?? 0;
      window.loading = null;
    } catch (error) {
      // The next request tries again (this one fails as any request does while the database is away).
      if (this.windows.get(credentialId) === window) this.windows.delete(credentialId);
      throw error;
    }
  }

  /**
   * Adds the requests counted since the last flush to the shared rows (one statement for every
   * credential), and takes the totals back. Windows that have ended are forgotten.
   */
  async flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    this.flushing = this.flushPending().finally(() => { this.flushing = null; });
    return this.flushing;
  }

  private async flushPending(): Promise<void> {
    const current = Date.now() - (Date.now() % WINDOW_MS);
    const batch: [number, CredentialWindow, number][] = [];
    for (const [credentialId, window] of this.windows) {
      if (window.start < current) this.windows.delete(credentialId);
      else if (window.pending > 0) batch.push([credentialId, window, window.pending]);
    }
    if (batch.length === 0) return;
    for (const [, window, count] of batch) {
      window.pending -= count;
      window.flushing += count;
    }
    try {
      const { rows } = await this.pool.query<{ bucket: string; count: number }>(
        `INSERT INTO rate_limit_window (bucket, window_start, count)
           SELECT bucket, to_timestamp(start / 1000), count FROM unnest($1::text[], $2::float8[], $3::int[]) AS t(bucket, start, count)
         ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limit_window.count + excluded.count
         RETURNING bucket, count`,
        [batch.map(([id]) => bucketOf(id)), batch.map(([, window]) => window.start), batch.map(([, , count]) => count)],
      );
      const totals = new Map(rows.map((row) => [row.bucket, row.count]));
      for (const [credentialId, window, count] of batch) {
        window.flushing -= count;
        window.shared = Math.max(window.shared, totals.get(bucketOf(credentialId)) ?? window.shared + count);
      }
    } catch (error) {
      // Counted again with the next flush; meanwhile this instance still counts them itself.
      for (const [, window, count] of batch) {
        window.flushing -= count;
        window.pending += count;
      }
      this.log.warn({ err: error }, 'could not record credential rate-limit counts');
    }
  }

  /**
   * Stops counting into PostgreSQL (before the pool closes). The last second's counts are not
   * written: a stopping instance should not wait on the database (it may be the one away).
   */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flushing;
  }
}

function bucketOf(credentialId: number): string {
  return `credential:${credentialId}`;
}
