import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import { buildApp, type App } from '../src/app.js';
import { routes } from '../src/areas/index.js';
import { loadConfig } from '../src/core/config.js';
import { startJobs } from '../src/core/runtime/jobs.js';
import { createLogger } from '../src/core/runtime/logger.js';
import { openOrm } from '../src/db/orm.js';
import { callbackJobs } from '../src/services/callbacks/callback-processing.js';
import { callbackSignature, setCallbackSecret } from '../src/services/callbacks/callbacks.js';
import { findTenant } from '../src/services/login/identity.js';
import { Contact } from '../src/entities/contact.js';
import { SaleableItem } from '../src/entities/commerce.js';
import { createTestTenant, graphql, rest, startTestServer, type TestServer, type TestTenant } from './support/harness.js';
import { findPgbouncer, startPgbouncer, type Bouncer } from './support/pgbouncer.js';

// DATABASE_PGBOUNCER=true against a real PgBouncer 1.18 in transaction mode, with fewer server
// connections (3) than the service's pools hold, so consecutive statements of one client meet
// different server connections: nothing may rely on session state (named prepared statements,
// SET, session advisory locks, LISTEN). The same REST calls answer as on a direct connection.

const pgbouncer = findPgbouncer();
if ('skip' in pgbouncer) process.stderr.write(`scale-pgbouncer: skipped — ${pgbouncer.skip}\n`);
// Skipped (one line above) on a developer's machine without it; in CI a missing PgBouncer fails.
const describeWithPgbouncer = 'binary' in pgbouncer || process.env.CI ? describe : describe.skip;

let direct: TestServer; // the database, migrated directly, and the reference answers
let bouncer: Bouncer;
let orm: MikroORM;
let boss: PgBoss;
let app: App;
let viaBouncer: TestServer;
let acme: TestTenant;

/**
 * The dashboards answer a .NET Task shape whose `Id` counts the process's answers (as Task.Id
 * does): the one figure two servers may not share.
 */
const taskIdless = (text: string) => text.replace(/^\{"ShouldNotifyDebuggerOfWaitCompletion":false,"Id":\d+,/, '{');

describeWithPgbouncer('PgBouncer mode (transaction pooling)', () => {
  beforeAll(async () => {
    if ('skip' in pgbouncer) throw new Error(`PgBouncer is needed: ${pgbouncer.skip}`);
    direct = await startTestServer();
    acme = await createTestTenant(direct, 'bouncer-acme');
    bouncer = await startPgbouncer(pgbouncer.binary, direct.databaseUrl, { serverPoolSize: 3 });
    const url = bouncer.url(direct.databaseUrl);
    const config = loadConfig({
      NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: url, DATABASE_PGBOUNCER: 'true', DATABASE_POOL_MAX: '10', PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000',
    });
    orm = await openOrm({ url, poolMax: config.DATABASE_POOL_MAX });
    boss = await startJobs({ url, orm, log: createLogger(config), jobs: callbackJobs({ pollingIntervalSeconds: 0.5 }), worker: true });
    app = await buildApp({ config, orm, jobs: boss, log: createLogger(config) });
    await app.listen('127.0.0.1', 0);
    viaBouncer = { baseUrl: `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}` } as TestServer;
  }, 90_000);

  afterAll(async () => {
    await app?.close();
    await boss?.stop({ graceful: false, timeout: 2000 });
    await orm?.close();
    await bouncer?.stop();
    await direct?.close();
  }, 60_000);

  it('answers every parameterless REST read as a direct connection does', async () => {
    const reads = routes.filter((row) => row.method === 'GET' && !row.path.includes('{') && row.field.startsWith('Query.') && !row.download);
    const differing: string[] = [];
    for (const row of reads) {
      const [through, straight] = [await rest(viaBouncer, 'GET', row.path, { token: acme.staffToken }), await rest(direct, 'GET', row.path, { token: acme.staffToken })];
      expect(through.status).toBeLessThan(500);
      if (through.status !== straight.status || taskIdless(through.text) !== taskIdless(straight.text)) differing.push(`${row.path}: ${through.status} / ${straight.status}`);
    }
    expect(differing).toEqual([]);
  }, 120_000);

  it('writes, versions, deletes and replays Idempotency-Keys through it, also many at once', async () => {
    const created = await rest(viaBouncer, 'POST', '/api/vendors', { token: acme.staffToken, body: { Name: 'Pooled Vendor' } });
    expect(created.status).toBe(200);
    const id = created.body.VendorId as number;
    const current = (await rest(viaBouncer, 'GET', `/api/vendors/${id}`, { token: acme.staffToken })).body;
    expect((await rest(viaBouncer, 'POST', '/api/vendors', { token: acme.staffToken, body: { ...current, Name: 'Pooled Vendor 2' } })).status).toBe(200);
    expect((await rest(viaBouncer, 'POST', '/api/vendors', { token: acme.staffToken, body: { ...current, Name: 'Stale' } })).status).toBe(409);
    const headers = { 'idempotency-key': 'bouncer-1' };
    const first = await rest(viaBouncer, 'POST', '/api/vendors', { token: acme.staffToken, body: { Name: 'Keyed' }, headers });
    const repeat = await rest(viaBouncer, 'POST', '/api/vendors', { token: acme.staffToken, body: { Name: 'Keyed' }, headers });
    expect([first.status, repeat.status, repeat.headers.get('idempotent-replayed')]).toEqual([200, 200, 'true']);
    // Twenty invoices raised at once: their numbers come from a transaction-level advisory lock
    // per tenant (session locks would leak across PgBouncer's clients): 1..20, no gap, no repeat.
    const em = direct.orm.em.fork();
    const contact = em.create(Contact, { tenant: acme.id, kind: 'person', firstName: 'Pat', lastName: 'Payer' });
    const item = em.create(SaleableItem, { tenant: acme.id, name: 'Pooled dues', itemType: 'membership', price: '10.00' });
    await em.flush();
    const raised = await Promise.all(Array.from({ length: 20 }, () => graphql(viaBouncer,
      `mutation { raiseInvoice(input: { ContactId: ${contact.id}, Lines: [{ SaleableItemId: ${item.id}, Quantity: 1 }] }) { InvoiceNumber } }`, {}, acme.staffToken)));
    expect(raised.map((response) => response.body.errors)).toEqual(raised.map(() => undefined));
    expect(raised.map((response) => response.body.data.raiseInvoice.InvoiceNumber as number).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, index) => index + 1));
    const deletes = await Promise.all(Array.from({ length: 10 }, () => rest(viaBouncer, 'DELETE', `/api/vendors/${id}`, { token: acme.staffToken })));
    expect(deletes.filter((response) => response.status === 200)).toHaveLength(1);
    // Never more than 3 server connections for all of it.
    const pools = await bouncer.admin<{ database: string; sv_active: string; sv_idle: string; sv_used: string }>('SHOW POOLS');
    const mine = pools.filter((pool) => pool.database === new URL(direct.databaseUrl).pathname.slice(1));
    expect(mine.length).toBe(1);
    expect(Number(mine[0].sv_active) + Number(mine[0].sv_idle) + Number(mine[0].sv_used)).toBeLessThanOrEqual(3);
  }, 60_000);

  it('stores and processes callbacks through it (unnamed statements; pg-boss and the dispatcher pump too)', async () => {
    const em = direct.orm.em.fork();
    const secret = await setCallbackSecret(em, await findTenant(em, acme.key), 'emailprovider1');
    const count = 30;
    const statuses = await Promise.all(Array.from({ length: count }, async (_, index) => {
      const text = JSON.stringify([{ sg_event_id: `bouncer-${index}`, event: 'delivered', email: `m${index}@acme.example`, timestamp: 1700000000 }]);
      const timestamp = Math.floor(Date.now() / 1000);
      const response = await fetch(`${viaBouncer.baseUrl}/api/callback/emailprovider1?tenant=${acme.key}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-callback-timestamp': String(timestamp), 'x-callback-signature': callbackSignature(secret, timestamp, text) },
        body: text,
      });
      await response.text();
      return response.status;
    }));
    expect(statuses).toEqual(Array.from({ length: count }, () => 200));
    const deadline = Date.now() + 60_000;
    let processed = 0;
    while (processed < count && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const rows = await direct.orm.em.fork().getConnection().execute<{ n: string }[]>(
        "SELECT count(*) AS n FROM provider_callback WHERE tenant_id = ? AND state = 'processed'", [acme.id]);
      processed = Number(rows[0].n);
    }
    expect(processed).toBe(count);
  }, 90_000);
});
