import type { RequestContext } from '../../core/context.js';
import { NotFound } from '../../core/errors.js';
import { money, toMoneyString, type Money } from '../../core/money.js';
import type { EventGoalWidget } from '../../schema/events.js';
import { EVENT_NOUN } from './events.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';

/*
 * Event goal widgets, each one SQL statement over the event's real registrations, purchases,
 * invoices and payments. Decisions:
 * - Counts: attendees are registered EventRegistrations; sponsors and exhibitors are the units of
 *   sponsorship and exhibitor packages bought (their quantities).
 * - Revenue: what was billed for them (server-priced amounts), and of it what is paid: an order's
 *   invoice payments are applied to its lines in invoice order — registrations, then sponsorships,
 *   then exhibitors, then other items and donations — as `splits` shows them. A void invoice pays nothing.
 * - Value is the figure (a count, or an amount with two decimals); Heading "<value> of <goal>";
 *   SubHeading the percent of the goal reached (rounded down), and for revenue the amount paid.
 */

export const GOAL_WIDGETS = ['attendee', 'attendeerevenue', 'sponsor', 'sponsorrevenue', 'exhibitor', 'exhibitorrevenue'] as const;
export type GoalWidgetKind = (typeof GOAL_WIDGETS)[number];

interface WidgetSpec {
  name: string;
  goalColumn: string;
  /** SQL for the figure over the event's orders `o` (see ORDERS). */
  figure: string;
  /** SQL for the amount paid (revenue widgets). */
  paid?: string;
  money: boolean;
}

// Payments applied in invoice line order: registrations, sponsorships, exhibitors, the rest.
const PAID_REGISTRATIONS = 'least(o.paid, o.registrations)';
const PAID_SPONSORSHIPS = 'least(greatest(o.paid - o.registrations, 0), o.sponsorships)';
const PAID_EXHIBITORS = 'least(greatest(o.paid - o.registrations - o.sponsorships, 0), o.exhibitors)';

const SPECS: Record<GoalWidgetKind, WidgetSpec> = {
  attendee: { name: 'Attendees', goalColumn: 'goal_attendees', figure: 'sum(o.attendees)', money: false },
  attendeerevenue: { name: 'Attendee revenue', goalColumn: 'goal_attendee_revenue', figure: 'sum(o.registrations)', paid: `sum(${PAID_REGISTRATIONS})`, money: true },
  sponsor: { name: 'Sponsors', goalColumn: 'goal_sponsors', figure: 'sum(o.sponsor_units)', money: false },
  sponsorrevenue: { name: 'Sponsor revenue', goalColumn: 'goal_sponsor_revenue', figure: 'sum(o.sponsorships)', paid: `sum(${PAID_SPONSORSHIPS})`, money: true },
  exhibitor: { name: 'Exhibitors', goalColumn: 'goal_exhibitors', figure: 'sum(o.exhibitor_units)', money: false },
  exhibitorrevenue: { name: 'Exhibitor revenue', goalColumn: 'goal_exhibitor_revenue', figure: 'sum(o.exhibitors)', paid: `sum(${PAID_EXHIBITORS})`, money: true },
};

/** Per registration order of the event: what it holds of each kind and what its invoice has been paid. */
const ORDERS = `
  select ro.id,
    coalesce(case when i.status = 'void' then 0 else i.amount_paid end, 0) as paid,
    coalesce((select count(*) from event_registration r where r.order_id = ro.id and r.status = 'registered'), 0) as attendees,
    coalesce((select sum(r.amount) from event_registration r where r.order_id = ro.id and r.status = 'registered'), 0) as registrations,
    coalesce((select sum(p.quantity) from event_purchase p where p.order_id = ro.id and p.kind = 'sponsorship' and p.status = 'registered'), 0) as sponsor_units,
    coalesce((select sum(p.amount) from event_purchase p where p.order_id = ro.id and p.kind = 'sponsorship' and p.status = 'registered'), 0) as sponsorships,
    coalesce((select sum(p.quantity) from event_purchase p where p.order_id = ro.id and p.kind = 'exhibitor' and p.status = 'registered'), 0) as exhibitor_units,
    coalesce((select sum(p.amount) from event_purchase p where p.order_id = ro.id and p.kind = 'exhibitor' and p.status = 'registered'), 0) as exhibitors
  from event_registration_order ro
  left join invoice i on i.id = ro.invoice_id and i.tenant_id = ro.tenant_id
  where ${tenantIs('ro')} and ro.event_id = ? and ro.status = 'registered'`;

export async function eventGoalWidget(ctx: RequestContext, eventId: number, kind: GoalWidgetKind): Promise<EventGoalWidget> {
  const spec = SPECS[kind];
  const [row] = await tenantSql(ctx).all<{ goal: string | number | null; figure: string | number | null; paid: string | number | null }>(
    `with o as (${ORDERS})
     select e.${spec.goalColumn} as goal, coalesce((select ${spec.figure} from o), 0) as figure, ${spec.paid ? `coalesce((select ${spec.paid} from o), 0)` : 'null'} as paid
       from event e where e.id = ? and ${tenantIs('e')}`,
    [eventId, eventId],
  );
  if (!row) throw new NotFound(EVENT_NOUN);
  const format = (value: Money) => (spec.money ? toMoneyString(value) : value.toFixed(0));
  const figure = money(row.figure ?? 0);
  const goal = row.goal === null ? null : money(row.goal);
  const percent = goal && goal.greaterThan(0) ? figure.times(100).dividedBy(goal).floor().toNumber() : null;
  const paid = row.paid === null ? null : money(row.paid);
  const noun = spec.name.toLowerCase();
  const parts = [percent === null ? 'No goal set' : `${percent}% of goal`, ...(paid ? [`${toMoneyString(paid)} paid`] : [])];
  return {
    Name: spec.name, WidgetId: `event-goal-${kind}`, GridWidth: 3, WidgetType: 'goal', ShowCondition: null,
    DisplayInfo: JSON.stringify({ Goal: goal === null ? null : format(goal), Percent: percent, ...(paid ? { Paid: toMoneyString(paid) } : {}) }),
    Value: format(figure),
    Heading: goal === null ? `${format(figure)} ${noun}` : `${format(figure)} of ${format(goal)} ${noun}`,
    SubHeading: parts.join('; '),
  };
}
