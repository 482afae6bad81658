import type { MikroORM } from '@mikro-orm/postgresql';
import { todayUtc } from '../../core/dates.js';
import type { JobDefinition } from '../../core/runtime/jobs.js';
import { acrossTenantsSql } from '../../core/data/tenant-sql.js';

/*
 * The daily lapse: active terms whose good standing has run out (good_through before today) turn
 * lapsed, in every tenant, except terms whose status staff set by hand (status_override). Each
 * batch is one conditional UPDATE that repeats the condition, over rows taken with SKIP LOCKED:
 * two instances running it at once (or a run repeated) never lapse a term twice, and a term a
 * request is changing is left for the next run. The update moves updated_at and audit_id on, so
 * the partner feed and any reader of versions see the change; the dashboards count the term as
 * dropped from its end date (they read dates, not this status).
 */

export const LAPSE_QUEUE = 'memberships-lapse';
const BATCH = 1000;

/** Lapses the terms due on `today`, batch by batch; answers how many this call lapsed. */
export async function lapseEndedMemberships(orm: MikroORM, today = todayUtc()): Promise<number> {
  const sql = acrossTenantsSql(orm.em.fork({ clear: true, useContext: false }));
  // Its end date plus grace days has passed (good_through: null for an open-ended term, which never lapses).
  const due = `m.status = 'active' and not m.status_override and m.good_through < ?::date`;
  let lapsed = 0;
  for (;;) {
    const rows = await sql.all<{ id: number }>(
      `with due as (select m.id from membership m where ${due} order by m.id limit ${BATCH} for update skip locked)
       update membership m set status = 'lapsed', audit_id = m.audit_id + 1, updated_at = now()
         from due where m.id = due.id and ${due} returning m.id`, [today, today]);
    lapsed += rows.length;
    if (rows.length < BATCH) return lapsed;
  }
}

export const membershipLapseJob: JobDefinition = {
  name: LAPSE_QUEUE,
  // Daily, just after midnight UTC (the day terms end in).
  cron: '5 0 * * *',
  queue: { retryLimit: 3, retryBackoff: true, expireInSeconds: 1800 },
  handle: async (orm) => {
    await lapseEndedMemberships(orm);
  },
};
