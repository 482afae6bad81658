import type { MikroORM } from '@mikro-orm/postgresql';

/**
 * What the dashboard statement test (test/dashboards.test.ts) and the dashboard benchmark
 * (bench/dashboards.ts) share: bulk records for a tenant and the path of every widget.
 */

/** The records a widget's {id} names: membership types, an organization, an event, a staff login. */
export interface WidgetIds { gold: number; basic: number; org: number; event: number; sam: number }

/** Every dashboard widget path under /api/summary/ (its {id}s aimed at `ids`). */
export function dashboardWidgetPaths(ids: WidgetIds): string[] {
  return [
    'newmemberships/0', `newmemberships/${ids.gold}`, 'renewedmemberships', 'droppedmemberships/0', `droppedmemberships/${ids.basic}`, 'totalmemberships/0',
    `totalmemberships/${ids.gold}`, 'membershipstypedistribution/0', `membershipstypedistribution/${ids.gold}`, 'membershipcategories', 'membershipmonthly',
    'overallmembershipstats/0', `overallmembershipstats/${ids.basic}`, 'overallorgstats/0', `overallorgstats/${ids.org}`,
    'openinvoicesqlwidget', 'pendingapplicationsql', 'pendingwebcontentql', 'eventspendingql', 'eventattendeeregistrations/0', `eventattendeeregistrations/${ids.event}`,
    'newprojectsthismonth', 'newprojectsthisyear', 'projectscompletedthismonth', 'projectscompletedthisyear', 'projectsactivecurrentmonth',
    'saleswinsbymonth', 'wins%20by%20sales%20person', 'salesvelocity/0', `salesvelocity/${ids.sam}`, 'salesfunnelstatscurrentyear',
    'overallstats', 'tenantdashboardstats',
  ];
}

/**
 * `contacts` people with two memberships each (a year, then a renewal; every fifth renewal
 * cancelled after a month) spread over the last three years and three types, and as many projects
 * and sales opportunities as there are contacts. Answers the three membership types' ids.
 */
export async function seedDashboardVolume(orm: MikroORM, tenantId: number, contacts: number): Promise<number[]> {
  const connection = orm.em.getConnection();
  const types = await connection.execute<{ id: number }[]>(
    `insert into membership_type (tenant_id, name) select ?, 'Bulk type ' || g from generate_series(1, 3) g returning id`, [tenantId]);
  await connection.execute(`
    with c as (insert into contact (tenant_id, kind, first_name, last_name) select ?, 'person', 'Bulk', 'Person ' || g from generate_series(1, ?) g returning id),
    n as (select id, row_number() over (order by id) as i, current_date - 1000 + ((row_number() over (order by id)) * 7 % 900)::int as first from c)
    insert into membership (tenant_id, contact_id, membership_type_id, start_date, end_date, status)
    select ?, n.id, (array[?, ?, ?]::int[])[1 + (n.i % 3)::int], s.start_date, s.end_date, s.status
    from n cross join lateral (values
      (n.first, n.first + 364, 'lapsed'),
      (n.first + 365, case when n.i % 5 = 0 then n.first + 395 end, case when n.i % 5 = 0 then 'cancelled' else 'active' end)) s(start_date, end_date, status)`,
  [tenantId, contacts, tenantId, ...types.map((type) => type.id)]);
  await connection.execute(`
    insert into dashboard_project (tenant_id, name, status, start_date, due_date, completed_date)
    select ?, 'Bulk project ' || g, (array['planned', 'active', 'completed', 'cancelled'])[1 + g % 4], current_date - g % 400, current_date - g % 400 + 30,
      case when g % 4 = 2 then current_date - g % 400 + 20 end
    from generate_series(1, ?) g`, [tenantId, contacts]);
  await connection.execute(`
    insert into dashboard_sales_opportunity (tenant_id, name, stage, amount, opened_date, closed_date)
    select ?, 'Bulk opportunity ' || g, (array['lead', 'qualified', 'proposal', 'negotiation', 'won', 'lost'])[1 + g % 6], (g % 1000) * 10.25, current_date - g % 400,
      case when g % 6 >= 4 then current_date - g % 400 + g % 30 end
    from generate_series(1, ?) g`, [tenantId, contacts]);
  return types.map((type) => type.id);
}
