import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pg from 'pg';
import { pino } from 'pino';
import { buildApp } from '../src/app.js';
import { addDays, addMonths, monthStart, todayUtc } from '../src/core/dates.js';
import { SecretBox } from '../src/core/runtime/secrets.js';
import { SaleableItem } from '../src/entities/commerce.js';
import { Contact } from '../src/entities/contact.js';
import { Membership, MembershipType } from '../src/entities/membership.js';
import { gatewaySecretContext } from '../src/services/billing/gateway-accounts.js';
import { scheduledBillingJobs } from '../src/services/billing/scheduled-billing.js';
import { createTestTenant, graphql, rest, startTestServer, type TestServer, type TestTenant } from './support/harness.js';
import { waitFor } from './support/processes.js';

// Issue 34 parts 3 and 4: billing schedules kept by staff, picked up by the billing runs, whose
// membership changes are made when the invoice is paid (renewals as new terms, counted by the
// dashboards); payment gateway accounts with a write-only, encrypted credential. Over REST and
// GraphQL against a real PostgreSQL, with the billing jobs running in this server.
const GATEWAY_SECRET_KEY = Buffer.alloc(32, 7).toString('base64');
const SB = '/api/scheduledbilling/membershiptype';
const SCHEDULES = '/api/scheduledbilling/schedules';
const ACCOUNTS = '/api/paymentgateway/gatewayaccounts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ DATABASE_POOL_MAX: '20', GATEWAY_SECRET_KEY }, { jobs: scheduledBillingJobs({ pollingIntervalSeconds: 0.5, retryDelaySeconds: 1 }) });
}, 60_000);
afterAll(() => server.close());

async function sql<T>(query: string, params: unknown[] = []): Promise<T[]> {
  return server.orm.em.fork().getConnection().execute<T[]>(query, params);
}

/** Runs billing for `body` over REST and waits until every run of the tenant has finished. */
async function runBilling(tenant: TestTenant, body: object): Promise<void> {
  expect((await rest(server, 'POST', `${SB}/items/run`, { token: tenant.staffToken, body })).status).toBe(200);
  await waitFor('the runs to finish', async () => {
    const history = await rest(server, 'GET', `${SB}/run/history`, { token: tenant.staffToken });
    return history.body.HistoryItems.every((item: { State: string }) => item.State === 'completed' || item.State === 'failed');
  }, Boolean, 30_000, 100);
}

const PAY = 'mutation($id: Int!, $amount: Float!) { payInvoice(invoiceId: $id, input: { Amount: $amount, Method: "card" }) { Status } }';
const pay = (tenant: TestTenant, invoiceId: number, amount: number) => graphql(server, PAY, { id: invoiceId, amount }, tenant.staffToken);

interface Term { contact_id: number; start: string; end: string | null; status: string; type_id: number }
const terms = (tenantId: number) => sql<Term>(
  `SELECT contact_id, to_char(start_date, 'YYYY-MM-DD') AS start, to_char(end_date, 'YYYY-MM-DD') AS end, status, membership_type_id AS type_id
   FROM membership WHERE tenant_id = ? ORDER BY contact_id, start_date, id`, [tenantId]);

interface Fixture { tenant: TestTenant; typeId: number; itemId: number }

/** A tenant with a membership type and a dues item (created as the existing billing tests do: the membership operations are another helper's). */
async function fixture(key: string): Promise<Fixture> {
  const tenant = await createTestTenant(server, key);
  const em = server.orm.em.fork();
  const type = em.create(MembershipType, { tenant: tenant.id, name: 'Individual' });
  const item = em.create(SaleableItem, { tenant: tenant.id, name: 'Dues', itemType: 'membership', price: '120.50' });
  await em.flush();
  return { tenant, typeId: type.id, itemId: item.id };
}

/** A member with one active term of the fixture's type; answers the contact and the term. */
async function member(f: Fixture, name: string, start: string, end: string | null): Promise<{ contactId: number; membershipId: number }> {
  const em = server.orm.em.fork();
  const contact = em.create(Contact, { tenant: f.tenant.id, kind: 'person', firstName: name, lastName: 'Member' });
  const membership = em.create(Membership, { tenant: f.tenant.id, contact, membershipType: f.typeId, startDate: start, endDate: end, status: 'active' });
  await em.flush();
  return { contactId: contact.id, membershipId: membership.id };
}

const scheduleInput = (f: Fixture, contactId: number, membershipId: number | null, overrides: object = {}) => ({
  ContactId: contactId, MembershipId: membershipId, SaleableItemId: f.itemId, Description: 'Annual dues', Amount: 120.5, FrequencyMonths: 12,
  StartDate: '2025-01-01', NextBillDate: '2026-01-01', PaymentProfile: 'pm_1Nx9', Tags: ['Dues'], ...overrides,
});

const SCHEDULE_FIELDS = 'ScheduledBillingId ContactId MembershipId SaleableItemId Description Amount FrequencyMonths StartDate NextBillDate Status HasProfile Tags AuditId';

// ---------------------------------------------------------------------------------------------

describe('billing schedules: save, read, pause, end, delete', () => {
  let f: Fixture;
  let contactId: number;
  let membershipId: number;

  beforeAll(async () => {
    f = await fixture('schedules-crud');
    ({ contactId, membershipId } = await member(f, 'Crud', '2025-01-01', '2025-12-31'));
  });

  it('creates over REST, reads and updates over GraphQL, with AuditId; the profile is never shown', async () => {
    const created = await rest(server, 'POST', `${SCHEDULES}/0`, { token: f.tenant.staffToken, body: scheduleInput(f, contactId, membershipId) });
    expect(created.status).toBe(200);
    const id = created.body.ScheduledBillingId as number;
    expect(created.body).toMatchObject({
      ContactId: contactId, MembershipId: membershipId, MembershipTypeId: f.typeId, SaleableItemId: f.itemId, Description: 'Annual dues', Amount: 120.5,
      FrequencyMonths: 12, StartDate: '2025-01-01', NextBillDate: '2026-01-01', Status: 'active', HasProfile: true, Tags: ['dues'], AuditId: 1,
    });
    expect(JSON.stringify(created.body)).not.toContain('pm_1Nx9');
    expect((await rest(server, 'GET', `${SCHEDULES}/${id}`, { token: f.tenant.staffToken })).body).toEqual(created.body);

    const SAVE = `mutation($id: Int!, $input: BillingScheduleInput!) { saveBillingSchedule(scheduledBillingId: $id, input: $input) { ${SCHEDULE_FIELDS} } }`;
    const updated = await graphql(server, SAVE, { id, input: scheduleInput(f, contactId, membershipId, { Amount: 99.99, PaymentProfile: '', AuditId: 1 }) }, f.tenant.staffToken);
    expect(updated.body.data?.saveBillingSchedule).toMatchObject({ Amount: 99.99, HasProfile: false, AuditId: 2 });
    const stale = await graphql(server, SAVE, { id, input: scheduleInput(f, contactId, membershipId, { AuditId: 1 }) }, f.tenant.staffToken);
    expect(stale.status).toBe(409);
    const read = await graphql(server, `query($id: Int!) { billingSchedule(scheduledBillingId: $id) { ${SCHEDULE_FIELDS} } }`, { id }, f.tenant.staffToken);
    expect(read.body.data?.billingSchedule).toEqual(updated.body.data?.saveBillingSchedule);
    // The list is the documented one.
    const listed = await rest(server, 'POST', `${SB}/items`, { token: f.tenant.staffToken, body: { DescriptionEquals: 'annual dues' } });
    expect(listed.body.Results.map((item: { ScheduledBillingId: number }) => item.ScheduledBillingId)).toEqual([id]);
  });

  it.each([
    [{ ContactId: 999999 }, 'ContactId'],
    [{ MembershipId: 999999 }, 'MembershipId'],
    [{ SaleableItemId: 999999 }, 'SaleableItemId'],
    [{ Amount: 0 }, 'Amount'],
    [{ Amount: 1.005 }, 'Amount'],
    [{ NextBillDate: '2024-12-31' }, 'NextBillDate'],
    [{ StartDate: '2025-02-30' }, 'StartDate'],
    [{ Status: 'deleted' }, 'Status'],
    [{ PaymentProfile: '4111 1111 1111 1111' }, 'PaymentProfile'],
    [{ PaymentProfile: 'tok 1' }, 'PaymentProfile'],
    [{ EventId: 999999 }, 'EventId'],
    [{ CategoryItemId: 999999 }, 'CategoryItemId'],
    [{ Description: '  ' }, 'Description'],
  ])('refuses %j naming %s (400 problem+json)', async (overrides, field) => {
    const response = await rest(server, 'POST', `${SCHEDULES}/0`, { token: f.tenant.staffToken, body: scheduleInput(f, contactId, membershipId, overrides) });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
  });

  it('refuses a membership of another contact, and another tenant\'s schedule is not found', async () => {
    const other = await member(f, 'Other', '2025-01-01', '2025-12-31');
    const response = await rest(server, 'POST', `${SCHEDULES}/0`, { token: f.tenant.staffToken, body: scheduleInput(f, contactId, other.membershipId) });
    expect(response.body.errors.map((error: { field: string }) => error.field)).toContain('MembershipId');
    const mine = await rest(server, 'POST', `${SCHEDULES}/0`, { token: f.tenant.staffToken, body: scheduleInput(f, contactId, membershipId) });
    const stranger = await createTestTenant(server, 'schedules-stranger');
    expect((await rest(server, 'GET', `${SCHEDULES}/${mine.body.ScheduledBillingId}`, { token: stranger.staffToken })).status).toBe(404);
    expect((await rest(server, 'DELETE', `${SCHEDULES}/${mine.body.ScheduledBillingId}`, { token: stranger.staffToken })).status).toBe(404);
    expect((await rest(server, 'GET', `${SCHEDULES}/${mine.body.ScheduledBillingId}`, { token: f.tenant.memberToken })).status).toBe(403);
  });

  it('runs bill active schedules only: paused and ended ones are skipped, a resumed one is billed, an ended one stays ended', async () => {
    const save = (id: number, overrides: object) => rest(server, 'POST', `${SCHEDULES}/${id}`, {
      token: f.tenant.staffToken, body: scheduleInput(f, contactId, null, { Description: 'Pause test', NextBillDate: '2030-01-01', ...overrides }),
    });
    const paused = (await save(0, { Status: 'paused' })).body;
    const ended = (await save(0, { Status: 'ended' })).body;
    expect([paused.Status, ended.Status]).toEqual(['paused', 'ended']);
    const run = { CurrentAdvancedFilter: { NextBillDate: '2030-01-01', DescriptionEquals: 'Pause test' } };
    const preview = await rest(server, 'POST', `${SB}/items/run/setup`, { token: f.tenant.staffToken, body: run });
    expect(preview.body.RecordCount).toBe(0);
    await runBilling(f.tenant, run);
    expect(await sql('SELECT id FROM invoice WHERE tenant_id = ? AND source_key LIKE ?', [f.tenant.id, 'scheduled-billing:%:2030-01-01'])).toEqual([]);

    const resumed = await save(paused.ScheduledBillingId, { Status: 'active', AuditId: paused.AuditId });
    expect(resumed.body.Status).toBe('active');
    await runBilling(f.tenant, run);
    const invoices = await sql<{ source_key: string }>('SELECT source_key FROM invoice WHERE tenant_id = ? AND source_key LIKE ?', [f.tenant.id, 'scheduled-billing:%:2030-01-01']);
    expect(invoices).toEqual([{ source_key: `scheduled-billing:${paused.ScheduledBillingId}:2030-01-01` }]);
    const read = await rest(server, 'GET', `${SCHEDULES}/${paused.ScheduledBillingId}`, { token: f.tenant.staffToken });
    expect(read.body).toMatchObject({ NextBillDate: '2031-01-01', AuditId: paused.AuditId + 2 }); // the run moved the version on
    // A save of the version read before the run is refused rather than moving the bill date back.
    expect((await save(paused.ScheduledBillingId, { AuditId: resumed.body.AuditId })).status).toBe(409);

    const revived = await save(ended.ScheduledBillingId, { Status: 'active' });
    expect(revived.status).toBe(409);
    expect((await save(ended.ScheduledBillingId, { Description: 'Pause test, renamed' })).body).toMatchObject({ Status: 'ended', Description: 'Pause test, renamed' });
  }, 60_000);

  it('deletes a schedule never billed (REST and GraphQL), keeps one with run history (409), and refuses a stale AuditId', async () => {
    const create = async () => (await rest(server, 'POST', `${SCHEDULES}/0`, {
      token: f.tenant.staffToken, body: scheduleInput(f, contactId, null, { Description: 'Delete test', NextBillDate: '2031-06-01' }),
    })).body as { ScheduledBillingId: number; AuditId: number };
    const [first, second, billed] = [await create(), await create(), await create()];
    expect((await rest(server, 'DELETE', `${SCHEDULES}/${first.ScheduledBillingId}?auditId=7`, { token: f.tenant.staffToken })).status).toBe(409);
    const deleted = await rest(server, 'DELETE', `${SCHEDULES}/${first.ScheduledBillingId}?auditId=${first.AuditId}`, { token: f.tenant.staffToken });
    expect({ status: deleted.status, body: deleted.body }).toEqual({ status: 200, body: first.ScheduledBillingId });
    expect((await rest(server, 'GET', `${SCHEDULES}/${first.ScheduledBillingId}`, { token: f.tenant.staffToken })).status).toBe(404);
    const DELETE = 'mutation($id: Int!) { deleteBillingSchedule(scheduledBillingId: $id) }';
    expect((await graphql(server, DELETE, { id: second.ScheduledBillingId }, f.tenant.staffToken)).body.data).toEqual({ deleteBillingSchedule: second.ScheduledBillingId });

    await runBilling(f.tenant, { CurrentAdvancedFilter: { NextBillDate: '2031-06-01', DescriptionEquals: 'Delete test' } });
    const refused = await graphql(server, DELETE, { id: billed.ScheduledBillingId }, f.tenant.staffToken);
    expect(refused.status).toBe(409);
    expect((await rest(server, 'GET', `${SCHEDULES}/${billed.ScheduledBillingId}`, { token: f.tenant.staffToken })).status).toBe(200);
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------

describe('billing runs: membership changes are made when the invoice is paid', () => {
  it('schedule → run → invoice → payment → a new active term → counted as renewed on the dashboard, once however often the payment is retried', async () => {
    const f = await fixture('schedules-chain');
    const today = todayUtc();
    const thisMonth = monthStart(today);
    const { contactId, membershipId } = await member(f, 'Chain', addMonths(thisMonth, -12), addDays(thisMonth, -1));
    const created = await graphql(server, 'mutation($input: BillingScheduleInput!) { saveBillingSchedule(scheduledBillingId: 0, input: $input) { ScheduledBillingId } }',
      { input: scheduleInput(f, contactId, membershipId, { StartDate: addMonths(thisMonth, -12), NextBillDate: thisMonth }) }, f.tenant.staffToken);
    const scheduleId = created.body.data!.saveBillingSchedule.ScheduledBillingId as number;
    const renewed = async () => {
      const chart = await rest(server, 'GET', '/api/summary/renewedmemberships', { token: f.tenant.staffToken });
      expect(chart.status).toBe(200);
      return chart.body.data.find((point: { Label: string }) => point.Label === today.slice(0, 7)).Values[0] as number;
    };
    expect(await renewed()).toBe(0);

    await runBilling(f.tenant, { CurrentAdvancedFilter: { NextBillDate: today }, MembershipTypeId: f.typeId, ChangeCurrentMembership: true });
    const [invoice] = await sql<{ id: number; source_key: string }>('SELECT id, source_key FROM invoice WHERE tenant_id = ?', [f.tenant.id]);
    expect(invoice.source_key).toBe(`scheduled-billing:${scheduleId}:${thisMonth}`);
    // Raised, not paid: nothing changed yet.
    expect(await terms(f.tenant.id)).toHaveLength(1);
    const ITEMS = '{ scheduledBillingRunHistory { HistoryItems { SystemJobId } } }';
    const [run] = (await graphql(server, ITEMS, {}, f.tenant.staffToken)).body.data!.scheduledBillingRunHistory.HistoryItems;
    const items = () => graphql(server, 'query($id: Int!) { scheduledBillingRunItems(systemJobId: $id) { Outcome MembershipChange MembershipChangedAt } }', { id: run.SystemJobId }, f.tenant.staffToken);
    expect((await items()).body.data!.scheduledBillingRunItems).toEqual([{ Outcome: 'billed', MembershipChange: 'changed', MembershipChangedAt: null }]);
    expect(await renewed()).toBe(0);

    expect((await pay(f.tenant, invoice.id, 100)).body.data).toEqual({ payInvoice: { Status: 'open' } });
    expect(await terms(f.tenant.id)).toHaveLength(1); // part paid: still nothing
    expect((await pay(f.tenant, invoice.id, 20.5)).body.data).toEqual({ payInvoice: { Status: 'paid' } });
    const renewal = { contact_id: contactId, start: thisMonth, end: addDays(addMonths(thisMonth, 12), -1), status: 'active', type_id: f.typeId };
    expect(await terms(f.tenant.id)).toEqual([
      { contact_id: contactId, start: addMonths(thisMonth, -12), end: addDays(thisMonth, -1), status: 'active', type_id: f.typeId }, renewal,
    ]);
    expect((await items()).body.data!.scheduledBillingRunItems[0].MembershipChangedAt).toEqual(expect.any(String));
    const schedule = await rest(server, 'GET', `${SCHEDULES}/${scheduleId}`, { token: f.tenant.staffToken });
    const [newTerm] = await sql<{ id: number }>('SELECT id FROM membership WHERE tenant_id = ? AND start_date = ?', [f.tenant.id, thisMonth]);
    expect(schedule.body).toMatchObject({ MembershipId: newTerm.id, NextBillDate: addMonths(thisMonth, 12) });
    expect(await renewed()).toBe(1);

    // Paid again after a refund, or a retried payment: the change is not made twice.
    expect((await pay(f.tenant, invoice.id, 20.5)).status).toBe(400);
    expect((await pay(f.tenant, invoice.id, -120.5)).body.data).toEqual({ payInvoice: { Status: 'open' } });
    expect((await pay(f.tenant, invoice.id, 120.5)).body.data).toEqual({ payInvoice: { Status: 'paid' } });
    expect(await terms(f.tenant.id)).toHaveLength(2);
    expect(await renewed()).toBe(1);
  }, 60_000);

  it('CreateMembership makes an active term of the billed period, RemoveMembership cancels the current one — on payment', async () => {
    const f = await fixture('schedules-create-remove');
    const { contactId, membershipId } = await member(f, 'Swap', '2025-01-01', null);
    const created = await rest(server, 'POST', `${SCHEDULES}/0`, { token: f.tenant.staffToken, body: scheduleInput(f, contactId, membershipId) });
    await runBilling(f.tenant, { CurrentAdvancedFilter: { NextBillDate: '2026-01-01' }, MembershipTypeId: f.typeId, CreateMembership: true, RemoveMembership: true });
    expect(await terms(f.tenant.id)).toEqual([{ contact_id: contactId, start: '2025-01-01', end: null, status: 'active', type_id: f.typeId }]);
    const [invoice] = await sql<{ id: number }>('SELECT id FROM invoice WHERE tenant_id = ?', [f.tenant.id]);
    await pay(f.tenant, invoice.id, 120.5);
    expect(await terms(f.tenant.id)).toEqual([
      { contact_id: contactId, start: '2025-01-01', end: '2025-12-31', status: 'cancelled', type_id: f.typeId },
      { contact_id: contactId, start: '2026-01-01', end: '2026-12-31', status: 'active', type_id: f.typeId },
    ]);
    const [term] = await sql<{ id: number }>("SELECT id FROM membership WHERE tenant_id = ? AND start_date = '2026-01-01'", [f.tenant.id]);
    expect((await rest(server, 'GET', `${SCHEDULES}/${created.body.ScheduledBillingId}`, { token: f.tenant.staffToken })).body.MembershipId).toBe(term.id);
  }, 60_000);

  it('loses nothing when payments arrive while the billing run raises the next invoices', async () => {
    const f = await fixture('schedules-race');
    const members = await Promise.all(Array.from({ length: 12 }, (_, index) => member(f, `Race${index}`, '2025-01-01', '2025-12-31')));
    const scheduleIds: number[] = [];
    for (const { contactId, membershipId } of members) {
      scheduleIds.push((await rest(server, 'POST', `${SCHEDULES}/0`, { token: f.tenant.staffToken, body: scheduleInput(f, contactId, membershipId) })).body.ScheduledBillingId);
    }
    const renew = (billDate: string) => ({ CurrentAdvancedFilter: { NextBillDate: billDate }, MembershipTypeId: f.typeId, ChangeCurrentMembership: true });
    await runBilling(f.tenant, renew('2026-01-01'));
    const firstInvoices = await sql<{ id: number }>('SELECT id FROM invoice WHERE tenant_id = ? ORDER BY id', [f.tenant.id]);
    expect(firstInvoices).toHaveLength(12);

    // Hold the schedules, so that the next run's billing and the payments of the first invoices queue on the same rows, then let them go together.
    const holder = new pg.Client({ connectionString: server.databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM scheduled_billing WHERE id = ANY($1) FOR UPDATE', [scheduleIds]);
      expect((await rest(server, 'POST', `${SB}/items/run`, { token: f.tenant.staffToken, body: renew('2027-01-01') })).status).toBe(200);
      const payments = firstInvoices.map((invoice) => pay(f.tenant, invoice.id, 120.5));
      // The run's item and at least one payment wait for the held rows.
      await waitFor('the run and the payments to wait for the held schedules', async () => (await sql<{ waiting: number }>(
        "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"))[0].waiting, (waiting) => waiting >= 2, 30_000, 100);
      await holder.query('COMMIT');
      expect((await Promise.all(payments)).map((response) => response.body.data?.payInvoice.Status)).toEqual(Array(12).fill('paid'));
    } finally {
      await holder.end();
    }
    await runBilling(f.tenant, renew('2027-01-01')); // waits for the held run too (a second run of the same period bills nothing)
    const secondInvoices = await sql<{ id: number }>("SELECT id FROM invoice WHERE tenant_id = ? AND source_key LIKE '%:2027-01-01' ORDER BY id", [f.tenant.id]);
    expect(secondInvoices).toHaveLength(12);
    for (const invoice of secondInvoices) expect((await pay(f.tenant, invoice.id, 120.5)).body.data?.payInvoice.Status).toBe('paid');

    // Every member: the first term, then one renewal per paid period, consecutive; each schedule on its latest term, billed up to 2028.
    const rows = await terms(f.tenant.id);
    for (const { contactId } of members) {
      expect(rows.filter((row) => row.contact_id === contactId).map((row) => [row.start, row.end, row.status])).toEqual([
        ['2025-01-01', '2025-12-31', 'active'], ['2026-01-01', '2026-12-31', 'active'], ['2027-01-01', '2027-12-31', 'active'],
      ]);
    }
    const schedules = await sql<{ next: string; start: string }>(
      `SELECT to_char(s.next_bill_date, 'YYYY-MM-DD') AS next, to_char(m.start_date, 'YYYY-MM-DD') AS start
       FROM scheduled_billing s JOIN membership m ON m.id = s.membership_id WHERE s.id IN (?)`, [scheduleIds]);
    expect(schedules).toEqual(Array(12).fill({ next: '2028-01-01', start: '2027-01-01' }));
  }, 90_000);
});

// ---------------------------------------------------------------------------------------------

describe('payment gateway accounts: save, read, list, delete', () => {
  let tenant: TestTenant;
  let captured = '';
  let logged: TestServer;

  beforeAll(async () => {
    tenant = await createTestTenant(server, 'gateway-accounts');
    // A second instance of the service on the same database whose every log line (at trace level) is kept, to show the credential never reaches a log.
    const sink = new Writable({ write(chunk, _encoding, done) { captured += String(chunk); done(); } });
    const app = await buildApp({ config: { ...server.config, LOG_LEVEL: 'trace' }, orm: server.orm, jobs: null, log: pino({ level: 'trace' }, sink) });
    await app.listen('127.0.0.1', 0);
    logged = { ...server, app, baseUrl: `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}` };
  });
  afterAll(() => logged.app.close());

  const SECRET = 'sk_live_51HxVerySecretGatewayKey';
  const input = (overrides: object = {}) => ({ AccountId: 'acct_staff_1', PaymentGatewayTypeId: 1, Name: 'Main account', Secret: SECRET, ...overrides });
  const FIELDS = 'GatewayAccountId AccountId PaymentGatewayTypeId PaymentGatewayTypeName Name ChapterId HasSecret AuditId';

  it('keeps the credential encrypted and write-only: no answer, log or audit entry carries it', async () => {
    const created = await rest(logged, 'POST', `${ACCOUNTS}/0`, { token: tenant.staffToken, body: input() });
    expect(created.status).toBe(200);
    const id = created.body.GatewayAccountId as number;
    expect(created.body).toEqual({
      GatewayAccountId: id, AccountId: 'acct_staff_1', PaymentGatewayTypeId: 1, PaymentGatewayTypeName: 'Stripe', Name: 'Main account', ChapterId: null, HasSecret: true, AuditId: 1,
    });
    const [stored] = await sql<{ secret_encrypted: string }>('SELECT secret_encrypted FROM payment_gateway_account WHERE id = ?', [id]);
    expect(stored.secret_encrypted).not.toContain(SECRET);
    expect(SecretBox.fromKey(GATEWAY_SECRET_KEY)!.open(stored.secret_encrypted, gatewaySecretContext(tenant.id))).toBe(SECRET);
    expect(() => SecretBox.fromKey(GATEWAY_SECRET_KEY)!.open(stored.secret_encrypted, gatewaySecretContext(tenant.id + 1))).toThrow();

    const reads = [
      await rest(logged, 'GET', `${ACCOUNTS}/${id}`, { token: tenant.staffToken }),
      await rest(logged, 'GET', ACCOUNTS, { token: tenant.staffToken }),
      await graphql(logged, `{ paymentGatewayAccounts { ${FIELDS} } }`, {}, tenant.staffToken),
      await graphql(logged, `query($id: Int!) { paymentGatewayAccount(gatewayAccountId: $id) { ${FIELDS} } }`, { id }, tenant.staffToken),
      await rest(logged, 'POST', `${ACCOUNTS}/${id}`, { token: tenant.staffToken, body: input({ ChapterId: 999999 }) }), // refused, secret in the body
      await rest(logged, 'GET', '/api/paymentgateway/paymentgateways/lookup', { token: tenant.staffToken }),
    ];
    expect(reads.map((response) => response.status)).toEqual([200, 200, 200, 200, 400, 200]);
    expect(reads[1].body).toEqual([created.body]);
    expect(reads[2].body.data.paymentGatewayAccounts).toEqual([created.body]);
    expect(reads[3].body.data.paymentGatewayAccount).toEqual(created.body);
    for (const response of reads) expect(JSON.stringify(response.body)).not.toContain(SECRET);
    expect(captured.length).toBeGreaterThan(0);
    expect(captured).not.toContain(SECRET);
    expect(captured).not.toContain(stored.secret_encrypted);
    const audit = await sql<{ entry: string }>("SELECT a::text AS entry FROM audit_entry a WHERE tenant_id = ? AND table_name = 'payment_gateway_account'", [tenant.id]);
    expect(audit.length).toBeGreaterThan(0);
    for (const { entry } of audit) expect(entry).not.toContain(stored.secret_encrypted.split('.')[3]);

    // Absent: unchanged; empty: removed.
    const renamed = await rest(logged, 'POST', `${ACCOUNTS}/${id}`, { token: tenant.staffToken, body: input({ Secret: undefined, Name: 'Renamed', AuditId: 1 }) });
    expect(renamed.body).toMatchObject({ Name: 'Renamed', HasSecret: true, AuditId: 2 });
    const cleared = await graphql(logged, `mutation($id: Int!, $input: PaymentGatewayAccountInput!) { savePaymentGatewayAccount(gatewayAccountId: $id, input: $input) { ${FIELDS} } }`,
      { id, input: input({ Secret: '', AuditId: 2 }) }, tenant.staffToken);
    expect(cleared.body.data?.savePaymentGatewayAccount).toMatchObject({ HasSecret: false, AuditId: 3 });
    expect(await sql('SELECT secret_encrypted FROM payment_gateway_account WHERE id = ?', [id])).toEqual([{ secret_encrypted: null }]);
  });

  it('refuses a credential without GATEWAY_SECRET_KEY, an unknown gateway type, a chapter not of the tenant and a duplicate account (400/409)', async () => {
    const keyless = await buildApp({ config: { ...server.config, GATEWAY_SECRET_KEY: undefined }, orm: server.orm, jobs: null, log: pino({ level: 'silent' }) });
    await keyless.listen('127.0.0.1', 0);
    try {
      const refused = await rest({ ...server, baseUrl: `http://127.0.0.1:${(keyless.server.server.address() as AddressInfo).port}` }, 'POST', `${ACCOUNTS}/0`,
        { token: tenant.staffToken, body: input({ AccountId: 'acct_keyless' }) });
      expect(refused.status).toBe(400);
      expect(refused.body.errors.map((error: { field: string }) => error.field)).toEqual(['Secret']);
    } finally {
      await keyless.close();
    }
    const save = (body: object) => rest(server, 'POST', `${ACCOUNTS}/0`, { token: tenant.staffToken, body });
    expect((await save(input({ AccountId: 'acct_type', PaymentGatewayTypeId: 9 }))).body.errors[0].field).toBe('PaymentGatewayTypeId');
    const stranger = await createTestTenant(server, 'gateway-accounts-stranger');
    const foreign = await rest(server, 'POST', '/api/chapters/0/false', { token: stranger.staffToken, body: { ChapterName: 'Foreign' } });
    expect((await save(input({ AccountId: 'acct_foreign', ChapterId: foreign.body.ChapterId }))).body.errors[0].field).toBe('ChapterId');
    expect((await save(input({ AccountId: 'acct_dup' }))).status).toBe(200);
    expect((await save(input({ AccountId: 'acct_dup' }))).status).toBe(409);
    expect((await rest(server, 'GET', ACCOUNTS, { token: tenant.memberToken })).status).toBe(403);
  });

  it('serves the documented /api/paymentgateway/account reads for an account created here', async () => {
    const created = await rest(server, 'POST', `${ACCOUNTS}/0`, { token: tenant.staffToken, body: input({ AccountId: 'acct_reads', Secret: null }) });
    expect(created.status).toBe(200);
    const statement = await rest(server, 'GET', '/api/paymentgateway/account/monthlystatement?AccountId=acct_reads&PaymentGatewayTypeId=1&Month=1&Year=2026', { token: tenant.staffToken });
    expect(statement.status).toBe(200);
    expect(statement.body).toMatchObject({ AccountId: 'acct_reads', SalesCount: 0, SummaryMonthlyBalance: 0 });
    await graphql(server, 'mutation($input: PaymentGatewayTransactionImportInput!) { importPaymentGatewayTransactions(input: $input) { Imported } }', {
      input: { AccountId: 'acct_reads', PaymentGatewayTypeId: 1, Transactions: [{ TransactionId: 'ch_1', Type: 'sale', Date: '2026-01-05T10:00:00Z', Amount: 40, Fee: 1.5 }] },
    }, tenant.staffToken);
    const transactions = await rest(server, 'GET', '/api/paymentgateway/account/transactions?AccountId=acct_reads&PaymentGatewayTypeId=1&Date=2026-01-05', { token: tenant.staffToken });
    expect(transactions.body.Transactions.map((row: { TransactionId: string; Net: number }) => [row.TransactionId, row.Net])).toEqual([['ch_1', 38.5]]);
    const transfers = await rest(server, 'GET', '/api/paymentgateway/account/transfers?AccountId=acct_reads&PaymentGatewayTypeId=1&Month=1&Year=2026', { token: tenant.staffToken });
    expect(transfers.body).toMatchObject({ AccountId: 'acct_reads', Transfers: [] });
    // The import kept the staff-given name, and moved the version on.
    expect((await rest(server, 'GET', `${ACCOUNTS}/${created.body.GatewayAccountId}`, { token: tenant.staffToken })).body).toMatchObject({ Name: 'Main account', AuditId: 2 });
  });

  it('refuses to delete an account in use by transactions, a chapter or the store settings (409), and deletes an unused one', async () => {
    const create = async (accountId: string) => (await rest(server, 'POST', `${ACCOUNTS}/0`, { token: tenant.staffToken, body: input({ AccountId: accountId }) })).body.GatewayAccountId as number;
    const remove = (id: number) => rest(server, 'DELETE', `${ACCOUNTS}/${id}`, { token: tenant.staffToken });
    const [traded] = await sql<{ id: number }>("SELECT id FROM payment_gateway_account WHERE tenant_id = ? AND account_id = 'acct_reads'", [tenant.id]);
    expect((await remove(traded.id)).status).toBe(409);

    const byChapter = await create('acct_chapter');
    const chapter = await rest(server, 'POST', '/api/chapters/0/false', { token: tenant.staffToken, body: { ChapterName: 'North', PaymentGatewayId: 'acct_chapter', PaymentGatewayType: 'Stripe' } });
    expect(chapter.status).toBe(200);
    expect((await remove(byChapter)).status).toBe(409);
    // A chapter of the tenant may own an account.
    const owned = await rest(server, 'POST', `${ACCOUNTS}/0`, { token: tenant.staffToken, body: input({ AccountId: 'acct_owned', ChapterId: chapter.body.ChapterId }) });
    expect(owned.body.ChapterId).toBe(chapter.body.ChapterId);

    const byStore = await create('acct_store');
    const settings = await rest(server, 'GET', '/api/store/storesettings', { token: tenant.staffToken });
    const stored = await rest(server, 'POST', '/api/store/storesettings', { token: tenant.staffToken, body: { ...settings.body, PaymentGatewayId: String(byStore) } });
    expect(stored.status).toBe(200);
    const refused = await graphql(server, 'mutation($id: Int!) { deletePaymentGatewayAccount(gatewayAccountId: $id) }', { id: byStore }, tenant.staffToken);
    expect(refused.status).toBe(409);

    const unused = owned.body.GatewayAccountId as number;
    expect((await rest(server, 'DELETE', `${ACCOUNTS}/${unused}?auditId=5`, { token: tenant.staffToken })).status).toBe(409);
    const deleted = await graphql(server, 'mutation($id: Int!) { deletePaymentGatewayAccount(gatewayAccountId: $id, auditId: 1) }', { id: unused }, tenant.staffToken);
    expect(deleted.body.data).toEqual({ deletePaymentGatewayAccount: unused });
    expect((await rest(server, 'GET', `${ACCOUNTS}/${unused}`, { token: tenant.staffToken })).status).toBe(404);
  });
});
