import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../core/context.js';
import { idOf } from '../../core/data/lean-read.js';
import { defineList, listQuery } from '../../core/data/list-query.js';
import { assertCurrentVersion, deleteRecord, findOr404, readOr404, saveRecord } from '../../core/data/records.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';
import { BadInput, Conflict, NotFound } from '../../core/errors.js';
import { outboundUrlProblem } from '../../core/external/outbound.js';
import { isOneOf } from '../../core/values.js';
import type { Tenant } from '../../entities/tenant.js';
import { WEBHOOK_EVENT_TYPES, WebhookDelivery, WebhookEvent, WebhookSubscription, type WebhookEventType } from '../../entities/webhook.js';
import type { ListOptionsInput } from '../../schema/common.js';
import type { WebhookDeliveryView, WebhookSecretRotation, WebhookSubscriptionInput, WebhookSubscriptionView } from '../../schema/webhooks.js';

/*
 * A tenant's webhook subscriptions (staff only): where its events go (./events.ts), signed with a
 * secret answered once — when the subscription is created and when it is rotated — and the log
 * of their deliveries (./delivery.ts), any of which staff may send again.
 */

const SUBSCRIPTION_NOUN = 'The webhook subscription';
const DELIVERY_NOUN = 'The webhook delivery';
/** How long the previous secret keeps signing beside the new one after a rotation. */
export const SECRET_OVERLAP_HOURS = 24;

const subscriptionList = defineList(WebhookSubscription, {
  operations: ['Query.webhookSubscriptions'],
  orderBy: { WebhookId: 'id' },
  defaultOrder: 'WebhookId',
  search: ['url', 'description'],
});

const deliveryList = defineList(WebhookDelivery, {
  operations: ['Query.webhookDeliveries'],
  orderBy: { DeliveryId: 'id' },
  defaultOrder: 'DeliveryId desc',
  search: [],
}, 'many');

const SUBSCRIPTION_FIELDS = ['id', 'url', 'eventTypes', 'active', 'description', 'disabledReason', 'disabledAt', 'previousSecretUntil', 'createdAt', 'auditId'] as const;
type SubscriptionRow = Pick<WebhookSubscription, (typeof SUBSCRIPTION_FIELDS)[number]>;

const DELIVERY_FIELDS = ['id', 'subscription', 'event', 'status', 'attempts', 'lastResponseCode', 'lastLatencyMs', 'lastError', 'nextAttemptAt', 'deliveredAt', 'createdAt'] as const;
type DeliveryRow = Pick<WebhookDelivery, (typeof DELIVERY_FIELDS)[number]>;

export async function listWebhookSubscriptions(ctx: RequestContext, options: ListOptionsInput | null | undefined): Promise<WebhookSubscriptionView[]> {
  const { rows } = await listQuery(ctx, WebhookSubscription, subscriptionList, options, { fields: SUBSCRIPTION_FIELDS });
  return rows.map((row) => toView(row));
}

export async function getWebhookSubscription(ctx: RequestContext, webhookId: number): Promise<WebhookSubscriptionView> {
  return toView(await readOr404(ctx, WebhookSubscription, SUBSCRIPTION_FIELDS, webhookId, SUBSCRIPTION_NOUN));
}

/**
 * Create-or-update (WebhookId 0 creates). The URL must be one outbound requests may reach (400
 * naming Url otherwise), the event types known ones. A new subscription's secret is in this
 * answer only. Saving it with Active true clears the reason the deliveries disabled it; without
 * Active an update leaves it as it is.
 */
export async function saveWebhookSubscription(ctx: RequestContext, input: WebhookSubscriptionInput): Promise<WebhookSubscriptionView> {
  const url = input.Url.trim();
  const problem = outboundUrlProblem(url, { allowPrivate: ctx.app.config.OUTBOUND_ALLOW_PRIVATE, hosts: null });
  if (problem) throw BadInput.field('Url', problem);
  // Active absent: a new subscription is active, an existing one stays as it is (a disabled one disabled).
  const active = input.Active ?? (input.WebhookId ? undefined : true);
  const fields = {
    url, eventTypes: knownEventTypes(input.EventTypes), description: input.Description?.trim() || null,
    ...(active === undefined ? {} : { active }),
    ...(active ? { disabledReason: null, disabledAt: null } : {}),
  };
  const secret = input.WebhookId ? null : newWebhookSecret();
  const saved = await saveRecord(ctx, WebhookSubscription, { id: input.WebhookId, auditId: input.AuditId }, fields, SUBSCRIPTION_NOUN, secret ? { secret } : undefined);
  return { ...toView(saved), Secret: secret };
}

/** Deletes a subscription with its delivery log; answers its id. */
export function deleteWebhookSubscription(ctx: RequestContext, webhookId: number, auditId: number | null | undefined): Promise<number> {
  return deleteRecord(ctx, WebhookSubscription, webhookId, auditId, SUBSCRIPTION_NOUN);
}

/**
 * A new signing secret, answered once. The one it replaces keeps signing beside it (both in
 * `webhook-signature`) for SECRET_OVERLAP_HOURS, so receivers can switch without losing an event;
 * a secret older than that is dropped.
 */
export async function rotateWebhookSecret(ctx: RequestContext, webhookId: number, auditId: number | null | undefined): Promise<WebhookSecretRotation> {
  const subscription = await findOr404(ctx, WebhookSubscription, webhookId, SUBSCRIPTION_NOUN);
  assertCurrentVersion(subscription, auditId);
  const secret = newWebhookSecret();
  const until = new Date(Date.now() + SECRET_OVERLAP_HOURS * 3600_000);
  ctx.em.assign(subscription, { secret, previousSecret: subscription.secret, previousSecretUntil: until });
  await ctx.em.flush();
  return { WebhookId: subscription.id, Secret: secret, PreviousSecretValidUntil: until.toISOString(), AuditId: subscription.auditId };
}

/** The delivery log of one subscription, newest first. */
export async function listWebhookDeliveries(ctx: RequestContext, webhookId: number, options: ListOptionsInput | null | undefined): Promise<WebhookDeliveryView[]> {
  await readOr404(ctx, WebhookSubscription, ['id'], webhookId, SUBSCRIPTION_NOUN);
  const { rows } = await listQuery(ctx, WebhookDelivery, deliveryList, options, { fields: DELIVERY_FIELDS, where: { subscription: webhookId } });
  return Promise.all(rows.map((row) => toDeliveryView(ctx, row)));
}

/**
 * Sends one delivery again (with the same webhook-id), whatever became of it, with a fresh retry
 * schedule. 409 while it is being sent, or while its subscription is not active (it would wait).
 */
export async function redeliverWebhookDelivery(ctx: RequestContext, webhookId: number, deliveryId: number): Promise<WebhookDeliveryView> {
  const subscription = await readOr404(ctx, WebhookSubscription, ['id', 'active'], webhookId, SUBSCRIPTION_NOUN);
  if (!subscription.active) throw new Conflict('The webhook subscription is not active: save it with Active true first.');
  const reset = await tenantSql(ctx).all<{ id: number }>(
    `UPDATE webhook_delivery SET status = 'pending', attempts = 0, next_attempt_at = null, updated_at = now()
     WHERE id = ? AND subscription_id = ? AND ${tenantIs()} AND status <> 'queued' RETURNING id`, [deliveryId, webhookId]);
  if (reset.length === 0) {
    await readOr404(ctx, WebhookDelivery, ['id'], deliveryId, DELIVERY_NOUN, { subscription: webhookId });
    throw new Conflict('The delivery is being sent right now.');
  }
  const row = await readOr404(ctx, WebhookDelivery, DELIVERY_FIELDS, deliveryId, DELIVERY_NOUN);
  return toDeliveryView(ctx, row);
}

/** A Standard Webhooks signing secret: `whsec_` and 32 random bytes, base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** A demo subscription (inactive: the demo tenant posts nowhere). */
export async function seedWebhooks(em: EntityManager, tenant: Tenant, marker: string): Promise<void> {
  em.create(WebhookSubscription, {
    tenant, url: 'https://hooks.example.org/membership', eventTypes: ['invoice.paid'], active: false, description: `Accounting ${marker}`, secret: newWebhookSecret(),
  });
  await em.flush();
}

function knownEventTypes(types: string[]): WebhookEventType[] {
  const unknown = types.filter((type) => !isOneOf(WEBHOOK_EVENT_TYPES, type));
  if (unknown.length) throw BadInput.field('EventTypes', `unknown event type ${unknown.slice(0, 5).map((type) => JSON.stringify(type.slice(0, 64))).join(', ')}; known: ${WEBHOOK_EVENT_TYPES.join(', ')}`);
  if (types.length === 0) throw BadInput.field('EventTypes', 'name at least one event type');
  return [...new Set(types as WebhookEventType[])];
}

function toView(row: SubscriptionRow): WebhookSubscriptionView {
  return {
    WebhookId: row.id, Url: row.url, EventTypes: row.eventTypes, Active: row.active, Description: row.description,
    DisabledReason: row.disabledReason, DisabledAt: iso(row.disabledAt),
    PreviousSecretValidUntil: row.previousSecretUntil && new Date(row.previousSecretUntil) > new Date() ? iso(row.previousSecretUntil) : null,
    Secret: null, CreatedAt: iso(row.createdAt)!, AuditId: row.auditId,
  };
}

async function toDeliveryView(ctx: RequestContext, row: DeliveryRow): Promise<WebhookDeliveryView> {
  const event = await ctx.loaders.byId(WebhookEvent).load(idOf(row.event));
  if (!event) throw new NotFound(DELIVERY_NOUN);
  return {
    DeliveryId: row.id, WebhookId: idOf(row.subscription), MessageId: event.messageId, EventType: event.type, Status: row.status,
    Attempts: row.attempts, LastResponseCode: row.lastResponseCode, LatencyMs: row.lastLatencyMs, LastError: row.lastError,
    NextAttemptAt: row.status === 'retrying' ? iso(row.nextAttemptAt) : null, DeliveredAt: iso(row.deliveredAt), CreatedAt: iso(row.createdAt)!,
  };
}

function iso(value: Date | string | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}
