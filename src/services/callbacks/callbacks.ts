import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import type { RequestContext } from '../../core/context.js';
import { BadInput, ServiceUnavailable } from '../../core/errors.js';
import { isOneOf } from '../../core/values.js';
import { listQuery, defineList } from '../../core/data/list-query.js';
import { CALLBACK_PROVIDERS, CALLBACK_STATES, EmailEvent, isCallbackProvider, MeetingEvent, ProviderCallback, type CallbackProvider, type CallbackState } from '../../entities/callback.js';
import type { Tenant } from '../../entities/tenant.js';
import type { ProviderCallbackItem } from '../../schema/callbacks.js';
import type { ListOptionsInput } from '../../schema/common.js';

// ---- authentication ----

export const TIMESTAMP_HEADER = 'x-callback-timestamp';
export const SIGNATURE_HEADER = 'x-callback-signature';
/** How far a callback's timestamp may be from our clock, either way. */
export const REPLAY_WINDOW_SECONDS = 5 * 60;

/** The signature header value for a body sent at `timestamp` (Unix seconds): HMAC-SHA256 of "<timestamp>.<raw body>". */
export function callbackSignature(secret: string, timestamp: string | number, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;
}

/** True when the headers prove knowledge of `secret` for exactly this body, signed within the replay window. Constant time. */
export function signatureValid(secret: string, timestamp: unknown, signature: unknown, body: Buffer, now = Date.now()): boolean {
  const given = signedDigest(timestamp, signature, now);
  if (!given || typeof timestamp !== 'string') return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
  return timingSafeEqual(Buffer.from(given, 'hex'), expected);
}

/**
 * The digest a request's signature header gives, when its timestamp is fresh and both headers
 * are well-formed; null otherwise. Needs no body, so a stale or malformed request is refused
 * before its body is read.
 */
export function signedDigest(timestamp: unknown, signature: unknown, now = Date.now()): string | null {
  if (typeof timestamp !== 'string' || !/^\d{1,12}$/.test(timestamp)) return null;
  if (Math.abs(now / 1000 - Number(timestamp)) > REPLAY_WINDOW_SECONDS) return null;
  return (typeof signature === 'string' ? /^sha256=([0-9a-fA-F]{64})$/.exec(signature.trim())?.[1] : undefined) ?? null;
}

/** The meeting provider's URL-validation answer: HMAC-SHA256 of the plain token with the secret, hex. */
export function encryptedToken(secret: string, plainToken: string): string {
  return createHmac('sha256', secret).update(plainToken).digest('hex');
}

export interface TenantSecret {
  tenantId: number;
  secret: string;
}

/**
 * Tenant and secret per (tenant key, provider), kept for a short while so a burst of callbacks
 * costs no lookups. A signature that fails against a kept secret is checked again against the
 * stored one, so a new secret works at once; a replaced one keeps working for at most `ttlMs`.
 */
export class CallbackSecrets {
  private readonly kept = new Map<string, TenantSecret & { until: number }>();

  constructor(private readonly pool: pg.Pool, private readonly ttlMs = 30_000) {}

  /** The tenant and its secret for the provider when the request proves it knows it; null otherwise. */
  async authenticate(tenantKey: string, provider: CallbackProvider, valid: (secret: string) => boolean): Promise<TenantSecret | null> {
    const cacheKey = `${tenantKey}\u0000${provider}`;
    const kept = this.kept.get(cacheKey);
    if (kept && kept.until > Date.now() && valid(kept.secret)) return kept;
    const found = await this.lookup(tenantKey, provider);
    if (!found) {
      this.kept.delete(cacheKey);
      return null;
    }
    this.kept.set(cacheKey, { ...found, until: Date.now() + this.ttlMs });
    return valid(found.secret) ? found : null;
  }

  private async lookup(tenantKey: string, provider: CallbackProvider): Promise<TenantSecret | null> {
    const { rows } = await this.pool.query<{ tenant_id: number; secret: string }>(
      `SELECT s.tenant_id, s.secret FROM callback_secret s JOIN tenant t ON t.id = s.tenant_id
       WHERE t.key = $1 AND s.provider = $2`,
      [tenantKey, provider],
    );
    return rows[0] ? { tenantId: rows[0].tenant_id, secret: rows[0].secret } : null;
  }
}

/** Sets (or replaces) a tenant's secret for a provider and answers it; it is shown only this once. */
export async function setCallbackSecret(em: EntityManager, tenant: Tenant, provider: string): Promise<string> {
  if (!isCallbackProvider(provider)) throw BadInput.field('provider', `must be one of ${CALLBACK_PROVIDERS.join(', ')}`);
  const secret = `cbs_${randomBytes(32).toString('base64url')}`;
  await em.getConnection().execute(
    `INSERT INTO callback_secret (tenant_id, provider, secret) VALUES (?, ?, ?)
     ON CONFLICT (tenant_id, provider) DO UPDATE SET secret = excluded.secret, updated_at = now()`,
    [tenant.id, provider, secret],
  );
  return secret;
}

// ---- store, then acknowledge ----

export interface IncomingCallback {
  tenantId: number;
  provider: CallbackProvider;
  /** The headers that matter (signature, timestamp, content type, user agent, request id, remote address). */
  headers: Record<string, string>;
  /** The raw body, already checked to be UTF-8 JSON. */
  body: string;
}

const INSERT_CALLBACK = `INSERT INTO provider_callback (tenant_id, receipt, provider, headers, body, state)
  VALUES ($1, $2, $3, $4, $5, 'received')`;

/**
 * Stores the callback — one prepared INSERT, committed on its own — and answers its receipt; a
 * failure is a 503, so the provider retries. Queueing its processing job is left to the dispatcher
 * (`queueCallbacks(…, 'received', …)`, pumped by the worker instances), so the acknowledgement
 * costs one statement; a callback stored just before a crash is queued after the restart.
 */
export async function storeCallback(pool: pg.Pool, callback: IncomingCallback, log: (error: unknown) => void, options: { prepared?: boolean } = {}): Promise<string> {
  const receipt = randomUUID();
  try {
    // A named (prepared) statement: PostgreSQL plans it once per connection, not once per callback.
    // Behind PgBouncer in transaction mode (`prepared: false`) a named statement may meet another
    // server connection than the one it was prepared on, so it is sent unnamed.
    const values = [callback.tenantId, receipt, callback.provider, JSON.stringify(callback.headers), callback.body];
    await pool.query(options.prepared === false ? { text: INSERT_CALLBACK, values } : { name: 'store_callback', text: INSERT_CALLBACK, values });
  } catch (error) {
    log(error);
    throw notStored();
  }
  return receipt;
}

function notStored(): ServiceUnavailable {
  return new ServiceUnavailable('The callback could not be stored; send it again.');
}

// ---- observability ----

const callbackList = defineList(ProviderCallback, {
  operations: ['Query.providerCallbacks'],
  orderBy: { ReceivedAt: 'receivedAt', CallbackId: 'id', Provider: 'provider', State: 'state' },
  defaultOrder: 'ReceivedAt desc',
  search: ['provider', 'state', 'error'],
}, 'many');

/** The tenant's stored callbacks, newest first unless `options` orders them otherwise; `state` narrows them. */
export async function listCallbacks(ctx: RequestContext, options: ListOptionsInput | null | undefined, state: string | null | undefined): Promise<ProviderCallbackItem[]> {
  let inState: { state: CallbackState } | null = null;
  if (state) {
    if (!isOneOf(CALLBACK_STATES, state)) throw BadInput.field('state', `must be one of ${CALLBACK_STATES.join(', ')}`);
    inState = { state };
  }
  const { rows } = await listQuery(ctx, ProviderCallback, callbackList, options, {
    fields: ['id', 'receipt', 'provider', 'receivedAt', 'state', 'attempts', 'error', 'processedAt', 'eventCount', 'parkedEvents'],
    where: inState ?? {},
  });
  return rows.map((row) => ({
    CallbackId: row.id,
    Receipt: row.receipt,
    Provider: row.provider,
    ReceivedAt: iso(row.receivedAt)!,
    State: row.state,
    Attempts: row.attempts,
    Error: row.error,
    ProcessedAt: iso(row.processedAt),
    EventCount: row.eventCount,
    ParkedEvents: (row.parkedEvents ?? []).map((parked) => ({ Event: parked.event, Reason: parked.reason })),
  }));
}

function iso(value: Date | string | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}

// ---- demo data ----

/**
 * Demo callbacks for a new tenant, as processing leaves them: an e-mail provider's batch whose
 * events are recorded (one of them parked), a meeting provider's event, and a callback that
 * failed every attempt (dead, with its error) for staff to see in `providerCallbacks`.
 */
export async function seedCallbacks(em: EntityManager, tenant: Tenant, marker: string): Promise<void> {
  const now = Date.now();
  const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000);
  const unix = (date: Date) => Math.floor(date.getTime() / 1000);
  const headers = { 'content-type': 'application/json', 'user-agent': 'Demo provider' };
  const address = `${marker}jordan.lee@example.org`;

  const sent = at(90);
  const emailEvents = [
    { sg_event_id: `demo-${randomUUID()}`, event: 'delivered', email: address, timestamp: unix(sent) },
    { sg_event_id: `demo-${randomUUID()}`, event: 'open', email: address, timestamp: unix(at(80)) },
    { sg_event_id: `demo-${randomUUID()}`, event: 'open', email: `${marker}not-an-address`, timestamp: unix(at(80)) },
  ];
  const batch = em.create(ProviderCallback, {
    tenant, receipt: randomUUID(), provider: 'emailprovider1', headers, body: JSON.stringify(emailEvents), receivedAt: at(79),
    state: 'processed', attempts: 1, processedAt: at(79), eventCount: 2,
    parkedEvents: [{ event: 'event 2', reason: 'event 2.email: is not an e-mail address' }],
  });
  for (const event of emailEvents.slice(0, 2)) {
    em.create(EmailEvent, {
      tenant, provider: 'emailprovider1', providerEventId: event.sg_event_id, callback: batch,
      kind: event.event === 'open' ? 'open' : 'delivered', email: event.email, occurredAt: new Date(event.timestamp * 1000),
    });
  }

  const started = at(60);
  const meetingBody = { event: 'meeting.started', event_ts: started.getTime(), payload: { object: { id: '81234567890', uuid: 'demo-meeting', topic: `${marker}Board meeting` } } };
  const meeting = em.create(ProviderCallback, {
    tenant, receipt: randomUUID(), provider: 'meetingprovider', headers, body: JSON.stringify(meetingBody), receivedAt: started,
    state: 'processed', attempts: 1, processedAt: started, eventCount: 1,
  });
  em.create(MeetingEvent, {
    tenant, provider: 'meetingprovider', providerEventId: `demo-${randomUUID()}`, callback: meeting,
    kind: 'started', meetingId: '81234567890', meetingUuid: 'demo-meeting', topic: meetingBody.payload.object.topic, occurredAt: started,
  });

  const failedAt = at(30);
  const failedBody = { 'event-data': { id: `demo-${randomUUID()}`, event: 'failed', severity: 'permanent', recipient: `${marker}casey.morgan@example.org`, timestamp: unix(failedAt) } };
  em.create(ProviderCallback, {
    tenant, receipt: randomUUID(), provider: 'emailprovider3', headers, body: JSON.stringify(failedBody), receivedAt: failedAt,
    state: 'dead', attempts: 6, error: `${marker}Event store unavailable: connection terminated unexpectedly`,
  });
  await em.flush();
}
