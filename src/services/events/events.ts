import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../core/context.js';
import { BadInput, Conflict } from '../../core/errors.js';
import { captchaOutboundPolicy } from '../../core/external/captcha.js';
import { outboundUrlProblem } from '../../core/external/outbound.js';
import { idOf, insertIgnoringDuplicates, leanRows } from '../../core/data/lean-read.js';
import { listQuery, defineList } from '../../core/data/list-query.js';
import { parseMoney, toMoneyNumber, toMoneyString } from '../../core/money.js';
import { readOr404, saveRecord } from '../../core/data/records.js';
import { Invoice, InvoiceLine, Payment, SaleableItem } from '../../entities/commerce.js';
import { Contact } from '../../entities/contact.js';
import {
  Event, EventCaptchaSetting, EventGroup, EventInvitation, EventOffering, EventPurchase, EventRegistration, EventRegistrationOrder, EventRegistrationType, EventSession,
  type CaptchaProvider, type EventOfferingKind, type EventStatus,
} from '../../entities/event.js';
import type { Tenant } from '../../entities/tenant.js';
import type { ListOptionsInput } from '../../schema/common.js';
import type {
  EventAttendeeView, EventCaptchaSettingInput, EventCaptchaSettingView, EventInput, EventInvitationView, EventOfferingInput, EventOfferingView,
  EventRegistrationTypeInput, EventRegistrationTypeView, EventSessionInput, EventSessionView, EventView,
} from '../../schema/events.js';

/*
 * Event management (GraphQL only, staff): events with dates, venue, capacity and goals, their
 * sessions, registration types, offerings (sponsorship and exhibitor packages, additional items,
 * donation items), invitations, and the tenant's captcha provider. Decisions where the documents
 * are silent: an event is `draft` until staff open it (drafts are not public); capacity cannot be
 * set below the seats already taken (409); prices are exact to the cent and never negative.
 */

export const EVENT_NOUN = 'The event';
const TYPE_NOUN = 'The registration type';
const OFFERING_NOUN = 'The event offering';
const SESSION_NOUN = 'The event session';

export const EVENT_FIELDS = [
  'id', 'name', 'description', 'startsAt', 'endsAt', 'venue', 'status', 'capacity', 'seatsTaken', 'registrationOpensAt', 'registrationClosesAt', 'requireCaptcha',
  'goalAttendees', 'goalAttendeeRevenue', 'goalSponsors', 'goalSponsorRevenue', 'goalExhibitors', 'goalExhibitorRevenue', 'auditId',
] as const;
export type EventRow = Pick<Event, (typeof EVENT_FIELDS)[number]>;
export const TYPE_FIELDS = ['id', 'event', 'name', 'price', 'capacity', 'seatsTaken', 'memberOnly', 'sessionIds', 'saleableItem', 'isActive', 'sortOrder', 'auditId'] as const;
export type TypeRow = Pick<EventRegistrationType, (typeof TYPE_FIELDS)[number]>;
export const OFFERING_FIELDS = ['id', 'event', 'kind', 'name', 'price', 'capacity', 'seatsTaken', 'saleableItem', 'isActive', 'auditId'] as const;
export type OfferingRow = Pick<EventOffering, (typeof OFFERING_FIELDS)[number]>;
const SESSION_FIELDS = ['id', 'event', 'name', 'startsAt', 'endsAt', 'auditId'] as const;

const eventList = defineList(Event, {
  operations: ['Query.events'],
  orderBy: { Name: 'name', EventId: 'id', StartDate: 'startsAt', EndDate: 'endsAt', Status: 'status' },
  defaultOrder: 'StartDate desc',
  search: ['name', 'venue'],
  dates: 'startsAt',
}, 'many');

const attendeeList = defineList(EventRegistration, {
  operations: ['Query.eventAttendees'],
  orderBy: { EventRegistrationId: 'id', Status: 'status', Amount: 'amount' },
  defaultOrder: 'EventRegistrationId',
  search: ['contact.firstName', 'contact.lastName', 'contact.email'],
}, 'many');

export async function listEvents(ctx: RequestContext, options: ListOptionsInput | null | undefined): Promise<EventView[]> {
  const { rows } = await listQuery(ctx, Event, eventList, options, { fields: EVENT_FIELDS });
  return rows.map(toEventView);
}

export async function getEvent(ctx: RequestContext, eventId: number): Promise<EventView> {
  return toEventView(await readOr404(ctx, Event, EVENT_FIELDS, eventId, EVENT_NOUN));
}

/** Create (eventId 0) or update an event; AuditId checked. */
export async function saveEvent(ctx: RequestContext, eventId: number, input: EventInput): Promise<EventView> {
  const startsAt = dateTime(input.StartDate, 'StartDate');
  const endsAt = dateTime(input.EndDate, 'EndDate');
  if (endsAt < startsAt) throw BadInput.field('EndDate', 'must not be before StartDate');
  const opensAt = input.RegistrationOpensAt ? dateTime(input.RegistrationOpensAt, 'RegistrationOpensAt') : null;
  const closesAt = input.RegistrationClosesAt ? dateTime(input.RegistrationClosesAt, 'RegistrationClosesAt') : null;
  if (opensAt && closesAt && closesAt < opensAt) throw BadInput.field('RegistrationClosesAt', 'must not be before RegistrationOpensAt');
  const fields = {
    name: input.Name.trim(), description: input.Description?.trim() || null, startsAt, endsAt, venue: input.Venue?.trim() || null,
    capacity: input.Capacity ?? null, registrationOpensAt: opensAt, registrationClosesAt: closesAt, requireCaptcha: input.RequireCaptcha ?? true,
    goalAttendees: input.GoalAttendees ?? null, goalSponsors: input.GoalSponsors ?? null, goalExhibitors: input.GoalExhibitors ?? null,
    goalAttendeeRevenue: optionalMoney(input.GoalAttendeeRevenue, 'GoalAttendeeRevenue'),
    goalSponsorRevenue: optionalMoney(input.GoalSponsorRevenue, 'GoalSponsorRevenue'),
    goalExhibitorRevenue: optionalMoney(input.GoalExhibitorRevenue, 'GoalExhibitorRevenue'),
    ...(input.Status ? { status: input.Status as EventStatus } : {}),
  };
  if (eventId) {
    const [current] = await leanRows(ctx.reader, Event, { fields: ['seatsTaken'], where: { id: eventId }, limit: 1 });
    if (current && fields.capacity !== null && fields.capacity < current.seatsTaken) {
      throw new Conflict(`The capacity cannot be less than the ${current.seatsTaken} seats already taken.`, [{ field: 'Capacity', message: 'is less than the seats taken' }]);
    }
  }
  return toEventView(await saveRecord(ctx, Event, { id: eventId, auditId: input.AuditId }, fields, EVENT_NOUN));
}

export async function listEventSessions(ctx: RequestContext, eventId: number): Promise<EventSessionView[]> {
  await readOr404(ctx, Event, ['id'], eventId, EVENT_NOUN);
  const rows = await leanRows(ctx.reader, EventSession, { fields: [...SESSION_FIELDS], where: { event: eventId }, orderBy: [{ startsAt: 'asc' }, { id: 'asc' }], limit: 1000 });
  return rows.map(toSessionView);
}

export async function saveEventSession(ctx: RequestContext, eventSessionId: number, input: EventSessionInput): Promise<EventSessionView> {
  await readOr404(ctx, Event, ['id'], input.EventId, EVENT_NOUN);
  const fields = {
    name: input.Name.trim(),
    startsAt: input.StartDate ? dateTime(input.StartDate, 'StartDate') : null,
    endsAt: input.EndDate ? dateTime(input.EndDate, 'EndDate') : null,
  };
  const saved = await saveRecord(ctx, EventSession, { id: eventSessionId, auditId: input.AuditId }, fields, SESSION_NOUN, { event: input.EventId });
  if (idOf(saved.event) !== input.EventId) throw BadInput.field('EventId', 'cannot move a session to another event');
  return toSessionView(saved);
}

export async function listEventRegistrationTypes(ctx: RequestContext, eventId: number): Promise<EventRegistrationTypeView[]> {
  await readOr404(ctx, Event, ['id'], eventId, EVENT_NOUN);
  const [event, types] = await Promise.all([
    readOr404(ctx, Event, EVENT_FIELDS, eventId, EVENT_NOUN),
    leanRows(ctx.reader, EventRegistrationType, { fields: [...TYPE_FIELDS], where: { event: eventId }, orderBy: [{ sortOrder: 'asc' }, { id: 'asc' }], limit: 1000 }),
  ]);
  return types.map((type) => toTypeView(type, event, true));
}

export async function saveEventRegistrationType(ctx: RequestContext, typeId: number, input: EventRegistrationTypeInput): Promise<EventRegistrationTypeView> {
  const event = await readOr404(ctx, Event, EVENT_FIELDS, input.EventId, EVENT_NOUN);
  const sessionIds = [...new Set(input.SessionIds ?? [])];
  if (sessionIds.length) {
    const sessions = await leanRows(ctx.reader, EventSession, { fields: ['id'], where: { id: { $in: sessionIds }, event: input.EventId } });
    if (sessions.length !== sessionIds.length) throw BadInput.field('SessionIds', 'must name sessions of the event');
  }
  if (input.SaleableItemId) await readOr404(ctx, SaleableItem, ['id'], input.SaleableItemId, 'The saleable item');
  const fields = {
    name: input.Name.trim(), price: toMoneyString(parseMoney(input.Price, 'Price')), capacity: input.Capacity ?? null, memberOnly: input.MemberOnly ?? false,
    sessionIds, saleableItem: input.SaleableItemId ?? null, isActive: input.IsActive ?? true, sortOrder: input.SortOrder ?? 0,
  };
  if (typeId) await refuseCapacityBelowTaken(ctx, EventRegistrationType, typeId, fields.capacity);
  const saved = await saveRecord(ctx, EventRegistrationType, { id: typeId, auditId: input.AuditId }, fields, TYPE_NOUN, { event: input.EventId });
  if (idOf(saved.event) !== input.EventId) throw BadInput.field('EventId', 'cannot move a registration type to another event');
  return toTypeView(saved, event, true);
}

export async function listEventOfferings(ctx: RequestContext, eventId: number): Promise<EventOfferingView[]> {
  await readOr404(ctx, Event, ['id'], eventId, EVENT_NOUN);
  const rows = await leanRows(ctx.reader, EventOffering, { fields: [...OFFERING_FIELDS], where: { event: eventId }, orderBy: [{ kind: 'asc' }, { id: 'asc' }], limit: 1000 });
  return rows.map(toOfferingView);
}

export async function saveEventOffering(ctx: RequestContext, offeringId: number, input: EventOfferingInput): Promise<EventOfferingView> {
  await readOr404(ctx, Event, ['id'], input.EventId, EVENT_NOUN);
  if (input.SaleableItemId) await readOr404(ctx, SaleableItem, ['id'], input.SaleableItemId, 'The saleable item');
  const fields = {
    kind: input.Kind as EventOfferingKind, name: input.Name.trim(), price: toMoneyString(parseMoney(input.Price, 'Price')), capacity: input.Capacity ?? null,
    saleableItem: input.SaleableItemId ?? null, isActive: input.IsActive ?? true,
  };
  if (offeringId) await refuseCapacityBelowTaken(ctx, EventOffering, offeringId, fields.capacity);
  const saved = await saveRecord(ctx, EventOffering, { id: offeringId, auditId: input.AuditId }, fields, OFFERING_NOUN, { event: input.EventId });
  if (idOf(saved.event) !== input.EventId) throw BadInput.field('EventId', 'cannot move an offering to another event');
  return toOfferingView(saved);
}

/** Invites contacts to an event (an invitation already there stays as it is); answers the event's invitations of those contacts. */
export async function inviteToEvent(ctx: RequestContext, eventId: number, contactIds: number[]): Promise<EventInvitationView[]> {
  await readOr404(ctx, Event, ['id'], eventId, EVENT_NOUN);
  const ids = [...new Set(contactIds)];
  if (ids.length > 1000) throw BadInput.field('contactIds', 'at most 1000 at a time');
  const contacts = await leanRows(ctx.reader, Contact, { fields: ['id'], where: { id: { $in: ids } } });
  if (contacts.length !== ids.length) throw BadInput.field('contactIds', 'must name contacts of the tenant');
  await insertIgnoringDuplicates(ctx.em, EventInvitation, ids.map((contact) => ({ tenant: ctx.tenantId, event: eventId, contact })), ['tenant', 'event', 'contact']);
  const rows = await leanRows(ctx.reader, EventInvitation, { fields: ['id', 'event', 'contact', 'status', 'auditId'], where: { event: eventId, contact: { $in: ids } }, orderBy: [{ id: 'asc' }] });
  return rows.map((row) => ({ EventInvitationId: row.id, EventId: idOf(row.event), ContactId: idOf(row.contact), Status: row.status, AuditId: row.auditId }));
}

/** The event's attendees, one page at a time (staff). */
export async function listEventAttendees(ctx: RequestContext, eventId: number, options: ListOptionsInput | null | undefined): Promise<EventAttendeeView[]> {
  await readOr404(ctx, Event, ['id'], eventId, EVENT_NOUN);
  const { rows } = await listQuery(ctx, EventRegistration, attendeeList, options, {
    fields: ATTENDEE_FIELDS, where: { event: eventId },
  });
  return attendeeViews(ctx, rows);
}

export const ATTENDEE_FIELDS = ['id', 'order', 'contact', 'registrationType', 'status', 'amount', 'firstName', 'lastName'] as const;
export type AttendeeRow = Pick<EventRegistration, (typeof ATTENDEE_FIELDS)[number]>;

/**
 * Attendee rows as views, their types read through a DataLoader (one statement for any page). The
 * names are the ones the form gave; the contact id is shown to staff only.
 */
export async function attendeeViews(ctx: RequestContext, rows: readonly AttendeeRow[]): Promise<EventAttendeeView[]> {
  const types = ctx.loaders.byId(EventRegistrationType);
  return Promise.all(rows.map(async (row) => {
    const type = await types.load(idOf(row.registrationType));
    return {
      EventRegistrationId: row.id, ContactId: ctx.isStaff ? idOf(row.contact) : null, FirstName: row.firstName, LastName: row.lastName,
      EventRegistrationTypeId: idOf(row.registrationType), EventRegistrationTypeName: type?.name ?? '', Amount: toMoneyNumber(row.amount), Status: row.status,
    };
  }));
}

export async function getEventCaptchaSetting(ctx: RequestContext): Promise<EventCaptchaSettingView | null> {
  const [row] = await leanRows(ctx.reader, EventCaptchaSetting, { fields: ['provider', 'siteKey', 'verifyUrl'], where: {}, limit: 1 });
  return row ? { Provider: row.provider, SiteKey: row.siteKey, VerifyUrl: row.verifyUrl, HasSecret: true } : null;
}

/** Sets the tenant's captcha provider (one per tenant: an upsert on the unique tenant key). */
export async function saveEventCaptchaSetting(ctx: RequestContext, input: EventCaptchaSettingInput): Promise<EventCaptchaSettingView> {
  // The secret goes wherever VerifyUrl points: only to a host the operator allowed, never to a private address.
  const problem = input.VerifyUrl ? outboundUrlProblem(input.VerifyUrl, captchaOutboundPolicy(ctx.app.config)) : null;
  if (problem) throw BadInput.field('VerifyUrl', problem);
  await ctx.em.getConnection().execute(
    `insert into event_captcha_setting (tenant_id, provider, site_key, secret, verify_url) values (?, ?, ?, ?, ?)
     on conflict (tenant_id) do update set provider = excluded.provider, site_key = excluded.site_key, secret = excluded.secret, verify_url = excluded.verify_url, updated_at = now()`,
    [ctx.tenantId, input.Provider as CaptchaProvider, input.SiteKey, input.Secret, input.VerifyUrl ?? null],
  );
  return { Provider: input.Provider, SiteKey: input.SiteKey, VerifyUrl: input.VerifyUrl ?? null, HasSecret: true };
}

// ---------- views and helpers shared by the events services ----------

export function toEventView(row: EventRow): EventView {
  return {
    EventId: row.id, Name: row.name, Description: row.description, StartDate: iso(row.startsAt), EndDate: iso(row.endsAt), Venue: row.venue, Status: row.status,
    Capacity: row.capacity, RemainingCapacity: row.capacity === null ? null : Math.max(0, row.capacity - row.seatsTaken),
    RegistrationOpensAt: row.registrationOpensAt ? iso(row.registrationOpensAt) : null, RegistrationClosesAt: row.registrationClosesAt ? iso(row.registrationClosesAt) : null,
    IsRegistrationOpen: isRegistrationOpen(row, new Date()), RequireCaptcha: row.requireCaptcha,
    GoalAttendees: row.goalAttendees, GoalAttendeeRevenue: moneyOrNull(row.goalAttendeeRevenue),
    GoalSponsors: row.goalSponsors, GoalSponsorRevenue: moneyOrNull(row.goalSponsorRevenue),
    GoalExhibitors: row.goalExhibitors, GoalExhibitorRevenue: moneyOrNull(row.goalExhibitorRevenue),
    AuditId: row.auditId,
  };
}

/** Open for registration: status open, within the registration window (when set), and not over. */
export function isRegistrationOpen(row: Pick<Event, 'status' | 'endsAt' | 'registrationOpensAt' | 'registrationClosesAt'>, now: Date): boolean {
  if (row.status !== 'open') return false;
  if (new Date(row.endsAt) < now) return false;
  if (row.registrationOpensAt && new Date(row.registrationOpensAt) > now) return false;
  if (row.registrationClosesAt && new Date(row.registrationClosesAt) < now) return false;
  return true;
}

/** A registration type as offered: `mayUse` says whether this visitor may pick it (member-only types). */
export function toTypeView(row: TypeRow, event: Pick<Event, 'capacity' | 'seatsTaken'>, mayUse: boolean): EventRegistrationTypeView {
  const remaining = minRemaining(row, event);
  return {
    EventRegistrationTypeId: row.id, EventId: idOf(row.event), Name: row.name, Price: toMoneyNumber(row.price), Capacity: row.capacity, RemainingCapacity: remaining,
    MemberOnly: row.memberOnly, IsAvailable: row.isActive && mayUse && (remaining === null || remaining > 0), SessionIds: row.sessionIds,
    SaleableItemId: idOf(row.saleableItem), IsActive: row.isActive, SortOrder: row.sortOrder, AuditId: row.auditId,
  };
}

export function toOfferingView(row: OfferingRow): EventOfferingView {
  return {
    EventOfferingId: row.id, EventId: idOf(row.event), Kind: row.kind, Name: row.name, Price: toMoneyNumber(row.price), Capacity: row.capacity,
    RemainingCapacity: row.capacity === null ? null : Math.max(0, row.capacity - row.seatsTaken), SaleableItemId: idOf(row.saleableItem), IsActive: row.isActive, AuditId: row.auditId,
  };
}

export function toSessionView(row: Pick<EventSession, (typeof SESSION_FIELDS)[number]>): EventSessionView {
  return {
    EventSessionId: row.id, EventId: idOf(row.event), Name: row.name, StartDate: row.startsAt ? iso(row.startsAt) : null, EndDate: row.endsAt ? iso(row.endsAt) : null, AuditId: row.auditId,
  };
}

export { SESSION_FIELDS };

function minRemaining(type: Pick<EventRegistrationType, 'capacity' | 'seatsTaken'>, event: Pick<Event, 'capacity' | 'seatsTaken'>): number | null {
  const left = [type, event].filter((holder) => holder.capacity !== null).map((holder) => Math.max(0, holder.capacity! - holder.seatsTaken));
  return left.length ? Math.min(...left) : null;
}

async function refuseCapacityBelowTaken(ctx: RequestContext, entity: typeof EventRegistrationType | typeof EventOffering, id: number, capacity: number | null): Promise<void> {
  if (capacity === null) return;
  const [row] = await leanRows(ctx.reader, entity as typeof EventOffering, { fields: ['seatsTaken'], where: { id }, limit: 1 });
  if (row && capacity < row.seatsTaken) throw new Conflict(`The capacity cannot be less than the ${row.seatsTaken} already taken.`, [{ field: 'Capacity', message: 'is less than the seats taken' }]);
}

export function iso(value: Date | string): string {
  return new Date(value).toISOString();
}

function moneyOrNull(value: string | null): number | null {
  return value === null ? null : toMoneyNumber(value);
}

function optionalMoney(value: number | null | undefined, field: string): string | null {
  return value == null ? null : toMoneyString(parseMoney(value, field));
}

/** An ISO 8601 date-time that JavaScript and PostgreSQL both hold (years 1–9999), or 400 naming `field`. */
export function dateTime(value: string, field: string): Date {
  const date = new Date(value);
  const year = date.getUTCFullYear();
  if (Number.isNaN(date.getTime()) || year < 1 || year > 9999) throw BadInput.field(field, 'must be an ISO 8601 date-time between the years 0001 and 9999');
  return date;
}

/**
 * Demo: an open event with two registration types (one member-only), a session, a sponsorship,
 * an exhibitor booth, a donation item, one registration with an attendee and a sponsorship (its
 * invoice part paid), an invitation and a table with the attendee seated.
 */
export async function seedEvents(em: EntityManager, tenant: Tenant, marker: string): Promise<void> {
  const year = new Date().getUTCFullYear() + 1;
  const event = em.create(Event, {
    tenant, name: `Gala ${marker}`, description: `Annual gala ${marker}`, startsAt: new Date(`${year}-06-01T18:00:00Z`), endsAt: new Date(`${year}-06-01T23:00:00Z`),
    venue: `Hall ${marker}`, status: 'open', capacity: 100, seatsTaken: 1, requireCaptcha: false,
    goalAttendees: 80, goalAttendeeRevenue: '8000.00', goalSponsors: 4, goalSponsorRevenue: '4000.00', goalExhibitors: 2, goalExhibitorRevenue: '1000.00',
  });
  const session = em.create(EventSession, { tenant, event, name: `Dinner ${marker}` });
  const general = em.create(EventRegistrationType, { tenant, event, name: `General ${marker}`, price: '100.00', capacity: 80, seatsTaken: 1 });
  em.create(EventRegistrationType, { tenant, event, name: `Members ${marker}`, price: '75.00', memberOnly: true });
  const sponsorship = em.create(EventOffering, { tenant, event, kind: 'sponsorship', name: `Gold sponsor ${marker}`, price: '1000.00', capacity: 4, seatsTaken: 1 });
  em.create(EventOffering, { tenant, event, kind: 'exhibitor', name: `Booth ${marker}`, price: '500.00', capacity: 10 });
  em.create(EventOffering, { tenant, event, kind: 'donation', name: `Scholarship fund ${marker}`, price: '25.00' });
  const contact = em.create(Contact, { tenant, kind: 'person', firstName: 'Attendee', lastName: marker, email: `attendee.${marker.toLowerCase()}@example.org` });
  // Number 1001: clear of the commerce demo's invoice 1.
  const invoice = em.create(Invoice, {
    tenant, number: 1001, contact, invoiceDate: `${year - 1}-12-01`, dueDate: `${year - 1}-12-01`, total: '1100.00', amountPaid: '300.00', source: 'events', sourceKey: `event-registration:demo-${marker}`, memo: marker,
  });
  em.create(InvoiceLine, { tenant, invoice, lineNumber: 1, description: `General ${marker}`, quantity: 1, unitPrice: '100.00', amount: '100.00' });
  em.create(InvoiceLine, { tenant, invoice, lineNumber: 2, description: `Gold sponsor ${marker}`, quantity: 1, unitPrice: '1000.00', amount: '1000.00' });
  em.create(Payment, { tenant, invoice, amount: '300.00', paidAt: new Date(), method: 'card', reference: marker });
  const order = em.create(EventRegistrationOrder, { tenant, event, billingContact: contact, invoice, idempotencyKey: `demo-${marker}`.slice(0, 64), total: '1100.00', comments: marker, submittedAt: new Date() });
  const registration = em.create(EventRegistration, { tenant, event, order, contact, registrationType: general, amount: '100.00', firstName: 'Attendee', lastName: marker, email: contact.email! });
  em.create(EventPurchase, { tenant, event, order, offering: sponsorship, kind: 'sponsorship', contact, quantity: 1, unitPrice: '1000.00', amount: '1000.00' });
  em.create(EventInvitation, { tenant, event, contact });
  const group = em.create(EventGroup, { tenant, event, session, name: `Table 1 ${marker}`, maxToAssign: 10, groupNumber: 1 });
  await em.flush();
  await em.getConnection().execute('insert into event_group_member (tenant_id, group_id, registration_id, session_key) values (?, ?, ?, ?)', [tenant.id, group.id, registration.id, session.id]);
}
