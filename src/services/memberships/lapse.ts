import type { MikroORM } from '@mikro-orm/postgresql';
import { todayUtc } from '../../core/dates.js';
import type { JobDefinition } from '../../core/runtime/jobs.js';
import { acrossTenants, acrossTenantsSql } from '../../core/data/tenant-sql.js';
import { jobContext } from '../../core/runtime/job-context.js';
import { emitMembershipEvent } from './memberships.js';

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
  const em = acrossTenants(orm.em.fork({ clear: true, useContext: false }));
  // Its end date plus grace days has passed (good_through: null for an open-ended term, which never lapses).
  const due = `m.status = 'active' and not m.status_override and m.good_through < ?::date`;
  let lapsed = 0;
  for (;;) {
    // A batch and its webhook events commit together: a lapse is never told twice, nor lost.
    const count = await em.transactional(async (tx) => {
      const rows = await acrossTenantsSql(tx).all<LapsedTerm>(
        `with due as (select m.id from membership m where ${due} order by m.id limit ${BATCH} for update skip locked)
         update membership m set status = 'lapsed', audit_id = m.audit_id + 1, updated_at = now()
           from due where m.id = due.id and ${due}
         returning m.id, m.tenant_id, m.contact_id, m.membership_type_id, to_char(m.start_date, 'YYYY-MM-DD') as start_date, to_char(m.end_date, 'YYYY-MM-DD') as end_date`,
        [today, today]);
      for (const row of rows) {
        await emitMembershipEvent(jobContext(tx, row.tenant_id), 'membership.lapsed', {
          MembershipId: row.id, ContactId: row.contact_id, MembershipTypeId: row.membership_type_id, StartDate: row.start_date, EndDate: row.end_date, Status: 'lapsed',
        });
      }
      return rows.length;
    });
    lapsed += count;
    if (count < BATCH) return lapsed;
  }
}

interface LapsedTerm { id: number; tenant_id: number; contact_id: number; membership_type_id: number; start_date: string; end_date: string }

export const membershipLapseJob: JobDefinition = {
  name: LAPSE_QUEUE,
  // Daily, just after midnight UTC (the day terms end in).
  cron: '5 0 * * *',
  queue: { retryLimit: 3, retryBackoff: true, expireInSeconds: 1800 },
  handle: async (orm) => {
    await lapseEndedMemberships(orm);
  },
};
