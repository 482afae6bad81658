import type { RequestContext } from '../../core/context.js';
import { monthStart, todayUtc } from '../../core/dates.js';
import { NotFound } from '../../core/errors.js';
import { money, toMoneyNumber, toMoneyString } from '../../core/money.js';
import { readOr404 } from '../../core/data/records.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';
import { OPEN_SALES_STAGES, SALES_STAGES } from '../../entities/dashboards.js';
import { Login } from '../../entities/login.js';
import { MembershipType } from '../../entities/membership.js';
import { inGoodStandingSql } from '../memberships/good-standing.js';
import type { ChartData, ChartDataPoint, DashboardMembership, QuickLookData, ScoreboardDatapoint, TaskDynamic } from '../../schema/dashboards.js';
import { organizationPeopleSql } from '../relationships/relationships.js';

/*
 * Dashboard summaries. Every figure is computed when asked, from the tenant's records, by SQL
 * aggregates (no stored counters); each widget is one statement, or two where it also checks the
 * record its {id} names. These are plain statements, which the ORM's tenant filter does not reach:
 * their tenant conditions come from `tenantIs` (core/data/tenant-sql.ts). Days are UTC.
 *
 * What the figures mean (the documents name the widgets only):
 * - "Today" figures (members, distributions, categories, organizations) count memberships in
 *   good standing today — the one rule of services/memberships/good-standing.ts: active, started,
 *   end date + grace days not passed; pending, lapsed and cancelled never count.
 * - The monthly history counts a membership from its start date to its end date (open-ended
 *   without one): a term's status tells only where it stands now. Pending memberships
 *   (applications not yet accepted), withdrawn ones (cancelled before they began: end before
 *   start) and memberships of deleted contacts never count. Cancelling moves a term's end date
 *   to the day before the effective date, so a cancelled term stops counting there.
 * - New: a membership that is the contact's first of its membership type. Renewed: one that
 *   follows an earlier membership of the contact in the same type. Dropped: one that ended
 *   (before today) with no later membership of the contact in the same type. Total: memberships
 *   running on the month's last day (today, for this month).
 * - Monthly charts cover the last 12 months, this month last; labels are yyyy-mm.
 * - `{id}` of the membership widgets selects a membership type (its id); `0`, `all` or nothing
 *   means every type. An id that is not one of the tenant's types is a 404 (likewise the event,
 *   organization and sales person ids of their widgets).
 * - Event registrations count as recorded (cancelled ones never); invoices by their status;
 *   projects and sales opportunities are this area's own records (GraphQL-managed).
 */

/** A plain statement in the request's tenant scope (its tenant conditions: `tenantIs`, core/data/tenant-sql.ts). */
function sql<T>(ctx: RequestContext, text: string, params: unknown[]): Promise<T[]> {
  return tenantSql(ctx).all<T>(text, params);
}

const count = (value: unknown): number => Number(value ?? 0);
/** A numeric column (pg answers numeric as text) as money text. */
const moneyText = (value: string | number | null | undefined): string => toMoneyString(value ?? '0');
const point = (label: string, values: number[], id: number | null = null): ChartDataPoint => ({ Label: label, Id: id, Values: values });
const stat = (name: string, value: string | number | null, hint: string | null = null): ScoreboardDatapoint => ({
  Name: name, Value: value === null ? null : String(value), Hint: hint,
});

/** The 12 months that end with this one. */
function lastTwelveMonths(today: string): { first: string; last: string } {
  return { first: monthStart(today, -11), last: monthStart(today) };
}

// ---------------------------------------------------------------------------------------------
// Memberships

/** `{id}` of a membership widget: a membership type of the tenant, or null for every type. */
async function membershipTypeScope(ctx: RequestContext, id: string | null | undefined): Promise<number | null> {
  const key = parseScope(id);
  if (key === null) return null;
  await readOr404(ctx, MembershipType, ['id'], key, 'The membership type');
  return key;
}

/** `0`, `all`, `null` or nothing: every record (null); a positive integer: that record; anything else names no record (404). */
function parseScope(id: string | null | undefined): number | null {
  const value = (id ?? '').trim().toLowerCase();
  if (value === '' || value === '0' || value === 'all' || value === 'null') return null;
  if (!/^[1-9]\d{0,8}$/.test(value)) throw new NotFound('The record');
  return Number(value);
}

/**
 * The tenant's counted memberships (not pending, contact not deleted), optionally of one type,
 * each flagged `renewal` (the contact had an earlier one of this type) and `followed` (the
 * contact has a later one of this type): window functions over one scan, no per-row lookups.
 */
function countedMemberships(typeId: number | null): { cte: string; params: unknown[] } {
  return {
    cte: `counted as (
      select m.membership_type_id, m.start_date, m.end_date, m.status, m.good_through,
        row_number() over w > 1 as renewal,
        lead(m.id) over w is not null as followed
      from membership m
      where ${tenantIs('m')} and m.status <> 'pending' and (?::int is null or m.membership_type_id = ?)
        and (m.end_date is null or m.end_date >= m.start_date)
        and not exists (select 1 from contact c where c.id = m.contact_id and c.deleted_at is not null)
      window w as (partition by m.contact_id, m.membership_type_id order by m.start_date, m.id))`,
    params: [typeId, typeId],
  };
}

interface MonthRow { month: string; new: number; renewed: number; dropped: number; total: number }

/**
 * New, renewed, dropped and total memberships of each of the last 12 months: one statement that
 * reads the memberships once. Starts count by their month (up to today), drops by their end's
 * month (before today). For the totals each membership covers a span of month ends — from its
 * start's month (or the window's first) to the last month whose last day (today, for this month)
 * it still covers — and the statement counts spans by the month they begin and the month they
 * end; the total of month k is then the spans begun by k less those ended before k. Rows are
 * grouped by day first and only those groups are turned into months (per-row date arithmetic
 * cost more than the rest of the statement).
 */
async function membershipMonths(ctx: RequestContext, typeId: number | null, today = todayUtc()): Promise<MonthRow[]> {
  const { first } = lastTwelveMonths(today);
  const counted = countedMemberships(typeId);
  const rows = await sql<{ kind: string; month: string; a: string; b: string }>(ctx, `
    with ${counted.cte},
    days as materialized (
      select start_date, case when end_date < ?::date then end_date end as ended, renewal, followed from counted),
    spans as (
      select from_day, n, case when ended is null then ?::date
          when ended + 1 = date_trunc('month', ended + 1)::date then ended
          else date_trunc('month', ended)::date - 1 end as to_day
      from (select greatest(start_date, ?::date) as from_day, ended, count(*) as n from days
            where start_date <= ?::date and (ended is null or ended >= ?::date) group by 1, 2) g)
    select 'started' as kind, to_char(day, 'YYYY-MM') as month, sum(a) as a, sum(b) as b
      from (select start_date as day, count(*) filter (where not renewal) as a, count(*) filter (where renewal) as b
            from days where start_date >= ?::date and start_date <= ?::date group by start_date) s group by 2
    union all
    select 'dropped', to_char(ended, 'YYYY-MM'), sum(n), 0
      from (select ended, count(*) as n from days where not followed and ended >= ?::date group by ended) s group by 2
    union all
    select 'from', to_char(from_day, 'YYYY-MM'), sum(n), 0 from spans where from_day <= to_day and to_day >= ?::date group by 2
    union all
    select 'to', to_char(to_day, 'YYYY-MM'), sum(n), 0 from spans where from_day <= to_day and to_day >= ?::date group by 2`,
  [...counted.params, today, today, first, today, first, first, today, first, first, first]);
  const figure = (kind: string, month: string, column: 'a' | 'b' = 'a') => count(rows.find((row) => row.kind === kind && row.month === month)?.[column]);
  let running = 0;
  return Array.from({ length: 12 }, (_, index) => {
    const month = monthStart(today, index - 11).slice(0, 7);
    running += figure('from', month);
    const total = running;
    running -= figure('to', month);
    return { month, new: figure('started', month), renewed: figure('started', month, 'b'), dropped: figure('dropped', month), total };
  });
}

type MonthFigure = 'new' | 'renewed' | 'dropped' | 'total';
const MONTH_SERIES: Record<MonthFigure, [string, string]> = {
  new: ['New memberships', 'New memberships in the last 12 months'],
  renewed: ['Renewed memberships', 'Renewals in the last 12 months'],
  dropped: ['Dropped memberships', 'Memberships dropped in the last 12 months'],
  total: ['Memberships', 'Memberships running today'],
};

async function membershipChart(ctx: RequestContext, figure: MonthFigure, id: string | null | undefined): Promise<ChartData> {
  const rows = await membershipMonths(ctx, await membershipTypeScope(ctx, id));
  const [series, hint] = MONTH_SERIES[figure];
  const summary = figure === 'total' ? rows[rows.length - 1]?.total ?? 0 : rows.reduce((sum, row) => sum + row[figure], 0);
  return { series: [series], data: rows.map((row) => point(row.month, [row[figure]])), extraStats: [stat(figure === 'total' ? 'Now' : 'Total', summary, hint)] };
}

export const newMemberships = (ctx: RequestContext, id: string | null | undefined) => membershipChart(ctx, 'new', id);
export const renewedMemberships = (ctx: RequestContext) => membershipChart(ctx, 'renewed', null);
export const droppedMemberships = (ctx: RequestContext, id: string | null | undefined) => membershipChart(ctx, 'dropped', id);
export const totalMemberships = (ctx: RequestContext, id: string | null | undefined) => membershipChart(ctx, 'total', id);

/** Membership `m` counts today: in good standing (the one rule, services/memberships/good-standing.ts). */
const runningOn = (today: string) => inGoodStandingSql('m', today);

/** Memberships running today per type (every type of the tenant, zero included). */
async function typeCounts(ctx: RequestContext, today: string): Promise<{ id: number; name: string; count: number }[]> {
  const rows = await sql<{ id: number; name: string; count: string }>(ctx, `
    select t.id, t.name, count(m.id) as count
    from membership_type t
    left join membership m
      on not exists (select 1 from contact c where c.id = m.contact_id and c.deleted_at is not null) and m.membership_type_id = t.id and ${tenantIs('m')} and ${runningOn(today)}
    where ${tenantIs('t')}
    group by t.id, t.name order by count(m.id) desc, t.name, t.id`,
  []);
  return rows.map((row) => ({ id: row.id, name: row.name, count: count(row.count) }));
}

/**
 * Memberships running today by type; with a type's id, by level within that type (its levels in
 * their order, then "(no level)" for members without one).
 */
export async function membershipTypeDistribution(ctx: RequestContext, id: string | null | undefined): Promise<ChartData> {
  const today = todayUtc();
  const typeId = await membershipTypeScope(ctx, id);
  let points: ChartDataPoint[];
  if (typeId === null) {
    points = (await typeCounts(ctx, today)).map((row) => point(row.name, [row.count], row.id));
  } else {
    const rows = await sql<{ id: number | null; name: string; count: string }>(ctx, `
      select l.id, l.name, count(m.id) as count, l.sort_order
      from membership_level l
      left join membership m
        on not exists (select 1 from contact c where c.id = m.contact_id and c.deleted_at is not null) and m.membership_level_id = l.id and ${tenantIs('m')} and ${runningOn(today)}
      where ${tenantIs('l')} and l.membership_type_id = ?
      group by l.id, l.name, l.sort_order
      union all
      select null, '(no level)', count(*), null
      from membership m
      where not exists (select 1 from contact c where c.id = m.contact_id and c.deleted_at is not null) and ${tenantIs('m')} and m.membership_type_id = ? and m.membership_level_id is null and ${runningOn(today)}
      order by 4 nulls last, 2, 1`,
    [typeId, typeId]);
    points = rows.map((row) => point(row.name, [count(row.count)], row.id));
  }
  const total = points.reduce((sum, item) => sum + (item.Values[0] ?? 0), 0);
  return { series: ['Memberships'], data: points, extraStats: [stat('Total', total, 'Memberships running today')] };
}

/**
 * Membership categories. Category lists are not part of this service, so the categories are the
 * membership levels (tiers): memberships running today per type and level ("Type / Level", or
 * "Type / (no level)"); only categories with members are listed.
 */
export async function membershipCategories(ctx: RequestContext): Promise<ChartData> {
  const today = todayUtc();
  const rows = await sql<{ level_id: number | null; type_name: string; level_name: string | null; count: string }>(ctx, `
    select l.id as level_id, t.name as type_name, l.name as level_name, count(*) as count
    from membership m
    join membership_type t on t.id = m.membership_type_id
    left join membership_level l on l.id = m.membership_level_id
    where ${tenantIs('m')} and ${runningOn(today)} and not exists (select 1 from contact c where c.id = m.contact_id and c.deleted_at is not null)
    group by t.id, t.name, l.id, l.name, l.sort_order
    order by t.name, t.id, l.sort_order nulls last, l.name`,
  []);
  const points = rows.map((row) => point(`${row.type_name} / ${row.level_name ?? '(no level)'}`, [count(row.count)], row.level_id));
  return { series: ['Memberships'], data: points, extraStats: [stat('Categories', points.length, 'Levels with members today')] };
}

/** The 12-month figures of every type and today's memberships per type: two statements. */
export async function membershipMonthly(ctx: RequestContext): Promise<DashboardMembership> {
  const today = todayUtc();
  const [rows, types] = await Promise.all([membershipMonths(ctx, null, today), typeCounts(ctx, today)]);
  const series = (figure: MonthFigure) => rows.map((row) => ({ Month: row.month, Count: row[figure] }));
  return {
    NewMemberships: series('new'), RenewedMemberships: series('renewed'), DroppedMemberships: series('dropped'), TotalMemberships: series('total'),
    MembershipTypes: types.map((type) => ({ MembershipTypeId: type.id, Name: type.name, Count: type.count })),
  };
}

/** This year's membership scoreboard (of one type, or every type). */
export async function overallMembershipStats(ctx: RequestContext, id: string | null | undefined): Promise<ScoreboardDatapoint[]> {
  const today = todayUtc();
  const typeId = await membershipTypeScope(ctx, id);
  const counted = countedMemberships(typeId);
  const yearStart = `${today.slice(0, 4)}-01-01`;
  const [row] = await sql<Record<string, string>>(ctx, `
    with ${counted.cte}
    select
      count(*) filter (where ${inGoodStandingSql('counted', today)}) as running,
      count(*) filter (where start_date >= ?::date and start_date <= ?::date and not renewal) as new,
      count(*) filter (where start_date >= ?::date and start_date <= ?::date and renewal) as renewed,
      count(*) filter (where end_date >= ?::date and end_date < ?::date and not followed) as dropped,
      (select count(*) from membership m
        where not exists (select 1 from contact c where c.id = m.contact_id and c.deleted_at is not null) and ${tenantIs('m')} and m.status = 'pending' and (?::int is null or m.membership_type_id = ?)) as pending
    from counted`,
  [...counted.params, yearStart, today, yearStart, today, yearStart, today, typeId, typeId]);
  const renewed = count(row.renewed);
  const dropped = count(row.dropped);
  return [
    stat('Members', count(row.running), 'Memberships running today'),
    stat('New', count(row.new), 'New memberships this year'),
    stat('Renewed', renewed, 'Renewals this year'),
    stat('Dropped', dropped, 'Memberships that ended this year and were not renewed'),
    stat('Retention', percent(renewed, renewed + dropped), 'Renewed of renewed and dropped this year, in percent (none when neither)'),
    stat('Pending', count(row.pending), 'Applications (pending memberships) waiting'),
  ];
}

/** `part` of `whole` in percent with one decimal, exact; null when `whole` is 0. */
function percent(part: number, whole: number): string | null {
  return whole === 0 ? null : money(part).times(100).dividedBy(whole).toFixed(1);
}

/**
 * Organizations: the tenant's (id absent, 0 or all) or one organization's (its contact id; 404
 * for any other contact): its people (related to it, or with it as their current organization:
 * services/relationships/relationships.ts), its chapters (organizations under it), memberships
 * held by it or its people today, and what it owes on open invoices.
 */
export async function overallOrgStats(ctx: RequestContext, id: string | null | undefined): Promise<ScoreboardDatapoint[]> {
  const today = todayUtc();
  const orgId = parseScope(id);
  if (orgId === null) {
    const [row] = await sql<Record<string, string>>(ctx, `
      select
        count(*) filter (where c.kind = 'organization') as organizations,
        count(*) filter (where c.kind = 'organization' and c.parent_id is not null) as chapters,
        count(*) filter (where c.kind = 'person' and (c.organization_id is not null
          or exists (select 1 from contact_relationship r where ${tenantIs('r')} and r.person_id = c.id))) as people,
        count(*) filter (where c.kind = 'organization' and exists (
          select 1 from membership m where m.contact_id = c.id and ${tenantIs('m')} and ${runningOn(today)})) as members
      from contact c where ${tenantIs('c')} and c.deleted_at is null`,
    []);
    return [
      stat('Organizations', count(row.organizations), 'Organization contacts'),
      stat('Member organizations', count(row.members), 'Organizations with a membership running today'),
      stat('Chapters', count(row.chapters), 'Organizations under a parent organization'),
      stat('Affiliated people', count(row.people), 'People linked to an organization'),
    ];
  }
  const [org] = await sql<Record<string, string>>(ctx, `
    select
      (select count(*) from (${organizationPeopleSql('o.id')}) as people) as people,
      (select count(*) from contact p where ${tenantIs('p')} and p.deleted_at is null and p.kind = 'organization' and p.parent_id = o.id) as chapters,
      (select count(*) from membership m join contact c on c.id = m.contact_id and c.deleted_at is null
        where ${tenantIs('m')} and (c.id = o.id or c.id in (${organizationPeopleSql('o.id')})) and ${runningOn(today)}) as memberships,
      (select coalesce(sum(i.total - i.amount_paid), 0) from invoice i where ${tenantIs('i')} and i.contact_id = o.id and i.status = 'open') as balance
    from contact o where ${tenantIs('o')} and o.id = ? and o.kind = 'organization' and o.deleted_at is null`,
  [orgId]);
  if (!org) throw new NotFound('The organization');
  return [
    stat('Affiliated people', count(org.people), 'People linked to the organization'),
    stat('Chapters', count(org.chapters), 'Organizations under it'),
    stat('Memberships', count(org.memberships), 'Memberships of the organization and its people running today'),
    stat('Open balance', moneyText(org.balance), 'What its open invoices still owe'),
  ];
}

// ---------------------------------------------------------------------------------------------
// Quick looks

export async function openInvoicesQuickLook(ctx: RequestContext): Promise<QuickLookData> {
  const [row] = await sql<Record<string, string>>(ctx, `
    select count(*) as open, coalesce(sum(total - amount_paid), 0) as balance, count(*) filter (where due_date < ?::date) as overdue
    from invoice where ${tenantIs()} and status = 'open'`,
  [todayUtc()]);
  return {
    Value: String(count(row.open)), Heading: 'Open invoices',
    SubHeading: `${moneyText(row.balance)} outstanding, ${count(row.overdue)} overdue`, Action: 'invoices(filter: { Status: "open" })',
  };
}

/** Applications are memberships waiting to be accepted (status pending). */
export async function pendingApplicationsQuickLook(ctx: RequestContext): Promise<QuickLookData> {
  const [row] = await sql<Record<string, string | null>>(ctx, `
    select count(*) as pending, to_char(min(m.created_at at time zone 'UTC'), 'YYYY-MM-DD') as oldest
    from membership m
    where not exists (select 1 from contact c where c.id = m.contact_id and c.deleted_at is not null) and ${tenantIs('m')} and m.status = 'pending'`,
  []);
  return {
    Value: String(count(row.pending)), Heading: 'Pending applications',
    SubHeading: row.oldest ? `Memberships waiting since ${row.oldest}` : 'No membership is waiting', Action: 'memberships: pending',
  };
}

/**
 * Web content waiting: the service keeps no web pages, so this counts the uploaded images not yet
 * placed on any record (uploaded for a record still being created, never attached).
 */
export async function pendingWebContentQuickLook(ctx: RequestContext): Promise<QuickLookData> {
  const [row] = await sql<Record<string, string>>(ctx, `
    select count(*) as pending, count(*) filter (where created_at < now() - interval '1 day') as stale
    from image where ${tenantIs()} and (source_id is null or source_id = 0)`,
  []);
  return {
    Value: String(count(row.pending)), Heading: 'Pending web content',
    SubHeading: `Uploaded images not yet placed on a record, ${count(row.stale)} older than a day`, Action: 'images: unattached',
  };
}

// ---------------------------------------------------------------------------------------------
// Events

/**
 * Pending events: those still to come (starting after now) that are not cancelled or closed —
 * open for registration or still drafts — and their active registrations.
 */
export async function pendingEventsQuickLook(ctx: RequestContext): Promise<QuickLookData> {
  const [row] = await sql<Record<string, string>>(ctx, `
    select count(*) as pending, count(*) filter (where e.status = 'draft') as drafts,
      coalesce(sum((select count(*) from event_registration r where ${tenantIs('r')} and r.event_id = e.id and r.status = 'registered')), 0) as registrations
    from event e where ${tenantIs('e')} and e.status in ('draft', 'open') and e.starts_at > now()`,
  []);
  return {
    Value: String(count(row.pending)), Heading: 'Pending events',
    SubHeading: `${count(row.drafts)} not yet open, ${count(row.registrations)} registered attendees`, Action: 'events: upcoming',
  };
}

/**
 * Attendee registrations. Of every event (`{id}` 0, all or absent): active registrations by the
 * month they were made (UTC), the last 12 months. Of one event (its id; 404 for any other): its
 * active registrations per registration type (point Id: the type), with the capacity and seats left.
 */
export async function eventAttendeeRegistrations(ctx: RequestContext, id: string | null | undefined): Promise<ChartData> {
  const eventId = parseScope(id);
  if (eventId === null) {
    const today = todayUtc();
    const { first, last } = lastTwelveMonths(today);
    const rows = await sql<{ month: string; registrations: string; amount: string }>(ctx, `
      select to_char(g, 'YYYY-MM') as month, count(r.id) as registrations, coalesce(sum(r.amount), 0) as amount
      from generate_series(?::timestamp, ?::timestamp, interval '1 month') g
      left join event_registration r on ${tenantIs('r')} and r.status = 'registered'
        and r.created_at >= (g at time zone 'UTC') and r.created_at < ((g + interval '1 month') at time zone 'UTC')
      group by g order by g`,
    [first, last]);
    const total = rows.reduce((sum, row) => sum + count(row.registrations), 0);
    return {
      series: ['Registrations', 'Amount'],
      data: rows.map((row) => point(row.month, [count(row.registrations), toMoneyNumber(String(row.amount))])),
      extraStats: [stat('Total', total, 'Attendee registrations made in the last 12 months (cancelled ones not counted)')],
    };
  }
  const rows = await sql<{ type_id: number | null; name: string | null; registrations: string; amount: string; capacity: number | null; cancelled: string }>(ctx, `
    select t.id as type_id, t.name, count(r.id) filter (where r.status = 'registered') as registrations,
      coalesce(sum(r.amount) filter (where r.status = 'registered'), 0) as amount, e.capacity,
      (select count(*) from event_registration c where c.tenant_id = e.tenant_id and c.event_id = e.id and c.status = 'cancelled') as cancelled
    from event e
    left join event_registration_type t on t.event_id = e.id and t.tenant_id = e.tenant_id
    left join event_registration r on r.registration_type_id = t.id and r.tenant_id = e.tenant_id and r.event_id = e.id
    where ${tenantIs('e')} and e.id = ?
    group by e.id, e.tenant_id, e.capacity, t.id, t.name, t.sort_order
    order by t.sort_order, t.name, t.id`,
  [eventId]);
  if (rows.length === 0) throw new NotFound('The event');
  const types = rows.filter((row) => row.type_id !== null);
  const registered = types.reduce((sum, row) => sum + count(row.registrations), 0);
  const capacity = rows[0].capacity;
  return {
    series: ['Registrations', 'Amount'],
    data: types.map((row) => point(row.name ?? '', [count(row.registrations), toMoneyNumber(String(row.amount))], row.type_id)),
    extraStats: [
      stat('Registered', registered, 'Active attendee registrations'),
      stat('Cancelled', count(rows[0].cancelled), 'Cancelled registrations'),
      stat('Capacity', capacity, 'Attendee seats (none: unlimited)'),
      stat('Seats left', capacity === null ? null : Math.max(0, capacity - registered), 'Capacity less active registrations (none: unlimited)'),
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// Projects

type Period = 'month' | 'year';

/**
 * Projects started (`startDate`) or completed (`completedDate`, completed projects) in each day
 * of this month or each month of this year.
 */
async function projectChart(ctx: RequestContext, column: 'start_date' | 'completed_date', period: Period): Promise<ChartData> {
  const today = todayUtc();
  const first = period === 'month' ? monthStart(today) : `${today.slice(0, 4)}-01-01`;
  const step = period === 'month' ? '1 day' : '1 month';
  const label = period === 'month' ? 'YYYY-MM-DD' : 'YYYY-MM';
  const completed = column === 'completed_date' ? `and p.status = 'completed'` : '';
  const rows = await sql<{ label: string; count: string }>(ctx, `
    with buckets as (
      select g::date as first, (g + interval '${step}')::date as next
      from generate_series(?::timestamp, ?::timestamp + interval '1 ${period}' - interval '1 day', interval '${step}') g)
    select to_char(b.first, '${label}') as label, count(p.id) as count
    from buckets b
    left join dashboard_project p on ${tenantIs('p')} and p.${column} >= b.first and p.${column} < b.next ${completed}
    group by b.first order by b.first`,
  [first, first]);
  const total = rows.reduce((sum, row) => sum + count(row.count), 0);
  const noun = column === 'start_date' ? 'New projects' : 'Completed projects';
  return {
    series: [noun],
    data: rows.map((row) => point(row.label, [count(row.count)])),
    extraStats: [stat('Total', total, `${noun} this ${period}`)],
  };
}

export const newProjectsThisMonth = (ctx: RequestContext) => projectChart(ctx, 'start_date', 'month');
export const newProjectsThisYear = (ctx: RequestContext) => projectChart(ctx, 'start_date', 'year');
export const projectsCompletedThisMonth = (ctx: RequestContext) => projectChart(ctx, 'completed_date', 'month');
export const projectsCompletedThisYear = (ctx: RequestContext) => projectChart(ctx, 'completed_date', 'year');

export async function projectsActiveCurrentMonth(ctx: RequestContext): Promise<ScoreboardDatapoint[]> {
  const today = todayUtc();
  const first = monthStart(today);
  const [row] = await sql<Record<string, string>>(ctx, `
    select
      count(*) filter (where status = 'active') as active,
      count(*) filter (where status = 'planned') as planned,
      count(*) filter (where start_date >= ?::date and start_date <= ?::date) as started,
      count(*) filter (where status = 'completed' and completed_date >= ?::date and completed_date <= ?::date) as completed,
      count(*) filter (where status in ('planned', 'active') and due_date < ?::date) as overdue
    from dashboard_project where ${tenantIs()}`,
  [first, today, first, today, today]);
  return [
    stat('Active', count(row.active), 'Projects in progress'),
    stat('Planned', count(row.planned), 'Projects not started yet'),
    stat('Started this month', count(row.started), 'Projects whose start date is this month, up to today'),
    stat('Completed this month', count(row.completed), 'Projects completed this month'),
    stat('Overdue', count(row.overdue), 'Planned or active projects past their due date'),
  ];
}

// ---------------------------------------------------------------------------------------------
// Sales

/** Won opportunities (count and amount) closed in each of the last 12 months. */
export async function salesWinsByMonth(ctx: RequestContext): Promise<ChartData> {
  const { first, last } = lastTwelveMonths(todayUtc());
  const rows = await sql<{ month: string; wins: string; amount: string }>(ctx, `
    select to_char(g, 'YYYY-MM') as month, count(o.id) as wins, coalesce(sum(o.amount), 0) as amount
    from generate_series(?::timestamp, ?::timestamp, interval '1 month') g
    left join dashboard_sales_opportunity o on ${tenantIs('o')} and o.stage = 'won' and o.closed_date >= g::date and o.closed_date < (g + interval '1 month')::date
    group by g order by g`,
  [first, last]);
  const wins = rows.reduce((sum, row) => sum + count(row.wins), 0);
  const amount = rows.reduce((sum, row) => sum.plus(String(row.amount)), money(0));
  return {
    series: ['Wins', 'Won amount'],
    data: rows.map((row) => point(row.month, [count(row.wins), toMoneyNumber(String(row.amount))])),
    extraStats: [stat('Wins', wins, 'Won in the last 12 months'), stat('Won amount', toMoneyString(amount), 'Won in the last 12 months')],
  };
}

/** This year's wins per sales person (most won amount first; "(unassigned)" for wins without one). */
export async function winsBySalesPerson(ctx: RequestContext): Promise<ChartData> {
  const today = todayUtc();
  const rows = await sql<{ login_id: number | null; name: string | null; wins: string; amount: string }>(ctx, `
    select l.id as login_id,
      coalesce(nullif(c.name, ''), nullif(trim(concat_ws(' ', c.first_name, c.last_name)), ''), l.email) as name,
      count(*) as wins, sum(o.amount) as amount
    from dashboard_sales_opportunity o
    left join login l on l.id = o.sales_person_id
    left join contact c on c.id = l.contact_id
    where ${tenantIs('o')} and o.stage = 'won' and o.closed_date >= ?::date and o.closed_date <= ?::date
    group by l.id, l.email, c.name, c.first_name, c.last_name
    order by sum(o.amount) desc, count(*) desc, 2, 1`,
  [`${today.slice(0, 4)}-01-01`, today]);
  return {
    series: ['Wins', 'Won amount'],
    data: rows.map((row) => point(row.name ?? '(unassigned)', [count(row.wins), toMoneyNumber(String(row.amount))], row.login_id)),
    extraStats: [stat('Sales people', rows.filter((row) => row.login_id !== null).length, 'Sales people with a win this year')],
  };
}

/**
 * Sales velocity of one sales person (`{id}`: their login id) or everyone (0, all): per month of
 * the last 12, the won amount, the wins and the average days from opening to winning; and the
 * velocity per day over those 12 months: open opportunities × win rate × average won amount ÷
 * average days to win.
 */
export async function salesVelocity(ctx: RequestContext, id: string | null | undefined): Promise<ChartData> {
  const today = todayUtc();
  const loginId = parseScope(id);
  if (loginId !== null) await readOr404(ctx, Login, ['id'], loginId, 'The sales person');
  const { first, last } = lastTwelveMonths(today);
  const rows = await sql<Record<string, string | null>>(ctx, `
    with mine as (
      select stage, amount, opened_date, closed_date from dashboard_sales_opportunity
      where ${tenantIs()} and (?::int is null or sales_person_id = ?)),
    months as (select g::date as first, (g + interval '1 month')::date as next from generate_series(?::timestamp, ?::timestamp, interval '1 month') g)
    select to_char(mo.first, 'YYYY-MM') as month,
      count(o.stage) as wins, coalesce(sum(o.amount), 0) as amount, round(avg(o.closed_date - o.opened_date), 1) as days,
      (select count(*) from mine where stage in (${OPEN_SALES_STAGES.map(() => '?').join(', ')})) as open,
      (select count(*) from mine where stage = 'won' and closed_date >= ?::date) as won,
      (select count(*) from mine where stage in ('won', 'lost') and closed_date >= ?::date) as closed,
      (select avg(amount) from mine where stage = 'won' and closed_date >= ?::date) as average_amount,
      (select avg(closed_date - opened_date) from mine where stage = 'won' and closed_date >= ?::date) as average_days
    from months mo
    left join mine o on o.stage = 'won' and o.closed_date >= mo.first and o.closed_date < mo.next
    group by mo.first order by mo.first`,
  [loginId, loginId, first, last, ...OPEN_SALES_STAGES, first, first, first, first]);
  const [head] = rows;
  const open = count(head?.open);
  const won = count(head?.won);
  const closed = count(head?.closed);
  const averageAmount = head?.average_amount == null ? null : money(head.average_amount);
  // A win on its opening day takes no days: counted as one, so the velocity stays defined.
  const averageDays = head?.average_days == null ? null : money(head.average_days);
  const velocity = averageAmount && averageDays && closed > 0
    ? toMoneyString(averageAmount.times(open).times(won).dividedBy(closed).dividedBy(averageDays.greaterThan(1) ? averageDays : 1))
    : null;
  return {
    series: ['Won amount', 'Wins', 'Average days to win'],
    data: rows.map((row) => point(String(row.month), [toMoneyNumber(String(row.amount)), count(row.wins), row.days === null ? 0 : Number(row.days)])),
    extraStats: [
      stat('Velocity', velocity, 'Won amount per day expected from the open opportunities: open × win rate × average won amount ÷ average days to win (last 12 months)'),
      stat('Open opportunities', open, 'Opportunities still being worked'),
      stat('Win rate', percent(won, closed), 'Won of won and lost in the last 12 months, in percent'),
      stat('Average won amount', averageAmount ? toMoneyString(averageAmount) : null, 'Last 12 months'),
      stat('Average days to win', averageDays ? averageDays.toFixed(1) : null, 'From opening to winning, last 12 months'),
    ],
  };
}

/** This year's funnel: opportunities opened this year at each stage, with their amounts, and the win rate. */
export async function salesFunnelStatsCurrentYear(ctx: RequestContext): Promise<ScoreboardDatapoint[]> {
  const today = todayUtc();
  const rows = await sql<{ stage: string; opportunities: string; amount: string }>(ctx, `
    select stage, count(*) as opportunities, sum(amount) as amount from dashboard_sales_opportunity
    where ${tenantIs()} and opened_date >= ?::date and opened_date <= ?::date group by stage`,
  [`${today.slice(0, 4)}-01-01`, today]);
  const byStage = new Map(rows.map((row) => [row.stage, row]));
  const won = count(byStage.get('won')?.opportunities);
  const lost = count(byStage.get('lost')?.opportunities);
  return [
    ...SALES_STAGES.map((stage) => {
      const row = byStage.get(stage);
      return stat(stage.charAt(0).toUpperCase() + stage.slice(1), count(row?.opportunities), `Opened this year, now at this stage; amount ${moneyText(row?.amount)}`);
    }),
    stat('Win rate', percent(won, won + lost), 'Won of won and lost among this year\'s opportunities, in percent'),
  ];
}

// ---------------------------------------------------------------------------------------------
// TaskDynamic answers

let taskIds = 0;

/** A completed .NET Task<dynamic> carrying `result` (CONVENTIONS.md). */
function completedTask(result: ScoreboardDatapoint[]): TaskDynamic {
  taskIds = (taskIds % 2147483646) + 1;
  return {
    ShouldNotifyDebuggerOfWaitCompletion: false, Id: taskIds, CurrentId: null, Exception: null, Status: 'RanToCompletion', IsCanceled: false,
    IsCompleted: true, CreationOptions: 'None', System_IAsyncResult_AsyncWaitHandle: null, AsyncState: null, System_IAsyncResult_CompletedSynchronously: true,
    Factory: null, CompletedTask: null, IsFaulted: false, SavedStateForNextReplica: null, SavedStateFromPreviousReplica: null, HandedOverChildReplica: null,
    Result: result,
  };
}

/** The tenant at a glance: contacts, memberships, money owed and received this year, projects and the sales pipeline. One statement. */
export async function overallStats(ctx: RequestContext): Promise<TaskDynamic> {
  const today = todayUtc();
  const yearStart = `${today.slice(0, 4)}-01-01`;
  const [row] = await sql<Record<string, string>>(ctx, `
    select
      (select count(*) from contact where ${tenantIs()} and deleted_at is null and kind = 'person') as people,
      (select count(*) from contact where ${tenantIs()} and deleted_at is null and kind = 'organization') as organizations,
      (select count(*) from membership m where not exists (select 1 from contact c where c.id = m.contact_id and c.deleted_at is not null) and ${tenantIs('m')} and ${runningOn(today)}) as members,
      (select count(*) from membership_type where ${tenantIs()} and is_active) as types,
      (select count(*) from invoice where ${tenantIs()} and status = 'open') as open_invoices,
      (select coalesce(sum(total - amount_paid), 0) from invoice where ${tenantIs()} and status = 'open') as balance,
      (select coalesce(sum(amount), 0) from payment where ${tenantIs()} and paid_at >= ?::timestamptz) as received,
      (select count(*) from event where ${tenantIs()} and status in ('draft', 'open') and starts_at > now()) as events,
      (select count(*) from dashboard_project where ${tenantIs()} and status = 'active') as projects,
      (select count(*) from dashboard_sales_opportunity where ${tenantIs()} and stage in (${OPEN_SALES_STAGES.map(() => '?').join(', ')})) as opportunities,
      (select coalesce(sum(amount), 0) from dashboard_sales_opportunity where ${tenantIs()} and stage in (${OPEN_SALES_STAGES.map(() => '?').join(', ')})) as pipeline`,
  [`${yearStart}T00:00:00Z`, ...OPEN_SALES_STAGES, ...OPEN_SALES_STAGES]);
  return completedTask([
    stat('People', count(row.people), 'Person contacts'),
    stat('Organizations', count(row.organizations), 'Organization contacts'),
    stat('Members', count(row.members), 'Memberships running today'),
    stat('Membership types', count(row.types), 'Active membership types'),
    stat('Open invoices', count(row.open_invoices), 'Invoices not yet paid in full'),
    stat('Open balance', moneyText(row.balance), 'What open invoices still owe'),
    stat('Received this year', moneyText(row.received), 'Payments less refunds since January 1 (UTC)'),
    stat('Upcoming events', count(row.events), 'Events still to come, open or in draft'),
    stat('Active projects', count(row.projects), 'Projects in progress'),
    stat('Open opportunities', count(row.opportunities), 'Sales opportunities still being worked'),
    stat('Pipeline', moneyText(row.pipeline), 'Amount of the open sales opportunities'),
  ]);
}

/** This month on the tenant's dashboard: membership movement, applications, money and work done. Two statements. */
export async function tenantDashboardStats(ctx: RequestContext): Promise<TaskDynamic> {
  const today = todayUtc();
  const first = monthStart(today);
  const [months, [row]] = await Promise.all([
    membershipMonths(ctx, null, today),
    sql<Record<string, string>>(ctx, `
      select
        (select count(*) from membership m where not exists (select 1 from contact c where c.id = m.contact_id and c.deleted_at is not null) and ${tenantIs('m')} and m.status = 'pending') as pending,
        (select count(*) from invoice where ${tenantIs()} and invoice_date >= ?::date and invoice_date <= ?::date) as invoiced,
        (select coalesce(sum(amount), 0) from payment where ${tenantIs()} and paid_at >= ?::timestamptz) as received,
        (select count(*) from dashboard_project where ${tenantIs()} and status = 'completed' and completed_date >= ?::date and completed_date <= ?::date) as completed,
        (select count(*) from dashboard_sales_opportunity where ${tenantIs()} and stage = 'won' and closed_date >= ?::date and closed_date <= ?::date) as wins,
        (select count(*) from event_registration where ${tenantIs()} and status = 'registered' and created_at >= ?::timestamptz) as registrations`,
    [first, today, `${first}T00:00:00Z`, first, today, first, today, `${first}T00:00:00Z`]),
  ]);
  const month = months[months.length - 1];
  return completedTask([
    stat('New members', month?.new ?? 0, 'New memberships this month'),
    stat('Renewals', month?.renewed ?? 0, 'Renewed memberships this month'),
    stat('Dropped', month?.dropped ?? 0, 'Memberships that ended this month (before today) and were not renewed'),
    stat('Members', month?.total ?? 0, 'Memberships running today'),
    stat('Pending applications', count(row.pending), 'Pending memberships'),
    stat('Invoices raised', count(row.invoiced), 'Invoices dated this month'),
    stat('Received', moneyText(row.received), 'Payments less refunds this month'),
    stat('Projects completed', count(row.completed), 'Projects completed this month'),
    stat('Wins', count(row.wins), 'Sales opportunities won this month'),
    stat('Event registrations', count(row.registrations), 'Attendee registrations made this month (cancelled ones not counted)'),
  ]);
}
