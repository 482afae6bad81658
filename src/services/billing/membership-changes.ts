import { emitMembershipEvent } from '../memberships/memberships.js';
import type { RequestContext } from '../../core/context.js';
import { addDays, addMonths } from '../../core/dates.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';
import type { RunParameters } from '../../entities/billing.js';
import { Membership } from '../../entities/membership.js';
import type { PaidInvoice } from '../commerce/paid-invoices.js';

/*
 * The membership changes a scheduled billing run asks for (the documented ChangeCurrentMembership,
 * CreateMembership, RemoveMembership) take effect when the invoice is paid, not when it is raised
 * (decided where the documents are silent; CORE-DECISIONS.md):
 * - The run raises the invoice and records on its run item the change it asks for: which change
 *   (`membership_change`), the term it starts from (`membership_id`, the schedule's membership
 *   then) and the billed period (`period_start`, `period_end`). Nothing changes yet.
 * - The payment that settles the invoice runs `applyPaidScheduledBilling` (the billing area's
 *   `paidInvoiceSources`) in its own transaction. It claims the item's change in one UPDATE
 *   (`membership_applied_at` set where it was null), so a retried, repeated or refunded-and-repaid
 *   payment changes nothing a second time.
 * - It works from the schedule's membership as it is at payment (locked: a run billing the next
 *   period waits, and reads the new term after), so two periods paid in either order make two
 *   consecutive terms, never the same one twice.
 * - Changes: RemoveMembership cancels that term (end date the day before the billed period, never
 *   before its start − 1); ChangeCurrentMembership renews it as a NEW term of the run's type and
 *   level — start the day after its end (the billed period's start when it ended earlier, or is
 *   open-ended: then it is closed the day before), as long as the billed period — so the dashboards
 *   count a renewal; CreateMembership adds a term of the billed period (the run's type and level,
 *   or the current term's). New terms are active (paid), and become the schedule's membership.
 * - A change for a contact archived meanwhile is not made (archiving cancels its memberships).
 */

/** The label of the changes a run asks for (`changed`, `removed`, `created`, joined by `+`), null for none. */
export function membershipChangeLabel(parameters: RunParameters): string | null {
  const changes = [
    parameters.changeCurrentMembership ? 'changed' : null,
    parameters.removeMembership ? 'removed' : null,
    parameters.createMembership ? 'created' : null,
  ].filter(Boolean);
  return changes.length ? changes.join('+') : null;
}

/** Why a schedule cannot take the run's membership changes (null: it can). */
export function membershipProblem(parameters: RunParameters, membership: object | null): string | null {
  if ((parameters.changeCurrentMembership || parameters.removeMembership) && !membership) return 'The schedule has no membership to change or end.';
  if (parameters.createMembership && !parameters.membershipTypeId && !membership) return 'No membership type to create a membership of (give MembershipTypeId).';
  return null;
}

interface ClaimedChange {
  schedule_id: number;
  membership_id: number | null;
  period_start: string;
  period_end: string;
  parameters: RunParameters;
}

interface Term {
  id: number;
  contact_id: number;
  membership_type_id: number;
  membership_level_id: number | null;
  start_date: string;
  end_date: string | null;
  status: string;
}

/** The `scheduled-billing` paid-invoice handler: makes the membership change the invoice's run item asks for, once. */
export async function applyPaidScheduledBilling(ctx: RequestContext, invoice: PaidInvoice): Promise<void> {
  const sql = tenantSql(ctx);
  const [claimed] = await sql.all<ClaimedChange>(
    `UPDATE scheduled_billing_run_item i SET membership_applied_at = now(), updated_at = now()
     FROM scheduled_billing_run_record r
     WHERE i.invoice_id = ? AND ${tenantIs('i')} AND i.outcome = 'billed' AND i.membership_change IS NOT NULL AND i.membership_applied_at IS NULL
       AND r.id = i.run_id AND ${tenantIs('r')}
     RETURNING i.schedule_id, i.membership_id, to_char(i.period_start, 'YYYY-MM-DD') AS period_start,
       to_char(coalesce(i.period_end, i.period_start), 'YYYY-MM-DD') AS period_end, r.parameters`,
    [invoice.id],
  );
  if (!claimed) return;
  const [schedule] = await sql.all<{ contact_id: number; membership_id: number | null; archived: boolean }>(
    `SELECT s.contact_id, s.membership_id, c.deleted_at IS NOT NULL AS archived
     FROM scheduled_billing s JOIN contact c ON c.id = s.contact_id
     WHERE s.id = ? AND ${tenantIs('s')} FOR UPDATE OF s`, [claimed.schedule_id]);
  if (!schedule || schedule.archived) return;
  let current = await lockTerm(ctx, schedule.membership_id ?? claimed.membership_id);
  const { parameters, period_start: periodStart, period_end: periodEnd } = claimed;

  if (parameters.removeMembership && current && current.status !== 'cancelled') {
    const dayBefore = addDays(periodStart, -1);
    const ended = latest(addDays(current.start_date, -1), current.end_date !== null && current.end_date < dayBefore ? current.end_date : dayBefore);
    await sql.run(`UPDATE membership SET status = 'cancelled', end_date = ?, audit_id = audit_id + 1, updated_at = now() WHERE id = ? AND ${tenantIs()}`, [ended, current.id]);
    current = { ...current, status: 'cancelled', end_date: ended };
    await emitMembershipEvent(ctx, 'membership.cancelled', {
      MembershipId: current.id, ContactId: current.contact_id, MembershipTypeId: current.membership_type_id, StartDate: current.start_date, EndDate: ended, Status: 'cancelled',
    });
  }
  let added: { typeId: number; levelId: number | null; start: string; end: string } | null = null;
  if (parameters.changeCurrentMembership && current && parameters.membershipTypeId) {
    const start = current.end_date !== null && current.end_date >= periodStart ? addDays(current.end_date, 1) : periodStart;
    if (current.end_date === null) {
      // An open-ended term is closed the day before the renewal starts.
      const ended = latest(addDays(current.start_date, -1), addDays(start, -1));
      await sql.run(`UPDATE membership SET end_date = ?, audit_id = audit_id + 1, updated_at = now() WHERE id = ? AND ${tenantIs()}`, [ended, current.id]);
    }
    added = { typeId: parameters.membershipTypeId, levelId: parameters.membershipLevelId, start, end: addDays(addMonths(start, monthsFrom(periodStart, addDays(periodEnd, 1))), -1) };
  } else if (parameters.createMembership) {
    const typeId = parameters.membershipTypeId ?? current?.membership_type_id;
    const levelId = parameters.membershipTypeId ? parameters.membershipLevelId : current?.membership_level_id ?? null;
    if (typeId) added = { typeId, levelId, start: periodStart, end: periodEnd };
  }
  if (!added) return;
  const term = ctx.em.create(Membership, {
    tenant: ctx.tenantId, contact: schedule.contact_id, membershipType: added.typeId, membershipLevel: added.levelId,
    startDate: added.start, endDate: added.end, status: 'active',
  });
  await ctx.em.flush();
  const facts = { MembershipId: term.id, ContactId: schedule.contact_id, MembershipTypeId: added.typeId, StartDate: added.start, EndDate: added.end, Status: 'active' as const };
  await (current && parameters.changeCurrentMembership
    ? emitMembershipEvent(ctx, 'membership.renewed', facts, { RenewedMembershipId: current.id })
    : emitMembershipEvent(ctx, 'membership.created', facts));
  await sql.run(`UPDATE scheduled_billing SET membership_id = ?, audit_id = audit_id + 1, updated_at = now() WHERE id = ? AND ${tenantIs()}`, [term.id, claimed.schedule_id]);
}

/** The membership term `id`, locked for this transaction (null: none, or gone). */
async function lockTerm(ctx: RequestContext, id: number | null): Promise<Term | null> {
  if (id === null) return null;
  const [term] = await tenantSql(ctx).all<Term>(
    `SELECT id, contact_id, membership_type_id, membership_level_id, to_char(start_date, 'YYYY-MM-DD') AS start_date,
       to_char(end_date, 'YYYY-MM-DD') AS end_date, status
     FROM membership WHERE id = ? AND ${tenantIs()} FOR UPDATE`, [id]);
  return term ?? null;
}

function latest(a: string, b: string): string {
  return a > b ? a : b;
}

/** Whole months from `from` to `to` (both yyyy-mm-dd; a billed period's start and the day after its end). */
function monthsFrom(from: string, to: string): number {
  const month = (day: string) => Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7));
  return Math.max(1, month(to) - month(from));
}
