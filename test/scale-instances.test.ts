import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import { ScheduledBilling } from '../src/entities/billing.js';
import { SaleableItem } from '../src/entities/commerce.js';
import { Contact } from '../src/entities/contact.js';
import { Membership, MembershipType } from '../src/entities/membership.js';
import { routes } from '../src/areas/index.js';
import { callbackSignature, setCallbackSecret } from '../src/services/callbacks/callbacks.js';
import { findTenant } from '../src/services/login/identity.js';
import { RUN_QUEUE } from '../src/services/billing/scheduled-billing.js';
import { createTestTenant, rest, startTestServer, type HttpResult, type TestServer, type TestTenant } from './support/harness.js';
import { freePort, startNode } from './support/processes.js';

// Stateless instances: two server processes (`node dist/bundle/main.js`, workers on) on one database,
// called alternately. Whatever one instance did, the other sees; jobs run once; the anonymous
// rate limit and Idempotency-Keys are shared, because all of it lives in PostgreSQL.

const RATE_LIMIT = 5;

interface Instance {
  name: string;
  baseUrl: string;
  child: ChildProcess;
}

let database: TestServer; // only for its fresh, migrated database (and seeding through its ORM)
const instances: Instance[] = [];
let acme: TestTenant;

/** `rest` of the harness against one instance. */
function call<T = any>(instance: Instance, method: string, path: string, options: Parameters<typeof rest>[3] = {}): Promise<HttpResult<T>> {
  return rest<T>({ baseUrl: instance.baseUrl } as TestServer, method, path, options);
}

async function sql<T>(query: string, params: unknown[] = []): Promise<T[]> {
  return database.orm.em.fork().getConnection().execute<T[]>(query, params);
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.on('close', (code) => resolve(code)));
}

beforeAll(async () => {
  database = await startTestServer();
  acme = await createTestTenant(database, 'scale-acme');
  // One after the other: the first applies nothing (the database is migrated), both start pg-boss and their workers.
  for (const name of ['A', 'B']) {
    const port = await freePort();
    const { child } = await startNode('main.js', {
      DATABASE_URL: database.databaseUrl, PORT: String(port), NODE_ENV: 'production', LOG_LEVEL: 'error', JOBS_WORKER: 'true',
      DATABASE_POOL_MAX: '5', PUBLIC_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
    }, /REST:/, 60_000);
    instances.push({ name, baseUrl: `http://127.0.0.1:${port}`, child });
  }
}, 150_000);

afterAll(async () => {
  for (const instance of instances) {
    const code = exited(instance.child);
    instance.child.kill('SIGTERM');
    await code;
  }
  await database?.close();
}, 60_000);

const [a, b] = [() => instances[0], () => instances[1]];

/**
 * The dashboards answer a .NET Task shape whose `Id` counts the process's answers (as Task.Id
 * does): the one figure two instances need not share.
 */
const taskIdless = (text: string) => text.replace(/^\{"ShouldNotifyDebuggerOfWaitCompletion":false,"Id":\d+,/, '{');

describe('two instances on one database', () => {
  it('answer every parameterless REST read the same, whichever instance serves it', async () => {
    const reads = routes.filter((row) => row.method === 'GET' && !row.path.includes('{') && row.field.startsWith('Query.') && !row.download);
    expect(reads.length).toBeGreaterThan(20);
    const differing: string[] = [];
    for (const row of reads) {
      const [fromA, fromB] = [await call(a(), 'GET', row.path, { token: acme.staffToken }), await call(b(), 'GET', row.path, { token: acme.staffToken })];
      expect(fromA.status).toBeLessThan(500);
      if (fromA.status !== fromB.status || taskIdless(fromA.text) !== taskIdless(fromB.text)) differing.push(`${row.path}: ${fromA.status} ${fromA.text.slice(0, 80)} / ${fromB.status} ${fromB.text.slice(0, 80)}`);
    }
    expect(differing).toEqual([]);
  }, 120_000);

  it('show a write on one instance on the other at once, and check versions across them', async () => {
    const created = await call(a(), 'POST', '/api/vendors', { token: acme.staffToken, body: { Name: 'Shared Vendor', WebsiteUrl: 'https://shared.example' } });
    expect(created.status).toBe(200);
    const id = created.body.VendorId as number;
    const onB = await call(b(), 'GET', `/api/vendors/${id}`, { token: acme.staffToken });
    expect(onB.status).toBe(200);
    expect(onB.body).toMatchObject({ VendorId: id, Name: 'Shared Vendor', AuditId: 1 });

    const saved = await call(b(), 'POST', '/api/vendors', { token: acme.staffToken, body: { ...onB.body, Name: 'Renamed on B' } });
    expect(saved.status).toBe(200);
    expect((await call(a(), 'GET', `/api/vendors/${id}`, { token: acme.staffToken })).body).toMatchObject({ Name: 'Renamed on B', AuditId: 2 });
    // A's copy of the old version is stale on either instance.
    const stale = await call(a(), 'POST', '/api/vendors', { token: acme.staffToken, body: { ...onB.body, Name: 'Stale on A' } });
    expect(stale.status).toBe(409);
    const listA = await call(a(), 'GET', '/api/vendors', { token: acme.staffToken });
    const listB = await call(b(), 'GET', '/api/vendors', { token: acme.staffToken });
    expect(listA.text).toBe(listB.text);
    expect(listA.body).toEqual(expect.arrayContaining([expect.objectContaining({ VendorId: id, Name: 'Renamed on B' })]));

    // A session signed in on one instance is known to the other; deleted on B, the record is gone on A.
    expect((await call(b(), 'DELETE', `/api/vendors/${id}`, { token: acme.staffToken })).status).toBe(200);
    expect((await call(a(), 'GET', `/api/vendors/${id}`, { token: acme.staffToken })).status).toBe(404);
  });

  it('replays an Idempotency-Key on the other instance, executing the write once', async () => {
    const body = { Name: 'Once Only Vendor' };
    const headers = { 'idempotency-key': 'scale-once-1' };
    const first = await call(a(), 'POST', '/api/vendors', { token: acme.staffToken, body, headers });
    expect(first.status).toBe(200);
    const repeat = await call(b(), 'POST', '/api/vendors', { token: acme.staffToken, body, headers });
    expect(repeat.status).toBe(200);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(repeat.text).toBe(first.text);
    const other = await call(b(), 'POST', '/api/vendors', { token: acme.staffToken, body: { Name: 'Something else' }, headers });
    expect(other.status).toBe(422);
    expect(await sql('SELECT id FROM vendor WHERE tenant_id = ? AND name = ?', [acme.id, 'Once Only Vendor'])).toHaveLength(1);
  });

  it('count anonymous callers of public operations across both instances', async () => {
    // The limit counts per one-minute window (aligned to the minute): start early in one.
    const intoMinute = (Date.now() / 1000) % 60;
    if (intoMinute > 40) await new Promise((resolve) => setTimeout(resolve, (61 - intoMinute) * 1000));
    const statuses: number[] = [];
    for (let attempt = 0; attempt < RATE_LIMIT + 3; attempt++) {
      statuses.push((await call(instances[attempt % 2], 'GET', '/api/login/securityquestions/lookup')).status);
    }
    // Four requests reached each instance: with counters per process nothing would be refused.
    expect(statuses.filter((status) => status === 200)).toHaveLength(RATE_LIMIT);
    expect(statuses.slice(RATE_LIMIT)).toEqual([429, 429, 429]);
    // A signed-in caller is never limited, on either instance.
    expect((await call(b(), 'GET', '/api/login/securityquestions/lookup', { token: acme.memberToken })).status).toBe(200);
  }, 40_000);

  it('process each provider callback exactly once with both workers on', async () => {
    const em = database.orm.em.fork();
    const secret = await setCallbackSecret(em, await findTenant(em, acme.key), 'emailprovider1');
    const count = 40;
    const responses = await Promise.all(Array.from({ length: count }, async (_, index) => {
      const text = JSON.stringify([{ sg_event_id: `scale-${index}`, event: 'delivered', email: `member${index}@acme.example`, timestamp: 1700000000 }]);
      const timestamp = Math.floor(Date.now() / 1000);
      const response = await fetch(`${instances[index % 2].baseUrl}/api/callback/emailprovider1?tenant=${acme.key}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-callback-timestamp': String(timestamp), 'x-callback-signature': callbackSignature(secret, timestamp, text) },
        body: text,
      });
      await response.text();
      return response.status;
    }));
    expect(responses).toEqual(Array.from({ length: count }, () => 200));
    await eventually(async () => (await sql<{ n: string }>("SELECT count(*) AS n FROM provider_callback WHERE tenant_id = ? AND state = 'processed'", [acme.id]))[0].n === String(count));
    const callbacks = await sql<{ state: string; attempts: number }>('SELECT state, attempts FROM provider_callback WHERE tenant_id = ?', [acme.id]);
    expect(callbacks).toHaveLength(count);
    expect(callbacks.every((row) => row.state === 'processed' && row.attempts === 1)).toBe(true);
    const events = await sql<{ provider_event_id: string; n: string }>('SELECT provider_event_id, count(*) AS n FROM email_event WHERE tenant_id = ? GROUP BY provider_event_id', [acme.id]);
    expect(events).toHaveLength(count);
    expect(events.every((row) => row.n === '1')).toBe(true);
    // One job per callback, each completed once (a callback queued twice would show two).
    const jobs = await sql<{ state: string; n: string }>("SELECT state, count(*) AS n FROM pgboss.job WHERE name = 'provider-callback' GROUP BY state");
    expect(jobs).toEqual([{ state: 'completed', n: String(count) }]);
  }, 90_000);

  it('execute a billing run once, whichever instance starts or works it', async () => {
    const em = database.orm.em.fork();
    const type = em.create(MembershipType, { tenant: acme.id, name: 'Scale Individual' });
    const item = em.create(SaleableItem, { tenant: acme.id, name: 'Scale Dues', itemType: 'membership', price: '100.00' });
    const count = 24;
    for (let index = 0; index < count; index++) {
      const contact = em.create(Contact, { tenant: acme.id, kind: 'person', firstName: `Payer${index}`, lastName: 'Scale' });
      const membership = em.create(Membership, { tenant: acme.id, contact, membershipType: type, startDate: '2025-01-01', endDate: '2025-12-31', status: 'active' });
      em.create(ScheduledBilling, {
        tenant: acme.id, contact, membership, saleableItem: item, description: `Scale dues ${index}`, amount: '12.50',
        frequencyMonths: 12, startDate: '2025-01-01', nextBillDate: '2026-01-01', status: 'active', tags: [],
      });
    }
    await em.flush();
    const SB = '/api/scheduledbilling/membershiptype';
    const run = { CurrentAdvancedFilter: { NextBillDate: '2026-01-01' } };
    expect((await call(a(), 'POST', `${SB}/items/run`, { token: acme.staffToken, body: run })).status).toBe(200);
    let history: { State: string; BilledCount: number; ItemCount: number; ProcessedCount: number; BilledAmount: number }[] = [];
    await eventually(async () => {
      // Progress is read from either instance.
      const response = await call(instances[Math.floor(Date.now() / 1000) % 2], 'GET', `${SB}/run/history`, { token: acme.staffToken });
      history = response.body.HistoryItems;
      return history.length > 0 && history.every((entry) => entry.State === 'completed' || entry.State === 'failed');
    });
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ State: 'completed', ItemCount: count, ProcessedCount: count, BilledCount: count, BilledAmount: 300 });
    const invoices = await sql<{ source_key: string }>("SELECT source_key FROM invoice WHERE tenant_id = ? AND source = 'scheduled-billing'", [acme.id]);
    expect(invoices).toHaveLength(count);
    expect(new Set(invoices.map((invoice) => invoice.source_key)).size).toBe(count);
    await eventually(async () => (await sql("SELECT id FROM pgboss.job WHERE name = ? AND state NOT IN ('completed', 'failed')", [RUN_QUEUE])).length === 0);
    const jobs = await sql<{ state: string; n: string }>('SELECT state, count(*) AS n FROM pgboss.job WHERE name = ? GROUP BY state', [RUN_QUEUE]);
    expect(jobs).toEqual([{ state: 'completed', n: '1' }]);
  }, 120_000);
});
