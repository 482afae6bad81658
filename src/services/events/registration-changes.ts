import { LockMode } from '@mikro-orm/core';
import { emitWebhookEvent } from '../webhooks/events.js';
import type { RequestContext } from '../../core/context.js';
import { BadInput, Conflict, NotFound, staleAuditId } from '../../core/errors.js';
import { idOf, leanRows } from '../../core/data/lean-read.js';
import { money, sumMoney, toMoneyNumber, type Money } from '../../core/money.js';
import { inTransaction, readOr404 } from '../../core/data/records.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';
import { Invoice } from '../../entities/commerce.js';
import { EventRegistration, EventRegistrationOrder, EventRegistrationType } from '../../entities/event.js';
import type { EventRegistrationCancelInput, EventRegistrationInput, EventRegistrationRecord } from '../../schema/events.js';
import type { PaidInvoice } from '../commerce/paid-invoices.js';
import { creditInvoice, refundAndVoidInvoice } from '../commerce/invoices.js';
import { fromV2, register } from './event-registration.js';
import { iso } from './events.js';
import { releaseSeats, sumByKey, takeSeats } from './seats.js';

/*
 * Staff change and cancel event registrations (one attendee each; an order holds one submitted
 * form's attendees and items). Decisions where the issue is silent:
 * - Change: the registration type (its seats move: the new type's taken with the conditional
 *   UPDATE, 409 when it is full; the old type's released; the event's stay), the attendee's first
 *   and last name and e-mail. The amount billed stays (a type change re-bills nothing: staff raise
 *   or credit a difference through the invoices). Offerings and quantities are not changed here:
 *   cancel the order and register again. Groups restricted to another type drop the attendee.
 * - Cancel: the registration (or with WholeOrder every attendee and item of its order) becomes
 *   `cancelled`; its seats go back to its type, its offerings and the event (never below zero);
 *   it leaves every group (table); an invitation it answered goes back to `declined` (the invitee
 *   was invited and is not coming; `invited` would ask them again). When nothing registered is left
 *   in the order the order is cancelled too, every payment on its invoice refunded (one negative
 *   payment) and the invoice voided; otherwise the invoice gets a credit line for what the
 *   cancelled part cost and what was paid beyond the new total is refunded. Cancelling a cancelled
 *   registration changes nothing and answers it.
 * - One writer per order: the order row is locked first, so cancels of one order and their money
 *   are serialized; seats move in registration's order (types, offerings, event by id).
 */

const NOUN = 'The event registration';
const RECORD_FIELDS = ['id', 'event', 'order', 'contact', 'registrationType', 'status', 'firstName', 'lastName', 'email', 'amount', 'auditId'] as const;
type RecordRow = Pick<EventRegistration, (typeof RECORD_FIELDS)[number]>;

export async function getEventRegistration(ctx: RequestContext, eventRegistrationId: number): Promise<EventRegistrationRecord> {
  return recordView(ctx, await readOr404(ctx, EventRegistration, RECORD_FIELDS, eventRegistrationId, NOUN));
}

/** Registers an attendee (0) as staff, or changes a registration: its type (seats move) and the attendee's details. */
export async function saveEventRegistration(ctx: RequestContext, eventRegistrationId: number, input: EventRegistrationInput): Promise<EventRegistrationRecord> {
  if (eventRegistrationId === 0) return registerByStaff(ctx, input);
  await inTransaction(ctx, async () => {
    // Locked before any seat row, as a cancel locks it: the two never wait on each other crosswise.
    const registration = await ctx.em.findOne(EventRegistration, { id: eventRegistrationId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!registration) throw new NotFound(NOUN);
    if (input.AuditId != null && input.AuditId !== registration.auditId) throw staleAuditId();
    if (input.EventId != null && input.EventId !== idOf(registration.event)) throw BadInput.field('EventId', 'cannot move a registration to another event');
    if (registration.status !== 'registered') throw new Conflict('A cancelled registration cannot be changed.');
    const typeId = input.EventRegistrationTypeId;
    if (typeId != null && typeId !== idOf(registration.registrationType)) {
      await moveToType(ctx, registration, typeId);
      registration.registrationType = ctx.em.getReference(EventRegistrationType, typeId);
    }
    if (input.FirstName != null) registration.firstName = input.FirstName.trim();
    if (input.LastName != null) registration.lastName = input.LastName.trim();
    if (input.EmailAddress != null) registration.email = input.EmailAddress.trim().toLowerCase();
    // The version in the UPDATE: a change or cancel that committed since the read makes this one 409 (and undoes its seat moves).
    await ctx.em.flush();
  });
  ctx.em.clear();
  return getEventRegistration(ctx, eventRegistrationId);
}

/** Cancels a registration (or its whole order): seats back, out of groups, invitation declined, invoice credited or voided. */
export async function cancelEventRegistration(ctx: RequestContext, eventRegistrationId: number, input: EventRegistrationCancelInput): Promise<EventRegistrationRecord> {
  await inTransaction(ctx, async () => {
    const [registration] = await tenantSql(ctx).all<{ order_id: number }>(`select order_id from event_registration where id = ? and ${tenantIs()}`, [eventRegistrationId]);
    if (!registration) throw new NotFound(NOUN);
    await lockOrder(ctx, registration.order_id);
    // The registration locked (after its order, before any seat row): no change commits between this check and the cancel.
    const [current] = await tenantSql(ctx).all<{ audit_id: number }>(`select audit_id from event_registration where id = ? and ${tenantIs()} for update`, [eventRegistrationId]);
    if (input.AuditId != null && current.audit_id !== input.AuditId) throw staleAuditId();
    await cancelInOrder(ctx, registration.order_id, input.WholeOrder ? 'all' : [eventRegistrationId]);
  });
  ctx.em.clear();
  return getEventRegistration(ctx, eventRegistrationId);
}

/**
 * Cancels the registrations of a contact (as attendee) for events that have not ended, by the same
 * rules as a staff cancel, in the caller's transaction; answers how many were cancelled. For the
 * contacts area's archive.
 */
export async function cancelRegistrationsOfContact(ctx: RequestContext, contactId: number): Promise<number> {
  return inTransaction(ctx, async () => {
    const rows = await tenantSql(ctx).all<{ order_id: number; id: number }>(
      `select r.order_id, r.id from event_registration r join event e on e.id = r.event_id and ${tenantIs('e')}
        where ${tenantIs('r')} and r.contact_id = ? and r.status = 'registered' and e.ends_at > now() order by r.order_id, r.id`, [contactId]);
    const byOrder = new Map<number, number[]>();
    for (const row of rows) byOrder.set(row.order_id, [...(byOrder.get(row.order_id) ?? []), row.id]);
    for (const [orderId, ids] of byOrder) {
      await lockOrder(ctx, orderId);
      await cancelInOrder(ctx, orderId, ids);
    }
    return rows.length;
  });
}

/** The events area's paid-invoice handler (`event-registration:<orderId>`): the order is marked paid, once. */
export async function markRegistrationOrderPaid(ctx: RequestContext, invoice: PaidInvoice, sourceId: string): Promise<void> {
  if (!/^\d{1,9}$/.test(sourceId)) return; // the demo's keys name no order
  await tenantSql(ctx).run(
    `update event_registration_order set paid_at = now(), updated_at = now(), audit_id = audit_id + 1
      where id = ? and ${tenantIs()} and invoice_id = ? and paid_at is null`, [Number(sourceId), invoice.id]);
}

// ---------- the work ----------

async function registerByStaff(ctx: RequestContext, input: EventRegistrationInput): Promise<EventRegistrationRecord> {
  const required = (value: number | string | null | undefined, field: string) => {
    if (value == null) throw BadInput.field(field, 'is required to register an attendee');
    return value;
  };
  const attendee = {
    EventRegistrationTypeId: required(input.EventRegistrationTypeId, 'EventRegistrationTypeId') as number,
    FirstName: required(input.FirstName, 'FirstName') as string, LastName: required(input.LastName, 'LastName') as string,
    EmailAddress: required(input.EmailAddress, 'EmailAddress') as string,
  };
  const eventId = required(input.EventId, 'EventId') as number;
  // The attendee pays for themself; staff skip the captcha. The same registrant's repeat answers what they hold.
  const { Data } = await register(ctx, fromV2(eventId, { BillingInfo: attendee, Registrations: [attendee], DisableCaptchaCheck: true }));
  // The order holds this one attendee registered (a repeat answers an order of exactly that attendee).
  const registered = Data.Attendees.find((row) => row.Status === 'registered') ?? Data.Attendees[0];
  return getEventRegistration(ctx, registered.EventRegistrationId);
}

/** Takes a seat of the new type (409 when full) and gives one back to the old, in id order; groups for the old type only let the attendee go. */
async function moveToType(ctx: RequestContext, registration: EventRegistration, typeId: number): Promise<void> {
  const oldTypeId = idOf(registration.registrationType);
  const [type] = await leanRows(ctx.reader, EventRegistrationType, { fields: ['id', 'name'], where: { id: typeId, event: idOf(registration.event) }, limit: 1 });
  if (!type) throw BadInput.field('EventRegistrationTypeId', 'names no registration type of the event');
  for (const id of [oldTypeId, typeId].sort((a, b) => a - b)) {
    if (id === oldTypeId) await releaseSeats(ctx, 'event_registration_type', id, 1);
    else if (!(await takeSeats(ctx, 'event_registration_type', id, 1))) {
      throw new Conflict(`Not enough places left: ${type.name} is sold out.`, [{ field: 'EventRegistrationTypeId', message: 'not enough places left' }]);
    }
  }
  await tenantSql(ctx).run(
    `delete from event_group_member m using event_group g
      where ${tenantIs('m')} and m.registration_id = ? and g.id = m.group_id and ${tenantIs('g')} and g.registration_type_id is not null and g.registration_type_id <> ?`, [registration.id, typeId]);
}

async function lockOrder(ctx: RequestContext, orderId: number): Promise<void> {
  await tenantSql(ctx).run(`select id from event_registration_order where id = ? and ${tenantIs()} for update`, [orderId]);
}

/** Inside the transaction, the order locked: cancels its registrations `which` (or everything), and follows through. */
async function cancelInOrder(ctx: RequestContext, orderId: number, which: number[] | 'all'): Promise<void> {
  const sql = tenantSql(ctx);
  const [order] = await sql.all<{ event_id: number; invoice_id: number | null }>(`select event_id, invoice_id from event_registration_order where id = ? and ${tenantIs()}`, [orderId]);
  const onlySome = which === 'all' ? '' : `and id in (${which.map(() => '?').join(', ')})`;
  const attendees = await sql.all<{ id: number; registration_type_id: number; contact_id: number; amount: string; first_name: string; last_name: string }>(
    `update event_registration set status = 'cancelled', audit_id = audit_id + 1, updated_at = now()
      where ${tenantIs()} and order_id = ? and status = 'registered' ${onlySome}
      returning id, registration_type_id, contact_id, amount, first_name, last_name`, [orderId, ...(which === 'all' ? [] : which)]);
  for (const attendee of attendees) {
    await emitWebhookEvent(ctx, 'event_registration.cancelled', { EventRegistrationId: attendee.id, OrderId: orderId, EventId: order.event_id, ContactId: attendee.contact_id });
  }
  const purchases = which === 'all'
    ? await sql.all<{ offering_id: number; quantity: number; amount: string }>(
      `update event_purchase set status = 'cancelled', updated_at = now() where ${tenantIs()} and order_id = ? and status = 'registered' returning offering_id, quantity, amount`, [orderId])
    : [];
  if (attendees.length === 0 && purchases.length === 0) return;

  for (const [typeId, count] of sumByKey(attendees.map((row) => [row.registration_type_id, 1]))) await releaseSeats(ctx, 'event_registration_type', typeId, count);
  for (const [offeringId, quantity] of sumByKey(purchases.map((row) => [row.offering_id, row.quantity]))) await releaseSeats(ctx, 'event_offering', offeringId, quantity);
  if (attendees.length) await releaseSeats(ctx, 'event', order.event_id, attendees.length);

  if (attendees.length) {
    const ids = attendees.map((row) => row.id);
    const contactIds = [...new Set(attendees.map((row) => row.contact_id))];
    await sql.run(`delete from event_group_member where ${tenantIs()} and registration_id in (${ids.map(() => '?').join(', ')})`, ids);
    await sql.run(
      `update event_invitation i set status = 'declined', responded_at = now(), updated_at = now(), audit_id = audit_id + 1
        where ${tenantIs('i')} and i.event_id = ? and i.status = 'registered' and i.contact_id in (${contactIds.map(() => '?').join(', ')})
          and not exists (select 1 from event_registration r where ${tenantIs('r')} and r.event_id = i.event_id and r.contact_id = i.contact_id and r.status = 'registered')`,
      [order.event_id, ...contactIds]);
  }

  const [left] = await sql.all<{ live: boolean }>(
    `select exists (select 1 from event_registration where ${tenantIs()} and order_id = ? and status = 'registered')
         or exists (select 1 from event_purchase where ${tenantIs()} and order_id = ? and status = 'registered') as live`, [orderId, orderId]);
  const reference = `Cancelled registration order ${orderId}`;
  if (!left.live) {
    // Its idempotency key is released, so the same form may register again.
    await sql.run(
      `update event_registration_order set status = 'cancelled', idempotency_key = 'cancelled:' || id, audit_id = audit_id + 1, updated_at = now() where id = ? and ${tenantIs()}`, [orderId]);
    if (order.invoice_id) await refundAndVoidInvoice(ctx, order.invoice_id, reference);
    return;
  }
  const credit: Money = sumMoney([...attendees.map((row) => money(row.amount)), ...purchases.map((row) => money(row.amount))]);
  if (order.invoice_id && credit.greaterThan(0)) {
    const names = attendees.map((row) => `${row.first_name} ${row.last_name}`).join(', ');
    await creditInvoice(ctx, order.invoice_id, { description: `Cancelled: ${names || 'items'}`, amount: credit, reference });
  }
}

// ---------- views ----------

async function recordView(ctx: RequestContext, row: RecordRow): Promise<EventRegistrationRecord> {
  const orderId = idOf(row.order);
  const [type, [order]] = await Promise.all([
    ctx.loaders.byId(EventRegistrationType).load(idOf(row.registrationType)),
    leanRows(ctx.reader, EventRegistrationOrder, { fields: ['id', 'status', 'invoice', 'paidAt'], where: { id: orderId }, limit: 1 }),
  ]);
  const invoiceId = order ? idOf(order.invoice) : null;
  const invoice = invoiceId ? await ctx.loaders.byId(Invoice).load(invoiceId) : null;
  return {
    EventRegistrationId: row.id, EventRegistrationOrderId: orderId, EventId: idOf(row.event), ContactId: idOf(row.contact),
    EventRegistrationTypeId: idOf(row.registrationType), EventRegistrationTypeName: type?.name ?? '', FirstName: row.firstName, LastName: row.lastName,
    EmailAddress: row.email, Amount: toMoneyNumber(row.amount), Status: row.status, OrderStatus: order?.status ?? 'cancelled',
    PaidAt: order?.paidAt ? iso(order.paidAt) : null, InvoiceId: invoiceId, InvoiceStatus: invoice?.status ?? null, AuditId: row.auditId,
  };
}
