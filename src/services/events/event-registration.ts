import { createHash } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { Decimal } from 'decimal.js';
import { captchaOutboundPolicy, SiteverifyCaptchaVerifier, type CaptchaVerifier } from '../../core/external/captcha.js';
import type { RequestContext } from '../../core/context.js';
import { todayUtc } from '../../core/dates.js';
import { BadInput, Conflict, NotFound } from '../../core/errors.js';
import { idOf, leanRows } from '../../core/data/lean-read.js';
import { MAX_MONEY, money, parseMoney, sumMoney, toMoneyNumber, toMoneyString, ZERO, type Money } from '../../core/money.js';
import { inTransaction } from '../../core/data/records.js';
import { Invoice } from '../../entities/commerce.js';
import { Contact } from '../../entities/contact.js';
import {
  Event, EventCaptchaSetting, EventInvitation, EventOffering, EventPurchase, EventRegistration, EventRegistrationOrder, EventRegistrationType, EventSession,
  type EventOfferingKind,
} from '../../entities/event.js';
import { Membership } from '../../entities/membership.js';
import type {
  BillingContactInfo, BillingContactInfoInput, EventAttendeeInput, EventBillingInfoInput, EventContactDefaults, EventDonationInput, EventOfferingChoiceInput,
  EventRegistrationEnvironment, EventRegistrationResult, EventSplitLine, EventSplits, PublicApiResponseOf, SaveEventRegisterV2Input, SaveRegisterAttendeesInput,
} from '../../schema/events.js';
import { createInvoice } from '../commerce/invoices.js';
import { redeemVoucher, vouchersHeldBy } from '../store/vouchers.js';
import { inGoodStandingOn } from '../memberships/good-standing.js';
import { contactRoles } from '../relationships/relationships.js';
import { emitWebhookEvent } from '../webhooks/events.js';
import {
  attendeeViews, ATTENDEE_FIELDS, EVENT_FIELDS, EVENT_NOUN, isRegistrationOpen, iso, OFFERING_FIELDS, SESSION_FIELDS, toEventView, toOfferingView, toSessionView,
  toTypeView, TYPE_FIELDS, type EventRow, type OfferingRow, type TypeRow,
} from './events.js';
import { TENANT, tenantIs, tenantSql } from '../../core/data/tenant-sql.js';
import { sumByKey, takeSeats } from './seats.js';

/*
 * Public event registration (no credential: `usePublicTenant`). Decisions where the documents are
 * silent:
 * - Prices come from the server (registration types and offerings); a price a client sends is
 *   ignored. Only a donation's amount is the donor's.
 * - Seats are taken with conditional UPDATEs (`seats_taken + n <= capacity`) on the types, the
 *   offerings and the event, in that order and by id (no deadlock between registrations), inside
 *   the transaction that saves the registration and raises its invoice: no event is overbooked.
 * - A submission's idempotency key is a hash of what it registers (not of the captcha token); it
 *   is unique per tenant, so the same form sent twice, even at once, registers once and both
 *   answers show the same registration (IsNew false for the repeat).
 * - The same registrant (same billing e-mail, same attendees by e-mail and name: `heldOrderId`)
 *   submitting again gets the registration they hold (200, same ids, IsNew false), even after a
 *   sell-out or once registration closed, without a captcha; only a new registrant is "sold out".
 *   Concurrent submissions of one registrant are serialized by an advisory lock on (event, billing
 *   e-mail), under which the held registration is looked up again. IsUpdateOperation and
 *   TargetContactId stay ignored: a public form never changes a registration; staff do
 *   (`registration-changes.ts`).
 * - People are matched to contacts by e-mail (or made); an anonymous caller never sees a matched
 *   contact's data: answers carry what the form sent, contact ids and member status only for staff.
 * - Member-only types need a signed-in member (or staff): an e-mail alone does not prove membership.
 * - Captcha: the tenant's provider checks CaptchaResponse on register when the event requires it;
 *   DisableCaptchaCheck is honoured only for staff. validate and splits do not spend the captcha
 *   (a token is single-use), they check everything else.
 * - register, register_v2 and submit save; submit takes the SaveEventRegisterV2 body too (the
 *   documents list none) and is the same idempotent save, so a re-submitted form is harmless.
 * - BillingContactInfo.Vouchers lists the vouchers the billing contact holds (to itself and staff);
 *   BillingInfo.VoucherCode spends one on the registration's invoice when it is saved
 *   (services/store/vouchers.ts): a code that cannot be spent refuses the whole registration.
 */

type OfferingList = 'Sponsorships' | 'Exhibitors' | 'AdditionalPurchaseItems' | 'ExtraItems';
const LIST_KIND: Record<OfferingList, EventOfferingKind> = { Sponsorships: 'sponsorship', Exhibitors: 'exhibitor', AdditionalPurchaseItems: 'purchase', ExtraItems: 'purchase' };

/** One registration form, whichever of the two documented shapes it came in. */
interface Submission {
  eventId: number;
  billing: EventBillingInfoInput;
  attendees: EventAttendeeInput[];
  /** The documented name of the attendee list (`Registrations` or `Models`), for messages. */
  attendeeField: string;
  choices: { list: OfferingList; index: number; choice: EventOfferingChoiceInput }[];
  donations: EventDonationInput[];
  comments: string | null;
  referralSource: string | null;
  captchaResponse: string | null;
  disableCaptchaCheck: boolean;
}

interface PricedLine {
  kind: 'registration' | EventOfferingKind;
  saleableItemId: number | null;
  description: string;
  quantity: number;
  unitPrice: Money;
  amount: Money;
}

interface PricedSubmission {
  event: EventRow;
  attendees: { input: EventAttendeeInput; type: TypeRow }[];
  purchases: { offering: OfferingRow; quantity: number; unitPrice: Money }[];
  lines: PricedLine[];
  total: Money;
}

const ok = <T>(Data: T, StatusMessage: string | null = 'OK'): PublicApiResponseOf<T> => ({ Status: 200, StatusMessage, Data });

export function fromV2(eventId: number, input: SaveEventRegisterV2Input): Submission {
  const choices = (['Sponsorships', 'Exhibitors', 'AdditionalPurchaseItems'] as const)
    .flatMap((list) => (input[list] ?? []).map((choice, index) => ({ list, index, choice })));
  return {
    eventId, billing: input.BillingInfo, attendees: input.Registrations ?? [], attendeeField: 'Registrations', choices, donations: input.DonationItems ?? [],
    comments: input.Comments?.trim() || null, referralSource: input.WebReferralSourceTypeId?.trim() || null,
    captchaResponse: input.CaptchaResponse ?? null, disableCaptchaCheck: input.DisableCaptchaCheck ?? false,
  };
}

export function fromV1(eventId: number, input: SaveRegisterAttendeesInput): Submission {
  return {
    eventId, billing: input.BillingInfo, attendees: input.Models, attendeeField: 'Models',
    choices: (input.ExtraItems ?? []).map((choice, index) => ({ list: 'ExtraItems' as const, index, choice })), donations: input.DonationItems ?? [],
    comments: null, referralSource: input.WebReferralSourceTypeId?.trim() || null,
    captchaResponse: input.CaptchaResponse ?? null, disableCaptchaCheck: input.DisableCaptchaCheck ?? false,
  };
}

// ---------- operations ----------

/** getenv: the event, its types (this visitor's prices, seats left), offerings, the contact's defaults and an existing registration. */
export async function registrationEnvironment(
  ctx: RequestContext, eventId: number, contactId: string | null | undefined, registrationId: string | null | undefined,
): Promise<PublicApiResponseOf<EventRegistrationEnvironment>> {
  await ctx.usePublicTenant();
  const event = await publicEvent(ctx, eventId);
  const [types, offerings, sessions, captcha, isMember] = await Promise.all([
    leanRows(ctx.reader, EventRegistrationType, { fields: [...TYPE_FIELDS], where: { event: eventId, ...(ctx.isStaff ? {} : { isActive: true }) }, orderBy: [{ sortOrder: 'asc' }, { id: 'asc' }], limit: 1000 }),
    leanRows(ctx.reader, EventOffering, { fields: [...OFFERING_FIELDS], where: { event: eventId, ...(ctx.isStaff ? {} : { isActive: true }) }, orderBy: [{ id: 'asc' }], limit: 1000 }),
    leanRows(ctx.reader, EventSession, { fields: [...SESSION_FIELDS], where: { event: eventId }, orderBy: [{ startsAt: 'asc' }, { id: 'asc' }], limit: 1000 }),
    captchaSetting(ctx),
    callerIsMember(ctx),
  ]);
  const offered = (kind: EventOfferingKind) => offerings.filter((offering) => offering.kind === kind).map(toOfferingView);
  return ok({
    Event: toEventView(event),
    Sessions: sessions.map(toSessionView),
    RegistrationTypes: types.map((type) => toTypeView(type, event, !type.memberOnly || isMember)),
    Sponsorships: offered('sponsorship'), Exhibitors: offered('exhibitor'), AdditionalPurchaseItems: offered('purchase'), DonationItems: offered('donation'),
    CaptchaRequired: event.requireCaptcha, CaptchaProvider: captcha?.provider ?? null, CaptchaSiteKey: captcha?.siteKey ?? null,
    Contact: await contactDefaults(ctx, recordId(contactId)),
    Registration: await visibleRegistration(ctx, eventId, recordId(registrationId)),
  });
}

/** validate: everything register checks (but the single-use captcha), nothing saved; Data holds the priced lines. */
export async function validateRegistration(ctx: RequestContext, submission: Submission): Promise<PublicApiResponseOf<EventSplits>> {
  await ctx.usePublicTenant();
  const priced = await priceSubmission(ctx, submission);
  checkAvailability(priced, submission, true);
  return ok(splitsOf(priced, ZERO), 'The registration is valid.');
}

/** splits: the saleable items a submission uses and the amounts, per line; with what is paid when it is already registered. */
export async function registrationSplits(ctx: RequestContext, submission: Submission): Promise<PublicApiResponseOf<EventSplits>> {
  await ctx.usePublicTenant();
  const priced = await priceSubmission(ctx, submission);
  checkAvailability(priced, submission, false);
  const [order] = await leanRows(ctx.reader, EventRegistrationOrder, { fields: ['invoice'], where: { idempotencyKey: idempotencyKey(submission) }, limit: 1 });
  const invoiceId = order ? idOf(order.invoice) : null;
  const [invoice] = invoiceId ? await leanRows(ctx.reader, Invoice, { fields: ['amountPaid'], where: { id: invoiceId }, limit: 1 }) : [];
  return ok(splitsOf(priced, money(invoice?.amountPaid ?? 0)));
}

/**
 * register / register_v2 / submit: saves the registration once, takes its seats and bills it. A
 * registrant who already holds a registration of the event (`heldOrderId`) gets that one back,
 * even when the event has sold out since or registration has closed.
 */
export async function register(ctx: RequestContext, submission: Submission, verifier?: CaptchaVerifier): Promise<PublicApiResponseOf<EventRegistrationResult>> {
  await ctx.usePublicTenant();
  const priced = await priceSubmission(ctx, submission);
  const key = idempotencyKey(submission);
  const held = await heldOrderId(ctx, submission, key);
  if (held) return alreadyRegistered(ctx, held);
  checkAvailability(priced, submission, true);
  await checkCaptcha(ctx, priced.event, submission, verifier);
  let saved: { orderId: number; isNew: boolean };
  try {
    saved = await inTransaction(ctx, () => saveRegistration(ctx, submission, priced, key));
  } catch (error) {
    // The same submission registered concurrently: its row won the unique key. Answer that one.
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
    ctx.em.clear();
    const winner = await orderIdByKey(ctx, key);
    if (!winner) throw error;
    return alreadyRegistered(ctx, winner);
  }
  ctx.em.clear();
  return saved.isNew ? ok(await registrationResult(ctx, saved.orderId, true), 'Registered.') : alreadyRegistered(ctx, saved.orderId);
}

async function alreadyRegistered(ctx: RequestContext, orderId: number): Promise<PublicApiResponseOf<EventRegistrationResult>> {
  return ok(await registrationResult(ctx, orderId, false), 'Already registered.');
}

/** decline/invitation: the invitee declines; Data true once the invitation is declined. */
export async function declineInvitation(ctx: RequestContext, eventId: number, contactId: string): Promise<PublicApiResponseOf<boolean>> {
  const tenantId = await ctx.usePublicTenant();
  const id = recordId(contactId);
  if (id === null) throw new NotFound('The invitation');
  const declined = await tenantSql({ em: ctx.em, tenantId }).all<{ id: number }>(
    `update event_invitation set status = 'declined', responded_at = now(), updated_at = now(), audit_id = audit_id + 1
      where ${tenantIs()} and event_id = ? and contact_id = ? and status = 'invited' returning id`, [eventId, id]);
  if (declined.length) return ok(true, 'The invitation was declined.');
  const [invitation] = await leanRows(ctx.reader, EventInvitation, { fields: ['status'], where: { event: eventId, contact: id }, limit: 1 });
  if (!invitation) throw new NotFound('The invitation');
  if (invitation.status === 'registered') throw new Conflict('The invitee has registered; cancel the registration instead.');
  return ok(true, 'The invitation was already declined.');
}

/**
 * determinebillingcontact: matches the billing contact by e-mail and organization. Staff get the
 * matched contact (or ContactId null: a new one would be made) with its roles at its organizations
 * (ContactRoles, from its relationships); an anonymous or member caller gets back only what it
 * sent (its own contact excepted), so no one learns another contact's data.
 */
export async function determineBillingContact(ctx: RequestContext, input: BillingContactInfoInput): Promise<BillingContactInfo> {
  await ctx.usePublicTenant();
  const echo: BillingContactInfo = {
    ContactId: null, Prefix: input.Prefix ?? null, FirstName: input.FirstName ?? null, CommonName: input.CommonName ?? null, MiddleName: input.MiddleName ?? null,
    LastName: input.LastName ?? null, Suffix: input.Suffix ?? null, OrganizationContactId: null, OrganizationName: input.OrganizationName ?? null,
    Title: input.Title ?? null, IsTaxExempt: false, EmailAddress: input.EmailAddress ?? null, Address: input.Address ?? null, Phone: input.Phone ?? null,
    ContactRoles: [], Vouchers: [], MembershipIds: [], IsMember: false, TaxSet: input.TaxSet ?? null, ContactType: (input.ContactType ?? 'person').toLowerCase(),
  };
  if (!input.EmailAddress) throw BadInput.field('EmailAddress', 'is required');
  const match = await matchContact(ctx, input.EmailAddress, input.OrganizationName ?? null);
  if (!match || !(ctx.isStaff || ctx.caller?.contactId === match.id)) return echo;
  const [organization, memberships, vouchers, roles] = await Promise.all([
    match.organization ? leanRows(ctx.reader, Contact, { fields: ['id', 'name'], where: { id: idOf(match.organization) }, limit: 1 }) : Promise.resolve([]),
    leanRows(ctx.reader, Membership, { fields: ['id'], where: { contact: match.id, ...inGoodStandingOn(todayUtc()) }, limit: 100 }),
    vouchersHeldBy(ctx, match.id),
    contactRoles(ctx, match.id),
  ]);
  return {
    ...echo, ContactId: String(match.id), FirstName: match.firstName, LastName: match.lastName, Title: match.title, EmailAddress: match.email, Phone: match.phone,
    OrganizationContactId: organization[0] ? String(organization[0].id) : null, OrganizationName: organization[0]?.name ?? echo.OrganizationName,
    MembershipIds: memberships.map((membership) => membership.id), IsMember: memberships.length > 0, ContactType: match.kind, Vouchers: vouchers, ContactRoles: roles,
  };
}

// ---------- checking and pricing ----------

/** The event as the public may see it: a draft exists for staff only. */
async function publicEvent(ctx: RequestContext, eventId: number): Promise<EventRow> {
  const [event] = await leanRows(ctx.reader, Event, { fields: [...EVENT_FIELDS], where: { id: eventId }, limit: 1 });
  if (!event || (event.status === 'draft' && !ctx.isStaff)) throw new NotFound(EVENT_NOUN);
  return event;
}

/**
 * Checks a submission against the server's records and prices it: each type and offering of this
 * event and available to this visitor, donation amounts. 400 naming the documented field. Whether
 * it can still be had is `checkAvailability`'s question.
 */
async function priceSubmission(ctx: RequestContext, submission: Submission): Promise<PricedSubmission> {
  const event = await publicEvent(ctx, submission.eventId);
  if (submission.attendees.length === 0 && submission.choices.length === 0 && submission.donations.length === 0) {
    throw BadInput.field(submission.attendeeField, 'name at least one attendee, item or donation');
  }
  const typeIds = [...new Set(submission.attendees.map((attendee) => attendee.EventRegistrationTypeId))];
  const offeringIds = [...new Set([...submission.choices.map(({ choice }) => choice.EventOfferingId), ...submission.donations.map((donation) => donation.EventOfferingId)])];
  const [types, offerings, isMember] = await Promise.all([
    typeIds.length ? leanRows(ctx.reader, EventRegistrationType, { fields: [...TYPE_FIELDS], where: { id: { $in: typeIds }, event: event.id } }) : Promise.resolve([]),
    offeringIds.length ? leanRows(ctx.reader, EventOffering, { fields: [...OFFERING_FIELDS], where: { id: { $in: offeringIds }, event: event.id } }) : Promise.resolve([]),
    callerIsMember(ctx),
  ]);
  const typeById = new Map(types.map((type) => [type.id, type]));
  const offeringById = new Map(offerings.map((offering) => [offering.id, offering]));

  const attendees = submission.attendees.map((input, index) => {
    const field = `${submission.attendeeField}[${index}].EventRegistrationTypeId`;
    const type = typeById.get(input.EventRegistrationTypeId);
    if (!type || !type.isActive) throw BadInput.field(field, 'names no registration type of this event');
    if (type.memberOnly && !isMember) throw BadInput.field(field, 'is for members only: sign in as a member');
    return { input, type };
  });

  const purchases = submission.choices.map(({ list, index, choice }) => {
    const offering = offeringById.get(choice.EventOfferingId);
    if (!offering || !offering.isActive || offering.kind !== LIST_KIND[list]) throw BadInput.field(`${list}[${index}].EventOfferingId`, `names no ${LIST_KIND[list]} item of this event`);
    return { offering, quantity: choice.Quantity ?? 1, unitPrice: money(offering.price) };
  });
  const donations = submission.donations.map((donation, index) => {
    const offering = offeringById.get(donation.EventOfferingId);
    if (!offering || !offering.isActive || offering.kind !== 'donation') throw BadInput.field(`DonationItems[${index}].EventOfferingId`, 'names no donation item of this event');
    const amount = parseMoney(donation.Amount, `DonationItems[${index}].Amount`);
    if (amount.isZero()) throw BadInput.field(`DonationItems[${index}].Amount`, 'must be more than 0');
    return { offering, quantity: 1, unitPrice: amount };
  });
  const allPurchases = [...purchases, ...donations];

  const lines: PricedLine[] = [
    ...attendees.map(({ input, type }) => ({
      kind: 'registration' as const, saleableItemId: idOf(type.saleableItem), description: `${type.name}: ${input.FirstName.trim()} ${input.LastName.trim()}`,
      quantity: 1, unitPrice: money(type.price), amount: money(type.price),
    })),
    ...allPurchases.map(({ offering, quantity, unitPrice }) => ({
      kind: offering.kind, saleableItemId: idOf(offering.saleableItem), description: offering.name, quantity, unitPrice, amount: unitPrice.times(quantity),
    })),
  ];
  const total = sumMoney(lines.map((line) => line.amount));
  if (total.greaterThan(MAX_MONEY)) throw BadInput.field(submission.attendeeField, `the registration may cost at most ${MAX_MONEY.toFixed(2)}`);
  return { event, attendees, purchases: allPurchases, lines, total };
}

/**
 * 409 when the event is not open for registration (`requireOpen`) or the submission needs more
 * seats than are left, as last read (saving takes them again under the conditional UPDATEs).
 */
function checkAvailability(priced: PricedSubmission, submission: Submission, requireOpen: boolean): void {
  const { event } = priced;
  if (requireOpen && !isRegistrationOpen(event, new Date())) throw new Conflict('Registration for this event is not open.');
  for (const [typeId, seats] of sumByKey(priced.attendees.map(({ type }) => [type.id, 1]))) {
    const type = priced.attendees.find((attendee) => attendee.type.id === typeId)!.type;
    if (type.capacity !== null && type.seatsTaken + seats > type.capacity) throw soldOut(type.name, submission.attendeeField);
  }
  if (event.capacity !== null && event.seatsTaken + priced.attendees.length > event.capacity) throw soldOut(event.name, submission.attendeeField);
  for (const [offeringId, quantity] of sumByKey(priced.purchases.map((purchase) => [purchase.offering.id, purchase.quantity]))) {
    const offering = priced.purchases.find((purchase) => purchase.offering.id === offeringId)!.offering;
    if (offering.capacity !== null && offering.seatsTaken + quantity > offering.capacity) throw soldOut(offering.name, 'Items');
  }
}

async function checkCaptcha(ctx: RequestContext, event: EventRow, submission: Submission, verifier?: CaptchaVerifier): Promise<void> {
  if (!event.requireCaptcha) return;
  if (submission.disableCaptchaCheck && ctx.isStaff) return; // the bypass is for the back office only
  const setting = await captchaSetting(ctx, true);
  if (!setting) throw new Conflict('This event requires a captcha, and none is configured for the organization.');
  if (!submission.captchaResponse?.trim()) throw BadInput.field('CaptchaResponse', 'is required');
  const check = verifier ?? new SiteverifyCaptchaVerifier({
    provider: setting.provider, secret: setting.secret, verifyUrl: setting.verifyUrl, policy: captchaOutboundPolicy(ctx.app.config),
  });
  if (!(await check.verify(submission.captchaResponse, ctx.request.ip))) throw BadInput.field('CaptchaResponse', 'was not accepted');
}

// ---------- saving ----------

/**
 * Inside the transaction: under the registrant's lock, the registration they may already hold
 * (a concurrent twin committed first); else the order row (its unique key settles an identical
 * twin), then seats, people, lines and the invoice.
 */
async function saveRegistration(ctx: RequestContext, submission: Submission, priced: PricedSubmission, key: string): Promise<{ orderId: number; isNew: boolean }> {
  const tenantId = ctx.tenantId;
  await tenantSql(ctx).run(`SELECT pg_advisory_xact_lock(${TENANT}, hashtext(?))`, [`event-registrant:${submission.eventId}:${normalEmail(submission.billing.EmailAddress)}`]);
  const held = await heldOrderId(ctx, submission, key);
  if (held) return { orderId: held, isNew: false };
  const billingContactId = await findOrCreateContact(ctx, submission.billing);
  const order = ctx.em.create(EventRegistrationOrder, {
    tenant: tenantId, event: priced.event.id, billingContact: billingContactId, idempotencyKey: key, total: toMoneyString(priced.total),
    comments: submission.comments, referralSource: submission.referralSource, submittedAt: new Date(),
    // Nothing to pay is paid: an order without an invoice is settled when it is made.
    paidAt: priced.total.isZero() ? new Date() : null,
  });
  await ctx.em.flush();
  await takeOrderSeats(ctx, priced, submission.attendeeField);

  const attendeeContactIds: number[] = [];
  for (const { input, type } of priced.attendees) {
    const contactId = await findOrCreateContact(ctx, input);
    attendeeContactIds.push(contactId);
    ctx.em.create(EventRegistration, {
      tenant: tenantId, event: priced.event.id, order, contact: contactId, registrationType: type.id, amount: toMoneyString(type.price),
      firstName: input.FirstName.trim(), lastName: input.LastName.trim(), email: normalEmail(input.EmailAddress),
    });
    await tenantSql({ em: ctx.em, tenantId }).run(
      `update event_invitation set status = 'registered', responded_at = now(), updated_at = now(), audit_id = audit_id + 1
        where ${tenantIs()} and event_id = ? and contact_id = ? and status <> 'registered'`, [priced.event.id, contactId]);
  }
  for (const { offering, quantity, unitPrice } of priced.purchases) {
    ctx.em.create(EventPurchase, {
      tenant: tenantId, event: priced.event.id, order, offering: offering.id, kind: offering.kind, contact: billingContactId, quantity,
      unitPrice: toMoneyString(unitPrice), amount: toMoneyString(unitPrice.times(quantity)),
    });
  }
  await ctx.em.flush();
  if (priced.total.greaterThan(0)) {
    const { invoice } = await createInvoice(ctx, {
      contactId: billingContactId, source: 'events', sourceKey: `event-registration:${order.id}`, memo: priced.event.name,
      lines: priced.lines.map((line) => ({ saleableItemId: line.saleableItemId, description: line.description, quantity: line.quantity, unitPrice: line.unitPrice })),
    });
    order.invoice = invoice;
    await ctx.em.flush();
  }
  const voucherCode = submission.billing.VoucherCode?.trim();
  if (voucherCode) {
    // The voucher pays the registration's invoice in the same transaction: a refused code registers nothing.
    if (!order.invoice) throw BadInput.field('BillingInfo.VoucherCode', 'has nothing to pay: the registration is free');
    await redeemVoucher(ctx, voucherCode, order.invoice.id, 'BillingInfo.VoucherCode');
  }
  await emitWebhookEvent(ctx, 'event_registration.created', {
    OrderId: order.id, EventId: priced.event.id, BillingContactId: billingContactId, AttendeeContactIds: attendeeContactIds,
    Total: toMoneyString(priced.total), InvoiceId: order.invoice ? idOf(order.invoice) : null,
  });
  return { orderId: order.id, isNew: true };
}

/**
 * Takes the seats with conditional UPDATEs — types, then offerings, then the event, each by id —
 * so that of many registrations for the last seats only as many succeed as there are seats.
 */
async function takeOrderSeats(ctx: RequestContext, priced: PricedSubmission, attendeeField: string): Promise<void> {
  for (const [typeId, count] of sumByKey(priced.attendees.map(({ type }) => [type.id, 1]))) {
    const type = priced.attendees.find((attendee) => attendee.type.id === typeId)!.type;
    if (!(await takeSeats(ctx, 'event_registration_type', typeId, count, 'and is_active'))) throw soldOut(type.name, attendeeField);
  }
  for (const [offeringId, quantity] of sumByKey(priced.purchases.map((purchase) => [purchase.offering.id, purchase.quantity]))) {
    const offering = priced.purchases.find((purchase) => purchase.offering.id === offeringId)!.offering;
    if (!(await takeSeats(ctx, 'event_offering', offeringId, quantity, 'and is_active'))) throw soldOut(offering.name, 'Items');
  }
  if (priced.attendees.length && !(await takeSeats(ctx, 'event', priced.event.id, priced.attendees.length, "and status = 'open'"))) {
    throw soldOut(priced.event.name, attendeeField);
  }
}

/**
 * The contact with this e-mail (the oldest), or a new person. Under a per-e-mail lock, so two
 * registrations of one new person make one contact. An existing contact is never changed from a
 * public form.
 */
interface Person { FirstName: string; LastName: string; EmailAddress: string; Phone?: string | null }

async function findOrCreateContact(ctx: RequestContext, person: Person): Promise<number> {
  const email = normalEmail(person.EmailAddress);
  await ctx.em.execute('SELECT pg_advisory_xact_lock(?, hashtext(?))', [ctx.tenantId, `contact-email:${email}`]);
  const match = await matchContact(ctx, email, null);
  if (match) return match.id;
  const contact = ctx.em.create(Contact, {
    tenant: ctx.tenantId, kind: 'person', firstName: person.FirstName.trim(), lastName: person.LastName.trim(), email, phone: person.Phone?.trim() || null,
  });
  await ctx.em.flush();
  return contact.id;
}

async function matchContact(ctx: RequestContext, email: string, organizationName: string | null) {
  const rows = await tenantSql(ctx).all<{ id: number }>(
    `select c.id from contact c left join contact o on o.id = c.organization_id
      where ${tenantIs('c')} and c.deleted_at is null and lower(c.email) = lower(?)
      order by (lower(coalesce(o.name, '')) = lower(coalesce(?, ''))) desc, c.id limit 1`, [email.trim(), organizationName ?? '']);
  if (!rows[0]) return null;
  const [contact] = await leanRows(ctx.reader, Contact, { fields: ['id', 'kind', 'firstName', 'lastName', 'title', 'email', 'phone', 'organization'], where: { id: rows[0].id }, limit: 1 });
  return contact ?? null;
}

// ---------- reading back ----------

/**
 * The order of the event this submission's registrant already holds, or null. The same registrant
 * is the same billing e-mail with the same attendees — the same set of e-mail, first and last
 * name (case and spacing aside) as the order's registered attendees — whatever else the form
 * says (comments, items, another type); a form without attendees must be the same form (its
 * idempotency key). Names and e-mails together, not an e-mail alone, because the answer shows the
 * registration to whoever asks without a credential. A cancelled order holds nothing.
 */
async function heldOrderId(ctx: RequestContext, submission: Submission, key: string): Promise<number | null> {
  const byKey = await orderIdByKey(ctx, key);
  if (byKey || submission.attendees.length === 0) return byKey;
  const attendeeKey = (email: string, first: string, last: string) => JSON.stringify([normalEmail(email), first.trim().toLowerCase(), last.trim().toLowerCase()]);
  const wanted = submission.attendees.map((attendee) => attendeeKey(attendee.EmailAddress, attendee.FirstName, attendee.LastName)).sort();
  const emails = [...new Set(submission.attendees.map((attendee) => normalEmail(attendee.EmailAddress)))];
  const rows = await tenantSql(ctx).all<{ order_id: number; email: string; first_name: string; last_name: string }>(
    `select r.order_id, r.email, r.first_name, r.last_name
       from event_registration r
       join event_registration_order o on o.id = r.order_id and ${tenantIs('o')} and o.status = 'registered'
       join contact b on b.id = o.billing_contact_id and ${tenantIs('b')} and lower(b.email) = ?
      where ${tenantIs('r')} and r.status = 'registered'
        and r.order_id in (select h.order_id from event_registration h where ${tenantIs('h')} and h.event_id = ? and h.status = 'registered' and h.email in (${emails.map(() => '?').join(', ')}))
      order by r.order_id, r.id`,
    [normalEmail(submission.billing.EmailAddress), submission.eventId, ...emails]);
  const attendeesByOrder = new Map<number, string[]>();
  for (const row of rows) attendeesByOrder.set(row.order_id, [...(attendeesByOrder.get(row.order_id) ?? []), attendeeKey(row.email, row.first_name, row.last_name)]);
  const same = JSON.stringify(wanted);
  return [...attendeesByOrder].find(([, held]) => JSON.stringify(held.sort()) === same)?.[0] ?? null;
}

function normalEmail(email: string): string {
  return email.trim().toLowerCase();
}

async function orderIdByKey(ctx: RequestContext, key: string): Promise<number | null> {
  const [row] = await leanRows(ctx.reader, EventRegistrationOrder, { fields: ['id'], where: { idempotencyKey: key }, limit: 1 });
  return row?.id ?? null;
}

export async function registrationResult(ctx: RequestContext, orderId: number, isNew: boolean): Promise<EventRegistrationResult> {
  const [[order], attendees, purchases] = await Promise.all([
    leanRows(ctx.reader, EventRegistrationOrder, { fields: ['id', 'event', 'status', 'total', 'invoice', 'createdAt', 'paidAt'], where: { id: orderId }, limit: 1 }),
    leanRows(ctx.reader, EventRegistration, { fields: [...ATTENDEE_FIELDS], where: { order: orderId }, orderBy: [{ id: 'asc' }] }),
    leanRows(ctx.reader, EventPurchase, { fields: ['id', 'offering', 'kind', 'quantity', 'unitPrice', 'amount'], where: { order: orderId }, orderBy: [{ id: 'asc' }] }),
  ]);
  if (!order) throw new NotFound('The registration');
  const invoiceId = idOf(order.invoice);
  const offerings = ctx.loaders.byId(EventOffering);
  const [invoice, purchaseViews, attendeeList] = await Promise.all([
    invoiceId ? ctx.loaders.byId(Invoice).load(invoiceId) : Promise.resolve(null),
    Promise.all(purchases.map(async (purchase) => ({
      EventPurchaseId: purchase.id, EventOfferingId: idOf(purchase.offering), Kind: purchase.kind, Name: (await offerings.load(idOf(purchase.offering)))?.name ?? '',
      Quantity: purchase.quantity, UnitPrice: toMoneyNumber(purchase.unitPrice), Amount: toMoneyNumber(purchase.amount),
    }))),
    attendeeViews(ctx, attendees),
  ]);
  return {
    EventRegistrationOrderId: order.id, EventId: idOf(order.event), Status: order.status, Total: toMoneyNumber(order.total), InvoiceId: invoiceId,
    InvoiceNumber: invoice?.number ?? null, IsNew: isNew, CreatedAt: iso(order.createdAt), PaidAt: order.paidAt ? iso(order.paidAt) : null, Attendees: attendeeList, Purchases: purchaseViews,
  };
}

/** An existing registration of the event, shown to staff or to its billing contact when signed in. */
async function visibleRegistration(ctx: RequestContext, eventId: number, orderId: number | null): Promise<EventRegistrationResult | null> {
  if (orderId === null || !ctx.caller) return null;
  const [order] = await leanRows(ctx.reader, EventRegistrationOrder, { fields: ['id', 'billingContact'], where: { id: orderId, event: eventId }, limit: 1 });
  if (!order || !(ctx.isStaff || idOf(order.billingContact) === ctx.caller.contactId)) return null;
  return registrationResult(ctx, order.id, false);
}

/** The contact's defaults for the form: for staff, or for the signed-in contact itself; nobody else. */
async function contactDefaults(ctx: RequestContext, contactId: number | null): Promise<EventContactDefaults | null> {
  const id = contactId ?? ctx.caller?.contactId ?? null;
  if (id === null || !(ctx.isStaff || ctx.caller?.contactId === id)) return null;
  const [contact] = await leanRows(ctx.reader, Contact, { fields: ['id', 'firstName', 'lastName', 'email', 'organization'], where: { id }, limit: 1 });
  if (!contact) return null;
  const organizationId = idOf(contact.organization);
  const [[organization], memberships] = await Promise.all([
    organizationId ? leanRows(ctx.reader, Contact, { fields: ['name'], where: { id: organizationId }, limit: 1 }) : Promise.resolve([]),
    leanRows(ctx.reader, Membership, { fields: ['id'], where: { contact: id, ...inGoodStandingOn(todayUtc()) }, limit: 1 }),
  ]);
  return {
    ContactId: contact.id, FirstName: contact.firstName, LastName: contact.lastName, EmailAddress: contact.email, OrganizationName: organization?.name ?? null,
    IsMember: memberships.length > 0,
  };
}

async function callerIsMember(ctx: RequestContext): Promise<boolean> {
  if (ctx.isStaff) return true;
  const contactId = ctx.caller?.contactId;
  if (!contactId) return false;
  const rows = await leanRows(ctx.reader, Membership, { fields: ['id'], where: { contact: contactId, ...inGoodStandingOn(todayUtc()) }, limit: 1 });
  return rows.length > 0;
}

async function captchaSetting(ctx: RequestContext, withSecret = false) {
  const fields: ('provider' | 'siteKey' | 'secret' | 'verifyUrl')[] = withSecret ? ['provider', 'siteKey', 'secret', 'verifyUrl'] : ['provider', 'siteKey', 'verifyUrl'];
  const [row] = await leanRows(ctx.reader, EventCaptchaSetting, { fields, where: {}, limit: 1 });
  return row ? { provider: row.provider, siteKey: row.siteKey, secret: row.secret ?? '', verifyUrl: row.verifyUrl } : null;
}

// ---------- small helpers ----------

/** The registration's lines, with payments applied to them in order (registrations first). */
function splitsOf(priced: PricedSubmission, paid: Money): EventSplits {
  let left = paid;
  const lines: EventSplitLine[] = priced.lines.map((line) => {
    const applied = Decimal.min(left, line.amount);
    left = left.minus(applied);
    return {
      Kind: line.kind, SaleableItemId: line.saleableItemId, Description: line.description, Quantity: line.quantity,
      UnitPrice: toMoneyNumber(line.unitPrice), Amount: toMoneyNumber(line.amount), AmountPaid: toMoneyNumber(applied),
    };
  });
  return { Lines: lines, Total: toMoneyNumber(priced.total), AmountPaid: toMoneyNumber(paid) };
}

/** What a submission registers, hashed: the same form sent again has the same key (the captcha token aside). */
function idempotencyKey(submission: Submission): string {
  const text = (value: string | null | undefined) => (value ?? '').trim().toLowerCase();
  const canonical = JSON.stringify({
    event: submission.eventId,
    billing: [text(submission.billing.EmailAddress), text(submission.billing.FirstName), text(submission.billing.LastName), text(submission.billing.OrganizationName)],
    attendees: submission.attendees.map((attendee) => [attendee.EventRegistrationTypeId, text(attendee.EmailAddress), text(attendee.FirstName), text(attendee.LastName)]),
    items: submission.choices.map(({ list, choice }) => [LIST_KIND[list], choice.EventOfferingId, choice.Quantity ?? 1]),
    donations: submission.donations.map((donation) => [donation.EventOfferingId, String(donation.Amount)]),
    comments: text(submission.comments),
  });
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}

/** A record id given as text (documented str): digits, or no record at all. */
function recordId(value: string | null | undefined): number | null {
  if (value == null || !/^\d{1,9}$/.test(value.trim())) return null;
  return Number(value.trim());
}

function soldOut(name: string, field: string): Conflict {
  return new Conflict(`Not enough places left: ${name} is sold out.`, [{ field, message: 'not enough places left' }]);
}
