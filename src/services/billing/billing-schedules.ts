import type { EntityClass, FilterQuery } from '@mikro-orm/core';
import type { RequestContext } from '../../core/context.js';
import { calendarDay } from '../../core/dates.js';
import { BadInput, Conflict } from '../../core/errors.js';
import { idOf, leanRows } from '../../core/data/lean-read.js';
import { deleteRecord, inTransaction, readOr404, saveRecord } from '../../core/data/records.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';
import { parseMoney, toMoneyString } from '../../core/money.js';
import { ScheduledBilling, type ScheduleStatus } from '../../entities/billing.js';
import { CategoryItem } from '../../entities/category-list.js';
import { SaleableItem } from '../../entities/commerce.js';
import { Contact } from '../../entities/contact.js';
import { Event } from '../../entities/event.js';
import { Membership } from '../../entities/membership.js';
import type { BillingSchedule, BillingScheduleInput } from '../../schema/scheduled-billing.js';
import { SCHEDULE_FIELDS, toItems } from './scheduled-billing.js';

/*
 * Billing schedules kept by staff (decided where the documents are silent): one save creates
 * (id 0) or updates a schedule, with AuditId; its Status (active, paused, ended) is how it is
 * paused, resumed and ended — runs bill only active schedules whose next bill date has come, and
 * `ended` is final (a new schedule bills again). The list is the documented
 * `scheduledBillingItems` (POST /api/scheduledbilling/membershiptype/items); `billingSchedule`
 * reads one with its AuditId. The payment profile is a token reference the gateway gave (never
 * card data: a run of 13 or more digits is refused), write-only like the list's HasProfile says.
 * A schedule a run has billed keeps its history: deleting it is refused (409; end it instead);
 * one never billed is deleted.
 */

const NOUN = 'The billing schedule';
const PROFILE = /^[A-Za-z0-9_.:-]{1,200}$/;
/** What a card number looks like inside a value (13 to 19 digits, perhaps grouped by spaces or dashes). */
const CARD_NUMBER = /\d(?:[ -]?\d){12,}/;

export async function getBillingSchedule(ctx: RequestContext, scheduledBillingId: number): Promise<BillingSchedule> {
  const row = await readOr404(ctx, ScheduledBilling, [...SCHEDULE_FIELDS, 'auditId'], scheduledBillingId, NOUN);
  const [item] = await toItems(ctx, [row]);
  return { ...item, AuditId: row.auditId };
}

/** Creates (scheduledBillingId 0) or updates a schedule; answers it as saved. */
export async function saveBillingSchedule(ctx: RequestContext, scheduledBillingId: number, input: BillingScheduleInput): Promise<BillingSchedule> {
  const fields = await checkedFields(ctx, input);
  return inTransaction(ctx, async () => {
    let auditId = input.AuditId;
    if (scheduledBillingId) {
      // The version whose status is checked here is the one saved (else 409): an end that lands meanwhile is never undone.
      const current = await readOr404(ctx, ScheduledBilling, ['status', 'auditId'], scheduledBillingId, NOUN);
      if (current.status === 'ended' && fields.status !== undefined && fields.status !== 'ended') {
        throw new Conflict('An ended billing schedule stays ended: create a new one to bill again.');
      }
      auditId ??= current.auditId;
    }
    const saved = await saveRecord(ctx, ScheduledBilling, { id: scheduledBillingId, auditId }, fields, NOUN);
    return getBillingSchedule(ctx, saved.id);
  });
}

/** Deletes a schedule no run has billed (409 for one with run history: end it instead); answers its id. */
export async function deleteBillingSchedule(ctx: RequestContext, scheduledBillingId: number, auditId: number | null | undefined): Promise<number> {
  return inTransaction(ctx, async () => {
    // Locked first: a run billing it meanwhile commits its item before the check below, or waits and finds it gone.
    await tenantSql(ctx).run(`SELECT id FROM scheduled_billing WHERE id = ? AND ${tenantIs()} FOR UPDATE`, [scheduledBillingId]);
    const [billed] = await tenantSql(ctx).all<{ id: number }>(
      `SELECT id FROM scheduled_billing_run_item WHERE schedule_id = ? AND ${tenantIs()} LIMIT 1`, [scheduledBillingId]);
    if (billed) throw new Conflict('A billing run has billed this schedule; its history stays: end it instead (Status ended).');
    return deleteRecord(ctx, ScheduledBilling, scheduledBillingId, auditId, NOUN);
  });
}

type ScheduleFields = Partial<Pick<ScheduledBilling,
  'description' | 'amount' | 'frequencyMonths' | 'startDate' | 'nextBillDate' | 'status' | 'paymentProfile' | 'groupId' | 'categoryItemId' | 'eventId' | 'tags'>>
  & { contact: number; membership: number | null; saleableItem: number };

/** The input as the schedule's columns, every reference checked against the tenant's records (400 naming the field). */
async function checkedFields(ctx: RequestContext, input: BillingScheduleInput): Promise<ScheduleFields> {
  const description = input.Description.trim();
  if (!description) throw BadInput.field('Description', 'must not be empty');
  const amount = parseMoney(input.Amount, 'Amount');
  if (amount.isZero()) throw BadInput.field('Amount', 'must be at least 0.01');
  const startDate = calendarDay(input.StartDate, 'StartDate');
  const nextBillDate = calendarDay(input.NextBillDate, 'NextBillDate');
  // NextBillDate not before StartDate: the input's rule (schema/scheduled-billing.ts).
  const [contact, membership, item, event, categoryItem] = await Promise.all([
    exists(ctx, Contact, input.ContactId),
    input.MembershipId ? leanRows(ctx.reader, Membership, { fields: ['contact'], where: { id: input.MembershipId }, limit: 1 }).then(([row]) => row) : null,
    exists(ctx, SaleableItem, input.SaleableItemId),
    input.EventId ? exists(ctx, Event, input.EventId) : true,
    input.CategoryItemId ? exists(ctx, CategoryItem, input.CategoryItemId) : true,
  ]);
  if (!contact) throw BadInput.field('ContactId', 'names no contact');
  if (input.MembershipId && (!membership || idOf(membership.contact) !== input.ContactId)) throw BadInput.field('MembershipId', 'names no membership of ContactId');
  if (!item) throw BadInput.field('SaleableItemId', 'names no saleable item');
  if (!event) throw BadInput.field('EventId', 'names no event');
  if (!categoryItem) throw BadInput.field('CategoryItemId', 'names no category item');
  return {
    contact: input.ContactId, membership: input.MembershipId ?? null, saleableItem: input.SaleableItemId, description, amount: toMoneyString(amount),
    frequencyMonths: input.FrequencyMonths ?? 12, startDate, nextBillDate,
    ...(input.Status ? { status: input.Status as ScheduleStatus } : {}),
    ...profileField(input.PaymentProfile),
    groupId: input.GroupId ?? null, categoryItemId: input.CategoryItemId ?? null, eventId: input.EventId ?? null,
    tags: [...new Set((input.Tags ?? []).map((tag) => tag.trim().toLowerCase()).filter(Boolean))],
  };
}

/** The payment profile change: none when absent (or null), removed when empty, else a checked token reference. */
function profileField(profile: string | null | undefined): { paymentProfile?: string | null } {
  if (profile == null) return {};
  const reference = profile.trim();
  if (!reference) return { paymentProfile: null };
  if (CARD_NUMBER.test(reference)) throw BadInput.field('PaymentProfile', 'must be the gateway\'s token reference, never a card number');
  if (!PROFILE.test(reference)) throw BadInput.field('PaymentProfile', 'must be a token reference: letters, digits, _ - . :');
  return { paymentProfile: reference };
}

async function exists<T extends { id: number }>(ctx: RequestContext, entity: EntityClass<T>, id: number): Promise<boolean> {
  return (await leanRows(ctx.reader, entity, { fields: ['id'], where: { id } as FilterQuery<T>, limit: 1 })).length === 1;
}
