import type { Opt } from '@mikro-orm/core';
import { isOneOf } from '../core/values.js';
import { Entity, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantOwned } from './base.js';
import { Contact } from './contact.js';

/** The providers that push callbacks to /api/callback/<provider>; each path segment is the provider's name. */
export const CALLBACK_PROVIDERS = ['emailprovider1', 'emailprovider2', 'emailprovider3', 'emailprovider4', 'meetingprovider'] as const;
export type CallbackProvider = (typeof CALLBACK_PROVIDERS)[number];

export function isCallbackProvider(value: string): value is CallbackProvider {
  return isOneOf(CALLBACK_PROVIDERS, value);
}

/**
 * The secret a tenant shares with one provider; a callback is accepted only when it is signed
 * with it. Kept as given (an HMAC needs the secret itself, unlike a bearer token, which is stored
 * hashed); set with `npm run cli -- callback-secret set`, never returned by the API or logged.
 */
@Entity()
@Unique({ properties: ['tenant', 'provider'] })
export class CallbackSecret extends TenantOwned {
  @Property({ length: 32 })
  provider!: CallbackProvider;

  @Property({ length: 128, hidden: true })
  secret!: string;
}

/**
 * received: stored and acknowledged, its job not yet created (the dispatcher does that within a
 * moment); queued: a job is waiting; retrying: the last attempt failed and a retry is scheduled;
 * processed: its events are recorded; parked: its content cannot be recorded (see `error`: the
 * database refused a value), so it is not retried; dead: every attempt failed (see `error`), until re-queued.
 */
export const CALLBACK_STATES = ['received', 'queued', 'retrying', 'processed', 'parked', 'dead'] as const;
export type CallbackState = (typeof CALLBACK_STATES)[number];

/**
 * One callback exactly as it arrived (raw body, the headers that matter), stored before it is
 * acknowledged and processed later by a job. `receipt` is the id the job carries.
 */
@Entity()
export class ProviderCallback extends TenantOwned {
  @Property({ type: 'uuid', unique: true })
  receipt!: string;

  @Property({ length: 32 })
  provider!: CallbackProvider;

  @Property({ type: 'json' })
  headers!: Record<string, string>;

  /** The raw request body (UTF-8 JSON, checked on receipt), byte for byte what was signed. */
  @Property({ type: 'text' })
  body!: string;

  @Property({ type: 'datetime', defaultRaw: 'now()' })
  receivedAt: Opt<Date> = new Date();

  @Property({ length: 16 })
  state!: CallbackState;

  /** Processing attempts so far (of the current queueing). */
  @Property({ type: 'integer', default: 0 })
  attempts: Opt<number> = 0;

  /** The last processing error; cleared once processed. */
  @Property({ type: 'text', nullable: true })
  error: string | null = null;

  @Property({ type: 'datetime', nullable: true })
  processedAt: Date | null = null;

  /** Events recognized in the body (duplicates of events already recorded included). */
  @Property({ type: 'integer', nullable: true })
  eventCount: number | null = null;

  /** Events of the body that could not be recorded, with where and why (the others were). */
  @Property({ type: 'json', nullable: true })
  parkedEvents: { event: string; reason: string }[] | null = null;
}

export const EMAIL_EVENT_KINDS = ['delivered', 'bounce', 'deferred', 'open', 'click', 'spam_report', 'unsubscribe'] as const;
export type EmailEventKind = (typeof EMAIL_EVENT_KINDS)[number];

/**
 * What every event taken from a callback has: the provider and its event id (an event is recorded
 * once per provider event id, see the unique constraints below) and the callback it first arrived in.
 */
abstract class ProviderEvent extends TenantOwned {
  @Property({ length: 32 })
  provider!: CallbackProvider;

  @Property({ length: 255 })
  providerEventId!: string;

  /** The callback the event first arrived in. */
  @ManyToOne(() => ProviderCallback, { nullable: true, deleteRule: 'set null' })
  callback: ProviderCallback | null = null;
}

/** One e-mail delivery event, normalized from any e-mail provider; recorded once per provider event id. */
@Entity()
@Unique({ properties: ['tenant', 'provider', 'providerEventId'] })
export class EmailEvent extends ProviderEvent {
  @Property({ length: 16 })
  kind!: EmailEventKind;

  /** For bounces: hard (permanent) or soft. */
  @Property({ length: 8, nullable: true })
  bounceType: 'hard' | 'soft' | null = null;

  @Property({ length: 254 })
  email!: string;

  /** The contact with this address, when there is one. */
  @ManyToOne(() => Contact, { nullable: true, deleteRule: 'set null', index: true })
  contact: Contact | null = null;

  @Property({ type: 'datetime' })
  occurredAt!: Date;

  /** For clicks: the link followed. */
  @Property({ length: 2048, nullable: true })
  url: string | null = null;

  /** The provider's reason (bounce and deferral descriptions). */
  @Property({ length: 1000, nullable: true })
  reason: string | null = null;
}

export const MEETING_EVENT_KINDS = ['started', 'ended', 'participant_joined', 'participant_left'] as const;
export type MeetingEventKind = (typeof MEETING_EVENT_KINDS)[number];

/** One meeting event (started, ended, a participant joined or left); recorded once per provider event id. */
@Entity()
@Unique({ properties: ['tenant', 'provider', 'providerEventId'] })
export class MeetingEvent extends ProviderEvent {
  @Property({ length: 24 })
  kind!: MeetingEventKind;

  @Property({ length: 64 })
  meetingId!: string;

  @Property({ length: 128, nullable: true })
  meetingUuid: string | null = null;

  @Property({ length: 300, nullable: true })
  topic: string | null = null;

  @Property({ length: 200, nullable: true })
  participantName: string | null = null;

  @Property({ length: 254, nullable: true })
  participantEmail: string | null = null;

  /** The contact with the participant's address, when there is one. */
  @ManyToOne(() => Contact, { nullable: true, deleteRule: 'set null', index: true })
  contact: Contact | null = null;

  @Property({ type: 'datetime' })
  occurredAt!: Date;
}
