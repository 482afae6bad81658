import { randomBytes } from 'node:crypto';
import type { RequestContext } from '../../core/context.js';
import { tenantIs, tenantSql, TENANT } from '../../core/data/tenant-sql.js';
import type { WebhookEventType } from '../../entities/webhook.js';

/*
 * Outbound webhook events: a transactional outbox. `emitWebhookEvent` writes the event and one
 * delivery per active subscription of the tenant that asked for its type, in the transaction of
 * the change it describes — so a change that rolls back sends nothing and one that commits is
 * never lost. The delivery jobs (./delivery.ts) post it afterwards. Payloads per type:
 * ARCHITECTURE.md, "Outbound webhooks".
 */

/**
 * Records that `type` happened, with `data` (thin: ids and the few fields partners need), for
 * every subscription of the caller's tenant that asked for it. Must run inside the transaction of
 * the change (`inTransaction`): outside one the event could outlive a change that failed.
 */
export async function emitWebhookEvent(ctx: RequestContext, type: WebhookEventType, data: Record<string, unknown>): Promise<void> {
  if (!ctx.em.isInTransaction()) throw new Error(`emitWebhookEvent(${type}) must run in the transaction of the change it describes`);
  // The webhook-id: random, and without the "." the signed content uses as its separator.
  const messageId = `msg_${randomBytes(16).toString('base64url')}`;
  const body = JSON.stringify({ type, timestamp: new Date().toISOString(), data });
  // One statement: the event is written only when a subscription wants it.
  await tenantSql(ctx).run(
    `WITH targets AS (
       SELECT s.id FROM webhook_subscription s WHERE ${tenantIs('s')} AND s.active AND s.event_types @> jsonb_build_array(?::text)
     ), event AS (
       INSERT INTO webhook_event (tenant_id, message_id, type, body)
       SELECT ${TENANT}, ?, ?, ? WHERE EXISTS (SELECT 1 FROM targets) RETURNING id
     )
     INSERT INTO webhook_delivery (tenant_id, subscription_id, event_id) SELECT ${TENANT}, targets.id, event.id FROM targets, event`,
    [type, messageId, type, body]);
}
