import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import pg from 'pg';
import { Contact } from '../src/entities/index.js';
import { routeCoverage } from '../src/rest/coverage.js';
import { callbackJobs, processCallback } from '../src/services/callbacks/callback-processing.js';
import { callbackSignature, seedCallbacks, setCallbackSecret } from '../src/services/callbacks/callbacks.js';
import { findTenant } from '../src/services/login/identity.js';
import { createTestTenant, expectStatementsIndependentOfPageSize, graphql, rest, startTestServer, type TestServer, type TestTenant } from './support/harness.js';
import { freePort, runNode, startNode } from './support/processes.js';

const PROVIDERS = ['emailprovider1', 'emailprovider2', 'emailprovider3', 'emailprovider4', 'meetingprovider'] as const;
type Provider = (typeof PROVIDERS)[number];

let server: TestServer;
let db: pg.Pool;
let acme: TestTenant;
let other: TestTenant;
const secrets: Record<string, Record<string, string>> = {};

beforeAll(async () => {
  // Short retry delays and polling, so a failing callback is dead-lettered within seconds.
  server = await startTestServer({}, { jobs: callbackJobs({ retryLimit: 2, retryDelaySeconds: 1, pollingIntervalSeconds: 0.5 }) });
  db = new pg.Pool({ connectionString: server.databaseUrl, max: 3 });
  acme = await createTestTenant(server, 'acme');
  other = await createTestTenant(server, 'other');
  for (const tenant of [acme, other]) {
    secrets[tenant.key] = {};
    const em = server.orm.em.fork();
    const found = await findTenant(em, tenant.key);
    for (const provider of PROVIDERS) secrets[tenant.key][provider] = await setCallbackSecret(em, found, provider);
  }
});
afterAll(async () => {
  await db.end();
  await server.close();
});

// ---- helpers ----

interface SendOptions {
  tenant?: string | null;
  secret?: string;
  timestamp?: number;
  /** Seconds added to the current time for the timestamp (when no timestamp is given). */
  skew?: number;
  signature?: string | null;
  headers?: Record<string, string>;
  base?: string;
}

/** Posts a signed callback (raw JSON text or a value to stringify) and answers status, headers and text. */
async function send(provider: Provider, body: unknown, options: SendOptions = {}) {
  const tenant = options.tenant === undefined ? 'acme' : options.tenant;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000) + (options.skew ?? 0);
  const secret = options.secret ?? secrets[tenant ?? 'acme']?.[provider] ?? 'no-secret';
  const signature = options.signature === undefined ? callbackSignature(secret, timestamp, text) : options.signature;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-callback-timestamp': String(timestamp),
    ...(signature === null ? {} : { 'x-callback-signature': signature }),
    ...options.headers,
  };
  const query = tenant === null ? '' : `?tenant=${encodeURIComponent(tenant)}`;
  const response = await fetch(`${options.base ?? server.baseUrl}/api/callback/${provider}${query}`, { method: 'POST', headers, body: text });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function query<T extends pg.QueryResultRow = any>(text: string, values: unknown[] = []): Promise<T[]> {
  return (await db.query<T>(text, values)).rows;
}

async function storedCount(): Promise<number> {
  return Number((await query('SELECT count(*) AS n FROM provider_callback'))[0].n);
}

async function eventually<T>(check: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await check();
  while (!ok(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    value = await check();
  }
  return value;
}

let unique = 0;
const id = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++unique}`;

/** Waits until every stored callback has left the queue (processed or dead) and no job is waiting or running. */
async function drained(): Promise<void> {
  const pending = await eventually(
    async () => Number((await query(
      `SELECT (SELECT count(*) FROM provider_callback WHERE state IN ('received', 'queued', 'retrying'))
            + (SELECT count(*) FROM pgboss.job WHERE name LIKE 'provider-callback%' AND state IN ('created', 'retry', 'active')) AS n`))[0].n),
    (count) => count === 0,
  );
  expect(pending).toBe(0);
}

async function createContact(tenant: TestTenant, email: string): Promise<number> {
  const em = server.orm.em.fork();
  const contact = em.create(Contact, { tenant: tenant.id, kind: 'person', firstName: 'Casey', lastName: 'Contact', email });
  await em.persist(contact).flush();
  return contact.id;
}

async function contactRow(contactId: number) {
  return (await query('SELECT email_suppressed_at, email_suppression_reason, updated_at FROM contact WHERE id = $1', [contactId]))[0];
}

const sendgrid = (events: Record<string, unknown>[]) => events;

// ---- routing ----

describe('callback routes', () => {
  it('routes all six documented operations (npm run coverage:routes counts them)', async () => {
    expect(routeCoverage().byArea.get('Inbound provider callbacks')).toEqual({ routed: 6, total: 6 });
    const printed = await runNode('rest/print-coverage.js', [], {});
    expect(printed.stdout).toMatch(/Inbound provider callbacks\s+6\/6/);
  });

  it('answers the emailprovider2 probe (GET and HEAD) with 200 and an empty body', async () => {
    const probe = await fetch(`${server.baseUrl}/api/callback/emailprovider2`);
    expect(probe.status).toBe(200);
    expect(await probe.text()).toBe('');
    expect((await fetch(`${server.baseUrl}/api/callback/emailprovider2`, { method: 'HEAD' })).status).toBe(200);
  });

  it.each(PROVIDERS)('POST /api/callback/%s stores a signed callback and answers 200 with an empty body', async (provider) => {
    const bodies: Record<Provider, unknown> = {
      emailprovider1: [{ sg_event_id: id('sg'), event: 'delivered', email: 'someone@acme.example', timestamp: 1700000000 }],
      emailprovider2: [JSON.stringify({ _id: id('md'), event: 'open', ts: 1700000000, msg: { email: 'someone@acme.example' } })],
      emailprovider3: { signature: {}, 'event-data': { id: id('mg'), event: 'delivered', recipient: 'someone@acme.example', timestamp: 1700000000.5 } },
      emailprovider4: { RecordType: 'Delivery', MessageID: id('pm'), Recipient: 'someone@acme.example', DeliveredAt: '2024-01-02T03:04:05Z' },
      meetingprovider: { event: 'meeting.started', event_ts: 1700000000000, payload: { object: { id: 123456, uuid: id('zm'), topic: 'Board', start_time: '2024-01-02T03:04:05Z' } } },
    };
    const before = await storedCount();
    const text = JSON.stringify(bodies[provider]);
    const response = await send(provider, text);
    expect(response.status).toBe(200);
    expect(response.text).toBe('');
    // 200 means the row exists: read it right after the response.
    const rows = await query('SELECT * FROM provider_callback WHERE tenant_id = $1 AND provider = $2 ORDER BY id DESC LIMIT 1', [acme.id, provider]);
    expect(await storedCount()).toBe(before + 1);
    expect(rows[0]).toMatchObject({ provider, body: text, attempts: expect.any(Number) });
    expect(rows[0].headers).toMatchObject({ 'content-type': 'application/json', 'x-callback-signature': expect.stringMatching(/^sha256=/), 'remote-address': '127.0.0.1' });
    // ... and a worker's dispatcher gives it its processing job within a moment.
    const jobs = await eventually(async () => query("SELECT name FROM pgboss.job WHERE data->>'receipt' = $1", [rows[0].receipt]), (list) => list.length > 0);
    expect(jobs.map((job) => job.name)).toContain('provider-callback');
  });

  it('matches the paths case-insensitively and with a trailing slash', async () => {
    const body = JSON.stringify([{ sg_event_id: id('sg'), event: 'delivered', email: 'a@acme.example' }]);
    const timestamp = Math.floor(Date.now() / 1000);
    const response = await fetch(`${server.baseUrl}/API/Callback/EmailProvider1/?tenant=acme`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-callback-timestamp': String(timestamp), 'x-callback-signature': callbackSignature(secrets.acme.emailprovider1, timestamp, body) },
      body,
    });
    expect(response.status).toBe(200);
  });
});

// ---- authentication ----

describe('callback authentication', () => {
  const body = () => [{ sg_event_id: id('sg'), event: 'delivered', email: 'auth@acme.example', timestamp: 1700000000 }];

  it.each([
    ['no signature', { signature: null }],
    ['a malformed signature', { signature: 'sha256=xyz' }],
    ['a signature without its scheme', { signature: 'a'.repeat(64) }],
    ['a signature made with another secret', { secret: 'not-the-secret' }],
    ["another tenant's secret", { secret: 'other' }],
    ["the tenant's secret for another provider", { secret: 'emailprovider3' }],
    ['an unknown tenant', { tenant: 'nosuchtenant' }],
    ['no tenant', { tenant: null }],
    ['a malformed tenant key', { tenant: 'ACME!' }],
    ['a timestamp older than five minutes (a replay)', { skew: -302 }],
    ['a timestamp more than five minutes ahead', { skew: 302 }],
  ] as [string, SendOptions & { secret?: string }][])('refuses %s with 401 and stores nothing', async (_label, options) => {
    const resolved = { ...options };
    if (options.secret === 'other') resolved.secret = secrets.other.emailprovider1!;
    if (options.secret === 'emailprovider3') resolved.secret = secrets.acme.emailprovider3!;
    const before = await storedCount();
    const response = await send('emailprovider1', body(), resolved);
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(JSON.parse(response.text)).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
    expect(await storedCount()).toBe(before);
  });

  it('refuses a body changed after signing (the signature covers the raw bytes)', async () => {
    const signed = JSON.stringify(body());
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = callbackSignature(secrets.acme.emailprovider1, timestamp, signed);
    const before = await storedCount();
    const reformatted = JSON.stringify(JSON.parse(signed), null, 1); // same JSON value, other bytes
    expect((await send('emailprovider1', reformatted, { timestamp, signature })).status).toBe(401);
    // A timestamp changed after signing fails too.
    expect((await send('emailprovider1', signed, { timestamp: timestamp - 1, signature })).status).toBe(401);
    expect(await storedCount()).toBe(before);
    expect((await send('emailprovider1', signed, { timestamp, signature })).status).toBe(200);
  });

  it('accepts a good signature within the window, also resent (deduplication handles the copy)', async () => {
    const signed = JSON.stringify(body());
    const timestamp = Math.floor(Date.now() / 1000) - 290;
    const signature = callbackSignature(secrets.acme.emailprovider1, timestamp, signed);
    expect((await send('emailprovider1', signed, { timestamp, signature })).status).toBe(200);
    expect((await send('emailprovider1', signed, { timestamp, signature })).status).toBe(200);
  });

  it("answers the meeting provider's URL validation with the encrypted token and stores nothing", async () => {
    const before = await storedCount();
    const challenge = { event: 'endpoint.url_validation', payload: { plainToken: 'qgg8vlvZRS6UYooatFL8Aw' }, event_ts: Date.now() };
    const response = await send('meetingprovider', challenge);
    expect(response.status).toBe(200);
    expect(JSON.parse(response.text)).toEqual({
      plainToken: 'qgg8vlvZRS6UYooatFL8Aw',
      encryptedToken: createHmac('sha256', secrets.acme.meetingprovider).update('qgg8vlvZRS6UYooatFL8Aw').digest('hex'),
    });
    expect((await send('meetingprovider', challenge, { secret: 'wrong' })).status).toBe(401);
    expect(await storedCount()).toBe(before);
  });
});

// ---- checks before storing, and failures to store ----

describe('callback bodies', () => {
  it.each([
    ['invalid JSON', 'emailprovider1', '[{"sg_event_id":'],
    ['an empty body', 'emailprovider1', ''],
    ['an object where an array of events is expected', 'emailprovider1', '{"event":"delivered"}'],
    ['objects where the documented array of strings is expected', 'emailprovider2', '[{"event":"open"}]'],
    ['a body without event-data', 'emailprovider3', '{"event":"delivered"}'],
    ['a body without RecordType', 'emailprovider4', '{"MessageID":"x"}'],
    ['a body without event', 'meetingprovider', '{"payload":{}}'],
  ] as [string, Provider, string][])('refuses %s with 400 (signed) and stores nothing', async (_label, provider, text) => {
    const before = await storedCount();
    const response = await send(provider, text);
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text).errors[0].field).toBe('body');
    expect(await storedCount()).toBe(before);
  });

  it('refuses a body that is not UTF-8 with 400', async () => {
    const bytes = Buffer.concat([Buffer.from('["'), Buffer.from([0xff, 0xfe]), Buffer.from('"]')]);
    const timestamp = Math.floor(Date.now() / 1000);
    const response = await fetch(`${server.baseUrl}/api/callback/emailprovider2?tenant=acme`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-callback-timestamp': String(timestamp), 'x-callback-signature': callbackSignature(secrets.acme.emailprovider2, timestamp, bytes) },
      body: bytes,
    });
    expect(response.status).toBe(400);
  });

  it('refuses a body over the limit with 413 before storing anything', async () => {
    const before = await storedCount();
    const big = JSON.stringify([{ sg_event_id: 'big', event: 'delivered', email: 'a@acme.example', padding: 'x'.repeat(1024 * 1024) }]);
    const response = await send('emailprovider1', big);
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(await storedCount()).toBe(before);
  });

  it('reads a body sent without a content type, and a tenant key in any case', async () => {
    const body = Buffer.from(JSON.stringify([{ sg_event_id: id('sg'), event: 'open', email: 'nct@acme.example' }]));
    const timestamp = Math.floor(Date.now() / 1000);
    const response = await fetch(`${server.baseUrl}/api/callback/emailprovider1?tenant=ACME`, {
      method: 'POST',
      headers: { 'x-callback-timestamp': String(timestamp), 'x-callback-signature': callbackSignature(secrets.acme.emailprovider1, timestamp, body) },
      body,
    });
    expect(response.status).toBe(200);
  });

  it('accepts any content type: the body is read as bytes and checked as JSON', async () => {
    const response = await send('emailprovider1', [{ sg_event_id: id('sg'), event: 'open', email: 'ct@acme.example' }], { headers: { 'content-type': 'text/plain' } });
    expect(response.status).toBe(200);
  });

  it('answers 503 and stores nothing when the callback cannot be stored', async () => {
    await drained();
    const before = await storedCount();
    await db.query('ALTER TABLE provider_callback RENAME TO provider_callback_away');
    try {
      const response = await send('emailprovider1', [{ sg_event_id: id('sg'), event: 'delivered', email: 'down@acme.example' }]);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBeTruthy();
    } finally {
      await db.query('ALTER TABLE provider_callback_away RENAME TO provider_callback');
    }
    expect(await storedCount()).toBe(before);
  });

  it('answers 503 and stores nothing when the callback cannot be stored', async () => {
    const before = await storedCount();
    await db.query(`CREATE FUNCTION refuse_callback() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk full'; END $$`);
    await db.query('CREATE TRIGGER refuse_callback BEFORE INSERT ON provider_callback FOR EACH ROW EXECUTE FUNCTION refuse_callback()');
    try {
      const response = await send('emailprovider1', [{ sg_event_id: id('sg'), event: 'delivered', email: 'nostore@acme.example' }]);
      expect(response.status).toBe(503);
    } finally {
      await db.query('DROP TRIGGER refuse_callback ON provider_callback');
      await db.query('DROP FUNCTION refuse_callback()');
    }
    expect(await storedCount()).toBe(before);
    // And the next one goes through again on the same connections.
    expect((await send('emailprovider1', [{ sg_event_id: id('sg'), event: 'delivered', email: 'nostore@acme.example' }])).status).toBe(200);
  });

  it('keeps a stored callback whose job cannot be created yet, and queues and processes it once it can', async () => {
    await drained();
    await db.query(`CREATE FUNCTION refuse_job() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no jobs today'; END $$`);
    await db.query('CREATE TRIGGER refuse_job BEFORE INSERT ON pgboss.job FOR EACH ROW EXECUTE FUNCTION refuse_job()');
    const eventId = id('sg');
    try {
      expect((await send('emailprovider1', [{ sg_event_id: eventId, event: 'delivered', email: 'nojob@acme.example' }])).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1000)); // several dispatcher rounds, all refused
      const [waiting] = await query('SELECT state FROM provider_callback WHERE body LIKE $1', [`%${eventId}%`]);
      expect(waiting.state).toBe('received');
    } finally {
      await db.query('DROP TRIGGER refuse_job ON pgboss.job');
      await db.query('DROP FUNCTION refuse_job()');
    }
    const processed = await eventually(async () => (await query('SELECT state FROM provider_callback WHERE body LIKE $1', [`%${eventId}%`]))[0], (row) => row.state === 'processed');
    expect(processed.state).toBe('processed');
  });
});

// ---- processing ----

describe('callback processing', () => {
  it('normalizes e-mail events, links them to the contact by address and suppresses hard bounces and spam reports', async () => {
    const bounced = await createContact(acme, 'Bounce.Me@Acme.example');
    const complained = await createContact(acme, 'spam@acme.example');
    const soft = await createContact(acme, 'soft@acme.example');
    const reader = await createContact(acme, 'reader@acme.example');
    const batch = id('batch');
    const events = sendgrid([
      { sg_event_id: `${batch}-1`, event: 'delivered', email: 'reader@acme.example', timestamp: 1700000000 },
      { sg_event_id: `${batch}-2`, event: 'open', email: 'reader@acme.example', timestamp: 1700000060 },
      { sg_event_id: `${batch}-3`, event: 'click', email: 'READER@acme.example', timestamp: 1700000120, url: 'https://acme.example/news?a=1&b=??' },
      { sg_event_id: `${batch}-4`, event: 'bounce', type: 'bounce', email: 'bounce.me@acme.example', timestamp: 1700000180, reason: '550 5.1.1 it\'s \\ "gone" ? ?? ünï 🚀' },
      { sg_event_id: `${batch}-5`, event: 'bounce', type: 'blocked', email: 'soft@acme.example', timestamp: 1700000240 },
      { sg_event_id: `${batch}-6`, event: 'deferred', email: 'soft@acme.example', timestamp: 1700000300 },
      { sg_event_id: `${batch}-7`, event: 'spamreport', email: 'spam@acme.example', timestamp: 1700000360 },
      { sg_event_id: `${batch}-8`, event: 'unsubscribe', email: 'reader@acme.example', timestamp: 1700000420 },
      { sg_event_id: `${batch}-9`, event: 'processed', email: 'reader@acme.example', timestamp: 1700000000 },
      { sg_event_id: `${batch}-10`, event: 'delivered', email: 'stranger@elsewhere.example', timestamp: 1700000000 },
    ]);
    expect((await send('emailprovider1', events)).status).toBe(200);
    await drained();
    const rows = await query(
      `SELECT provider_event_id, kind, bounce_type, email, contact_id, occurred_at, url, reason FROM email_event
       WHERE tenant_id = $1 AND provider_event_id LIKE $2 ORDER BY length(provider_event_id), provider_event_id`, [acme.id, `${batch}-%`]);
    expect(rows.map((row) => [row.provider_event_id.slice(batch.length + 1), row.kind, row.bounce_type, row.contact_id])).toEqual([
      ['1', 'delivered', null, reader],
      ['2', 'open', null, reader],
      ['3', 'click', null, reader],
      ['4', 'bounce', 'hard', bounced],
      ['5', 'bounce', 'soft', soft],
      ['6', 'deferred', null, soft],
      ['7', 'spam_report', null, complained],
      ['8', 'unsubscribe', null, reader],
      ['10', 'delivered', null, null],
    ]);
    expect(rows[2]).toMatchObject({ url: 'https://acme.example/news?a=1&b=??' });
    expect(rows[3]).toMatchObject({ reason: '550 5.1.1 it\'s \\ "gone" ? ?? ünï 🚀', occurred_at: new Date(1700000180 * 1000) });
    expect(await contactRow(bounced)).toMatchObject({ email_suppressed_at: new Date(1700000180 * 1000), email_suppression_reason: 'hard_bounce' });
    expect(await contactRow(complained)).toMatchObject({ email_suppression_reason: 'spam_report' });
    expect(await contactRow(soft)).toMatchObject({ email_suppressed_at: null });
    expect(await contactRow(reader)).toMatchObject({ email_suppressed_at: null });
    const [callback] = await query('SELECT state, attempts, error, event_count, processed_at FROM provider_callback WHERE body LIKE $1', [`%${batch}-1"%`]);
    expect(callback).toMatchObject({ state: 'processed', attempts: 1, error: null, event_count: 9, processed_at: expect.any(Date) });
  });

  it('reads every provider format', async () => {
    const contact = await createContact(acme, 'formats@acme.example');
    const key = id('fmt');
    const mandrill = (event: string, extra: Record<string, unknown> = {}) => JSON.stringify({ _id: `${key}-md`, event, ts: 1700000000, msg: { email: 'formats@acme.example' }, ...extra });
    const sends: [Provider, unknown][] = [
      ['emailprovider2', [mandrill('delivered'), mandrill('soft_bounce'), mandrill('click', { url: 'https://x.example' }), mandrill('send')]],
      ['emailprovider3', { 'event-data': { id: `${key}-mg1`, event: 'failed', severity: 'temporary', recipient: 'formats@acme.example', timestamp: 1700000001.25, 'delivery-status': { message: 'try later' } } }],
      ['emailprovider3', { 'event-data': { id: `${key}-mg2`, event: 'opened', recipient: 'formats@acme.example', timestamp: 1700000002 } }],
      ['emailprovider4', { RecordType: 'Bounce', ID: Number(String(Date.now()).slice(-9)) + unique, Type: 'SoftBounce', Email: 'formats@acme.example', BouncedAt: '2024-01-02T03:04:05Z', Description: 'mailbox full', MessageID: `${key}-pm` }],
      ['emailprovider4', { RecordType: 'SubscriptionChange', MessageID: `${key}-pm`, Recipient: 'formats@acme.example', ChangedAt: '2024-01-02T03:05:00Z', SuppressSending: true }],
      ['emailprovider4', { RecordType: 'Open', MessageID: `${key}-pm`, Recipient: 'formats@acme.example', ReceivedAt: '2024-01-02T03:06:00Z' }],
    ];
    for (const [provider, body] of sends) expect((await send(provider, body)).status).toBe(200);
    await drained();
    const rows = await query(
      `SELECT provider, kind, bounce_type, contact_id, url, reason FROM email_event WHERE tenant_id = $1 AND email = 'formats@acme.example' ORDER BY id`, [acme.id]);
    expect(rows.map((row) => `${row.provider} ${row.kind}${row.bounce_type ? ` ${row.bounce_type}` : ''}`).sort()).toEqual([
      'emailprovider2 bounce soft', 'emailprovider2 click', 'emailprovider2 delivered',
      'emailprovider3 deferred', 'emailprovider3 open',
      'emailprovider4 bounce soft', 'emailprovider4 open', 'emailprovider4 unsubscribe',
    ]);
    expect(rows.every((row) => row.contact_id === contact)).toBe(true);
    expect(rows.find((row) => row.kind === 'deferred')).toMatchObject({ reason: 'try later' });
    expect(rows.find((row) => row.provider === 'emailprovider2' && row.kind === 'click')).toMatchObject({ url: 'https://x.example' });
    expect(await contactRow(contact)).toMatchObject({ email_suppressed_at: null });
    // A permanent failure (emailprovider3) and a HardBounce (emailprovider4) suppress.
    const hard3 = await createContact(acme, 'hard3@acme.example');
    const hard4 = await createContact(acme, 'hard4@acme.example');
    expect((await send('emailprovider3', { 'event-data': { id: `${key}-mg3`, event: 'failed', severity: 'permanent', recipient: 'hard3@acme.example', timestamp: 1700000003 } })).status).toBe(200);
    expect((await send('emailprovider4', { RecordType: 'Bounce', ID: 77_000_000 + unique, Type: 'HardBounce', Email: 'hard4@acme.example', BouncedAt: '2024-01-02T03:04:05Z' })).status).toBe(200);
    expect((await send('emailprovider4', { RecordType: 'SpamComplaint', ID: 78_000_000 + unique, Email: 'formats@acme.example', BouncedAt: '2024-01-03T00:00:00Z' })).status).toBe(200);
    await drained();
    expect(await contactRow(hard3)).toMatchObject({ email_suppression_reason: 'hard_bounce' });
    expect(await contactRow(hard4)).toMatchObject({ email_suppression_reason: 'hard_bounce' });
    expect(await contactRow(contact)).toMatchObject({ email_suppression_reason: 'spam_report' });
  });

  it('records meeting events against the tenant', async () => {
    const participant = await createContact(acme, 'pat@acme.example');
    const uuid = id('meeting');
    const meeting = (event: string, object: Record<string, unknown>, ts: number) => ({ event, event_ts: ts, payload: { account_id: 'acc', object: { id: 987654321, uuid, topic: 'Annual meeting', ...object } } });
    const person = { user_id: '16778240', user_name: 'Pat Participant', email: 'PAT@acme.example', participant_uuid: 'p-1' };
    const bodies = [
      meeting('meeting.started', { start_time: '2024-05-01T17:00:00Z' }, 1714582800000),
      meeting('meeting.participant_joined', { participant: { ...person, join_time: '2024-05-01T17:01:00Z' } }, 1714582860000),
      meeting('meeting.participant_left', { participant: { ...person, leave_time: '2024-05-01T17:30:00Z' } }, 1714584600000),
      meeting('meeting.ended', { end_time: '2024-05-01T18:00:00Z' }, 1714586400000),
      meeting('meeting.sharing_started', {}, 1714586400001),
    ];
    for (const body of bodies) expect((await send('meetingprovider', body)).status).toBe(200);
    await drained();
    const rows = await query('SELECT kind, meeting_id, meeting_uuid, topic, participant_name, participant_email, contact_id, occurred_at FROM meeting_event WHERE meeting_uuid = $1 ORDER BY occurred_at', [uuid]);
    expect(rows.map((row) => [row.kind, row.contact_id, row.occurred_at.toISOString()])).toEqual([
      ['started', null, '2024-05-01T17:00:00.000Z'],
      ['participant_joined', participant, '2024-05-01T17:01:00.000Z'],
      ['participant_left', participant, '2024-05-01T17:30:00.000Z'],
      ['ended', null, '2024-05-01T18:00:00.000Z'],
    ]);
    expect(rows[1]).toMatchObject({ meeting_id: '987654321', topic: 'Annual meeting', participant_name: 'Pat Participant' });
    expect((await query('SELECT DISTINCT tenant_id FROM meeting_event WHERE meeting_uuid = $1', [uuid])).map((row) => row.tenant_id)).toEqual([acme.id]);
  });

  it('processes an event delivered twice (or in two batches) once', async () => {
    const contact = await createContact(acme, 'twice@acme.example');
    const eventId = id('dup');
    const bounce = { sg_event_id: eventId, event: 'bounce', type: 'bounce', email: 'twice@acme.example', timestamp: 1700000500 };
    const before = await storedCount();
    expect((await send('emailprovider1', [bounce])).status).toBe(200);
    expect((await send('emailprovider1', [bounce])).status).toBe(200);
    expect((await send('emailprovider1', [{ sg_event_id: id('other'), event: 'open', email: 'twice@acme.example' }, bounce])).status).toBe(200);
    expect(await storedCount()).toBe(before + 3); // every delivery is stored ...
    await drained();
    const events = await query('SELECT contact_id FROM email_event WHERE tenant_id = $1 AND provider_event_id = $2', [acme.id, eventId]);
    expect(events).toEqual([{ contact_id: contact }]); // ... and its event recorded once
    const suppressed = await contactRow(contact);
    expect(suppressed).toMatchObject({ email_suppressed_at: new Date(1700000500 * 1000), email_suppression_reason: 'hard_bounce' });
    // The same event id in another tenant is that tenant's own event.
    expect((await send('emailprovider1', [bounce], { tenant: 'other' })).status).toBe(200);
    await drained();
    expect((await query('SELECT tenant_id FROM email_event WHERE provider_event_id = $1 ORDER BY tenant_id', [eventId])).map((row) => row.tenant_id)).toEqual([acme.id, other.id]);
  });

  it('changes nothing when a job runs again, even for a callback not marked processed', async () => {
    const contact = await createContact(acme, 'again@acme.example');
    const batch = id('again');
    expect((await send('emailprovider1', [
      { sg_event_id: `${batch}-1`, event: 'bounce', type: 'bounce', email: 'again@acme.example', timestamp: 1700000600 },
      { sg_event_id: `${batch}-2`, event: 'open', email: 'again@acme.example', timestamp: 1700000660 },
    ])).status).toBe(200);
    await drained();
    const [callback] = await query('SELECT id, receipt FROM provider_callback WHERE body LIKE $1', [`%${batch}-1"%`]);
    const snapshot = async () => ({
      events: await query('SELECT * FROM email_event WHERE callback_id = $1 ORDER BY id', [callback.id]),
      contact: await contactRow(contact),
      callback: await query('SELECT state, attempts, processed_at, event_count, error FROM provider_callback WHERE id = $1', [callback.id]),
      eventTotal: (await query('SELECT count(*) AS n FROM email_event'))[0].n,
    });
    const first = await snapshot();
    expect(first.events).toHaveLength(2);
    await processCallback(server.orm, callback.receipt);
    expect(await snapshot()).toEqual(first);
    // As if the first run's completion had been lost: the events and the suppression are still applied once.
    await db.query("UPDATE provider_callback SET state = 'queued' WHERE id = $1", [callback.id]);
    await processCallback(server.orm, callback.receipt);
    const second = await snapshot();
    expect(second.events).toEqual(first.events);
    expect(second.contact).toEqual(first.contact);
    expect(second.eventTotal).toBe(first.eventTotal);
  });

  it('retries a failing callback with backoff, then dead-letters it with the error kept; requeue processes it', async () => {
    // A failure outside the callback's content: the e-mail event table refuses this address for now.
    await db.query(`CREATE FUNCTION refuse_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.email = 'flaky@acme.example' THEN RAISE EXCEPTION 'event store unavailable'; END IF; RETURN NEW; END $$`);
    await db.query('CREATE TRIGGER refuse_event BEFORE INSERT ON email_event FOR EACH ROW EXECUTE FUNCTION refuse_event()');
    const eventId = id('flaky');
    let callback: any;
    try {
      expect((await send('emailprovider1', [{ sg_event_id: eventId, event: 'delivered', email: 'flaky@acme.example' }])).status).toBe(200);
      [callback] = await query('SELECT id, receipt FROM provider_callback WHERE body LIKE $1', [`%${eventId}%`]);
      const retrying = await eventually(async () => (await query('SELECT state, attempts, error FROM provider_callback WHERE id = $1', [callback.id]))[0], (row) => row.attempts >= 1);
      expect(retrying).toMatchObject({ state: 'retrying', error: expect.stringContaining('event store unavailable') });
      const dead = await eventually(async () => (await query('SELECT state, attempts, error FROM provider_callback WHERE id = $1', [callback.id]))[0], (row) => row.state === 'dead');
      expect(dead).toMatchObject({ state: 'dead', attempts: 3, error: expect.stringContaining('event store unavailable') });
      // pg-boss fails its job (and queues the dead letter) after the handler has thrown: a moment after the row is dead.
      const jobs = await eventually(
        () => query("SELECT name, state, retry_count FROM pgboss.job WHERE data->>'receipt' = $1 ORDER BY created_on", [callback.receipt]),
        (rows: { name: string; state: string }[]) => rows.some((row) => row.name === 'provider-callback-dead') && rows.every((row) => row.state !== 'active'),
      );
      expect(jobs).toEqual(expect.arrayContaining([
        { name: 'provider-callback', state: 'failed', retry_count: 2 },
        expect.objectContaining({ name: 'provider-callback-dead' }),
      ]));
      expect((await query('SELECT count(*) AS n FROM email_event WHERE provider_event_id = $1', [eventId]))[0].n).toBe('0');

      const listed = await graphql(server, 'query { providerCallbacks(state: "dead") { CallbackId State Attempts Error Provider } }', {}, acme.staffToken);
      expect(listed.body.data.providerCallbacks).toContainEqual({ CallbackId: callback.id, State: 'dead', Attempts: 3, Error: expect.stringContaining('event store unavailable'), Provider: 'emailprovider1' });
    } finally {
      await db.query('DROP TRIGGER refuse_event ON email_event');
      await db.query('DROP FUNCTION refuse_event()');
    }
    const requeued = await runNode('cli.js', ['callbacks', 'requeue', '--tenant', 'acme'], { DATABASE_URL: server.databaseUrl, LOG_LEVEL: 'silent' });
    expect(requeued.stdout.trim()).toMatch(/^[1-9]\d* dead callbacks? queued again$/);
    expect(requeued.code).toBe(0);
    const processed = await eventually(async () => (await query('SELECT state, attempts, error FROM provider_callback WHERE id = $1', [callback.id]))[0], (row) => row.state === 'processed');
    expect(processed).toMatchObject({ state: 'processed', attempts: 1, error: null });
    expect((await query('SELECT count(*) AS n FROM email_event WHERE provider_event_id = $1', [eventId]))[0].n).toBe('1');
    // Nothing left to requeue.
    expect((await runNode('cli.js', ['callbacks', 'requeue'], { DATABASE_URL: server.databaseUrl, LOG_LEVEL: 'silent' })).stdout.trim()).toBe('0 dead callbacks queued again');
  });

  it('parks the events that cannot be recorded, with the reason, and records the others of the same callback', async () => {
    const good = id('good');
    const poison = [
      { event: 'delivered', email: 'no-id@acme.example' },
      { sg_event_id: id('nul'), event: 'delivered', email: 'a\u0000b@acme.example' },
      { sg_event_id: `${id('surrogate')}\ud800`, event: 'delivered', email: 'lone@acme.example' },
      { sg_event_id: id('far'), event: 'delivered', email: 'far@acme.example', timestamp: 9e15 },
    ];
    expect((await send('emailprovider1', [{ sg_event_id: good, event: 'delivered', email: 'fine@acme.example' }, ...poison])).status).toBe(200);
    const [callback] = await query('SELECT id FROM provider_callback WHERE body LIKE $1', [`%${good}%`]);
    const processed = await eventually(async () => (await query('SELECT state, error, parked_events FROM provider_callback WHERE id = $1', [callback.id]))[0], (row) => row.state === 'processed');
    expect(processed.error).toBeNull();
    expect(processed.parked_events).toEqual([
      { event: 'event 1', reason: 'event 1.sg_event_id: is missing' },
      { event: 'event 2', reason: 'event 2.email: holds characters that cannot be stored (NUL or a lone surrogate)' },
      { event: 'event 3', reason: 'event 3.sg_event_id: holds characters that cannot be stored (NUL or a lone surrogate)' },
      { event: 'event 4', reason: 'event 4.timestamp: is not a Unix time' },
    ]);
    expect((await query('SELECT count(*) AS n FROM email_event WHERE provider_event_id = $1', [good]))[0].n).toBe('1');
    const listed = await graphql(server, 'query { providerCallbacks(options: { Take: 50 }) { CallbackId ParkedEvents { Event Reason } } }', {}, acme.staffToken);
    const row = listed.body.data.providerCallbacks.find((item: { CallbackId: number }) => item.CallbackId === callback.id);
    expect(row.ParkedEvents).toHaveLength(4);
    expect(row.ParkedEvents[0]).toEqual({ Event: 'event 1', Reason: 'event 1.sg_event_id: is missing' });
  });

  it('refuses a body nested deeper than any provider nests, before storing it', async () => {
    const before = (await query('SELECT count(*) AS n FROM provider_callback'))[0].n;
    const deep = `[${'['.repeat(40)}${']'.repeat(40)}]`;
    const response = await send('emailprovider1', deep);
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text)).toMatchObject({ errors: [{ field: 'body', message: 'nests deeper than 32 levels' }] });
    const huge = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    expect((await send('emailprovider1', huge)).status).toBe(400);
    expect((await query('SELECT count(*) AS n FROM provider_callback'))[0].n).toBe(before);
  });
});

// ---- observability ----

describe('stored callbacks for staff (GraphQL)', () => {
  const list = 'query($options: ListOptions, $state: String) { providerCallbacks(options: $options, state: $state) { CallbackId Receipt Provider ReceivedAt State Attempts Error ProcessedAt EventCount } }';

  it('lists the tenant\'s callbacks, newest first, with state and error, paged with options', async () => {
    await drained();
    const response = await graphql(server, list, { options: { Take: 3 } }, acme.staffToken);
    expect(response.status).toBe(200);
    const rows = response.body.data.providerCallbacks;
    expect(rows).toHaveLength(3);
    // The newest is the callback with parked events of the processing tests: processed, its good event recorded.
    expect(rows[0]).toEqual({
      CallbackId: expect.any(Number), Receipt: expect.stringMatching(/^[0-9a-f-]{36}$/), Provider: 'emailprovider1',
      ReceivedAt: expect.stringMatching(/Z$/), State: 'processed', Attempts: 1, Error: null, ProcessedAt: expect.stringMatching(/Z$/), EventCount: 1,
    });
    expect(rows[1]).toMatchObject({ State: 'processed', Error: null, ProcessedAt: expect.stringMatching(/Z$/), EventCount: expect.any(Number) });
    expect(Date.parse(rows[0].ReceivedAt)).toBeGreaterThanOrEqual(Date.parse(rows[1].ReceivedAt));
    const next = await graphql(server, list, { options: { Take: 3, Skip: 3 } }, acme.staffToken);
    expect(next.body.data.providerCallbacks.map((row: { CallbackId: number }) => row.CallbackId)).not.toContain(rows[0].CallbackId);
    const processed = await graphql(server, list, { state: 'processed', options: { Filter: 'emailprovider3', OrderBy: 'CallbackId' } }, acme.staffToken);
    expect(processed.body.data.providerCallbacks.length).toBeGreaterThan(0);
    expect(processed.body.data.providerCallbacks.every((row: { State: string; Provider: string }) => row.State === 'processed' && row.Provider === 'emailprovider3')).toBe(true);
  });

  it("shows another tenant's callbacks to nobody", async () => {
    const acmeIds = new Set((await query('SELECT id FROM provider_callback WHERE tenant_id = $1', [acme.id])).map((row) => row.id));
    const response = await graphql(server, list, { options: { Take: 1000 } }, other.staffToken);
    const ids = response.body.data.providerCallbacks.map((row: { CallbackId: number }) => row.CallbackId);
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.filter((callbackId: number) => acmeIds.has(callbackId))).toEqual([]);
  });

  // 401 without a credential and 403 for a member: test/sweeps.test.ts.

  it('shows the demo callbacks of a new tenant, which no job picks up', async () => {
    const tenant = await createTestTenant(server, 'demo-callbacks');
    const em = server.orm.em.fork();
    await seedCallbacks(em, await findTenant(em, tenant.key), 'Mark-');
    const response = await graphql(server, 'query { providerCallbacks { Provider State Attempts Error EventCount ParkedEvents { Event Reason } } }', {}, tenant.staffToken);
    expect(response.body.data.providerCallbacks).toEqual([
      { Provider: 'emailprovider3', State: 'dead', Attempts: 6, Error: 'Mark-Event store unavailable: connection terminated unexpectedly', EventCount: null, ParkedEvents: [] },
      { Provider: 'meetingprovider', State: 'processed', Attempts: 1, Error: null, EventCount: 1, ParkedEvents: [] },
      { Provider: 'emailprovider1', State: 'processed', Attempts: 1, Error: null, EventCount: 2, ParkedEvents: [{ Event: 'event 2', Reason: 'event 2.email: is not an e-mail address' }] },
    ]);
    const events = await query('SELECT (SELECT count(*) FROM email_event WHERE tenant_id = $1)::int AS email, (SELECT count(*) FROM meeting_event WHERE tenant_id = $1)::int AS meeting', [tenant.id]);
    expect(events).toEqual([{ email: 2, meeting: 1 }]);
  });

  it.each([
    [{ state: 'lost' }, 'state'],
    [{ options: { Take: 0 } }, 'options.Take'],
    [{ options: { OrderBy: 'Body' } }, 'options.OrderBy'],
    [{ options: { Take: 'many' } }, 'options.Take'],
  ])('refuses %j with a 400 naming %s', async (variables, field) => {
    const response = await graphql(server, list, variables, acme.staffToken);
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    expect(response.body.errors?.[0]?.extensions.errors?.[0]?.field).toBe(field);
  });

  it('runs the same number of SQL statements for 5 callbacks as for 50', async () => {
    const tenant = await createTestTenant(server, 'bulk');
    await db.query(
      `INSERT INTO provider_callback (tenant_id, receipt, provider, headers, body, state)
       SELECT $1, gen_random_uuid(), 'emailprovider1', '{}', '[]', 'processed' FROM generate_series(1, 50)`, [tenant.id]);
    await rest(server, 'GET', '/api/login/logincheck', { token: tenant.staffToken });
    await expectStatementsIndependentOfPageSize(server, async (take) => {
      const response = await graphql(server, list, { options: { Take: take } }, tenant.staffToken);
      expect(response.body.data.providerCallbacks).toHaveLength(take);
    }, 3);
  });
});

// ---- the command line ----

describe('callback secrets on the command line', () => {
  it('sets a new secret, printed once, that replaces the old one at once', async () => {
    const old = secrets.acme.emailprovider3;
    const result = await runNode('cli.js', ['callback-secret', 'set', '--tenant', 'acme', '--provider', 'emailprovider3'], { DATABASE_URL: server.databaseUrl, LOG_LEVEL: 'silent' });
    expect(result.code).toBe(0);
    const secret = result.stdout.trim();
    expect(secret).toMatch(/^cbs_[\w-]{43}$/);
    expect(result.stderr).not.toContain(secret);
    const body = { 'event-data': { id: id('mg'), event: 'delivered', recipient: 'x@acme.example', timestamp: 1700000000 } };
    expect((await send('emailprovider3', body, { secret })).status).toBe(200);
    expect((await send('emailprovider3', body, { secret: old })).status).toBe(401);
    secrets.acme.emailprovider3 = secret;
    const wrong = await runNode('cli.js', ['callback-secret', 'set', '--tenant', 'acme', '--provider', 'fax'], { DATABASE_URL: server.databaseUrl, LOG_LEVEL: 'silent' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('provider');
  });
});

// ---- poison callbacks ----

/** The callbacks stored after `afterId`, as processing left them, with their jobs' retries. */
async function settledAfter(afterId: number) {
  await drained();
  return query<{ id: number; provider: string; state: string; attempts: number; error: string | null; retries: number }>(
    `SELECT c.id, c.provider, c.state, c.attempts, c.error,
            (SELECT coalesce(max(j.retry_count), 0) FROM pgboss.job j WHERE j.data->>'receipt' = c.receipt::text) AS retries
     FROM provider_callback c WHERE c.id > $1 ORDER BY c.id`, [afterId]);
}

async function lastCallbackId(): Promise<number> {
  return (await query<{ id: number | null }>('SELECT max(id) AS id FROM provider_callback'))[0].id ?? 0;
}

/** A good callback of each provider, sent after the poison: each is processed with its one event. */
async function expectGoodCallbacksProcessed(): Promise<void> {
  const before = await lastCallbackId();
  for (const provider of PROVIDERS) expect((await send(provider, POISON_TEMPLATES[provider](id('after')))).status).toBe(200);
  const settled = await settledAfter(before);
  expect(settled.map((row) => [row.provider, row.state, row.attempts])).toEqual(PROVIDERS.map((provider) => [provider, 'processed', 1]));
  const counts = await query('SELECT event_count FROM provider_callback WHERE id > $1 ORDER BY id', [before]);
  expect(counts.map((row) => row.event_count)).toEqual(PROVIDERS.map(() => 1));
}

/** One recordable event of each provider, with every field the processor reads; mandrill's event is encoded by `send`'s caller. */
const POISON_TEMPLATES: Record<Provider, (key: string) => any> = {
  emailprovider1: (key) => [{ sg_event_id: key, event: 'bounce', type: 'bounce', email: 'poison@acme.example', timestamp: 1700000000, url: 'https://acme.example/x', reason: 'mailbox full', response: '550' }],
  emailprovider2: (key) => [JSON.stringify({ _id: key, event: 'hard_bounce', ts: 1700000000, url: 'https://acme.example/x', msg: { email: 'poison@acme.example', bounce_description: 'bad', diag: '550' } })],
  emailprovider3: (key) => ({ 'event-data': { id: key, event: 'failed', severity: 'permanent', recipient: 'poison@acme.example', timestamp: 1700000000.5, url: 'https://acme.example/x', reason: 'bounce', 'delivery-status': { description: 'bad', message: '550' } } }),
  emailprovider4: (key) => ({ RecordType: 'Bounce', ID: key, Type: 'HardBounce', Email: 'poison@acme.example', BouncedAt: '2024-01-02T03:04:05Z', MessageID: key, Recipient: 'poison@acme.example', Description: 'bad', Details: '550' }),
  meetingprovider: (key) => ({
    event: 'meeting.participant_joined', event_ts: 1700000000000,
    payload: { object: { id: 123456, uuid: key, topic: 'Board', participant: { participant_uuid: 'p-1', user_id: 'u-1', id: 'i-1', user_name: 'Pat', email: 'poison@acme.example', join_time: '2024-01-02T03:04:05Z' } } },
  }),
};

/** Stands for the JSON number 1e400 (JSON.parse reads it as Infinity), which JSON.stringify cannot write. */
const HUGE = '\u0001huge-number\u0001';

/** Values no provider should send: NUL and lone surrogates in text, times out of range, wrong types, huge numbers. */
const garbageValue = fc.oneof(
  fc.string({ maxLength: 20 }).map((text) => `${text}\u0000${text}`),
  fc.constantFrom('\u0000', 'a\ud800', '\udfff', '', ' ', 'not a time', '99999-12-31T00:00:00Z', '0000-01-01T00:00:00Z', '-001000-01-01T00:00:00Z',
    '2024-13-45T99:99:99Z', '1e400', '-1', '12345678901234567890', 'x'.repeat(5000), `${'9'.repeat(400)}`, HUGE),
  fc.constantFrom(1e308, -1e308, 9e15, -1, 0.5, -0.5, Number.MAX_SAFE_INTEGER, 1e21, 0),
  fc.constantFrom(true, false, null, [], {}, ['\u0000'], { nested: '\u0000' }),
  fc.jsonValue({ maxDepth: 2 }),
);

/** Every path into a value (objects and arrays), the root excepted. */
function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => {
    const here = [...prefix, Array.isArray(value) ? Number(key) : key];
    return [here, ...pathsOf(inner, here)];
  });
}

function withValueAt(value: any, path: (string | number)[], replacement: unknown): any {
  const copy = structuredClone(value);
  let target = copy;
  for (const step of path.slice(0, -1)) target = target[step];
  target[path[path.length - 1]] = replacement;
  return copy;
}

/** The event of a provider's template that fields are replaced in: mandrill's is the JSON-encoded one inside the array. */
function eventOf(provider: Provider, key: string): any {
  const template = POISON_TEMPLATES[provider](key);
  return provider === 'emailprovider2' ? JSON.parse(template[0]) : template;
}

type Replacement = [(string | number)[], unknown];

/** The provider's event with `replacements` made (a path a previous replacement removed is skipped), as the body text sent. */
function poisonedBody(provider: Provider, replacements: Replacement[]): string {
  let event = eventOf(provider, id('poison'));
  for (const [path, value] of replacements) {
    try {
      event = withValueAt(event, path, value);
    } catch {
      continue;
    }
  }
  const body = provider === 'emailprovider2' ? [JSON.stringify(event).replaceAll(JSON.stringify(HUGE), '1e400')] : event;
  return JSON.stringify(body).replaceAll(JSON.stringify(HUGE), '1e400');
}

describe('poison callbacks (content the database cannot take)', () => {
  it('records a meeting callback with a NUL in event_ts once: its event parked with the reason, never retried; the next one processed', async () => {
    const before = await lastCallbackId();
    const body = POISON_TEMPLATES.meetingprovider(id('nul-ts'));
    body.event_ts = '1700000000000\u0000';
    delete body.payload.object.participant.join_time; // the time then comes from event_ts
    expect((await send('meetingprovider', body)).status).toBe(200);
    const [settled] = await settledAfter(before);
    expect(settled).toMatchObject({ state: 'processed', attempts: 1, error: null, retries: 0 });
    const listed = await graphql(server, 'query { providerCallbacks(options: { Take: 5 }) { CallbackId State ParkedEvents { Event Reason } } }', {}, acme.staffToken);
    expect(listed.body.data.providerCallbacks).toContainEqual({
      CallbackId: settled.id, State: 'processed', ParkedEvents: [{ Event: 'body', Reason: 'body.event_ts: is not a Unix time in milliseconds' }],
    });
    await expectGoodCallbacksProcessed();
  });

  it('parks a callback the database refuses for its content at once, with the reason, instead of retrying it', async () => {
    // A value refused by PostgreSQL itself (a data exception, SQLSTATE class 22) that the formats did not foresee.
    await db.query(`CREATE FUNCTION refuse_value() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.email = 'refused@acme.example' THEN RAISE EXCEPTION 'value out of range for this column' USING ERRCODE = '22003'; END IF; RETURN NEW; END $$`);
    await db.query('CREATE TRIGGER refuse_value BEFORE INSERT ON email_event FOR EACH ROW EXECUTE FUNCTION refuse_value()');
    const before = await lastCallbackId();
    try {
      expect((await send('emailprovider1', [{ sg_event_id: id('refused'), event: 'delivered', email: 'refused@acme.example' }])).status).toBe(200);
      const [settled] = await settledAfter(before);
      expect(settled).toMatchObject({ state: 'parked', attempts: 1, retries: 0, error: expect.stringContaining('value out of range for this column') });
      const jobs = await query("SELECT j.state FROM pgboss.job j JOIN provider_callback c ON j.data->>'receipt' = c.receipt::text WHERE c.id = $1", [settled.id]);
      expect(jobs).toEqual([{ state: 'completed' }]);
      const listed = await graphql(server, 'query { providerCallbacks(state: "parked") { CallbackId State Attempts Error } }', {}, acme.staffToken);
      expect(listed.body.data.providerCallbacks).toContainEqual({ CallbackId: settled.id, State: 'parked', Attempts: 1, Error: expect.stringContaining('value out of range') });
    } finally {
      await db.query('DROP TRIGGER refuse_value ON email_event');
      await db.query('DROP FUNCTION refuse_value()');
    }
    await expectGoodCallbacksProcessed();
  });

  it.each(PROVIDERS)('%s: never answers 5xx to garbage field values, never retries them, and processes the next callback (fast-check)', async (provider) => {
    const before = await lastCallbackId();
    const statuses: number[] = [];
    const paths = pathsOf(eventOf(provider, 'template'));
    const replacements = fc.array(fc.tuple(fc.constantFrom(...paths), garbageValue), { minLength: 1, maxLength: 3 });
    await fc.assert(fc.asyncProperty(replacements, async (made) => {
      const response = await send(provider, poisonedBody(provider, made));
      statuses.push(response.status);
      // 400 only where the outer shape itself is garbage (checked on receipt); everything else is stored.
      expect([200, 400]).toContain(response.status);
    }), {
      seed: Number(process.env.FUZZ_SEED ?? 20261126),
      numRuns: Number(process.env.FUZZ_RUNS ?? 40),
      // First, a NUL in each field in turn: PostgreSQL's text refuses it wherever it lands.
      examples: paths.map((path) => [[[path, `1\u0000`]]] as [Replacement[]]),
    });
    const settled = await settledAfter(before);
    expect(settled.length).toBe(statuses.filter((status) => status === 200).length);
    expect(settled.length).toBeGreaterThan(statuses.length / 2);
    const retried = settled.filter((row) => !['processed', 'parked'].includes(row.state) || row.attempts !== 1 || row.retries !== 0);
    expect(retried).toEqual([]);
    await expectGoodCallbacksProcessed();
  }, 120_000);
});

// ---- crash safety ----

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.on('close', (code) => resolve(code)));
}

describe('crash safety (a child server killed with SIGKILL)', () => {
  let crashDb: TestServer;

  beforeAll(async () => {
    crashDb = await startTestServer(); // only for its fresh, migrated database
  });
  afterAll(() => crashDb.close());

  it('processes every acknowledged callback exactly once after a restart', async () => {
    const tenant = await createTestTenant(crashDb, 'crash');
    const em = crashDb.orm.em.fork();
    const secret = await setCallbackSecret(em, await findTenant(em, 'crash'), 'emailprovider1');
    const env = (port: number, worker: boolean) => ({
      DATABASE_URL: crashDb.databaseUrl, PORT: String(port), LOG_LEVEL: 'error', NODE_ENV: 'development', JOBS_WORKER: String(worker),
    });

    // First life: acknowledges a burst of callbacks, and is killed the moment 20 of them are acknowledged.
    const port = await freePort();
    const first = await startNode('main.js', env(port, false), /Bearer (\S+)/);
    const firstExit = exited(first.child);
    const acknowledged: number[] = [];
    let killed = false;
    const sendOne = async (index: number) => {
      try {
        const response = await send('emailprovider1', [{ sg_event_id: `crash-${index}`, event: 'delivered', email: `member${index}@crash.example`, timestamp: 1700000000 }], {
          tenant: 'crash', secret, base: `http://127.0.0.1:${port}`,
        });
        if (response.status === 200) acknowledged.push(index);
      } catch {
        // the server died under this request: not acknowledged
      }
      if (acknowledged.length >= 20 && !killed) {
        killed = true;
        first.child.kill('SIGKILL');
      }
    };
    await Promise.all(Array.from({ length: 40 }, (_, index) => sendOne(index)));
    if (!killed) first.child.kill('SIGKILL');
    await firstExit;
    expect(acknowledged.length).toBeGreaterThanOrEqual(20);
    const stored = await crashDb.orm.em.fork().execute<{ n: string }[]>("SELECT count(*) AS n FROM provider_callback WHERE tenant_id = ? AND state = 'received'", [tenant.id]);
    expect(Number(stored[0].n)).toBeGreaterThanOrEqual(acknowledged.length);

    // Second life, with the worker: everything acknowledged is processed, once.
    const secondPort = await freePort();
    const second = await startNode('main.js', env(secondPort, true), /Bearer (\S+)/);
    const secondExit = exited(second.child);
    try {
      const rows = async () => crashDb.orm.em.fork().execute<{ body: string; state: string; attempts: number }[]>(
        'SELECT body, state, attempts FROM provider_callback WHERE tenant_id = ?', [tenant.id]);
      const settled = await eventually(rows, (list) => list.every((row) => row.state === 'processed'), 30_000);
      expect(settled.filter((row) => row.state !== 'processed')).toEqual([]);
      for (const index of acknowledged) {
        const mine = settled.filter((row) => row.body.includes(`"crash-${index}"`));
        expect(mine).toEqual([{ body: expect.any(String), state: 'processed', attempts: 1 }]);
      }
      const events = await crashDb.orm.em.fork().execute<{ provider_event_id: string; n: string }[]>(
        'SELECT provider_event_id, count(*) AS n FROM email_event WHERE tenant_id = ? GROUP BY provider_event_id', [tenant.id]);
      const counts = new Map(events.map((row) => [row.provider_event_id, Number(row.n)]));
      for (const index of acknowledged) expect(counts.get(`crash-${index}`)).toBe(1);
      const jobs = await crashDb.orm.em.fork().execute<{ state: string; n: string }[]>(
        "SELECT state, count(*) AS n FROM pgboss.job WHERE name = 'provider-callback' GROUP BY state");
      expect(jobs).toEqual([{ state: 'completed', n: String(settled.length) }]);
    } finally {
      second.child.kill('SIGTERM');
      expect(await secondExit).toBe(0);
    }
  }, 90_000);
});
