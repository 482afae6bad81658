import { afterAll, describe, expect, it } from '@jest/globals';
import { areas, jobs, tenantOwnedEntities } from '../src/areas/index.js';
import { AUDIT_EXCLUDED_TABLES, runAsJob } from '../src/core/data/audit.js';
import { Login, Vendor } from '../src/entities/index.js';
import { vendorNameKey } from '../src/entities/vendor.js';
import { deleteExpiredAuditEntries } from '../src/services/audit/audit.js';
import { createApiKey } from '../src/services/login/identity.js';
import { createTestTenant, expectStatementsIndependentOfPageSize, graphql, rest, startTestServer } from './support/harness.js';

const server = await startTestServer();
const acme = await createTestTenant(server, 'acme');
const other = await createTestTenant(server, 'other');
afterAll(() => server.close());

const TRAIL = `query Trail($filter: AuditTrailFilterInput) {
  auditTrail(filter: $filter) {
    AuditEntryId OccurredAt TableName RecordId Action Operation ActorLoginId ActorLogin ActorCredentialId ActorCredentialKind ActorRole RequestId Before After
  }
}`;

interface Entry {
  AuditEntryId: number;
  OccurredAt: string;
  TableName: string;
  RecordId: number | null;
  Action: string;
  Operation: string;
  ActorLoginId: number | null;
  ActorLogin: string | null;
  ActorCredentialId: number | null;
  ActorCredentialKind: string | null;
  ActorRole: string | null;
  RequestId: string | null;
  Before: Record<string, unknown> | null;
  After: Record<string, unknown> | null;
}

async function trail(filter: Record<string, unknown>, tenant = acme): Promise<Entry[]> {
  const response = await graphql<{ auditTrail: Entry[] }>(server, TRAIL, { filter }, tenant.staffToken);
  expect(response.body.errors).toBeUndefined();
  return response.body.data!.auditTrail;
}

async function saveVendorOverRest(name: string, tenant = acme, id = 0, auditId?: number) {
  return rest(server, 'POST', '/api/vendors', { token: tenant.staffToken, body: { VendorId: id, Name: name, ...(auditId ? { AuditId: auditId } : {}) } });
}

describe('the audit trail records every write', () => {
  it('records a REST save with its actor, operation and fields, once', async () => {
    const created = await saveVendorOverRest('Audit Alpha');
    expect(created.status).toBe(200);
    const id = created.body.VendorId as number;
    const entries = await trail({ TableName: 'vendor', RecordId: id });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toEqual({
      AuditEntryId: expect.any(Number),
      OccurredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      TableName: 'vendor',
      RecordId: id,
      Action: 'insert',
      Operation: 'POST /api/vendors',
      ActorLoginId: expect.any(Number),
      ActorLogin: 'staff@acme.example',
      ActorCredentialId: expect.any(Number),
      ActorCredentialKind: 'session',
      ActorRole: 'staff',
      RequestId: expect.any(String),
      Before: null,
      After: { name: 'Audit Alpha', name_key: vendorNameKey('Audit Alpha'), website_url: null, audit_id: 1 },
    });

    // An update keeps only what changed, before and after.
    expect((await saveVendorOverRest('Audit Alpha Ltd', acme, id, 1)).status).toBe(200);
    const [update] = await trail({ TableName: 'vendor', RecordId: id, Action: 'update' });
    expect(update).toMatchObject({
      Operation: 'POST /api/vendors',
      Before: { name: 'Audit Alpha', name_key: vendorNameKey('Audit Alpha'), audit_id: 1 },
      After: { name: 'Audit Alpha Ltd', name_key: vendorNameKey('Audit Alpha Ltd'), audit_id: 2 },
    });
  });

  it('records a GraphQL save under its field name', async () => {
    const saved = await graphql<{ saveVendor: { VendorId: number } }>(server,
      'mutation { saveVendor(input: { VendorId: 0, Name: "Audit Beta", WebsiteUrl: "https://beta.example" }) { VendorId } }', {}, acme.staffToken);
    const id = saved.body.data!.saveVendor.VendorId;
    const entries = await trail({ TableName: 'vendor', RecordId: id });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ Action: 'insert', Operation: 'saveVendor', ActorLogin: 'staff@acme.example', ActorRole: 'staff', After: { name: 'Audit Beta', website_url: 'https://beta.example' } });
  });

  it('records a deletion with the record as it was', async () => {
    const id = (await saveVendorOverRest('Audit Gone')).body.VendorId as number;
    expect((await rest(server, 'DELETE', `/api/vendors/${id}`, { token: acme.staffToken })).status).toBe(200);
    const [deletion] = await trail({ TableName: 'vendor', RecordId: id, Action: 'delete' });
    expect(deletion).toMatchObject({ Operation: 'DELETE /api/vendors/{vendorid}', ActorLogin: 'staff@acme.example', Before: { name: 'Audit Gone', audit_id: 1 }, After: null });
  });

  it('records nothing for a refused write, and nothing for a rolled-back one', async () => {
    const id = (await saveVendorOverRest('Audit Stale')).body.VendorId as number;
    expect((await saveVendorOverRest('Audit Stale 2', acme, id, 7)).status).toBe(409);
    expect(await trail({ TableName: 'vendor', RecordId: id })).toHaveLength(1);

    const em = server.orm.em.fork();
    await em.begin();
    const vendor = em.create(Vendor, { tenant: acme.id, name: 'Audit Rolled Back', nameKey: vendorNameKey('Audit Rolled Back') });
    await em.flush();
    const [inside] = await em.getConnection().execute<{ count: string }[]>('SELECT count(*) FROM audit_entry WHERE table_name = ? AND record_id = ?', [
      'vendor', vendor.id], 'all', em.getTransactionContext());
    expect(Number(inside.count)).toBe(1); // written in the same transaction...
    await em.rollback();
    const [after] = await server.orm.em.getConnection().execute<{ count: string }[]>('SELECT count(*) FROM audit_entry WHERE table_name = ? AND record_id = ?', ['vendor', vendor.id]);
    expect(Number(after.count)).toBe(0); // ...and gone with it
  });

  it('fails the write when its audit entry cannot be written', async () => {
    const connection = server.orm.em.getConnection();
    await expect(server.orm.em.fork().transactional(async (em) => {
      // An actor the trigger cannot store (a login id that is not a number) makes the entry fail.
      await em.execute("SELECT set_config('app.audit_login_id', 'not-a-number', true)");
      await em.execute('INSERT INTO vendor (tenant_id, name, name_key, audit_id) VALUES (?, ?, ?, 1)', [acme.id, 'Audit Unwritten', 'auditunwritten']);
    })).rejects.toThrow();
    expect(await connection.execute('SELECT id FROM vendor WHERE name = ?', ['Audit Unwritten'])).toEqual([]);
  });

  it('redacts secrets: a captcha secret set over GraphQL and a new API key', async () => {
    const saved = await graphql(server, 'mutation { saveEventCaptchaSetting(input: { Provider: "turnstile", SiteKey: "site-1", Secret: "very-secret-value" }) { Provider } }', {}, acme.staffToken);
    expect(saved.body.errors).toBeUndefined();
    const [captcha] = await trail({ TableName: 'event_captcha_setting' });
    expect(captcha).toMatchObject({ Operation: 'saveEventCaptchaSetting', After: { site_key: 'site-1', secret: '[redacted]' } });

    const em = server.orm.em.fork();
    const login = await em.findOneOrFail(Login, { email: 'staff@acme.example' }, { filters: false });
    const key = await createApiKey(em, login, 'Audit key', null);
    const [credential] = await trail({ TableName: 'credential', RecordId: key.credentialId });
    expect(credential).toMatchObject({ Action: 'insert', Operation: 'system', ActorLogin: null, After: { kind: 'api_key', name: 'Audit key', token_hash: '[redacted]' } });
    const stored = JSON.stringify(await server.orm.em.getConnection().execute('SELECT before, after FROM audit_entry'));
    expect(stored).not.toContain('very-secret-value');
    expect(stored).not.toMatch(/"token_hash": ?"[0-9a-f]{64}"/);
  });

  it('names an API key as the credential when one makes the change', async () => {
    const em = server.orm.em.fork();
    const login = await em.findOneOrFail(Login, { email: 'staff@acme.example' }, { filters: false });
    const key = await createApiKey(em, login, 'Integration', null);
    const id = (await rest(server, 'POST', '/api/vendors', { token: key.token, body: { Name: 'Audit By Key' } })).body.VendorId as number;
    const [entry] = await trail({ TableName: 'vendor', RecordId: id });
    expect(entry).toMatchObject({ ActorCredentialId: key.credentialId, ActorCredentialKind: 'api_key', ActorLogin: 'staff@acme.example' });
  });

  it("names the job for a background job's changes", async () => {
    const id = await runAsJob('audit-test-job', async () => {
      const em = server.orm.em.fork();
      const vendor = em.create(Vendor, { tenant: acme.id, name: 'Audit By Job', nameKey: vendorNameKey('Audit By Job') });
      await em.flush();
      return vendor.id;
    });
    const [entry] = await trail({ TableName: 'vendor', RecordId: id });
    expect(entry).toMatchObject({ Operation: 'audit-test-job', ActorLogin: null });
  });

  it('audits writes of several areas: a saleable item (commerce) and its update', async () => {
    const created = await graphql<{ saveSaleableItem: { SaleableItemId: number; AuditId: number } }>(server,
      'mutation { saveSaleableItem(saleableItemId: 0, input: { Name: "Audit Dues", ItemType: "membership", Price: 12.5 }) { SaleableItemId AuditId } }', {}, acme.staffToken);
    expect(created.body.errors).toBeUndefined();
    const id = created.body.data!.saveSaleableItem.SaleableItemId;
    const updated = await graphql(server, `mutation { saveSaleableItem(saleableItemId: ${id}, input: { Name: "Audit Dues", ItemType: "membership", Price: 15, AuditId: 1 }) { SaleableItemId } }`, {}, acme.staffToken);
    expect(updated.body.errors).toBeUndefined();
    const entries = await trail({ TableName: 'saleable_item', RecordId: id });
    expect(entries.map((entry) => [entry.Action, entry.Operation])).toEqual([['update', 'saveSaleableItem'], ['insert', 'saveSaleableItem']]);
    expect(entries[0]).toMatchObject({ Before: { price: 12.5 }, After: { price: 15 } });
  });

  it('carries the trigger on every tenant-owned table of every area but the excluded ones', async () => {
    const tables = [...server.orm.getMetadata().getAll().values()]
      .filter((meta) => (tenantOwnedEntities as unknown[]).includes(meta.class))
      .map((meta) => meta.tableName);
    const rows = await server.orm.em.getConnection().execute<{ relname: string }[]>(
      "SELECT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE t.tgname = 'audit_trail'");
    const triggered = new Set(rows.map((row) => row.relname));
    const missing = tables.filter((table) => !triggered.has(table) && !(AUDIT_EXCLUDED_TABLES as readonly string[]).includes(table));
    expect(missing).toEqual([]);
    expect(tables.length).toBeGreaterThan(50);
    expect(areas.some((area) => area.name === 'audit')).toBe(true);
    const [excluded] = await server.orm.em.getConnection().execute<{ list: string[] }[]>('SELECT audit_excluded_tables() AS list');
    expect([...excluded.list].sort()).toEqual([...AUDIT_EXCLUDED_TABLES].sort());
  });

  it('attaches itself to a new area\'s table with audit_attach_all(), redacting its secret columns', async () => {
    const connection = server.orm.em.getConnection();
    await connection.execute('CREATE TABLE audit_probe (id serial PRIMARY KEY, tenant_id int NOT NULL, label text, api_token text)');
    const [attached] = await connection.execute<{ n: number }[]>('SELECT audit_attach_all() AS n');
    expect(attached.n).toBe(1);
    await connection.execute("INSERT INTO audit_probe (tenant_id, label, api_token) VALUES (?, 'probe', 'tok-123')", [acme.id]);
    const [entry] = await trail({ TableName: 'audit_probe' });
    expect(entry).toMatchObject({ Action: 'insert', Operation: 'system', After: { label: 'probe', api_token: '[redacted]' } });
    await connection.execute('DROP TABLE audit_probe');
  });

  it("does not record a credential's last-use stamp", async () => {
    await server.orm.em.getConnection().execute('UPDATE credential SET last_used_at = now() WHERE tenant_id = ?', [acme.id]);
    const entries = await trail({ TableName: 'credential', Action: 'update' });
    expect(entries).toEqual([]);
  });
});

describe('reading the audit trail', () => {
  it('is for staff only, over GraphQL', async () => {
    const member = await graphql(server, TRAIL, {}, acme.memberToken);
    expect(member.body.errors?.[0].extensions.code).toBe('FORBIDDEN');
    expect(member.status).toBe(403);
    const anonymous = await graphql(server, TRAIL, {});
    expect(anonymous.status).toBe(401);
  });

  it("never shows another tenant's entries", async () => {
    const id = (await saveVendorOverRest('Audit Private')).body.VendorId as number;
    expect(await trail({ TableName: 'vendor', RecordId: id }, other)).toEqual([]);
    expect((await trail({ Filter: 'vendor', Take: 1000 }, other)).every((entry) => entry.ActorLogin !== 'staff@acme.example')).toBe(true);
  });

  it('pages newest first and filters by table, record, login, operation, action and time', async () => {
    for (const name of ['Audit Page 1', 'Audit Page 2', 'Audit Page 3']) await saveVendorOverRest(name);
    const newest = await trail({ TableName: 'vendor', Action: 'insert', Take: 2 });
    expect(newest.map((entry) => entry.After?.name)).toEqual(['Audit Page 3', 'Audit Page 2']);
    const next = await trail({ TableName: 'vendor', Action: 'insert', Take: 1, Skip: 2 });
    expect(next[0].After?.name).toBe('Audit Page 1');
    const oldestFirst = await trail({ TableName: 'vendor', OrderBy: 'AuditEntryId', Take: 1 });
    expect(oldestFirst[0].AuditEntryId).toBeLessThan(newest[0].AuditEntryId);

    const byLogin = await trail({ ActorLogin: 'STAFF@acme.example', Operation: 'POST /api/vendors', Take: 1000 });
    expect(byLogin.length).toBeGreaterThan(3);
    expect(byLogin.every((entry) => entry.ActorLogin === 'staff@acme.example' && entry.Operation === 'POST /api/vendors')).toBe(true);
    const loginId = byLogin[0].ActorLoginId;
    expect((await trail({ ActorLoginId: loginId, Take: 1000 })).length).toBeGreaterThanOrEqual(byLogin.length);
    expect(await trail({ ActorLogin: 'nobody@acme.example' })).toEqual([]);

    const today = new Date().toISOString().slice(0, 10);
    expect((await trail({ TableName: 'vendor', CalendarStartDate: today, CalendarEndDate: today })).length).toBeGreaterThan(3);
    expect(await trail({ TableName: 'vendor', CalendarStartDate: '2999-01-01' })).toEqual([]);
    expect(await trail({ TableName: 'vendor', CalendarEndDate: '2001-01-01' })).toEqual([]);
  });

  it('answers 400 naming the field for bad filters', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ Take: 5000 }, 'Take'],
      [{ OrderBy: 'Secret' }, 'OrderBy'],
      [{ TableName: 'vendor; drop table' }, 'TableName'],
      [{ CalendarStartDate: '10000-01-01' }, 'CalendarStartDate'],
      [{ Action: 'truncate' }, 'Action'],
      [{ Operation: 'a\u0000b' }, 'Operation'],
    ];
    for (const [filter, field] of cases) {
      const response = await graphql(server, TRAIL, { filter }, acme.staffToken);
      expect({ field, status: response.status }).toEqual({ field, status: 400 });
      expect(JSON.stringify(response.body.errors)).toContain(field);
    }
  });

  it('costs the same statements for a page of 5 as of 50', async () => {
    await server.orm.em.getConnection().execute(`INSERT INTO audit_entry (tenant_id, table_name, record_id, action, operation)
      SELECT ?, 'vendor', n, 'update', 'paging' FROM generate_series(1, 60) n`, [acme.id]);
    await expectStatementsIndependentOfPageSize(server, async (take) => {
      expect((await trail({ Take: take })).length).toBe(take);
    }, 3);
  });
});

describe('retention', () => {
  it('deletes only entries older than the retention, in batches, from an hourly job', async () => {
    const connection = server.orm.em.getConnection();
    await connection.execute(`INSERT INTO audit_entry (tenant_id, occurred_at, table_name, record_id, action, operation)
      SELECT ?, now() - interval '400 days', 'vendor', n, 'insert', 'old' FROM generate_series(1, 5) n`, [acme.id]);
    await connection.execute(`INSERT INTO audit_entry (tenant_id, occurred_at, table_name, record_id, action, operation)
      VALUES (?, now() - interval '300 days', 'vendor', 99, 'insert', 'recent')`, [acme.id]);
    const count = async (operation: string) => Number((await connection.execute<{ n: string }[]>('SELECT count(*) AS n FROM audit_entry WHERE operation = ?', [operation]))[0].n);
    const total = async () => Number((await connection.execute<{ n: string }[]>('SELECT count(*) AS n FROM audit_entry'))[0].n);
    const before = await total();

    expect(await deleteExpiredAuditEntries(server.orm, 365, 2)).toBe(5);
    expect(await count('old')).toBe(0);
    expect(await count('recent')).toBe(1);
    expect(await total()).toBe(before - 5);
    expect(await deleteExpiredAuditEntries(server.orm, 200)).toBe(1);

    const job = jobs.find((candidate) => candidate.name === 'audit-retention');
    expect(job?.cron).toMatch(/^\d+ \* \* \* \*$/);
    expect(server.config.AUDIT_RETENTION_DAYS).toBe(365);
  });
});
