import type { MikroORM } from '@mikro-orm/postgresql';
import { todayUtc } from '../../core/dates.js';
import type { JobDefinition } from '../../core/runtime/jobs.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../core/context.js';
import { acrossTenants, acrossTenantsSql, tenantIs, tenantSql } from '../../core/data/tenant-sql.js';
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
  let lapsed = 0;
  for (;;) {
    // A batch and its webhook events commit together: a lapse is never told twice, nor lost.
    const count = await em.transactional(async (tx) => {
      const rows = await acrossTenantsSql(tx).all<LapsedTerm>(lapseStatement('true'), [today, today]);
      await announceLapses(tx, rows);
      return rows.length;
    });
    lapsed += count;
    if (count < BATCH) return lapsed;
  }
}

/**
 * The same lapse for one tenant's terms, in the caller's transaction (the seed's: its terms as the
 * daily job would leave them, before anyone else sees them); answers the ids of the terms lapsed.
 */
export async function lapseEndedMembershipsOf(ctx: RequestContext, today = todayUtc()): Promise<number[]> {
  const lapsed: number[] = [];
  for (;;) {
    const rows = await tenantSql(ctx).all<LapsedTerm>(lapseStatement(tenantIs('m')), [today, today]);
    await announceLapses(ctx.em, rows);
    lapsed.push(...rows.map((row) => row.id));
    if (rows.length < BATCH) return lapsed;
  }
}

/** One batch of the lapse: the due terms (among those `scope` admits, an SQL condition over alias `m`) taken and lapsed. */
function lapseStatement(scope: string): string {
  // Its end date plus grace days has passed (good_through: null for an open-ended term, which never lapses).
  const due = `m.status = 'active' and not m.status_override and m.good_through < ?::date`;
  return `with due as (select m.id from membership m where ${scope} and ${due} order by m.id limit ${BATCH} for update skip locked)
     update membership m set status = 'lapsed', audit_id = m.audit_id + 1, updated_at = now()
       from due where m.id = due.id and ${due}
     returning m.id, m.tenant_id, m.contact_id, m.membership_type_id, to_char(m.start_date, 'YYYY-MM-DD') as start_date, to_char(m.end_date, 'YYYY-MM-DD') as end_date`;
}

/** The partner feed's `membership.lapsed` event of each term lapsed, in the transaction that lapsed it. */
async function announceLapses(tx: EntityManager, rows: LapsedTerm[]): Promise<void> {
  for (const row of rows) {
    await emitMembershipEvent(jobContext(tx, row.tenant_id), 'membership.lapsed', {
      MembershipId: row.id, ContactId: row.contact_id, MembershipTypeId: row.membership_type_id, StartDate: row.start_date, EndDate: row.end_date, Status: 'lapsed',
    });
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
