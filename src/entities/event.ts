import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantOwned, Versioned } from './base.js';
import { Invoice, PricedLine, SaleableItem } from './commerce.js';
import { Contact } from './contact.js';

/*
 * Events and what is sold for them. Seats are counted on the event, its registration types and
 * its offerings (`seatsTaken`): a registration takes its seats with one conditional UPDATE
 * (`seats_taken + n <= capacity`), so concurrent registrations for the last seats never overbook.
 * Amounts are numeric(12,2), strings in JavaScript (src/core/money.ts does the arithmetic).
 */

export const EVENT_STATUSES = ['draft', 'open', 'closed', 'cancelled'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];

/** An event people register for: dates, venue, capacity and the goals its widgets measure. */
@Entity()
@Index({ properties: ['tenant', 'startsAt'] })
export class Event extends Versioned {
  @Property({ length: 200 })
  name!: string;

  @Property({ type: 'text', nullable: true })
  description: string | null = null;

  @Property({ type: 'datetime' })
  startsAt!: Date;

  @Property({ type: 'datetime' })
  endsAt!: Date;

  @Property({ length: 500, nullable: true })
  venue: string | null = null;

  @Property({ type: 'string', length: 16 })
  status: Opt<EventStatus> = 'draft';

  /** Attendee seats for the whole event; null is unlimited. */
  @Property({ type: 'integer', nullable: true })
  capacity: number | null = null;

  /** Attendee seats taken by active registrations (moved only by conditional UPDATEs). */
  @Property({ type: 'integer' })
  seatsTaken: Opt<number> = 0;

  @Property({ type: 'datetime', nullable: true })
  registrationOpensAt: Date | null = null;

  @Property({ type: 'datetime', nullable: true })
  registrationClosesAt: Date | null = null;

  /** Whether the public registration pages ask for a captcha (the tenant's provider checks it). */
  @Property({ type: 'boolean' })
  requireCaptcha: Opt<boolean> = true;

  @Property({ type: 'integer', nullable: true })
  goalAttendees: number | null = null;

  @Property({ type: 'decimal', precision: 12, scale: 2, nullable: true })
  goalAttendeeRevenue: string | null = null;

  @Property({ type: 'integer', nullable: true })
  goalSponsors: number | null = null;

  @Property({ type: 'decimal', precision: 12, scale: 2, nullable: true })
  goalSponsorRevenue: string | null = null;

  @Property({ type: 'integer', nullable: true })
  goalExhibitors: number | null = null;

  @Property({ type: 'decimal', precision: 12, scale: 2, nullable: true })
  goalExhibitorRevenue: string | null = null;
}

/** A session of an event (a dinner, a workshop); registration types include some, groups may seat one. */
@Entity()
export class EventSession extends Versioned {
  @ManyToOne(() => Event, { index: true, deleteRule: 'cascade' })
  event!: Event;

  @Property({ length: 200 })
  name!: string;

  @Property({ type: 'datetime', nullable: true })
  startsAt: Date | null = null;

  @Property({ type: 'datetime', nullable: true })
  endsAt: Date | null = null;
}

/**
 * What an event sells with a server-side price and counted seats or units (`seatsTaken`, taken by
 * a conditional UPDATE): a registration type or an offering.
 */
export abstract class EventSaleable extends Versioned {
  @Property({ length: 200 })
  name!: string;

  @Property({ type: 'decimal', precision: 12, scale: 2 })
  price!: string;

  /** Seats (units) it has; null is limited only by the event (an offering: unlimited). */
  @Property({ type: 'integer', nullable: true })
  capacity: number | null = null;

  @Property({ type: 'integer' })
  seatsTaken: Opt<number> = 0;

  /** What invoice lines of it bill (its accounting class); none bills a plain line. */
  @ManyToOne(() => SaleableItem, { nullable: true, index: true, deleteRule: 'set null' })
  saleableItem: SaleableItem | null = null;

  @Property({ type: 'boolean' })
  isActive: Opt<boolean> = true;
}

/** A way to attend an event (Member, Non-member, Student…) with its server-side price and seats. */
@Entity()
export class EventRegistrationType extends EventSaleable {
  @ManyToOne(() => Event, { index: true, deleteRule: 'cascade' })
  event!: Event;

  /** Only contacts with an active membership may register with it. */
  @Property({ type: 'boolean' })
  memberOnly: Opt<boolean> = false;

  /** Ids of the event's sessions this type includes. */
  @Property({ type: 'json' })
  sessionIds: Opt<number[]> = [];

  @Property({ type: 'integer' })
  sortOrder: Opt<number> = 0;
}

export const EVENT_OFFERING_KINDS = ['sponsorship', 'exhibitor', 'purchase', 'donation'] as const;
export type EventOfferingKind = (typeof EVENT_OFFERING_KINDS)[number];

/**
 * Anything else an event sells: sponsorship and exhibitor packages, additional purchase items,
 * and donation items (whose amount the donor chooses; `price` is then the suggested amount).
 */
@Entity()
@Index({ properties: ['tenant', 'event', 'kind'] })
export class EventOffering extends EventSaleable {
  @ManyToOne(() => Event, { deleteRule: 'cascade' })
  event!: Event;

  @Property({ type: 'string', length: 16 })
  kind!: EventOfferingKind;
}

export const EVENT_ORDER_STATUSES = ['registered', 'cancelled'] as const;
export type EventOrderStatus = (typeof EVENT_ORDER_STATUSES)[number];

/**
 * One submitted registration form: who pays (the billing contact), the invoice, and the
 * attendees, sponsorships, exhibitors, purchases and donations it holds. `idempotencyKey` is a
 * hash of the submission, unique per tenant, so the same form submitted twice registers once.
 */
@Entity()
@Unique({ properties: ['tenant', 'idempotencyKey'] })
export class EventRegistrationOrder extends Versioned {
  @ManyToOne(() => Event, { index: true, deleteRule: 'no action' })
  event!: Event;

  @ManyToOne(() => Contact, { index: true, deleteRule: 'no action' })
  billingContact!: Contact;

  @ManyToOne(() => Invoice, { nullable: true, index: true, deleteRule: 'no action' })
  invoice: Invoice | null = null;

  @Property({ length: 64 })
  idempotencyKey!: string;

  @Property({ type: 'string', length: 16 })
  status: Opt<EventOrderStatus> = 'registered';

  @Property({ type: 'decimal', precision: 12, scale: 2 })
  total!: string;

  @Property({ type: 'text', nullable: true })
  comments: string | null = null;

  @Property({ length: 100, nullable: true })
  referralSource: string | null = null;

  /** When the registrant confirmed it (`submit`); null while it is only saved. */
  @Property({ type: 'datetime', nullable: true })
  submittedAt: Date | null = null;

  /**
   * When its invoice was paid in full (the `event-registration` paid-invoice handler, in the
   * payment's transaction); an order that costs nothing is paid when made. Null: not (yet) paid.
   */
  @Property({ type: 'datetime', nullable: true })
  paidAt: Date | null = null;
}

export const EVENT_REGISTRATION_STATUSES = ['registered', 'cancelled'] as const;
export type EventRegistrationStatus = (typeof EVENT_REGISTRATION_STATUSES)[number];

/** One attendee of an event: a contact registered with a registration type at a price. */
@Entity()
@Index({ properties: ['tenant', 'event', 'status'] })
export class EventRegistration extends Versioned {
  @ManyToOne(() => Event, { deleteRule: 'no action' })
  event!: Event;

  @ManyToOne(() => EventRegistrationOrder, { index: true, deleteRule: 'cascade' })
  order!: EventRegistrationOrder;

  @ManyToOne(() => Contact, { index: true, deleteRule: 'no action' })
  contact!: Contact;

  @ManyToOne(() => EventRegistrationType, { index: true, deleteRule: 'no action' })
  registrationType!: EventRegistrationType;

  @Property({ type: 'string', length: 16 })
  status: Opt<EventRegistrationStatus> = 'registered';

  /** The attendee as the form named them (an anonymous registrant never sees the matched contact's own data). */
  @Property({ length: 100, default: '' })
  firstName: Opt<string> = '';

  @Property({ length: 100, default: '' })
  lastName: Opt<string> = '';

  @Property({ length: 254, default: '' })
  email: Opt<string> = '';

  /** The price billed for this attendee (the registration type's price when registered). */
  @Property({ type: 'decimal', precision: 12, scale: 2 })
  amount!: string;
}

/** A sponsorship, exhibitor booth, purchase or donation bought with a registration order. */
@Entity()
@Index({ properties: ['tenant', 'event', 'kind'] })
export class EventPurchase extends PricedLine {
  @ManyToOne(() => Event, { deleteRule: 'no action' })
  event!: Event;

  @ManyToOne(() => EventRegistrationOrder, { index: true, deleteRule: 'cascade' })
  order!: EventRegistrationOrder;

  @ManyToOne(() => EventOffering, { index: true, deleteRule: 'no action' })
  offering!: EventOffering;

  /** Copied from the offering, so the widgets count by kind without a join. */
  @Property({ type: 'string', length: 16 })
  kind!: EventOfferingKind;

  @ManyToOne(() => Contact, { index: true, deleteRule: 'no action' })
  contact!: Contact;

  @Property({ type: 'string', length: 16 })
  status: Opt<EventRegistrationStatus> = 'registered';
}

export const EVENT_INVITATION_STATUSES = ['invited', 'declined', 'registered'] as const;
export type EventInvitationStatus = (typeof EVENT_INVITATION_STATUSES)[number];

/** A contact invited to an event by staff; the invitee may decline it publicly. */
@Entity()
@Unique({ properties: ['tenant', 'event', 'contact'] })
export class EventInvitation extends Versioned {
  @ManyToOne(() => Event, { deleteRule: 'cascade' })
  event!: Event;

  @ManyToOne(() => Contact, { index: true, deleteRule: 'cascade' })
  contact!: Contact;

  @Property({ type: 'string', length: 16 })
  status: Opt<EventInvitationStatus> = 'invited';

  @Property({ type: 'datetime', nullable: true })
  respondedAt: Date | null = null;
}

/** A table (or any group of seats) at an event or one of its sessions. */
@Entity()
@Index({ properties: ['tenant', 'event'] })
export class EventGroup extends Versioned {
  @ManyToOne(() => Event, { deleteRule: 'cascade' })
  event!: Event;

  @ManyToOne(() => EventSession, { nullable: true, index: true, deleteRule: 'cascade' })
  session: EventSession | null = null;

  /** Only attendees of this registration type may be seated here (none: any). */
  @ManyToOne(() => EventRegistrationType, { nullable: true, index: true, deleteRule: 'set null' })
  registrationType: EventRegistrationType | null = null;

  @Property({ length: 200 })
  name!: string;

  /** Seats at the table; null is unlimited. */
  @Property({ type: 'integer', nullable: true })
  maxToAssign: number | null = null;

  @Property({ type: 'integer' })
  groupNumber: Opt<number> = 0;

  @Property({ type: 'integer' })
  groupOrder: Opt<number> = 0;
}

/**
 * An attendee seated in a group. `sessionKey` is the group's session id (0 for the whole event):
 * the unique index lets an attendee sit at one table per session, whatever races.
 */
@Entity()
@Unique({ properties: ['tenant', 'registration', 'sessionKey'] })
export class EventGroupMember extends TenantOwned {
  @ManyToOne(() => EventGroup, { index: true, deleteRule: 'no action' })
  group!: EventGroup;

  @ManyToOne(() => EventRegistration, { index: true, deleteRule: 'cascade' })
  registration!: EventRegistration;

  @Property({ type: 'integer' })
  sessionKey!: number;
}

export const CAPTCHA_PROVIDERS = ['turnstile', 'hcaptcha'] as const;
export type CaptchaProvider = (typeof CAPTCHA_PROVIDERS)[number];

/**
 * The tenant's captcha provider for public registration. The secret is sent to the provider's
 * `siteverify` and never answered; `verifyUrl` overrides the provider's address (a test's fake).
 */
@Entity()
@Unique({ properties: ['tenant'] })
export class EventCaptchaSetting extends TenantOwned {
  @Property({ type: 'string', length: 16 })
  provider!: CaptchaProvider;

  @Property({ length: 200 })
  siteKey!: string;

  @Property({ length: 500, hidden: true })
  secret!: string;

  @Property({ length: 500, nullable: true })
  verifyUrl: string | null = null;
}
