import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Contact, Login, Membership, MembershipType, Tenant } from '../src/entities/index.js';
import { reportRunJobs, runReportJob } from '../src/services/reporting/report-runs.js';
import { createLogin, createSession } from '../src/services/login/identity.js';
import {
  createTestTenant, expectExactlyOneSucceeds, expectStatementsIndependentOfPageSize, graphql, rest, startTestServer, type TestServer, type TestTenant,
} from './support/harness.js';

// 401/403 on every operation, tenant isolation and the fuzz: test/sweeps.test.ts. Here: the area's own rules.
let server: TestServer;
let acme: TestTenant;
let other: TestTenant;
/** A second staff login of acme: private reports and favorites are per login. */
let colleagueToken: string;
let staffLoginId: number;

beforeAll(async () => {
  // A production-sized pool for the race tests, and the report jobs (small batches, so progress moves).
  server = await startTestServer({ DATABASE_POOL_MAX: '20' }, { jobs: reportRunJobs({ batchSize: 2, pumpEveryMs: 100, retryDelaySeconds: 1 }) });
  acme = await createTestTenant(server, 'reports');
  other = await createTestTenant(server, 'reports-other');
  const em = server.orm.em.fork();
  const tenant = await em.findOneOrFail(Tenant, { id: acme.id });
  const colleague = await createLogin(em, tenant, { email: 'colleague@reports.example', role: 'staff' });
  colleagueToken = (await createSession(em, colleague, 1)).token;
  staffLoginId = (await em.findOneOrFail(Login, { email: 'staff@reports.example' }, { filters: false })).id;
});
afterAll(() => server.close());

const call = (token: string, query: string, variables: Record<string, unknown> = {}) => graphql(server, query, variables, token);
const options = (value: object) => `options=${encodeURIComponent(JSON.stringify(value))}`;
const names = (rows: { Name: string }[]) => rows.map((row) => row.Name);

async function addReport(body: Record<string, unknown>, token = acme.staffToken): Promise<{ ReportId: number; AuditId: number }> {
  const response = await rest(server, 'POST', '/api/reporting/add', { token, body });
  expect(response.status).toBe(200);
  return response.body;
}

async function systemReportId(name: string, tenant = acme): Promise<number> {
  const response = await rest(server, 'POST', '/api/reporting', { token: tenant.staffToken, body: { Filter: name, IsCustom: false } });
  return response.body.Results.find((row: { Name: string }) => row.Name === name).ReportId as number;
}

describe('the report catalog', () => {
  it('seeds the system reports per tenant and lists them by category (GET options/category, POST ReportAdvancedFilter)', async () => {
    const all = await rest(server, 'GET', '/api/reporting', { token: acme.staffToken });
    expect(all.status).toBe(200);
    expect(all.body.TotalRecordAvailable).toBe('9');
    expect(names(all.body.Results)).toEqual([
      'Active memberships', 'Contact directory', 'Contact profile', 'Event history', 'Event registrations', 'Lapsed memberships', 'Membership history', 'Membership roster',
      'Organizations',
    ]);
    expect(all.body.Criteria).toBeNull();
    expect(all.body.CriteriaItems.map((item: { Name: string }) => item.Name)).toEqual(['Contacts', 'Events', 'Membership']);
    expect(all.body.Results[0]).toEqual({
      ImageUrl: null, ImageShortDescription: null, ReportId: expect.any(Number), AuditId: 1, IsSystem: true, Name: 'Active memberships', Description: 'Memberships in force.',
      ReportTypeId: 'memberships', ReportCategoryId: 'Membership', DateAdded: expect.stringMatching(/Z$/), LastUsed: null, IsFavorite: false,
      Path: expect.stringContaining('runReport'), IsPrivateForUser: false, CreatedBy: null, Parameters: [], Actions: ['Run'], SecurableAreaId: null, SecurableItemId: null,
      IsChapterSafe: false, RequiredModules: [], UserHaveDeleteAccess: false,
    });

    const membership = await rest(server, 'GET', `/api/reporting?category=membership&${options({ OrderBy: 'Name desc', Take: 2 })}`, { token: acme.staffToken });
    expect(membership.body.TotalRecordAvailable).toBe('4');
    expect(names(membership.body.Results)).toEqual(['Membership roster', 'Membership history']);
    expect(membership.body.CriteriaItems.find((item: { Name: string }) => item.Name === 'Membership').IsSelected).toBe(true);

    const posted = await rest(server, 'POST', '/api/reporting', { token: acme.staffToken, body: { ReportCategoryId: 'Contacts', Filter: 'contact', Criteria: 'contacts', TenantId: 999 } });
    expect(names(posted.body.Results)).toEqual(['Contact directory', 'Contact profile']);
    expect(posted.body.Criteria).toEqual({ ReportCategoryId: 'Contacts', IsCustom: null, IsPrivate: null, IsFavorite: null, Criteria: 'contacts' });

    // Another tenant has its own catalog.
    expect((await rest(server, 'GET', '/api/reporting', { token: other.staffToken })).body.TotalRecordAvailable).toBe('9');
    expect(await systemReportId('Organizations', other)).not.toBe(await systemReportId('Organizations'));
  });

  it('seeds once when the first reads of a tenant race', async () => {
    const fresh = await createTestTenant(server, 'reports-fresh');
    const answers = await Promise.all(Array.from({ length: 8 }, () => rest(server, 'GET', '/api/reporting', { token: fresh.staffToken })));
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
    const [row] = await server.orm.em.fork().execute<{ n: number }[]>('SELECT count(*)::int AS n FROM report WHERE tenant_id = ?', [fresh.id]);
    expect(row.n).toBe(9);
  });

  it('adds custom reports; a private one is seen only by its creator', async () => {
    const shared = await addReport({ Name: 'Board', Description: 'Board contacts' });
    expect(shared).toMatchObject({ IsSystem: false, Name: 'Board', Description: 'Board contacts', ReportTypeId: 'contacts', ReportCategoryId: 'Contacts', CreatedBy: staffLoginId,
      IsPrivateForUser: false, Actions: ['Run', 'Delete'], UserHaveDeleteAccess: true, AuditId: 1 });
    const mine = await addReport({ Name: 'My lapsed members', ReportTypeId: 'memberships', IsPrivateForUser: true });
    const seenBy = async (token: string) => names((await rest(server, 'POST', '/api/reporting', { token, body: { IsCustom: true } })).body.Results);
    expect(await seenBy(acme.staffToken)).toEqual(expect.arrayContaining(['Board', 'My lapsed members']));
    expect(await seenBy(colleagueToken)).toContain('Board');
    expect(await seenBy(colleagueToken)).not.toContain('My lapsed members');
    expect(names((await rest(server, 'POST', '/api/reporting', { token: acme.staffToken, body: { IsPrivate: true } })).body.Results)).toEqual(['My lapsed members']);
    const search = (token: string) => rest(server, 'GET', '/api/reporting/tenantreports?this[]=lapsed&length=10', { token });
    expect(names((await search(acme.staffToken)).body)).toEqual(['Lapsed memberships', 'My lapsed members']);
    expect((await search(acme.staffToken)).body[0]).toEqual({ IsSelected: false, PreviouslySelected: false, Id: expect.any(Number), Name: 'Lapsed memberships', Order: 0 });
    expect(names((await search(colleagueToken)).body)).toEqual(['Lapsed memberships']);
    // Invisible means not there: the colleague can neither delete nor run it.
    expect((await rest(server, 'DELETE', `/api/reporting/${mine.ReportId}/1`, { token: colleagueToken })).status).toBe(404);
    expect((await call(colleagueToken, 'mutation($i: ReportRunInput!) { runReport(input: $i) { State } }', { i: { ReportId: mine.ReportId } })).status).toBe(404);
    expect((await rest(server, 'DELETE', `/api/reporting/${mine.ReportId}/1`, { token: acme.staffToken })).status).toBe(200);
  });

  it('deletes a custom report once (AuditId checked), never a system report', async () => {
    const report = await addReport({ Name: 'Doomed' });
    expect((await rest(server, 'DELETE', `/api/reporting/${report.ReportId}/7`, { token: acme.staffToken })).status).toBe(409);
    await expectExactlyOneSucceeds(Array.from({ length: 20 }, () => () => rest(server, 'DELETE', `/api/reporting/${report.ReportId}/1`, { token: acme.staffToken })));
    const system = await systemReportId('Contact directory');
    const refused = await rest(server, 'DELETE', `/api/reporting/${system}/1`, { token: acme.staffToken });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain('system report');
    expect((await rest(server, 'DELETE', '/api/reporting/abc/1', { token: acme.staffToken })).status).toBe(400);
  });

  it('keeps favorites per login (GraphQL setReportFavorite, REST widget and IsFavorite)', async () => {
    const roster = await systemReportId('Membership roster');
    const favorite = (token: string, isFavorite: boolean) => call(token, 'mutation($r: Int!, $f: Boolean!) { setReportFavorite(reportId: $r, isFavorite: $f) }', { r: roster, f: isFavorite });
    expect((await favorite(acme.staffToken, true)).body.data).toEqual({ setReportFavorite: true });
    expect((await favorite(acme.staffToken, true)).body.data).toEqual({ setReportFavorite: true }); // idempotent
    const widget = await rest(server, 'GET', '/api/reporting/widget/reportfavorites', { token: acme.staffToken });
    expect(widget.body).toMatchObject({ ModelType: 'ReportCollection', TotalRecordAvailable: '1' });
    expect(widget.body.Items.map((item: { ReportId: number; IsFavorite: boolean }) => [item.ReportId, item.IsFavorite])).toEqual([[roster, true]]);
    expect((await rest(server, 'GET', '/api/reporting/widget/reportfavorites', { token: colleagueToken })).body.Items).toEqual([]);
    const notFavorites = await rest(server, 'POST', '/api/reporting', { token: acme.staffToken, body: { IsFavorite: false, IsCustom: false } });
    expect(notFavorites.body.TotalRecordAvailable).toBe('8');
    expect(names((await rest(server, 'POST', '/api/reporting', { token: acme.staffToken, body: { IsFavorite: true } })).body.Results)).toEqual(['Membership roster']);
    await favorite(acme.staffToken, false);
    expect((await rest(server, 'GET', '/api/reporting/widget/reportfavorites', { token: acme.staffToken })).body.TotalRecordAvailable).toBe('0');
    expect((await call(acme.staffToken, 'mutation { setReportFavorite(reportId: 987654, isFavorite: true) }')).status).toBe(404);
  });

  it('records one favorite under 10 concurrent requests', async () => {
    const report = await addReport({ Name: 'Popular' });
    const answers = await Promise.all(Array.from({ length: 10 }, () => call(acme.staffToken, `mutation { setReportFavorite(reportId: ${report.ReportId}, isFavorite: true) }`)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    const [row] = await server.orm.em.fork().execute<{ n: number }[]>('SELECT count(*)::int AS n FROM report_favorite WHERE report_id = ?', [report.ReportId]);
    expect(row.n).toBe(1);
    await call(acme.staffToken, `mutation { setReportFavorite(reportId: ${report.ReportId}, isFavorite: false) }`);
  });

  it('lists the reports about a contact (GET and POST with category)', async () => {
    const em = server.orm.em.fork();
    const contact = em.create(Contact, { tenant: acme.id, kind: 'person', firstName: 'Cora', lastName: 'Contact' });
    await em.flush();
    const listed = await rest(server, 'GET', `/api/reporting/contactreports/${contact.id}`, { token: acme.staffToken });
    expect(listed.status).toBe(200);
    expect(listed.body.ContactId).toBe(String(contact.id));
    expect(names(listed.body.ReportsList)).toEqual(['Contact profile', 'Event history', 'Membership history']);
    expect(listed.body.ReportsList[0]).toEqual({
      ImageUrl: null, ImageShortDescription: null, ReportId: expect.any(Number), AuditId: 1, IsSystem: true, ContactId: contact.id, Name: 'Contact profile',
      Description: 'One contact\'s details.', ReportTypeId: 'contacts', Path: expect.stringContaining(`ContactId:${contact.id}`),
    });
    const posted = await rest(server, 'POST', `/api/reporting/contactreports/${contact.id}?category=Membership`, { token: acme.staffToken, body: { any: 'thing' } });
    expect(names(posted.body)).toEqual(['Membership history']);
    expect((await rest(server, 'GET', '/api/reporting/contactreports/abc', { token: acme.staffToken })).status).toBe(404);
    expect((await rest(server, 'GET', '/api/reporting/contactreports/987654', { token: acme.staffToken })).status).toBe(404);
  });

  it('refuses bad input naming the field', async () => {
    const fields = async (path: string, body?: unknown, method = 'POST') => {
      const response = await rest(server, method, path, { token: acme.staffToken, body });
      return { status: response.status, fields: (response.body?.errors ?? []).map((error: { field: string }) => error.field) };
    };
    expect(await fields('/api/reporting/add', { Name: ' ' })).toEqual({ status: 400, fields: ['Name'] });
    expect(await fields('/api/reporting/add', { Name: 'x', ReportTypeId: 'invoices' })).toEqual({ status: 400, fields: ['ReportTypeId'] });
    expect(await fields('/api/reporting/add', { Name: 'x'.repeat(201) })).toEqual({ status: 400, fields: ['Name'] });
    expect(await fields('/api/reporting', { OrderBy: 'Nonsense' })).toEqual({ status: 400, fields: ['OrderBy'] });
    expect(await fields('/api/reporting', { Take: '5000' })).toEqual({ status: 400, fields: ['Take'] });
    expect(await fields('/api/reporting', { ReportCategoryId: 'a\u0000' })).toEqual({ status: 400, fields: ['ReportCategoryId'] });
    expect((await fields(`/api/reporting?${options({ Take: 'x' })}`, undefined, 'GET')).status).toBe(400);
    expect((await fields(`/api/reporting/tenantreports?this[]=${'x'.repeat(300)}`, undefined, 'GET')).fields).toEqual(['this[]']);
  });

  it('lists with a fixed number of statements whatever the page size', async () => {
    for (let index = 0; index < 6; index++) await addReport({ Name: `Paged ${index}` });
    await rest(server, 'GET', '/api/reporting', { token: acme.staffToken }); // seeded already: no insert below
    await expectStatementsIndependentOfPageSize(server, async (take) => {
      const response = await rest(server, 'GET', `/api/reporting?${options({ Take: take })}`, { token: acme.staffToken });
      expect(response.body.Results.length).toBe(Math.min(take, Number(response.body.TotalRecordAvailable)));
    }, 4);
  });
});

describe('running reports', () => {
  let contactIds: number[];

  beforeAll(async () => {
    const em = server.orm.em.fork();
    const contacts = [
      em.create(Contact, { tenant: acme.id, kind: 'person', firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.org', phone: '=1+1' }),
      em.create(Contact, { tenant: acme.id, kind: 'person', firstName: 'Bo, "the" Builder', lastName: 'Brown', email: 'bo@example.org' }),
      em.create(Contact, { tenant: acme.id, kind: 'organization', name: 'Acme Corp', email: 'office@acme.example' }),
    ];
    const gold = em.create(MembershipType, { tenant: acme.id, name: 'Gold' });
    // Another tenant's data never shows in acme's reports.
    const elsewhere = em.create(Contact, { tenant: other.id, kind: 'person', firstName: 'Eve', lastName: 'Elsewhere' });
    const otherType = em.create(MembershipType, { tenant: other.id, name: 'Other gold' });
    await em.flush();
    em.create(Membership, { tenant: acme.id, contact: contacts[0], membershipType: gold, startDate: '2025-01-01', endDate: '2025-12-31', status: 'lapsed' });
    em.create(Membership, { tenant: acme.id, contact: contacts[0], membershipType: gold, startDate: '2026-01-01', status: 'active' });
    em.create(Membership, { tenant: acme.id, contact: contacts[1], membershipType: gold, startDate: '2026-02-01', status: 'active' });
    em.create(Membership, { tenant: acme.id, contact: contacts[2], membershipType: gold, startDate: '2026-03-01', status: 'pending' });
    em.create(Membership, { tenant: other.id, contact: elsewhere, membershipType: otherType, startDate: '2026-01-01', status: 'active' });
    await em.flush();
    contactIds = contacts.map((contact) => contact.id);
  });

  const RUN = 'mutation($i: ReportRunInput!) { runReport(input: $i) { ReportRunId ReportId ContactId State Progress } }';
  const STATUS = 'query($id: Int!) { reportRun(reportRunId: $id) { ReportRunId State Progress RowsTotal RowsWritten RowsSkipped FileId Error FinishedAt } }';
  const CSV = 'query($id: Int!) { reportRunCsv(reportRunId: $id) { FileName MediaType Size Url } }';

  /** The CSV of a run: reportRunCsv says where, the download route streams it. */
  async function download(runId: number, token = acme.staffToken): Promise<string> {
    const where = await call(token, CSV, { id: runId });
    expect(where.body.errors).toBeUndefined();
    const { Url, Size, MediaType } = where.body.data.reportRunCsv;
    expect(Url).toBe(`/api/reporting/runs/${runId}/csv`);
    const response = await rest(server, 'GET', Url as string, { token });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(MediaType);
    expect(Number(response.headers.get('content-length'))).toBe(Size);
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="[^"]+\.csv"/);
    return response.text;
  }

  async function completed(runId: number, token = acme.staffToken): Promise<{ State: string; Progress: number; RowsTotal: number; RowsWritten: number; FileId: number }> {
    for (const deadline = Date.now() + 20_000; Date.now() < deadline;) {
      const status = (await call(token, STATUS, { id: runId })).body.data.reportRun;
      if (status.State === 'completed' || status.State === 'failed') return status;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`run ${runId} did not finish`);
  }

  async function run(name: string, contactId?: number): Promise<{ runId: number; csv: string }> {
    const started = await call(acme.staffToken, RUN, { i: { ReportId: await systemReportId(name), ContactId: contactId ?? null } });
    expect(started.body.errors).toBeUndefined();
    expect(started.body.data.runReport).toMatchObject({ State: 'queued', Progress: 0 });
    const runId = started.body.data.runReport.ReportRunId as number;
    const finished = await completed(runId);
    expect({ State: finished.State, Error: (finished as { Error?: string | null }).Error }).toEqual({ State: 'completed', Error: null });
    const csv = await call(acme.staffToken, CSV, { id: runId });
    expect(csv.body.data.reportRunCsv.MediaType).toBe('text/csv; charset=utf-8');
    return { runId, csv: await download(runId) };
  }

  it('produces the membership roster as CSV through a job, with progress', async () => {
    // Every progress the job records, in order (a trigger on the run).
    const db = server.orm.em.fork().getConnection();
    await db.execute('CREATE TABLE progress_log (id serial, run_id int, progress int)');
    await db.execute(`CREATE FUNCTION log_progress() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      IF NEW.progress IS DISTINCT FROM OLD.progress THEN INSERT INTO progress_log (run_id, progress) VALUES (NEW.id, NEW.progress); END IF; RETURN NEW; END $$`);
    await db.execute('CREATE TRIGGER report_run_progress AFTER UPDATE ON report_run FOR EACH ROW EXECUTE FUNCTION log_progress()');

    const { runId, csv } = await run('Membership roster');
    const ids = await db.execute<{ id: number }[]>('SELECT id FROM membership WHERE tenant_id = ? ORDER BY id', [acme.id]);
    expect(csv).toBe([
      'MembershipId,ContactId,ContactName,MembershipType,MembershipLevel,Status,StartDate,EndDate',
      `${ids[0].id},${contactIds[0]},Ada Lovelace,Gold,,lapsed,2025-01-01,2025-12-31`,
      `${ids[1].id},${contactIds[0]},Ada Lovelace,Gold,,active,2026-01-01,`,
      `${ids[2].id},${contactIds[1]},"Bo, ""the"" Builder Brown",Gold,,active,2026-02-01,`,
      `${ids[3].id},${contactIds[2]},Acme Corp,Gold,,pending,2026-03-01,`,
      '',
    ].join('\n'));
    const status = await completed(runId);
    expect(status).toMatchObject({ Progress: 100, RowsTotal: 4, RowsWritten: 4, RowsSkipped: 0, Error: null });
    // Batches of 2 of 4 rows: 50% after the first, 99% after the second (the file not yet stored), 100% completed.
    const logged = await db.execute<{ progress: number }[]>('SELECT progress FROM progress_log WHERE run_id = ? ORDER BY id', [runId]);
    expect(logged.map((row) => row.progress)).toEqual([50, 99, 100]);
    // Running it marks the report used.
    const roster = (await rest(server, 'POST', '/api/reporting', { token: acme.staffToken, body: { Filter: 'roster' } })).body.Results[0];
    expect(roster.LastUsed).toMatch(/Z$/);
  });

  it('produces the filtered and the contact reports, and never runs a cell as a formula', async () => {
    const active = (await run('Active memberships')).csv.split('\n').slice(1, -1);
    expect(active).toHaveLength(2);
    for (const line of active) expect(line).toMatch(/,Gold,,active,2026-0[12]-01,$/);
    const directory = (await run('Contact directory')).csv.split('\n');
    expect(directory[0]).toBe('ContactId,Kind,Name,FirstName,LastName,Email,Phone,DateAdded');
    expect(directory.find((line) => line.startsWith(`${contactIds[0]},`))).toMatch(new RegExp(`^${contactIds[0]},person,Ada Lovelace,Ada,Lovelace,ada@example.org,'=1\\+1,\\d{4}-`));
    expect((await run('Organizations')).csv.split('\n').slice(1, -1).map((line) => line.split(',')[2])).toEqual(['Acme Corp']);
    const history = await run('Membership history', contactIds[0]);
    expect(history.csv.split('\n').slice(1, -1)).toHaveLength(2);
    const missing = await call(acme.staffToken, RUN, { i: { ReportId: await systemReportId('Contact profile') } });
    expect(missing.body.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', errors: [{ field: 'ContactId' }] });
    expect((await call(acme.staffToken, RUN, { i: { ReportId: await systemReportId('Contact profile'), ContactId: 987654 } })).status).toBe(404);
  });

  it('produces the event registrations report with exact amounts, cancelled ones left out', async () => {
    const db = server.orm.em.fork().getConnection();
    const [event] = await db.execute<{ id: number }[]>(
      "INSERT INTO event (tenant_id, name, starts_at, ends_at) VALUES (?, 'Gala, 2026', '2026-06-01T18:00:00Z', '2026-06-01T23:00:00Z') RETURNING id", [acme.id]);
    const [type] = await db.execute<{ id: number }[]>(
      "INSERT INTO event_registration_type (tenant_id, event_id, name, price, session_ids) VALUES (?, ?, 'Early bird', 0.10, '[]') RETURNING id", [acme.id, event.id]);
    const [order] = await db.execute<{ id: number }[]>(
      "INSERT INTO event_registration_order (tenant_id, event_id, billing_contact_id, idempotency_key, total) VALUES (?, ?, ?, 'k1', 0.30) RETURNING id", [acme.id, event.id, contactIds[0]]);
    const registration = (contactId: number, status: string, amount: string) => db.execute<{ id: number }[]>(
      'INSERT INTO event_registration (tenant_id, event_id, order_id, contact_id, registration_type_id, status, amount) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id',
      [acme.id, event.id, order.id, contactId, type.id, status, amount]);
    const [first] = await registration(contactIds[0], 'registered', '0.10');
    const [second] = await registration(contactIds[1], 'registered', '1234567.20');
    await registration(contactIds[2], 'cancelled', '0.10');

    const lines = (await run('Event registrations')).csv.split('\n');
    expect(lines[0]).toBe('RegistrationId,EventId,EventName,EventStartsAt,ContactId,ContactName,Email,RegistrationType,Status,Amount,DateRegistered');
    expect(lines.slice(1, -1).map((line) => line.replace(/,\d{4}-[^,]+Z$/, ''))).toEqual([
      `${first.id},${event.id},"Gala, 2026",2026-06-01T18:00:00.000Z,${contactIds[0]},Ada Lovelace,ada@example.org,Early bird,registered,0.10`,
      `${second.id},${event.id},"Gala, 2026",2026-06-01T18:00:00.000Z,${contactIds[1]},"Bo, ""the"" Builder Brown",bo@example.org,Early bird,registered,1234567.20`,
    ]);
    expect((await run('Event history', contactIds[2])).csv.split('\n').slice(1, -1)).toEqual([expect.stringContaining(',cancelled,0.10,')]);
  });

  it('runs a custom report; deleting the report deletes its runs and releases their files', async () => {
    const custom = await addReport({ Name: 'Everyone', ReportTypeId: 'contacts' });
    const started = await call(acme.staffToken, RUN, { i: { ReportId: custom.ReportId } });
    const runId = started.body.data.runReport.ReportRunId as number;
    const status = await completed(runId);
    expect(status.RowsWritten).toBeGreaterThanOrEqual(3);
    expect((await rest(server, 'DELETE', `/api/reporting/${custom.ReportId}/1`, { token: acme.staffToken })).status).toBe(200);
    expect((await call(acme.staffToken, STATUS, { id: runId })).status).toBe(404);
    const [file] = await server.orm.em.fork().execute<{ n: number }[]>('SELECT count(*)::int AS n FROM stored_file WHERE id = ?', [status.FileId]);
    expect(file.n).toBe(0);
  });

  it('writes a large report to storage in pieces and streams it back whole', async () => {
    const big = await createTestTenant(server, 'bigreport');
    const db = server.orm.em.fork().getConnection();
    await db.execute(`INSERT INTO contact (tenant_id, kind, first_name, last_name, email, created_at, updated_at)
      SELECT ?, 'person', 'Person' || n, 'Many', 'person' || n || '@big.example', now(), now() FROM generate_series(1, 6000) n`, [big.id]);
    // Produced here in batches of 500 (the test server's worker reads 2 rows a batch): stored as already given its job, so the worker leaves it alone.
    const [{ id: runId }] = await db.execute<{ id: number }[]>(
      'INSERT INTO report_run (tenant_id, report_id, enqueued_at) VALUES (?, ?, now()) RETURNING id', [big.id, await systemReportId('Contact directory', big)]);
    await runReportJob(server.orm, { runId, tenantId: big.id }, { id: 'big', retryCount: 0, retryLimit: 3 }, 500);
    const finished = await completed(runId, big.staffToken);
    expect(finished).toMatchObject({ State: 'completed', RowsWritten: 6002 }); // and the contacts of the tenant's two logins
    const [pieces] = await db.execute<{ n: number }[]>(
      'SELECT count(*)::int AS n FROM file_content_chunk k JOIN stored_file f ON f.content_id = k.content_id WHERE f.id = ?', [finished.FileId]);
    expect(pieces.n).toBeGreaterThan(1);
    const csv = await download(runId, big.staffToken);
    const lines = csv.trimEnd().split('\n');
    expect(lines).toHaveLength(1 + 6002);
    expect(new Set(lines.flatMap((line) => /person(\d+)@big/.exec(line)?.[1] ?? [])).size).toBe(6000);
  });

  it('shows the runs of a private report only to its creator', async () => {
    const mine = await addReport({ Name: 'Mine only', ReportTypeId: 'memberships', IsPrivateForUser: true });
    const started = await call(acme.staffToken, RUN, { i: { ReportId: mine.ReportId } });
    const runId = started.body.data.runReport.ReportRunId as number;
    expect((await completed(runId)).State).toBe('completed');
    expect((await call(colleagueToken, STATUS, { id: runId })).status).toBe(404);
    expect((await call(colleagueToken, CSV, { id: runId })).status).toBe(404);
    expect((await rest(server, 'GET', `/api/reporting/runs/${runId}/csv`, { token: colleagueToken })).status).toBe(404);
    expect(await download(runId)).toContain('Ada Lovelace');
  });

  it('answers 409 for the CSV of a run not completed, and a job that runs again changes nothing', async () => {
    const { runId } = await run('Organizations');
    const db = server.orm.em.fork().getConnection();
    const before = await db.execute('SELECT state, file_id, rows_written, finished_at FROM report_run WHERE id = ?', [runId]);
    await runReportJob(server.orm, { runId, tenantId: acme.id }, { id: 'again', retryCount: 0, retryLimit: 3 });
    expect(await db.execute('SELECT state, file_id, rows_written, finished_at FROM report_run WHERE id = ?', [runId])).toEqual(before);

    // A run cut off while running (a restart) is produced again by its retried job.
    await db.execute("UPDATE report_run SET state = 'running', file_id = NULL, progress = 40 WHERE id = ?", [runId]);
    expect((await call(acme.staffToken, CSV, { id: runId })).status).toBe(409);
    expect((await rest(server, 'GET', `/api/reporting/runs/${runId}/csv`, { token: acme.staffToken })).status).toBe(409);
    await runReportJob(server.orm, { runId, tenantId: acme.id }, { id: 'retry', retryCount: 1, retryLimit: 3 });
    expect((await completed(runId)).State).toBe('completed');
    expect(await download(runId)).toContain('Acme Corp');
  });

  it('queues a run stored while no worker ran once a worker starts', async () => {
    const quiet = await startTestServer();
    try {
      const tenant = await createTestTenant(quiet, 'reports-quiet');
      const reports = await rest(quiet, 'POST', '/api/reporting', { token: tenant.staffToken, body: { Filter: 'directory' } });
      const started = await graphql(quiet, RUN, { i: { ReportId: reports.body.Results[0].ReportId } }, tenant.staffToken);
      const runId = started.body.data.runReport.ReportRunId as number;
      const { startJobs } = await import('../src/core/runtime/jobs.js');
      const { createLogger } = await import('../src/core/runtime/logger.js');
      const boss = await startJobs({ url: quiet.databaseUrl, orm: quiet.orm, log: createLogger(quiet.config), jobs: reportRunJobs({ pumpEveryMs: 100 }), worker: true });
      try {
        let state = '';
        for (const deadline = Date.now() + 20_000; state !== 'completed' && Date.now() < deadline;) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          state = (await graphql(quiet, STATUS, { id: runId }, tenant.staffToken)).body.data.reportRun.State as string;
        }
        expect(state).toBe('completed');
      } finally {
        await boss.stop({ graceful: false, timeout: 2000 });
      }
    } finally {
      await quiet.close();
    }
  });
});

describe('reporting over GraphQL', () => {
  it('serves every operation', async () => {
    const added = await call(acme.staffToken, 'mutation { addReport(input: { Name: "Over GraphQL", IsPrivateForUser: true }) { ReportId AuditId IsPrivateForUser } }');
    const reportId = added.body.data.addReport.ReportId as number;
    expect((await call(acme.staffToken, '{ reports(filter: { Filter: "over graphql" }) { TotalRecordAvailable Results { ReportId } } }')).body.data.reports)
      .toEqual({ TotalRecordAvailable: '1', Results: [{ ReportId: reportId }] });
    expect((await call(acme.staffToken, '{ reports(category: "membership", filter: { Take: "1", IsCustom: false }) { TotalRecordAvailable } }')).body.data.reports.TotalRecordAvailable).toBe('4');
    expect((await call(acme.staffToken, '{ tenantReports(text: "over graphql") { Id Name } }')).body.data.tenantReports).toEqual([{ Id: reportId, Name: 'Over GraphQL' }]);
    await call(acme.staffToken, `mutation { setReportFavorite(reportId: ${reportId}, isFavorite: true) }`);
    expect((await call(acme.staffToken, '{ reportFavorites { TotalRecordAvailable Items { ReportId } } }')).body.data.reportFavorites)
      .toEqual({ TotalRecordAvailable: '1', Items: [{ ReportId: reportId }] });
    const em = server.orm.em.fork();
    const contact = em.create(Contact, { tenant: acme.id, kind: 'person', firstName: 'Gina' });
    await em.flush();
    expect((await call(acme.staffToken, `{ contactReports(contactId: "${contact.id}") { ContactId ReportsList { Name } } }`)).body.data.contactReports.ReportsList).toHaveLength(3);
    const list = await call(acme.staffToken, `{ contactReportList(contactId: "${contact.id}", category: "Contacts", parameters: { a: 1 }) { Name } }`);
    expect(list.body).toEqual({ data: { contactReportList: [{ Name: 'Contact profile' }] } });
    expect((await call(acme.staffToken, `mutation { deleteReport(reportId: ${reportId}, auditId: 1) }`)).body.data).toEqual({ deleteReport: reportId });
    expect((await call(acme.memberToken, '{ reportFavorites { TotalRecordAvailable } }')).status).toBe(403);
  });
});
