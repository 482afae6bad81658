import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { loadConfig } from '../src/core/config.js';
import { RLS_EXCLUDED_TABLES } from '../src/core/data/audit.js';
import { confineToTenant } from '../src/core/context.js';
import { mapError } from '../src/core/error-mapping.js';
import { acrossTenants, tenantSql } from '../src/core/data/tenant-sql.js';
import { Login } from '../src/entities/index.js';
import { openOrm } from '../src/db/orm.js';
import { takeServingRole } from '../src/db/serving-role.js';
import { authenticate } from '../src/services/login/identity.js';
import { deliverEmail } from '../src/services/mail/email-delivery.js';
import { deliverWebhook } from '../src/services/webhooks/delivery.js';
import { createTestTenant, startTestServer, type TestServer, type TestTenant } from './support/harness.js';

/**
 * The tenant scope's second layer: row-level security under the service's role. The test server
 * serves as the embedded cluster's superuser, as `npm start` does without DATABASE_URL; its
 * tenant-scoped statements run as `membership_app` (DATABASE_APP_ROLE), which the policies bind
 * ("the real server" below). The first tests also open the application's own ORM (same
 * configuration, same connection class) as a login that is only a member of `membership_app`, as
 * a managed deployment serves (OPERATIONS.md, "Tenant row-level security"): there even an unscoped
 * statement sees no tenant's rows.
 */
let server: TestServer;
let acme: TestTenant;
let other: TestTenant;
let app: MikroORM;
let appLogin: string;

beforeAll(async () => {
  server = await startTestServer();
  acme = await createTestTenant(server, 'acme');
  other = await createTestTenant(server, 'other');
  appLogin = `test_app_${randomBytes(4).toString('hex')}`;
  await server.orm.em.getConnection().execute(`create role ${appLogin} login password 'app-password' in role membership_app`);
  const url = new URL(server.databaseUrl);
  url.username = appLogin;
  url.password = 'app-password';
  app = await openOrm({ url: url.toString(), poolMax: 1 });
});
afterAll(async () => {
  await app?.close();
  await server.close();
  // Roles belong to the cluster, not to the test's database.
  const admin = new pg.Client({ connectionString: process.env.TEST_ADMIN_DATABASE_URL });
  await admin.connect();
  await admin.query(`drop role if exists ${appLogin}`);
  await admin.end();
});

/** A fork of the application's ORM (by default the member login's) confined to `tenant`, as a request's EntityManager (`ctx.em`) is. */
function scopedTo(tenant: TestTenant, orm: MikroORM = app) {
  const em = orm.em.fork({ clear: true, useContext: false });
  confineToTenant(em, tenant.id);
  return em;
}

/** The statement every test sends: no tenant condition, deliberately. */
const UNSCOPED = 'select tenant_id from login';

const tenantsIn = (rows: { tenant_id: number }[]) => [...new Set(rows.map((row) => row.tenant_id))].sort();

describe('row-level security on every tenant table', () => {
  it('binds every table with a tenant_id (both tenants have logins, so an empty answer below means a policy, not no data)', async () => {
    const tables = await server.orm.em.getConnection().execute<{ relname: string; relrowsecurity: boolean; relforcerowsecurity: boolean; policies: number }[]>(
      `select c.relname, c.relrowsecurity, c.relforcerowsecurity, (select count(*)::int from pg_policy p where p.polrelid = c.oid and p.polname = 'tenant_scope') as policies
       from pg_class c join pg_attribute a on a.attrelid = c.oid and a.attname = 'tenant_id' and not a.attisdropped
       where c.relnamespace = current_schema()::regnamespace and c.relkind = 'r' order by c.relname`);
    expect(tables.length).toBeGreaterThan(30);
    const unbound = tables.filter((table) => !(table.relrowsecurity && table.relforcerowsecurity && table.policies === 1)).map((table) => table.relname);
    expect(unbound.sort()).toEqual([...RLS_EXCLUDED_TABLES].sort());
    const owner = await server.orm.em.getConnection().execute<{ tenant_id: number }[]>(UNSCOPED);
    expect(tenantsIn(owner)).toEqual([acme.id, other.id].sort());
  });

  it('shows a statement without a tenant condition only the scoped tenant’s rows, outside and inside transactions', async () => {
    const em = scopedTo(acme);
    expect(tenantsIn(await em.execute(UNSCOPED, [], 'all', em.getLoggerContext()))).toEqual([acme.id]);
    expect(tenantsIn(await tenantSql({ em, tenantId: acme.id }).all(UNSCOPED))).toEqual([acme.id]);
    // An ORM query with the tenant filter turned off: the policy still holds.
    const logins = await em.find(Login, {}, { filters: false });
    expect(logins.length).toBeGreaterThan(0);
    expect([...new Set(logins.map((login) => login.tenant.id))]).toEqual([acme.id]);
    await em.transactional(async (tx) => {
      expect(tenantsIn(await tx.execute(UNSCOPED, [], 'all'))).toEqual([acme.id]);
    });
    const forOther = scopedTo(other);
    expect(tenantsIn(await forOther.execute(UNSCOPED, [], 'all', forOther.getLoggerContext()))).toEqual([other.id]);
  });

  it('shows no tenant’s rows without a scope, and every tenant’s on the named cross-tenant path', async () => {
    const unscoped = app.em.fork({ clear: true, useContext: false });
    expect(await unscoped.execute(UNSCOPED)).toEqual([]);
    const across = acrossTenants(unscoped);
    expect(tenantsIn(await across.execute(UNSCOPED, [], 'all', across.getLoggerContext()))).toEqual([acme.id, other.id].sort());
  });

  it('finds a credential before the tenant is known: the lookup is on the named cross-tenant path', async () => {
    const unscoped = app.em.fork({ clear: true, useContext: false });
    expect(await unscoped.execute('select id from credential')).toEqual([]);
    expect((await authenticate(unscoped, `Bearer ${acme.staffToken}`))?.tenantId).toBe(acme.id);
    expect((await authenticate(unscoped, `Bearer ${other.memberToken}`))?.tenantId).toBe(other.id);
  });

  it('refuses a row written for another tenant, and changes none of its rows', async () => {
    const em = scopedTo(acme);
    const sql = tenantSql({ em, tenantId: acme.id });
    const across = acrossTenants(app.em);
    const [otherLogin] = await across.execute<{ id: number }[]>('select id from login where tenant_id = ? limit 1', [other.id], 'all', across.getLoggerContext());
    expect(otherLogin).toBeDefined();
    expect((await sql.run(`update login set updated_at = now() where id = ${otherLogin.id}`)).affectedRows).toBe(0);
    await expect(sql.run(`insert into vendor (tenant_id, name, name_key) values (${other.id}, 'Elsewhere', 'elsewhere')`))
      .rejects.toMatchObject({ code: '42501' });
  });

  it('keeps no tenant on a pooled connection: the next statement, even after a failed one, sees none', async () => {
    // The pool holds one connection, so every statement below runs on the same one.
    const em = scopedTo(acme);
    const setting = async () => (await app.em.getConnection().execute<{ tenant: string | null }[]>(
      "select current_setting('app.tenant_id', true) as tenant"))[0].tenant;
    await em.execute(UNSCOPED, [], 'all', em.getLoggerContext());
    expect(await setting()).toBe('');
    await expect(em.execute('select 1 / 0 from login', [], 'all', em.getLoggerContext())).rejects.toThrow(/division by zero/);
    expect(await setting()).toBe('');
    expect(await app.em.fork().execute(UNSCOPED)).toEqual([]);
    // The role ends with the transaction too: the connection is the login's again.
    expect(await app.em.fork().execute('select current_user as name')).toEqual([{ name: appLogin }]);
  });
});

describe('the real server: tenant-scoped statements run as membership_app', () => {
  const whoAmI = 'select current_user as name, (select rolsuper from pg_roles where rolname = current_user) as superuser';

  const serverScopedTo = (tenant: TestTenant) => scopedTo(tenant, server.orm);

  it('serves as a superuser login, yet runs every scoped statement and transaction as membership_app', async () => {
    // The precondition: the service's login bypasses row-level security itself.
    const [login] = await server.orm.em.fork().execute<{ name: string; superuser: boolean }[]>(whoAmI);
    expect(login.superuser).toBe(true);
    const em = serverScopedTo(acme);
    expect(await em.execute(whoAmI, [], 'all', em.getLoggerContext())).toEqual([{ name: 'membership_app', superuser: false }]);
    expect(await tenantSql({ em, tenantId: acme.id }).all(whoAmI)).toEqual([{ name: 'membership_app', superuser: false }]);
    await em.transactional(async (tx) => {
      expect(await tx.execute(whoAmI)).toEqual([{ name: 'membership_app', superuser: false }]);
    });
    const across = acrossTenants(server.orm.em);
    expect(await across.execute(whoAmI, [], 'all', across.getLoggerContext())).toEqual([{ name: 'membership_app', superuser: false }]);
    // Unscoped statements (migrations, bootstrapping) keep the login.
    expect(await server.orm.em.fork().execute(whoAmI)).toEqual([login]);
  });

  it('shows a raw statement without the tenant condition none of the other tenant’s rows', async () => {
    const em = serverScopedTo(acme);
    const rows = await em.execute<{ tenant_id: number }[]>(UNSCOPED, [], 'all', em.getLoggerContext());
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.filter((row) => row.tenant_id === other.id)).toEqual([]);
    const logins = await em.find(Login, {}, { filters: false });
    expect([...new Set(logins.map((login) => login.tenant.id))]).toEqual([acme.id]);
  });

  it('answers a row refused by the policy as not found (404), not a server error', async () => {
    const em = serverScopedTo(acme);
    const refused: unknown = await tenantSql({ em, tenantId: acme.id })
      .run(`insert into vendor (tenant_id, name, name_key) values (${other.id}, 'Elsewhere', 'elsewhere')`)
      .then(() => undefined, (error: unknown) => error);
    expect(refused).toMatchObject({ code: '42501' });
    expect(mapError(refused).error.status).toBe(404);
  });

  it('warns once and serves as the login when the login may not take the role', async () => {
    const warnings: string[] = [];
    try {
      expect(await takeServingRole(server.orm, 'no_such_role_here', null, (message) => warnings.push(message))).toBe(false);
      const em = serverScopedTo(acme);
      expect((await em.execute<{ superuser: boolean }[]>(whoAmI, [], 'all', em.getLoggerContext()))[0].superuser).toBe(true);
    } finally {
      expect(await takeServingRole(server.orm, 'membership_app', null, (message) => warnings.push(message))).toBe(true);
    }
    expect(warnings).toEqual([expect.stringMatching(/row-level security not enforced: .*no_such_role_here \(DATABASE_APP_ROLE\)/)]);
  });
});

describe('the mail and webhook delivery jobs under row-level security', () => {
  /** Writes a row as the server's superuser login (no policy applies to it) and answers its id. */
  const insertAsOwner = async (statement: string, params: unknown[]) =>
    (await server.orm.em.fork().getConnection().execute<{ id: number }[]>(`${statement} returning id`, params))[0].id;
  const statusOf = async (table: string, id: number) =>
    (await server.orm.em.fork().getConnection().execute<{ status: string }[]>(`select status from ${table} where id = ?`, [id]))[0].status;
  const firstAttempt = { id: 'job-1', retryCount: 0, retryLimit: 5 };

  it('sends a queued e-mail with the application login, which sees no outbox row outside the cross-tenant path', async () => {
    const messageId = await insertAsOwner(
      `insert into outbox_message (tenant_id, channel, recipient, subject, body, status) values (?, 'email', 'member@acme.example', 'Your sign-in link', 'token=abc', 'queued')`, [acme.id]);
    // The precondition: without the named path this login sees none of the outbox.
    expect(await app.em.fork().execute('select id from outbox_message')).toEqual([]);
    const dataDir = mkdtempSync(path.join(tmpdir(), 'membership-rls-mail-'));
    const config = loadConfig({ NODE_ENV: 'development', LOG_LEVEL: 'silent', MASTER_KEY: 'test-master-key-0123456789', DATA_DIR: dataDir });
    await deliverEmail(app, config, messageId, firstAttempt);
    expect(await statusOf('outbox_message', messageId)).toBe('sent');
    expect(existsSync(path.join(dataDir, 'outbox', String(acme.id), `${messageId}.eml`))).toBe(true);
  });

  it('posts a queued webhook delivery with the application login and records it delivered', async () => {
    const received: string[] = [];
    const receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => { body += chunk.toString('utf8'); });
      request.on('end', () => { received.push(body); response.writeHead(204).end(); });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const secret = `whsec_${randomBytes(24).toString('base64')}`;
      const subscriptionId = await insertAsOwner(
        `insert into webhook_subscription (tenant_id, url, event_types, secret) values (?, ?, '["contact.created"]', ?)`, [other.id, url, secret]);
      const eventId = await insertAsOwner(
        `insert into webhook_event (tenant_id, message_id, type, body) values (?, ?, 'contact.created', '{"type":"contact.created"}')`, [other.id, `msg_${randomBytes(8).toString('hex')}`]);
      const deliveryId = await insertAsOwner(
        `insert into webhook_delivery (tenant_id, subscription_id, event_id, status) values (?, ?, ?, 'queued')`, [other.id, subscriptionId, eventId]);
      expect(await app.em.fork().execute('select id from webhook_delivery')).toEqual([]);
      const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', MASTER_KEY: 'test-master-key-0123456789', OUTBOUND_ALLOW_PRIVATE: 'true' });
      await deliverWebhook(app, config, deliveryId, [5]);
      expect(received).toEqual(['{"type":"contact.created"}']);
      expect(await statusOf('webhook_delivery', deliveryId)).toBe('delivered');
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
