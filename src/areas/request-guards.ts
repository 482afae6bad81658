import { defineArea } from '../core/area.js';
import { EXPIRED_IDEMPOTENCY_RECORDS } from '../core/requests/idempotency.js';
import type { JobDefinition } from '../core/runtime/jobs.js';
import { IdempotencyRecord, RateLimitWindow } from '../entities/request-guards.js';

/** Hourly: rate-limit windows that have ended and idempotency records past their 24 hours go. */
const requestGuardsHousekeeping: JobDefinition = {
  name: 'request-guards-housekeeping',
  cron: '7 * * * *',
  async handle(orm) {
    const connection = orm.em.getConnection();
    await connection.execute("DELETE FROM rate_limit_window WHERE window_start < now() - interval '1 hour'");
    await connection.execute(EXPIRED_IDEMPOTENCY_RECORDS);
  },
};

/** Rate limits and idempotency keys, shared by every instance through PostgreSQL (no operations of its own). */
export const requestGuardsArea = defineArea({
  name: 'request-guards',
  entities: [RateLimitWindow, IdempotencyRecord],
  jobs: [requestGuardsHousekeeping],
});
