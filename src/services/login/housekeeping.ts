import type { MikroORM } from '@mikro-orm/postgresql';
import type { JobDefinition } from '../../core/runtime/jobs.js';
import { acrossTenantsSql } from '../../core/data/tenant-sql.js';

/** How long expired or revoked credentials and used links are kept (for audit) before removal. */
const RETENTION = '30 days';

/**
 * Daily clean-up: removes sign-in links that were used or expired, sessions that expired or were
 * revoked, and rate-limit records older than a day.
 */
export const housekeepingJob: JobDefinition = {
  name: 'identity-housekeeping',
  cron: '17 3 * * *',
  async handle(orm: MikroORM) {
    // Every tenant's: the named cross-tenant path (row-level security).
    const sql = acrossTenantsSql(orm.em);
    await sql.run(`DELETE FROM magic_link_token WHERE coalesce(used_at, expires_at) < now() - interval '${RETENTION}'`);
    await sql.run(`DELETE FROM credential WHERE kind = 'session' AND coalesce(revoked_at, expires_at) < now() - interval '${RETENTION}'`);
    await sql.run("DELETE FROM sign_in_request WHERE requested_at < now() - interval '1 day'");
  },
};
