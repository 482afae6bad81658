import type { MikroORM } from '@mikro-orm/postgresql';
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { Webhook } from 'standardwebhooks';
import { configOnFirstUse, type Config } from '../../core/config.js';
import { acrossTenants, acrossTenantsSql } from '../../core/data/tenant-sql.js';
import { outboundRequest } from '../../core/external/outbound.js';
import { inPumpTransaction, type JobDefinition } from '../../core/runtime/jobs.js';

/*
 * Outbound webhook delivery (Standard Webhooks). `emitWebhookEvent` (./events.ts) writes a
 * `pending` delivery per subscription in the transaction of the change. A pump on the worker
 * instances moves due deliveries to `queued` and inserts one job for each in the same
 * transaction — at most `maxInFlight` per subscription, so a slow or failing receiver holds at
 * most that many of the workers and never delays another subscription's deliveries. The job
 * posts the event without holding a database connection while it waits for the receiver, then
 * records the outcome: 2xx delivered; 410 Gone failed and the subscription disabled; anything
 * else (another status, a timeout, a refused address) `retrying` at the next step of the
 * schedule (with jitter), and after the last step failed with the subscription disabled and the
 * reason kept on it.
 *
 * A process killed mid-post leaves the delivery `queued`; its job expires and runs again, so
 * nothing is lost — and the receiver may get the event twice (it may have answered before the
 * process died). That is by design: the `webhook-id` is the same on every attempt, and receivers
 * drop the duplicates by it.
 */

export const WEBHOOK_DELIVERY_QUEUE = 'webhook-delivery';

/** Seconds before each retry: ~5 s, 5 min, 30 min, 2 h, 5 h, then 10 h three times — about 37 h in all (±20 % jitter each). */
export const WEBHOOK_RETRY_DELAYS_SECONDS: readonly number[] = [5, 300, 1800, 7200, 18_000, 36_000, 36_000, 36_000];
/** The longest one attempt may take; the job's expiry is longer, so a living attempt never runs twice at once. */
const SEND_TIMEOUT_MS = 10_000;
const SEND_EXPIRY_SECONDS = 30;
/** A receiver's answer is only logged by its status; its body is read up to this much. */
const MAX_RESPONSE_BYTES = 64 * 1024;
/** Deliveries of one subscription being posted (or about to be) at once, across all instances. */
const MAX_IN_FLIGHT_PER_SUBSCRIPTION = 2;
/** Parallel posts per worker instance. */
const WORKER_CONCURRENCY = 8;
/** A delivery `queued` this long without an outcome lost its job (every retry of a crashed attempt failed too): it waits again. */
const STUCK_AFTER = '1 hour';

interface DeliveryJobData {
  deliveryId: number;
}

/** What tests may shorten; production uses the defaults. */
export interface WebhookDeliveryOptions {
  /** How often due deliveries are queued (default 1000 ms). */
  everyMs?: number;
  /** Seconds before each retry; after the last, the delivery fails and its subscription is disabled. */
  retryDelaysSeconds?: readonly number[];
  maxInFlightPerSubscription?: number;
  /** The configuration to send with (default: the process's, read on the first job). */
  config?: Config;
}

/** The delivery job and the pump that feeds it. */
export function webhookDeliveryJobs(options: WebhookDeliveryOptions = {}): JobDefinition[] {
  const config = configOnFirstUse(options.config);
  const retryDelays = options.retryDelaysSeconds ?? WEBHOOK_RETRY_DELAYS_SECONDS;
  const maxInFlight = options.maxInFlightPerSubscription ?? MAX_IN_FLIGHT_PER_SUBSCRIPTION;
  return [{
    name: WEBHOOK_DELIVERY_QUEUE,
    // pg-boss retries only an attempt cut off (a dead process: the job expired) or one whose
    // outcome could not be written; the retry schedule of a failing receiver is the pump's.
    queue: { retryLimit: 5, retryDelay: 5, retryBackoff: true, retryDelayMax: 300, expireInSeconds: SEND_EXPIRY_SECONDS },
    work: { concurrency: WORKER_CONCURRENCY, pollingIntervalSeconds: 1 },
    pump: { everyMs: options.everyMs ?? 1000, run: (client, boss) => queueDueDeliveries(client, boss, maxInFlight) },
    handle: (orm, data) => deliverWebhook(orm, config(), (data as Partial<DeliveryJobData> | null)?.deliveryId, retryDelays),
  }];
}

/**
 * Moves due deliveries (every tenant's: new ones, and retries whose time has come) of active
 * subscriptions to `queued`, with one job each, in one transaction; a subscription gets no more
 * than `maxInFlight` queued at once. Also drops previous secrets whose overlap has ended.
 */
export function queueDueDeliveries(client: pg.ClientBase, boss: PgBoss, maxInFlight: number): Promise<number> {
  return inPumpTransaction(client, boss, async (queue) => {
    // One pump at a time across instances, so the in-flight counts below stay true.
    const { rows: [{ locked }] } = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_xact_lock(hashtext('webhook-delivery-pump')) AS locked`);
    if (!locked) return 0;
    await client.query(`UPDATE webhook_subscription SET previous_secret = null, previous_secret_until = null WHERE previous_secret_until < now()`);
    await client.query(`UPDATE webhook_delivery SET status = 'pending', updated_at = now() WHERE status = 'queued' AND updated_at < now() - interval '${STUCK_AFTER}'`);
    const { rows } = await client.query<{ id: number }>(
      // A subscription at its limit is passed over before the LIMIT, so its backlog never hides another's deliveries.
      `WITH due AS (
         SELECT d.id, d.subscription_id, queued.in_flight
         FROM webhook_delivery d JOIN webhook_subscription s ON s.id = d.subscription_id AND s.active
         CROSS JOIN LATERAL (SELECT count(*) AS in_flight FROM webhook_delivery q WHERE q.subscription_id = d.subscription_id AND q.status = 'queued') queued
         WHERE (d.status = 'pending' OR (d.status = 'retrying' AND d.next_attempt_at <= now())) AND queued.in_flight < $1
         ORDER BY d.id LIMIT 1000
       ), allowed AS (
         SELECT id FROM (SELECT id, in_flight + row_number() OVER (PARTITION BY subscription_id ORDER BY id) AS slot FROM due) numbered
         WHERE slot <= $1
       )
       UPDATE webhook_delivery d SET status = 'queued', updated_at = now()
       FROM allowed WHERE d.id = allowed.id AND d.status IN ('pending', 'retrying')
       RETURNING d.id`, [maxInFlight]);
    await queue(WEBHOOK_DELIVERY_QUEUE, rows.map((row) => ({ data: { deliveryId: row.id } satisfies DeliveryJobData })));
    return rows.length;
  });
}

interface DeliveryRow {
  id: number;
  subscription_id: number;
  attempts: number;
  url: string;
  active: boolean;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | null;
  message_id: string;
  body: string;
}

/** How one attempt ended. */
interface Outcome {
  responseCode: number | null;
  latencyMs: number;
  error: string | null;
}

/** One attempt at one delivery (see the top of this file). */
export async function deliverWebhook(orm: MikroORM, config: Config, deliveryId: number | undefined, retryDelays: readonly number[]): Promise<void> {
  if (!Number.isInteger(deliveryId)) return;
  // The job serves every tenant's subscriptions: the named cross-tenant path of row-level security.
  const sql = acrossTenantsSql(orm.em);
  const [delivery] = await sql.all<DeliveryRow>(
    `SELECT d.id, d.subscription_id, d.attempts, s.url, s.active, s.secret, s.previous_secret, s.previous_secret_until, e.message_id, e.body
     FROM webhook_delivery d JOIN webhook_subscription s ON s.id = d.subscription_id JOIN webhook_event e ON e.id = d.event_id
     WHERE d.id = ? AND d.status = 'queued'`, [deliveryId]);
  if (!delivery) return; // recorded already (a repeated job), redelivered, or gone with its subscription
  if (!delivery.active) {
    // Paused (or disabled) since it was queued: it waits until the subscription is active again.
    await sql.run(`UPDATE webhook_delivery SET status = 'pending', updated_at = now() WHERE id = ? AND status = 'queued'`, [delivery.id]);
    return;
  }
  const outcome = await post(config, delivery);
  const attempts = delivery.attempts + 1;
  const delivered = outcome.responseCode !== null && outcome.responseCode >= 200 && outcome.responseCode < 300;
  const gone = outcome.responseCode === 410;
  const exhausted = !delivered && !gone && attempts > retryDelays.length;
  const status = delivered ? 'delivered' : gone || exhausted ? 'failed' : 'retrying';
  const nextAttemptSeconds = status === 'retrying' ? withJitter(retryDelays[attempts - 1]) : null;
  await acrossTenants(orm.em).transactional(async (tx) => {
    await tx.execute(
      `UPDATE webhook_delivery SET status = ?, attempts = ?, last_response_code = ?, last_latency_ms = ?, last_error = ?,
         next_attempt_at = now() + make_interval(secs => ?), delivered_at = CASE WHEN ? THEN now() END, updated_at = now()
       WHERE id = ? AND status = 'queued'`,
      [status, attempts, outcome.responseCode, outcome.latencyMs, outcome.error, nextAttemptSeconds, delivered, delivery.id]);
    if (gone || exhausted) {
      const reason = gone
        ? `The receiver answered 410 Gone to delivery ${delivery.id}: it wants no more events.`
        : `Delivery ${delivery.id} failed ${attempts} times (last: ${outcome.error ?? `HTTP ${outcome.responseCode}`}).`;
      await tx.execute(
        `UPDATE webhook_subscription SET active = false, disabled_reason = ?, disabled_at = now(), audit_id = audit_id + 1, updated_at = now() WHERE id = ? AND active`,
        [reason.slice(0, 500), delivery.subscription_id]);
    }
  });
}

/** Posts the event, signed with the current secret and, during a rotation's overlap, the previous one. */
async function post(config: Config, delivery: DeliveryRow): Promise<Outcome> {
  const sentAt = new Date();
  const secrets = [delivery.secret];
  if (delivery.previous_secret && delivery.previous_secret_until && new Date(delivery.previous_secret_until) > sentAt) secrets.push(delivery.previous_secret);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'membership-api-webhooks/1',
    'webhook-id': delivery.message_id,
    'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(delivery.message_id, sentAt, delivery.body)).join(' '),
  };
  const started = performance.now();
  try {
    const response = await outboundRequest(delivery.url, { method: 'POST', headers, body: delivery.body, timeoutMs: SEND_TIMEOUT_MS, maxResponseBytes: MAX_RESPONSE_BYTES },
      { allowPrivate: config.OUTBOUND_ALLOW_PRIVATE, hosts: null });
    const ok = response.status >= 200 && response.status < 300;
    return { responseCode: response.status, latencyMs: elapsed(started), error: ok ? null : `HTTP ${response.status}` };
  } catch (error) {
    return { responseCode: null, latencyMs: elapsed(started), error: (error instanceof Error ? error.message : String(error)).slice(0, 500) };
  }
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}

/** `seconds` ±20 %, so receivers recovering from an outage are not met by every retry at once. */
function withJitter(seconds: number): number {
  return seconds * (0.8 + Math.random() * 0.4);
}
