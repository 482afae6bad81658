import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { MikroORM } from '@mikro-orm/postgresql';
import { stringify } from 'csv-stringify/sync';
import type { PgBoss } from 'pg-boss';
import { startJobs } from '../src/core/runtime/jobs.js';
import { createLogger } from '../src/core/runtime/logger.js';
import { openOrm } from '../src/db/orm.js';
import { ScheduledBilling } from '../src/entities/billing.js';
import { CategoryItem, CategoryList, CategoryType } from '../src/entities/category-list.js';
import { Event } from '../src/entities/event.js';
import { SaleableItem } from '../src/entities/commerce.js';
import { Contact } from '../src/entities/contact.js';
import { Membership, MembershipLevel, MembershipType } from '../src/entities/membership.js';
import { RUN_QUEUE, scheduledBillingJobs } from '../src/services/billing/scheduled-billing.js';
import {
  createTestTenant, expectExactlyOneSucceeds, expectStatementsIndependentOfPageSize, graphql, rest, startTestServer, type TestServer, type TestTenant,
} from './support/harness.js';
import { stoppedBetween } from './support/races.js';

// Scheduled billing, payment gateway statements and payment plans, over REST and GraphQL against
// a real PostgreSQL, with the billing jobs running in this server (and, for the two-instance
// test, in a second worker on the same database).
let server: TestServer;
const extraBosses: PgBoss[] = [];
const extraOrms: MikroORM[] = [];
const JOBS = scheduledBillingJobs({ pollingIntervalSeconds: 0.5, retryDelaySeconds: 1 });

beforeAll(async () => {
  server = await startTestServer({ DATABASE_POOL_MAX: '20' }, { jobs: JOBS });
}, 60_000);
afterAll(async () => {
  for (const boss of extraBosses) await boss.stop({ graceful: false, timeout: 2000 });
  for (const orm of extraOrms) await orm.close();
  await server.close();
});

const SB = '/api/scheduledbilling/membershiptype';

// ---------------------------------------------------------------------------------------------
// Fixtures

interface Fixture {
  tenant: TestTenant;
  types: number[];
  levels: number[];
  items: number[];
}

/** A tenant with membership types (the first with a level) and saleable items. */
async function fixture(key: string): Promise<Fixture> {
  const tenant = await createTestTenant(server, key);
  const em = server.orm.em.fork();
  const individual = em.create(MembershipType, { tenant: tenant.id, name: 'Individual' });
  const corporate = em.create(MembershipType, { tenant: tenant.id, name: 'Corporate' });
  const gold = em.create(MembershipLevel, { tenant: tenant.id, membershipType: individual, name: 'Gold' });
  const silver = em.create(MembershipLevel, { tenant: tenant.id, membershipType: corporate, name: 'Silver' });
  const dues = em.create(SaleableItem, { tenant: tenant.id, name: 'Dues', itemType: 'membership', price: '100.00' });
  const gift = em.create(SaleableItem, { tenant: tenant.id, name: 'Gift', itemType: 'donation', price: '25.00' });
  await em.flush();
  return { tenant, types: [individual.id, corporate.id], levels: [gold.id, silver.id], items: [dues.id, gift.id] };
}

interface ScheduleSeed {
  amount: string;
  description?: string;
  type?: number | null;
  level?: number | null;
  item: number;
  next?: string;
  start?: string;
  status?: 'active' | 'paused' | 'ended';
  profile?: string | null;
  frequency?: number;
  groupId?: number | null;
  categoryItemId?: number | null;
  eventId?: number | null;
  tags?: string[];
  deletedContact?: boolean;
}

/** Schedules, each for a new contact (with a membership of `type`, unless null). Answers their ids in order. */
async function seedSchedules(tenantId: number, seeds: ScheduleSeed[]): Promise<number[]> {
  const em = server.orm.em.fork();
  const schedules = seeds.map((seed, index) => {
    const contact = em.create(Contact, { tenant: tenantId, kind: 'person', firstName: `Payer${index}`, lastName: 'Member', deletedAt: seed.deletedContact ? new Date() : null });
    const membership = seed.type === null ? null : em.create(Membership, {
      tenant: tenantId, contact, membershipType: seed.type!, membershipLevel: seed.level ?? null, startDate: '2025-01-01', endDate: '2025-12-31', status: 'active',
    });
    return em.create(ScheduledBilling, {
      tenant: tenantId, contact, membership, saleableItem: seed.item, description: seed.description ?? `Dues ${index}`, amount: seed.amount,
      frequencyMonths: seed.frequency ?? 12, startDate: seed.start ?? '2025-01-01', nextBillDate: seed.next ?? '2026-01-01', status: seed.status ?? 'active',
      paymentProfile: seed.profile ?? null, groupId: seed.groupId ?? null, categoryItemId: seed.categoryItemId ?? null, eventId: seed.eventId ?? null, tags: seed.tags ?? [],
    });
  });
  await em.flush();
  return schedules.map((schedule) => schedule.id);
}

/** A category item and an event a schedule may name (keys since migration 0036). */
async function categoryItemAndEvent(tenantId: number): Promise<{ categoryItemId: number; eventId: number }> {
  const em = server.orm.em.fork();
  const list = em.create(CategoryList, { tenant: tenantId, categoryType: CategoryType.Sales, name: 'Billing categories' });
  const item = em.create(CategoryItem, { tenant: tenantId, list, name: 'Corporate' });
  const event = em.create(Event, { tenant: tenantId, name: 'Gala', startsAt: new Date('2026-05-01T18:00:00Z'), endsAt: new Date('2026-05-01T22:00:00Z') });
  await em.flush();
  return { categoryItemId: item.id, eventId: event.id };
}

async function sql<T>(query: string, params: unknown[] = []): Promise<T[]> {
  return server.orm.em.fork().getConnection().execute<T[]>(query, params);
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Waits until every run of the tenant has finished; answers the history. */
interface RunSummary {
  SystemJobId: number;
  State: string;
  BilledCount: number;
  SkippedCount: number;
  FailedCount: number;
  BilledAmount: number;
  ItemCount: number;
  ProcessedCount: number;
  Progress: number;
}

interface RunItem {
  ScheduledBillingId: number;
  Outcome: string;
  Amount: number;
  PeriodStart: string;
  Reason: string | null;
  MembershipChange: string | null;
}

async function finishedRuns(tenant: TestTenant): Promise<RunSummary[]> {
  let items: any[] = [];
  await eventually(async () => {
    const response = await rest(server, 'GET', `${SB}/run/history`, { token: tenant.staffToken });
    expect(response.status).toBe(200);
    items = response.body.HistoryItems;
    return items.length > 0 && items.every((item) => item.State === 'completed' || item.State === 'failed');
  });
  return items;
}

// ---------------------------------------------------------------------------------------------

describe('scheduled billing: items, every ScheduledBillingFilter field', () => {
  let f: Fixture;
  let s: number[];
  let categoryItemId: number;
  let eventId: number;

  beforeAll(async () => {
    f = await fixture('billing-filters');
    const [individual, corporate] = f.types;
    const [gold] = f.levels;
    const [dues, gift] = f.items;
    ({ categoryItemId, eventId } = await categoryItemAndEvent(f.tenant.id));
    s = await seedSchedules(f.tenant.id, [
      { amount: '100.00', description: 'Annual dues gold', type: individual, level: gold, item: dues, start: '2025-01-01', next: '2026-01-01', profile: 'tok_1', groupId: 7, tags: ['vip'] },
      { amount: '500.00', description: 'Corporate dues', type: corporate, item: dues, start: '2025-06-01', next: '2026-06-01', categoryItemId, tags: ['corp', 'vip'] },
      { amount: '25.00', description: 'Monthly donation', type: individual, item: gift, start: '2024-03-01', next: '2026-02-01', status: 'paused', profile: 'tok_3', eventId, frequency: 1 },
      { amount: '60.50', description: 'Annual dues', type: null, item: gift, start: '2026-01-15', next: '2026-03-01', status: 'ended' },
    ]);
  });

  const ids = async (filter: object): Promise<number[]> => {
    const response = await rest(server, 'POST', `${SB}/items`, { token: f.tenant.staffToken, body: filter });
    expect(response.status).toBe(200);
    expect(response.body.TotalRecordAvailable).toBe(String(response.body.Results.length));
    return response.body.Results.map((item: { ScheduledBillingId: number }) => item.ScheduledBillingId).sort((a: number, b: number) => a - b);
  };

  it('filters by each field (REST)', async () => {
    const [individual, corporate] = f.types;
    const [gold] = f.levels;
    const [, gift] = f.items;
    const pick = (...indexes: number[]) => indexes.map((index) => s[index]);
    const cases: [object, number[]][] = [
      [{}, pick(0, 1, 2, 3)],
      [{ MembershipTypeIds: [individual] }, pick(0, 2)],
      [{ MembershipTypeIds: [individual, corporate] }, pick(0, 1, 2)],
      [{ MembershipTypeId: corporate }, pick(1)],
      [{ MembershipLevelId: gold }, pick(0)],
      [{ SaleableItemId: gift }, pick(2, 3)],
      [{ SaleableItemType: 'donation' }, pick(2, 3)],
      [{ StatusTypeOptions: ['active'] }, pick(0, 1)],
      [{ StatusTypeOptions: ['paused', 'ended'] }, pick(2, 3)],
      [{ AmountBetween: { From: 60.5, To: 100 } }, pick(0, 3)],
      [{ AmountBetween: { From: '100.01' } }, pick(1)],
      [{ DateRange: { Start: '2025-01-01', End: '2025-12-31' } }, pick(0, 1)],
      [{ NextBillDate: '2026-02-01' }, pick(0, 2)],
      [{ DescriptionEquals: 'ANNUAL DUES' }, pick(3)],
      [{ DescriptionLike: 'dues' }, pick(0, 1, 3)],
      [{ GroupId: 7 }, pick(0)],
      [{ CategoryItemId: categoryItemId }, pick(1)],
      [{ EventId: eventId }, pick(2)],
      [{ Tags: ['VIP'] }, pick(0, 1)],
      [{ Tags: ['corp', 'nothing'] }, pick(1)],
      [{ HasProfile: true }, pick(0, 2)],
      [{ HasNoProfile: true }, pick(1, 3)],
      [{ HasNoMembership: true }, pick(3)],
      [{ Filter: 'gold' }, pick(0)],
      [{ Filter: 'payer1' }, pick(1)],
      [{ DescriptionLike: 'dues', StatusTypeOptions: ['active'], HasProfile: true }, pick(0)],
      [{ Criteria: '{"anything":1}' }, pick(0, 1, 2, 3)],
    ];
    for (const [filter, expected] of cases) expect({ filter, ids: await ids(filter) }).toEqual({ filter, ids: expected });
  });

  it('pages, orders and describes the rows, and serves the same list over GraphQL', async () => {
    const page = await rest(server, 'POST', `${SB}/items`, { token: f.tenant.staffToken, body: { Take: 2, Skip: 1, OrderBy: 'Amount desc' } });
    expect(page.body.TotalRecordAvailable).toBe('4');
    expect(page.body.Results.map((row: { Amount: number }) => row.Amount)).toEqual([100, 60.5]);
    expect(page.body.Results[0]).toMatchObject({
      ScheduledBillingId: s[0], ContactName: 'Payer0 Member', MembershipTypeName: 'Individual', MembershipLevelName: 'Gold', SaleableItemName: 'Dues',
      SaleableItemType: 'membership', Description: 'Annual dues gold', NextBillDate: '2026-01-01', Status: 'active', HasProfile: true, GroupId: 7, Tags: ['vip'],
    });
    expect(page.text).not.toContain('tok_1'); // the payment profile itself is never shown
    const response = await graphql<{ scheduledBillingItems: { TotalRecordAvailable: string; Results: { ScheduledBillingId: number }[]; CriteriaItems: { Name: string }[] } }>(server,
      `query($filter: ScheduledBillingFilterInput) { scheduledBillingItems(filter: $filter) { TotalRecordAvailable CriteriaItems { Id Name IsSelected } Results { ScheduledBillingId Amount } } }`,
      { filter: { Tags: ['vip'] } }, f.tenant.staffToken);
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data!.scheduledBillingItems.Results.map((row) => row.ScheduledBillingId).sort((a, b) => a - b)).toEqual([s[0], s[1]]);
    expect(response.body.data!.scheduledBillingItems.CriteriaItems.map((item) => item.Name)).toEqual(['Corporate', 'Individual']);
  });

  it('costs the same statements for 5 rows as for 50', async () => {
    await seedSchedules(f.tenant.id, Array.from({ length: 60 }, (_, index) => ({ amount: '1.00', description: `Bulk ${index}`, type: f.types[index % 2], item: f.items[0], status: 'ended' as const })));
    await expectStatementsIndependentOfPageSize(server, async (take) => {
      const response = await rest(server, 'POST', `${SB}/items`, { token: f.tenant.staffToken, body: { Take: take, DescriptionLike: 'bulk' } });
      expect(response.body.Results).toHaveLength(take);
    }, 12);
  });

  it('exports the filtered set as a CSV download', async () => {
    const response = await rest(server, 'POST', `${SB}/items/export`, { token: f.tenant.staffToken, body: { StatusTypeOptions: ['active', 'paused'], OrderBy: 'Amount' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="scheduled-billing-\d{4}-\d{2}-\d{2}\.csv"/);
    const lines = response.text.trim().split('\r\n');
    expect(lines[0]).toBe('ScheduledBillingId,ContactId,ContactName,MembershipId,MembershipTypeName,MembershipLevelName,SaleableItemName,Description,Amount,FrequencyMonths,StartDate,NextBillDate,Status,HasProfile');
    expect(lines.slice(1).map((line) => line.split(',')[8])).toEqual(['25.00', '100.00', '500.00']);
    const viaGraphql = await graphql<{ scheduledBillingExport: { FileName: string; Content: string } }>(server,
      '{ scheduledBillingExport(filter: { StatusTypeOptions: ["active", "paused"], OrderBy: "Amount" }) { FileName ContentType Content } }', {}, f.tenant.staffToken);
    expect(Buffer.from(viaGraphql.body.data!.scheduledBillingExport.Content, 'base64').toString('utf8')).toBe(response.text);
  });

  it.each([
    [{ NextBillDate: '2026-02-30' }, 'NextBillDate'],
    [{ AmountBetween: { From: 1.001 } }, 'AmountBetween.From'],
    [{ StatusTypeOptions: ['sleeping'] }, 'StatusTypeOptions'],
    [{ MembershipTypeIds: 'x' }, 'MembershipTypeIds'],
    [{ OrderBy: 'Secret' }, 'OrderBy'],
    [{ SaleableItemType: 'spaceship' }, 'SaleableItemType'],
  ])('refuses the filter %j naming %s', async (filter, field) => {
    const response = await rest(server, 'POST', `${SB}/items`, { token: f.tenant.staffToken, body: filter });
    expect(response.status).toBe(400);
    expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
  });
});

describe('scheduled billing: an export of thousands of schedules', () => {
  const COUNT = 2500;
  const AMOUNTS = ['10.00', '25.50', '100.00']; // many ties, so equal amounts straddle the export's pages
  const DESCRIPTIONS = ['Dues, "annual"', '=SUM(A1)', '-minus', 'Plain dues', 'Dues\nsecond line'];
  let f: Fixture;

  beforeAll(async () => {
    f = await fixture('sb-export-large');
    await seedSchedules(f.tenant.id, Array.from({ length: COUNT }, (_, index) => ({
      amount: AMOUNTS[index % AMOUNTS.length], description: `${DESCRIPTIONS[index % DESCRIPTIONS.length]} ${index}`, item: f.items[0],
      type: [f.types[0], f.types[1], null][index % 3], level: index % 3 === 0 ? f.levels[0] : null, profile: index % 2 === 0 ? `tok_${index}` : null,
    })));
  }, 120_000);

  /** The CSV the export built whole before it was streamed (csv-stringify of every row at once, header and CRLF lines). */
  async function expectedCsv(descending: boolean): Promise<string> {
    const rows = await sql<{
      id: number; contact_id: number; membership_id: number | null; amount: string; description: string; payment_profile: string | null;
      first_name: string; type_name: string | null; level_name: string | null;
    }>(
      `SELECT s.id, s.contact_id, s.membership_id, s.amount::text AS amount, s.description, s.payment_profile, c.first_name, t.name AS type_name, l.name AS level_name
       FROM scheduled_billing s JOIN contact c ON c.id = s.contact_id LEFT JOIN membership m ON m.id = s.membership_id
       LEFT JOIN membership_type t ON t.id = m.membership_type_id LEFT JOIN membership_level l ON l.id = m.membership_level_id
       WHERE s.tenant_id = ? ORDER BY s.amount ${descending ? 'DESC' : 'ASC'}, s.id`, [f.tenant.id]);
    expect(rows).toHaveLength(COUNT);
    const safe = (text: string) => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);
    const columns = ['ScheduledBillingId', 'ContactId', 'ContactName', 'MembershipId', 'MembershipTypeName', 'MembershipLevelName', 'SaleableItemName', 'Description',
      'Amount', 'FrequencyMonths', 'StartDate', 'NextBillDate', 'Status', 'HasProfile'];
    return stringify(rows.map((row) => [
      String(row.id), String(row.contact_id), safe(`${row.first_name} Member`), row.membership_id === null ? '' : String(row.membership_id), row.type_name ?? '', row.level_name ?? '',
      'Dues', safe(row.description), row.amount, '12', '2025-01-01', '2026-01-01', 'active', String(row.payment_profile !== null),
    ]), { header: true, columns, record_delimiter: 'windows' });
  }

  it.each([['Amount', false], ['Amount desc', true]] as const)('downloads every row, byte for byte, ordered by %s', async (orderBy, descending) => {
    const response = await rest(server, 'POST', `${SB}/items/export`, { token: f.tenant.staffToken, body: { OrderBy: orderBy } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="scheduled-billing-\d{4}-\d{2}-\d{2}\.csv"/);
    expect(response.headers.get('content-length')).toBeNull(); // sent as it was made, not built whole first
    expect(response.text).toBe(await expectedCsv(descending));
  }, 60_000);

  it('answers the same bytes over GraphQL (whole, base64) and under an Idempotency-Key (kept for its replay)', async () => {
    const expected = await expectedCsv(false);
    const viaGraphql = await graphql<{ scheduledBillingExport: { Content: string } }>(server,
      '{ scheduledBillingExport(filter: { OrderBy: "Amount" }) { Content } }', {}, f.tenant.staffToken);
    expect(Buffer.from(viaGraphql.body.data!.scheduledBillingExport.Content, 'base64').toString('utf8')).toBe(expected);
    const headers = { 'idempotency-key': 'sb-export-large-1' };
    const first = await rest(server, 'POST', `${SB}/items/export`, { token: f.tenant.staffToken, body: { OrderBy: 'Amount' }, headers });
    const replay = await rest(server, 'POST', `${SB}/items/export`, { token: f.tenant.staffToken, body: { OrderBy: 'Amount' }, headers });
    expect([first.text, replay.text, replay.headers.get('idempotent-replayed')]).toEqual([expected, expected, 'true']);
  }, 60_000);
});

describe('scheduled billing: runs', () => {
  it('previews exactly what the run then does: count, total, membership changes, a poison item isolated', async () => {
    const f = await fixture('billing-preview');
    const [individual, corporate] = f.types;
    const [, silver] = f.levels;
    const ids = await seedSchedules(f.tenant.id, [
      { amount: '100.00', type: individual, item: f.items[0] },
      { amount: '33.33', type: individual, item: f.items[0] },
      { amount: '0.10', type: individual, item: f.items[0] },
      { amount: '0.20', type: individual, item: f.items[0] },
      { amount: '12.34', type: individual, item: f.items[0], next: '2025-12-15' },
      { amount: '50.00', type: individual, item: f.items[0], deletedContact: true },
      { amount: '70.00', type: individual, item: f.items[0], next: '2026-06-01' },
      { amount: '80.00', type: individual, item: f.items[0], status: 'paused' },
    ]);
    const run = { CurrentAdvancedFilter: { NextBillDate: '2026-01-01' }, MembershipTypeId: corporate, MembershipLevelId: silver, ChangeCurrentMembership: true };
    const preview = await rest(server, 'POST', `${SB}/items/run/setup`, { token: f.tenant.staffToken, body: run });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ RecordCount: 6, ChangeCurrentMembership: true, MembershipTypeId: corporate, ScheduledBillings: { BillDate: '2026-01-01', TotalAmount: 145.97, MembershipChanges: 5 } });
    const previewItems = preview.body.ScheduledBillings.Items as RunItem[];
    expect(previewItems.map((item) => [item.ScheduledBillingId, item.Outcome])).toEqual([...ids.slice(0, 5).map((id) => [id, 'due']), [ids[5], 'failed']]);
    // The preview changed nothing.
    expect(await sql('SELECT id FROM invoice WHERE tenant_id = ?', [f.tenant.id])).toHaveLength(0);

    const started = await rest(server, 'POST', `${SB}/items/run`, { token: f.tenant.staffToken, body: run });
    expect(started.status).toBe(200);
    expect(started.text).toBe('');
    const [history] = await finishedRuns(f.tenant);
    expect(history).toMatchObject({ State: 'completed', ItemCount: 6, ProcessedCount: 6, Progress: 100, BilledCount: 5, SkippedCount: 0, FailedCount: 1, BilledAmount: 145.97 });

    const outcome = await graphql<{ scheduledBillingRunItems: typeof previewItems }>(server,
      `{ scheduledBillingRunItems(systemJobId: ${history.SystemJobId}) { ScheduledBillingId Outcome Amount PeriodStart Reason MembershipChange InvoiceId } }`, {}, f.tenant.staffToken);
    expect(outcome.body.errors).toBeUndefined();
    const done = outcome.body.data!.scheduledBillingRunItems;
    const project = (item: (typeof previewItems)[number]) => [
      item.ScheduledBillingId, item.Amount, item.PeriodStart, item.Outcome === 'billed' ? 'due' : item.Outcome, item.Reason, item.MembershipChange,
    ];
    expect(done.map(project)).toEqual(previewItems.map(project));
    expect(done[5].Reason).toBe('The contact was deleted.');

    // One invoice per billed item, priced exactly; next bill dates advanced a year; once paid, memberships renewed as Corporate/Silver terms of the period.
    const invoices = await sql<{ source_key: string; total: string }>('SELECT source_key, total::text FROM invoice WHERE tenant_id = ? ORDER BY source_key', [f.tenant.id]);
    expect(invoices.map((invoice) => invoice.source_key).sort()).toEqual(
      [`scheduled-billing:${ids[0]}:2026-01-01`, `scheduled-billing:${ids[1]}:2026-01-01`, `scheduled-billing:${ids[2]}:2026-01-01`, `scheduled-billing:${ids[3]}:2026-01-01`, `scheduled-billing:${ids[4]}:2025-12-15`].sort());
    expect((await sql<{ sum: string }>('SELECT sum(total)::text AS sum FROM invoice WHERE tenant_id = ?', [f.tenant.id]))[0].sum).toBe('145.97');
    expect(await sql('SELECT id FROM membership WHERE tenant_id = ? AND membership_type_id = ?', [f.tenant.id, corporate])).toEqual([]); // raised, not paid
    for (const invoice of await sql<{ id: number; total: string }>('SELECT id, total::text FROM invoice WHERE tenant_id = ?', [f.tenant.id])) {
      const paid = await graphql(server, 'mutation($id: Int!, $amount: Float!) { payInvoice(invoiceId: $id, input: { Amount: $amount, Method: "card" }) { Status } }',
        { id: invoice.id, amount: Number(invoice.total) }, f.tenant.staffToken);
      expect(paid.body.data).toEqual({ payInvoice: { Status: 'paid' } });
    }
    const schedules = await sql<{ id: number; next: string; type: number; level: number | null; end_date: string }>(
      `SELECT s.id, to_char(s.next_bill_date, 'YYYY-MM-DD') AS next, m.membership_type_id AS type, m.membership_level_id AS level, to_char(m.end_date, 'YYYY-MM-DD') AS end_date
       FROM scheduled_billing s JOIN membership m ON m.id = s.membership_id WHERE s.tenant_id = ? ORDER BY s.id`, [f.tenant.id]);
    expect(schedules.slice(0, 5).map((row) => [row.next, row.type, row.level])).toEqual([
      ['2027-01-01', corporate, silver], ['2027-01-01', corporate, silver], ['2027-01-01', corporate, silver], ['2027-01-01', corporate, silver], ['2026-12-15', corporate, silver],
    ]);
    expect(schedules[0].end_date).toBe('2026-12-31');
    expect(schedules.slice(5).map((row) => [row.next, row.type])).toEqual([['2026-01-01', individual], ['2026-06-01', individual], ['2026-01-01', individual]]);

    // Run again: nothing is due any more but the poison item; nothing is billed twice.
    await rest(server, 'POST', `${SB}/items/run`, { token: f.tenant.staffToken, body: run });
    const again = await finishedRuns(f.tenant);
    expect(again).toHaveLength(2);
    expect(again[0]).toMatchObject({ BilledCount: 0, FailedCount: 1, ItemCount: 1 });
    expect(await sql('SELECT id FROM invoice WHERE tenant_id = ?', [f.tenant.id])).toHaveLength(5);
  }, 60_000);

  it('queues the job of a run started under an Idempotency-Key in the request\'s transaction', async () => {
    const f = await fixture('billing-keyed');
    const [scheduleId] = await seedSchedules(f.tenant.id, [{ amount: '10.00', type: f.types[0], item: f.items[0] }]);
    const run = { CurrentAdvancedFilter: { NextBillDate: '2026-01-01' } };
    const runJobsOfTenant = "SELECT count(*)::int AS count FROM pgboss.job WHERE name = ? AND (data->>'tenantId')::int = ?";
    // Stopped after the run's record and its job are written, before the response is stored.
    const { response } = await stoppedBetween(server.databaseUrl, { first: 'scheduled_billing_run_record', second: 'idempotency_record' },
      () => rest(server, 'POST', `${SB}/items/run`, { token: f.tenant.staffToken, body: run, headers: { 'idempotency-key': 'keyed-run' } }),
      async (backend) => {
        const pgBossWrites = await sql<{ relname: string }>(
          "SELECT c.relname FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE l.pid = ? AND l.mode = 'RowExclusiveLock' AND c.relnamespace = 'pgboss'::regnamespace", [backend]);
        expect(pgBossWrites.length).toBeGreaterThan(0); // the job is inserted by the request's own transaction...
        expect(await sql(runJobsOfTenant, [RUN_QUEUE, f.tenant.id])).toEqual([{ count: 0 }]); // ...so no worker sees it before the run commits
      });
    expect(response.status).toBe(200);
    const [history] = await finishedRuns(f.tenant);
    expect(history).toMatchObject({ State: 'completed', ItemCount: 1, BilledCount: 1, BilledAmount: 10 });
    expect(await sql(runJobsOfTenant, [RUN_QUEUE, f.tenant.id])).toEqual([{ count: 1 }]);
    expect(await sql('SELECT source_key FROM invoice WHERE tenant_id = ?', [f.tenant.id])).toEqual([{ source_key: `scheduled-billing:${scheduleId}:2026-01-01` }]);
  }, 60_000);

  it('creates memberships for the billed period, and ends the current one, when the invoice is paid', async () => {
    const f = await fixture('billing-create');
    const [individual] = f.types;
    const ids = await seedSchedules(f.tenant.id, [{ amount: '10.00', type: individual, item: f.items[0] }, { amount: '20.00', type: null, item: f.items[0] }]);
    const run = { CurrentAdvancedFilter: { NextBillDate: '2026-01-01' }, MembershipTypeId: individual, CreateMembership: true, RemoveMembership: true };
    const preview = await rest(server, 'POST', `${SB}/items/run/setup`, { token: f.tenant.staffToken, body: run });
    expect(preview.body.ScheduledBillings.Items.map((item: { Outcome: string; MembershipChange: string | null }) => [item.Outcome, item.MembershipChange]))
      .toEqual([['due', 'removed+created'], ['failed', null]]);
    await rest(server, 'POST', `${SB}/items/run`, { token: f.tenant.staffToken, body: run });
    const [history] = await finishedRuns(f.tenant);
    expect(history).toMatchObject({ BilledCount: 1, FailedCount: 1 });
    const memberships = () => sql<{ status: string; start: string; end: string }>(
      `SELECT status, to_char(start_date, 'YYYY-MM-DD') AS start, to_char(end_date, 'YYYY-MM-DD') AS end FROM membership WHERE tenant_id = ? ORDER BY id`, [f.tenant.id]);
    const current = { status: 'active', start: '2025-01-01', end: '2025-12-31' };
    expect(await memberships()).toEqual([current]); // raised, not paid: nothing changes yet
    const [invoice] = await sql<{ id: number }>('SELECT id FROM invoice WHERE tenant_id = ?', [f.tenant.id]);
    const paid = await graphql(server, 'mutation($id: Int!) { payInvoice(invoiceId: $id, input: { Amount: 10, Method: "cash" }) { Status } }', { id: invoice.id }, f.tenant.staffToken);
    expect(paid.body.data).toEqual({ payInvoice: { Status: 'paid' } });
    expect(await memberships()).toEqual([{ ...current, status: 'cancelled' }, { status: 'active', start: '2026-01-01', end: '2026-12-31' }]);
    const [schedule] = await sql<{ membership_id: number }>('SELECT membership_id FROM scheduled_billing WHERE id = ?', [ids[0]]);
    const [created] = await sql<{ id: number }>("SELECT id FROM membership WHERE tenant_id = ? AND start_date = '2026-01-01'", [f.tenant.id]);
    expect(schedule.membership_id).toBe(created.id);
  }, 60_000);

  it('bills each due item once when the same run is started twice at once', async () => {
    const f = await fixture('billing-double');
    const ids = await seedSchedules(f.tenant.id, Array.from({ length: 30 }, (_, index) => ({ amount: `${index + 1}.01`, type: f.types[0], item: f.items[0] })));
    const run = { CurrentAdvancedFilter: { NextBillDate: '2026-01-01' } };
    const statuses = await Promise.all([1, 2].map(() => rest(server, 'POST', `${SB}/items/run`, { token: f.tenant.staffToken, body: run })));
    expect(statuses.map((response) => response.status)).toEqual([200, 200]);
    const runs = await finishedRuns(f.tenant);
    expect(runs).toHaveLength(2);
    expect(runs.reduce((sum, item) => sum + item.BilledCount, 0)).toBe(30);
    const invoices = await sql<{ source_key: string }>('SELECT source_key FROM invoice WHERE tenant_id = ?', [f.tenant.id]);
    expect(invoices).toHaveLength(30);
    expect(new Set(invoices.map((invoice) => invoice.source_key)).size).toBe(30);
    expect((await sql<{ sum: string }>('SELECT sum(total)::text AS sum FROM invoice WHERE tenant_id = ?', [f.tenant.id]))[0].sum).toBe('465.30');
    const advanced = await sql<{ next: string }>(`SELECT to_char(next_bill_date, 'YYYY-MM-DD') AS next FROM scheduled_billing WHERE id IN (?)`, [ids]);
    expect(new Set(advanced.map((row) => row.next))).toEqual(new Set(['2027-01-01']));
  }, 60_000);

  it('bills each item once with two server instances working the same run (and a duplicated job)', async () => {
    const f = await fixture('billing-two-workers');
    await seedSchedules(f.tenant.id, Array.from({ length: 40 }, (_, index) => ({ amount: '2.50', description: `Two ${index}`, type: f.types[0], item: f.items[0] })));
    // A second instance: its own ORM and pg-boss worker on the same database.
    const orm = await openOrm({ url: server.databaseUrl, poolMax: 10 });
    extraOrms.push(orm);
    const boss = await startJobs({ url: server.databaseUrl, orm, log: createLogger({ LOG_LEVEL: 'silent' }), jobs: JOBS, worker: true });
    extraBosses.push(boss);
    const started = await graphql<{ runScheduledBilling: { SystemJobId: number } }>(server,
      'mutation { runScheduledBilling(input: { CurrentAdvancedFilter: { NextBillDate: "2026-01-01" } }) { SystemJobId State } }', {}, f.tenant.staffToken);
    expect(started.body.errors).toBeUndefined();
    const runId = started.body.data!.runScheduledBilling.SystemJobId;
    // The same run picked up again (as a retried or duplicated job would be), by whichever instance is free.
    await Promise.all([boss.send(RUN_QUEUE, { tenantId: f.tenant.id, runId }), server.boss!.send(RUN_QUEUE, { tenantId: f.tenant.id, runId })]);
    await finishedRuns(f.tenant);
    await eventually(async () => (await sql("SELECT id FROM pgboss.job WHERE name = ? AND state NOT IN ('completed', 'failed')", [RUN_QUEUE])).length === 0);
    const invoices = await sql<{ source_key: string }>('SELECT source_key FROM invoice WHERE tenant_id = ?', [f.tenant.id]);
    expect(invoices).toHaveLength(40);
    expect(new Set(invoices.map((invoice) => invoice.source_key)).size).toBe(40);
    const [history] = await finishedRuns(f.tenant);
    expect(history).toMatchObject({ State: 'completed', ItemCount: 40, ProcessedCount: 40, BilledCount: 40, BilledAmount: 100 });
    expect(await sql('SELECT id FROM scheduled_billing_run_item WHERE run_id = ?', [runId])).toHaveLength(40);
  }, 60_000);

  it('lists the run history, and prepares a run\'s results as a downloadable file', async () => {
    const f = await fixture('billing-history');
    await seedSchedules(f.tenant.id, [{ amount: '9.99', description: '=HYPERLINK("x")', type: f.types[0], item: f.items[0] }]);
    await rest(server, 'POST', `${SB}/items/run`, { token: f.tenant.staffToken, body: { CurrentAdvancedFilter: { NextBillDate: '2026-01-01' } } });
    const [run] = await finishedRuns(f.tenant);
    const history = await graphql<{ scheduledBillingRunHistory: { HistoryItems: { SystemJobId: number; BilledAmount: number }[] } }>(server,
      '{ scheduledBillingRunHistory { HistoryItems { SystemJobId State BilledAmount Progress } } }', {}, f.tenant.staffToken);
    expect(history.body.data!.scheduledBillingRunHistory.HistoryItems).toEqual([{ SystemJobId: run.SystemJobId, State: 'completed', BilledAmount: 9.99, Progress: 100 }]);

    const pending = await rest(server, 'POST', `${SB}/run/history/download/${run.SystemJobId}`, { token: f.tenant.staffToken });
    expect(pending.status).toBe(200);
    expect(pending.body).toMatchObject({ JobType: 'ScheduledBillingRunResults', BackgroundJobEstimatedSeconds: expect.any(Number), PendingDownloadFileId: expect.any(Number) });
    let file = await rest(server, 'GET', `${SB}/run/history/download/file/${pending.body.PendingDownloadFileId}`, { token: f.tenant.staffToken });
    await eventually(async () => {
      file = await rest(server, 'GET', `${SB}/run/history/download/file/${pending.body.PendingDownloadFileId}`, { token: f.tenant.staffToken });
      if (file.status !== 200) expect(file.status).toBe(409);
      return file.status === 200;
    });
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(file.headers.get('content-disposition')).toContain(`scheduled-billing-run-${run.SystemJobId}.csv`);
    const lines = file.text.trim().split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('\'=HYPERLINK'); // a formula is never written as one
    expect(lines[1]).toContain(',9.99,billed,');
    expect(file.headers.get('content-length')).toBeNull(); // sent from the stored pieces as they are read
    const [stored] = await sql<{ file_id: number | null; content: string | null }>('SELECT file_id, content FROM scheduled_billing_download WHERE id = ?', [pending.body.PendingDownloadFileId]);
    expect(stored).toEqual({ file_id: expect.any(Number), content: null });
    const viaGraphql = await graphql<{ scheduledBillingDownloadFile: { Content: string } }>(server,
      `{ scheduledBillingDownloadFile(pendingDownloadFileId: ${pending.body.PendingDownloadFileId}) { Content } }`, {}, f.tenant.staffToken);
    expect(Buffer.from(viaGraphql.body.data!.scheduledBillingDownloadFile.Content, 'base64').toString('utf8')).toBe(file.text);

    // A download written before its text moved to the file service (migration 0032) is still served from its text.
    const [old] = await sql<{ id: number }>(
      `INSERT INTO scheduled_billing_download (tenant_id, run_id, state, file_name, content) VALUES (?, ?, 'ready', 'old.csv', ?) RETURNING id`,
      [f.tenant.id, run.SystemJobId, 'ScheduledBillingId\r\n1\r\n']);
    const oldFile = await rest(server, 'GET', `${SB}/run/history/download/file/${old.id}`, { token: f.tenant.staffToken });
    expect([oldFile.status, oldFile.text, oldFile.headers.get('content-type')]).toEqual([200, 'ScheduledBillingId\r\n1\r\n', 'text/csv; charset=utf-8']);

    expect((await rest(server, 'POST', `${SB}/run/history/download/999999`, { token: f.tenant.staffToken })).status).toBe(404);
  }, 60_000);

  it.each([
    [{ ChangeCurrentMembership: true }, 'MembershipTypeId'],
    [{ MembershipTypeId: 999999 }, 'MembershipTypeId'],
    [{ CurrentAdvancedFilter: { NextBillDate: '2026-13-01' } }, 'CurrentAdvancedFilter.NextBillDate'],
    [{ CurrentAdvancedFilter: { Take: 0 } }, 'CurrentAdvancedFilter.Take'],
  ])('refuses the run %j naming %s, and starts nothing', async (body, field) => {
    const tenant = await createTestTenant(server, `billing-bad-${Math.random().toString(36).slice(2, 8)}`);
    for (const path of [`${SB}/items/run`, `${SB}/items/run/setup`]) {
      const response = await rest(server, 'POST', path, { token: tenant.staffToken, body });
      expect(response.status).toBe(400);
      expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
    }
    expect((await rest(server, 'GET', `${SB}/run/history`, { token: tenant.staffToken })).body.HistoryItems).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------

describe('payment gateway accounts', () => {
  let tenant: TestTenant;
  const jan = (day: number, time = '12:00:00') => `2026-01-${String(day).padStart(2, '0')}T${time}Z`;
  // A hand-computed month (January 2026) with sales, a refund, a dispute and its reversal, a fee,
  // two payouts and a payout reversal, plus one transaction on each side of the month.
  const transactions = [
    { TransactionId: 'ch_0', Type: 'sale', Date: '2025-12-31T23:59:59Z', Amount: 1, Fee: 0.03 },
    { TransactionId: 'ch_1', Type: 'sale', Date: jan(2), Amount: 100, Fee: 3.2, TransferId: 'po_1' },
    { TransactionId: 'ch_2', Type: 'sale', Date: jan(3), Amount: 50, Fee: 1.75, TransferId: 'po_1' },
    { TransactionId: 'ch_3', Type: 'sale', Date: jan(4, '08:00:00'), Amount: 0.1, Fee: 0, TransferId: 'po_2' },
    { TransactionId: 'ch_4', Type: 'sale', Date: jan(4, '09:00:00'), Amount: 0.2, Fee: 0.01 },
    { TransactionId: 're_1', Type: 'refund', Date: jan(5), Amount: 20, TransferId: 'po_1' },
    { TransactionId: 'dp_1', Type: 'dispute', Date: jan(6), Amount: 50, Fee: 15 },
    { TransactionId: 'dr_1', Type: 'dispute_reversal', Date: jan(20), Amount: 50, Fee: 15 },
    { TransactionId: 'fe_1', Type: 'fee', Date: jan(31, '23:59:59'), Amount: 2 },
    { TransactionId: 'po_1', Type: 'transfer', Date: jan(10), Amount: 125.05 },
    { TransactionId: 'po_2', Type: 'transfer', Date: jan(25), Amount: 0.1 },
    { TransactionId: 'trr_1', Type: 'transfer_reversal', Date: jan(26), Amount: 0.1, TransferId: 'po_2' },
    { TransactionId: 'ch_5', Type: 'sale', Date: '2026-02-01T00:00:00Z', Amount: 999.99, Fee: 29.3 },
  ];
  const IMPORT = 'mutation($input: PaymentGatewayTransactionImportInput!) { importPaymentGatewayTransactions(input: $input) { AccountId Imported AlreadyImported } }';
  const importInput = (items: object[]) => ({ input: { AccountId: 'acct_1', PaymentGatewayTypeId: 1, Name: 'Main', Transactions: items } });

  beforeAll(async () => {
    tenant = await createTestTenant(server, 'billing-gateways');
  });

  it('imports transactions once per gateway transaction id, however often or concurrently sent', async () => {
    const half = transactions.slice(0, 7);
    const first = await graphql(server, IMPORT, importInput(half), tenant.staffToken);
    expect(first.body).toEqual({ data: { importPaymentGatewayTransactions: { AccountId: 'acct_1', Imported: 7, AlreadyImported: 0 } } });
    const concurrent = await Promise.all([1, 2, 3].map(() => graphql(server, IMPORT, importInput(transactions), tenant.staffToken)));
    expect(concurrent.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(concurrent.reduce((sum, response) => sum + response.body.data.importPaymentGatewayTransactions.Imported, 0)).toBe(transactions.length - 7);
    expect(await sql('SELECT id FROM payment_gateway_transaction WHERE tenant_id = ?', [tenant.id])).toHaveLength(transactions.length);
  });

  it('answers the monthly statement from SQL aggregates that reconcile with the hand-computed figures', async () => {
    const expected = {
      AccountId: 'acct_1', PaymentGatewayTypeId: '1', Month: 1, Year: 2026,
      SalesCount: 4, SalesAmount: 150.3, SalesFeesAmount: 4.96,
      RefundCount: 1, RefundAmount: 20, RefundFeesAmount: 0,
      DisputeCount: 1, DisputeAmount: 50, DisputeFeesAmount: 15,
      DisputeReversalCount: 1, DisputeReversalAmount: 50, DisputeReversalFeesReturnedAmount: 15,
      NetActivity: 123.34, TransfersCount: 2, TransfersAmount: 125.15, TransferReversalsAmount: 0.1,
      SummaryNetActivity: 123.34, SummaryLessTransfers: 125.05, SummaryMonthlyBalance: -1.71,
    };
    const viaRest = await rest(server, 'GET', '/api/paymentgateway/account/monthlystatement?AccountId=acct_1&PaymentGatewayTypeId=1&Month=1&Year=2026', { token: tenant.staffToken });
    expect(viaRest.status).toBe(200);
    expect(viaRest.body).toEqual(expected);
    const viaGraphql = await graphql(server, `{ paymentGatewayMonthlyStatement(accountId: "acct_1", paymentGatewayTypeId: 1, month: 1, year: 2026) { ${Object.keys(expected).join(' ')} } }`, {}, tenant.staffToken);
    expect(viaGraphql.body.data.paymentGatewayMonthlyStatement).toEqual(expected);
    // The balance is the month's transactions less transfers, recomputed here from the rows.
    const [check] = await sql<{ balance: string }>(
      "SELECT sum(amount + fee)::text AS balance FROM payment_gateway_transaction WHERE tenant_id = ? AND occurred_at >= '2026-01-01' AND occurred_at < '2026-02-01'", [tenant.id]);
    expect(check.balance).toBe('-1.71');
    const february = await rest(server, 'GET', '/api/paymentgateway/account/monthlystatement?accountid=acct_1&paymentgatewaytypeid=1&month=2&year=2026', { token: tenant.staffToken });
    expect(february.body).toMatchObject({ SalesCount: 1, SalesAmount: 999.99, SalesFeesAmount: 29.3, NetActivity: 970.69, SummaryMonthlyBalance: 970.69 });
  });

  it('lists the month\'s transfers, a transfer\'s transactions, and transactions by date', async () => {
    const transfers = await rest(server, 'GET', '/api/paymentgateway/account/transfers?AccountId=acct_1&PaymentGatewayTypeId=1&Month=1&Year=2026', { token: tenant.staffToken });
    expect(transfers.body).toEqual({
      AccountId: 'acct_1', PaymentGatewayTypeId: '1', Month: 1, Year: 2026,
      Transfers: [
        { TransferId: 'po_1', Date: '2026-01-10T12:00:00.000Z', Amount: 125.05, Reversed: false, TransactionCount: 3 },
        { TransferId: 'po_2', Date: '2026-01-25T12:00:00.000Z', Amount: 0.1, Reversed: true, TransactionCount: 1 },
      ],
    });
    const details = await rest(server, 'GET', '/api/paymentgateway/account/acct_1/transfer/po_1/1/2026-01-10', { token: tenant.staffToken });
    expect(details.status).toBe(200);
    expect(details.body).toMatchObject({ AccountId: 'acct_1', Id: 'po_1', PaymentGatewayTypeId: 1, Date: '2026-01-10', DisAllowPrint: false });
    expect(details.body.Transactions.map((row: { TransactionId: string; Net: number }) => [row.TransactionId, row.Net])).toEqual([['ch_1', 96.8], ['ch_2', 48.25], ['re_1', -20]]);
    const reversed = await graphql(server, '{ paymentGatewayTransferDetails(accountId: "acct_1", id: "po_2", paymentGatewayTypeId: 1, date: "x") { DisAllowPrint Transactions { TransactionId } } }', {}, tenant.staffToken);
    expect(reversed.body.data.paymentGatewayTransferDetails).toEqual({ DisAllowPrint: true, Transactions: [{ TransactionId: 'ch_3' }] });
    expect((await rest(server, 'GET', '/api/paymentgateway/account/acct_1/transfer/ch_1/1/2026-01-10', { token: tenant.staffToken })).status).toBe(404);

    const day = await rest(server, 'GET', '/api/paymentgateway/account/transactions?AccountId=acct_1&PaymentGatewayTypeId=1&Date=2026-01-04', { token: tenant.staffToken });
    expect(day.body.Transactions.map((row: { TransactionId: string; Amount: number; Fee: number }) => [row.TransactionId, row.Amount, row.Fee])).toEqual([['ch_3', 0.1, 0], ['ch_4', 0.2, -0.01]]);
    const month = await graphql(server, '{ paymentGatewayTransactions(accountId: "acct_1", paymentGatewayTypeId: 1, startDate: "2026-01-01", endDate: "2026-01-31") { Transactions { TransactionId } } }', {}, tenant.staffToken);
    expect(month.body.data.paymentGatewayTransactions.Transactions).toHaveLength(11);
    // The last accepted day: its end (10000-01-01) is past what a query can carry; the same rows as any far end.
    const from2026 = (end: string) => rest(server, 'GET', `/api/paymentgateway/account/transactions?AccountId=acct_1&PaymentGatewayTypeId=1&StartDate=2026-01-01&EndDate=${end}`, { token: tenant.staffToken });
    const [untilTheEnd, untilFar] = [await from2026('9999-12-31'), await from2026('2999-12-31')];
    expect({ status: untilTheEnd.status, rows: untilTheEnd.body?.Transactions }).toEqual({ status: 200, rows: untilFar.body.Transactions });
    expect(untilFar.body.Transactions.length).toBeGreaterThan(11);
  });

  it('answers both lookups with the tenant\'s accounts', async () => {
    await graphql(server, IMPORT, { input: { AccountId: 'pp_1', PaymentGatewayTypeId: 4, Name: 'Platform', Transactions: [] } }, tenant.staffToken);
    const all = await rest(server, 'GET', '/api/paymentgateway/paymentgateways/lookup', { token: tenant.staffToken });
    expect(all.body.map((choice: { Name: string }) => choice.Name)).toEqual(['Main (Stripe)', 'Platform (PlatformPay)']);
    expect(JSON.parse(all.body[0].ExtraData)).toEqual({ AccountId: 'acct_1', PaymentGatewayTypeId: 1 });
    const platform = await rest(server, 'GET', '/api/paymentgateway/paymentgateways/platformpaytransactionreport/lookup', { token: tenant.staffToken });
    expect(platform.body.map((choice: { Name: string }) => choice.Name)).toEqual(['Platform (PlatformPay)']);
  });

  it.each([
    ['/api/paymentgateway/account/monthlystatement?AccountId=acct_1&PaymentGatewayTypeId=1&Month=13&Year=2026', 400, 'month'], // the parameter as the document names it
    ['/api/paymentgateway/account/monthlystatement?AccountId=acct_1&PaymentGatewayTypeId=1&Month=1', 400, 'year'],
    ['/api/paymentgateway/account/monthlystatement?AccountId=nope&PaymentGatewayTypeId=1&Month=1&Year=2026', 404, null],
    ['/api/paymentgateway/account/transactions?AccountId=acct_1&PaymentGatewayTypeId=1&StartDate=2026-02-01&EndDate=2026-01-01', 200, null],
    ['/api/paymentgateway/account/transactions?AccountId=acct_1&PaymentGatewayTypeId=1&Date=yesterday', 400, 'date'],
    ['/api/paymentgateway/account/acct_1/transfer/po_1/x/2026-01-10', 400, 'paymentgatewaytypeid'],
  ])('GET %s → %d', async (path, status, field) => {
    const response = await rest(server, 'GET', path, { token: tenant.staffToken });
    expect(response.status).toBe(status);
    if (field) expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
  });

  it.each([
    [{ TransactionId: 'x1', Type: 'sale', Date: jan(1), Amount: 1.001 }, 'Transactions[0].Amount'],
    [{ TransactionId: 'x1', Type: 'sale', Date: jan(1), Amount: -1 }, 'Transactions[0].Amount'],
    [{ TransactionId: 'x1', Type: 'chargeback', Date: jan(1), Amount: 1 }, 'Type'],
    [{ TransactionId: 'x1', Type: 'transfer', Date: jan(1), Amount: 1, Fee: 1 }, 'Transactions[0].Fee'],
    [{ TransactionId: 'x1', Type: 'sale', Date: 'soon', Amount: 1 }, 'Date'],
  ])('refuses the import of %j naming %s', async (item, field) => {
    const response = await graphql(server, IMPORT, importInput([item]), tenant.staffToken);
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body.errors)).toContain(field);
  });
});

// ---------------------------------------------------------------------------------------------

describe('membership type payment plans', () => {
  let f: Fixture;
  const plan = (overrides: object = {}) => ({ Name: 'Three payments', Payments: 3, StartDate: '2026-01-31', EndDate: '2026-12-31', ShowOnApplication: true, SaleableItems: [{ SaleableItemId: f.items[0] }], ...overrides });

  beforeAll(async () => {
    f = await fixture('billing-plans');
  });

  it('saves a plan whose schedule adds up exactly, reads, lists, copies and deletes it over REST and GraphQL', async () => {
    const [individual] = f.types;
    const [gold] = f.levels;
    const base = `/api/membershiptypes/${individual}`;
    const saved = await rest(server, 'POST', `${base}/paymentplan/0`, { token: f.tenant.staffToken, body: plan({ MembershipLevelId: [gold] }) });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ MembershipTypeId: individual, Payments: 3, Name: 'Three payments', Level: 'Gold', Total: 100, ShowOnApplication: true, Actions: ['Edit', 'Delete'] });
    const planId = saved.body.MembershipTypePaymentPlanId;

    const read = await rest(server, 'GET', `${base}/paymentplan/${planId}`, { token: f.tenant.memberToken });
    expect(read.status).toBe(200);
    expect(read.body.PaymentPlanItems).toEqual([
      { PaymentNumber: 1, DueDate: '2026-01-31', Amount: 33.33 }, { PaymentNumber: 2, DueDate: '2026-02-28', Amount: 33.33 }, { PaymentNumber: 3, DueDate: '2026-03-31', Amount: 33.34 },
    ]);
    expect(read.body).toMatchObject({ TenantId: f.tenant.id, MembershipLevelId: [gold], SaleableItems: [{ SaleableItemId: f.items[0], Name: 'Dues', Amount: 100 }] });
    expect(read.body.PaymentPlanEditor.Levels).toEqual([expect.objectContaining({ Id: gold, Name: 'Gold', IsSelected: true })]);

    // Amounts of the plan's own, split into seven: cents that add up to the total exactly.
    const updated = await graphql(server, `mutation($input: PaymentPlanAddEditInput!) { savePaymentPlan(membershipTypeId: ${individual}, membershipTypePaymentPlanId: ${planId}, input: $input) { Total AuditId } }`,
      { input: plan({ Payments: 7, SaleableItems: [{ SaleableItemId: f.items[0], Amount: 0.1 }, { SaleableItemId: f.items[1], Amount: 0.2 }], AuditId: read.body.AuditId }) }, f.tenant.staffToken);
    expect(updated.body.data.savePaymentPlan).toEqual({ Total: 0.3, AuditId: read.body.AuditId + 1 });
    const reread = await graphql(server, `{ paymentPlan(membershipTypeId: ${individual}, membershipTypePaymentPlanId: "${planId}") { PaymentPlanItems { Amount } } }`, {}, f.tenant.staffToken);
    expect(reread.body.data.paymentPlan.PaymentPlanItems.map((item: { Amount: number }) => item.Amount)).toEqual([0.04, 0.04, 0.04, 0.04, 0.04, 0.04, 0.06]);

    const stale = await rest(server, 'POST', `${base}/paymentplan/${planId}`, { token: f.tenant.staffToken, body: plan({ AuditId: read.body.AuditId }) });
    expect(stale.status).toBe(409);

    const copy = await rest(server, 'GET', `${base}/copypaymentplan/${planId}`, { token: f.tenant.staffToken });
    expect(copy.body).toMatchObject({ MembershipTypePaymentPlanId: 0, Name: 'Copy of Three payments', Payments: 7, AuditId: 0 });
    const copied = await rest(server, 'POST', `${base}/paymentplan/0`, { token: f.tenant.staffToken, body: copy.body });
    expect(copied.status).toBe(200);
    expect(copied.body).toMatchObject({ Name: 'Copy of Three payments', Total: 0.3, Level: 'All levels' });

    const listed = await rest(server, 'GET', `${base}/paymentplans`, { token: f.tenant.staffToken });
    expect(listed.body.MembershipTypeId).toBe(individual);
    expect(listed.body.Plans.map((item: { Name: string }) => item.Name)).toEqual(['Copy of Three payments', 'Three payments']);
    const viaGraphql = await graphql(server, `{ paymentPlans(membershipTypeId: ${individual}) { Plans { MembershipTypePaymentPlanId } } }`, {}, f.tenant.memberToken);
    expect(viaGraphql.body.data.paymentPlans.Plans).toHaveLength(2);

    // Another type's path does not reach the plan; deletes: one of many concurrent ones wins.
    expect((await rest(server, 'GET', `/api/membershiptypes/${f.types[1]}/paymentplan/${planId}`, { token: f.tenant.staffToken })).status).toBe(404);
    expect((await rest(server, 'DELETE', `/api/membershiptypes/${f.types[1]}/paymentplan/${planId}`, { token: f.tenant.staffToken })).status).toBe(404);
    await expectExactlyOneSucceeds(Array.from({ length: 10 }, () => () => rest(server, 'DELETE', `${base}/paymentplan/${planId}`, { token: f.tenant.staffToken })));
    const blank = await rest(server, 'GET', `${base}/paymentplan/0`, { token: f.tenant.staffToken });
    expect(blank.body).toMatchObject({ MembershipTypePaymentPlanId: 0, Payments: 1, PaymentPlanItems: [] });
    expect((await rest(server, 'GET', `${base}/paymentplan/abc`, { token: f.tenant.staffToken })).status).toBe(404);
  });

  it.each([
    [{ Payments: 0 }, 'Payments'],
    [{ Payments: 121 }, 'Payments'],
    [{ StartDate: '2026-02-30' }, 'StartDate'],
    [{ EndDate: '2025-12-31' }, 'EndDate'],
    [{ Name: '   ' }, 'Name'],
    [{ SaleableItems: [] }, 'SaleableItems'],
    [{ SaleableItems: [{ SaleableItemId: 999999 }] }, 'SaleableItems[0].SaleableItemId'],
    [{ SaleableItems: [{ SaleableItemId: 1, Amount: 0.001 }] }, 'SaleableItems[0].Amount'],
    [{ MembershipLevelId: [999999] }, 'MembershipLevelId'],
  ])('refuses the plan %j naming %s', async (overrides, field) => {
    const items = (overrides as { SaleableItems?: { SaleableItemId: number }[] }).SaleableItems?.map((item) => (item.SaleableItemId === 1 ? { ...item, SaleableItemId: f.items[0] } : item));
    const body = plan({ ...overrides, ...(items ? { SaleableItems: items } : {}) });
    const response = await rest(server, 'POST', `/api/membershiptypes/${f.types[0]}/paymentplan/0`, { token: f.tenant.staffToken, body });
    expect(response.status).toBe(400);
    expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
  });

  it('answers 404 for an unknown membership type', async () => {
    expect((await rest(server, 'GET', '/api/membershiptypes/999999/paymentplans', { token: f.tenant.staffToken })).status).toBe(404);
    expect((await rest(server, 'POST', '/api/membershiptypes/999999/paymentplan/0', { token: f.tenant.staffToken, body: plan() })).status).toBe(404);
  });
});
