import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { TenantOwned, Versioned } from './base.js';

/** The events a subscription can ask for (Standard Webhooks `type`); payloads per type: ARCHITECTURE.md, "Outbound webhooks". */
export const WEBHOOK_EVENT_TYPES = [
  'contact.created', 'contact.updated', 'contact.deleted',
  'organization.created', 'organization.updated', 'organization.deleted',
  'membership.created', 'membership.renewed', 'membership.lapsed', 'membership.cancelled',
  'invoice.issued', 'invoice.paid', 'order.paid',
  'event_registration.created', 'event_registration.cancelled',
  'directory_listing.changed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * A tenant's endpoint that receives its events, signed with `secret` (`whsec_…`, Standard
 * Webhooks). After a rotation `previousSecret` signs too until `previousSecretUntil`. The secrets
 * are kept as given (an HMAC needs the key itself, as for callback secrets), hidden from every
 * answer but the one that created them, and redacted in the audit trail. A subscription the
 * deliveries gave up on is inactive with `disabledReason`.
 */
@Entity()
export class WebhookSubscription extends Versioned {
  @Property({ length: 2000 })
  url!: string;

  @Property({ type: 'json' })
  eventTypes!: WebhookEventType[];

  @Property({ type: 'boolean' })
  active: Opt<boolean> = true;

  @Property({ length: 500, nullable: true })
  description: string | null = null;

  @Property({ length: 100, hidden: true })
  secret!: string;

  @Property({ length: 100, nullable: true, hidden: true })
  previousSecret: string | null = null;

  @Property({ type: 'datetime', nullable: true })
  previousSecretUntil: Date | null = null;

  @Property({ length: 500, nullable: true })
  disabledReason: string | null = null;

  @Property({ type: 'datetime', nullable: true })
  disabledAt: Date | null = null;
}

/**
 * One event as it is sent: `messageId` is the `webhook-id` (the same on every attempt and every
 * subscription), `body` the exact JSON `{ type, timestamp, data }` that is signed and posted.
 */
@Entity()
export class WebhookEvent extends TenantOwned {
  @Property({ length: 40, unique: true })
  messageId!: string;

  @Property({ length: 64 })
  type!: WebhookEventType;

  @Property({ type: 'text' })
  body!: string;
}

/**
 * pending: waiting for the pump to queue its job; queued: a job will send it (or is sending);
 * retrying: the last attempt failed, the next is due at `nextAttemptAt`; delivered; failed: every
 * attempt failed (its subscription was disabled) or the receiver answered 410 Gone.
 */
export const WEBHOOK_DELIVERY_STATES = ['pending', 'queued', 'retrying', 'delivered', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATES)[number];

/** One event for one subscription, and how its delivery went. */
@Entity()
@Index({ properties: ['subscription', 'id'] })
export class WebhookDelivery extends TenantOwned {
  @ManyToOne(() => WebhookSubscription, { deleteRule: 'cascade', index: false })
  subscription!: WebhookSubscription;

  @ManyToOne(() => WebhookEvent, { deleteRule: 'cascade', index: true })
  event!: WebhookEvent;

  @Property({ type: 'string', length: 16 })
  status: Opt<WebhookDeliveryStatus> = 'pending';

  @Property({ type: 'integer' })
  attempts: Opt<number> = 0;

  @Property({ type: 'integer', nullable: true })
  lastResponseCode: number | null = null;

  @Property({ type: 'integer', nullable: true })
  lastLatencyMs: number | null = null;

  @Property({ length: 500, nullable: true })
  lastError: string | null = null;

  @Property({ type: 'datetime', nullable: true })
  nextAttemptAt: Date | null = null;

  @Property({ type: 'datetime', nullable: true })
  deliveredAt: Date | null = null;
}
