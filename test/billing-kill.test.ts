/**
 * Issue 17: a scheduled billing run is exactly-once when its worker is killed mid-run (SIGKILL)
 * and restarted. The real server runs as its own process (`dist/bundle/main.js`) on this file's
 * database; the run is started over REST, the process is killed once some but not all items are
 * billed, then started again: pg-boss fails the cut-off job after its expiry
 * (BILLING_RUN_EXPIRE_SECONDS, shortened here), retries it, and the run finishes the remaining
 * items. Every due schedule then has exactly one invoice for the period, advanced exactly once,
 * and the invoices add up to the exact expected sum.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import { ScheduledBilling } from '../src/entities/billing.js';
import { SaleableItem } from '../src/entities/commerce.js';
import { Contact } from '../src/entities/contact.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { freePort, startNode } from './support/processes.js';

/** Enough schedules that the run lasts a few seconds, long enough to be cut off in the middle. */
const SCHEDULES = 600;
const MARKER = 'Kill dues';
const SB = '/api/scheduledbilling/membershiptype';
/** The run's expiry in the server process (the default, 900 s, is far too long for a test). */
const EXPIRE_SECONDS = 15;

let database: TestServer;
let child: ChildProcess | null = null;
let port: number;
let env: Record<string, string>;

beforeAll(async () => {
  database = await startTestServer();
  port = await freePort();
  env = { DATABASE_URL: database.databaseUrl, PORT: String(port), LOG_LEVEL: 'error', NODE_ENV: 'development', BILLING_RUN_EXPIRE_SECONDS: String(EXPIRE_SECONDS) };
}, 60_000);

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const closed = exited(child);
    child.kill('SIGKILL');
    await closed;
  }
  await database?.close();
}, 30_000);

function exited(server: ChildProcess): Promise<void> {
  return new Promise((resolve) => server.once('close', () => resolve()));
}

async function startServer(): Promise<string> {
  const started = await startNode('main.js', env, /Bearer (\S+)/);
  child = started.child;
  return /Bearer (\S+)/.exec(started.output())![1];
}

async function sql<T>(query: string, params: unknown[] = []): Promise<T[]> {
  return database.orm.em.fork().getConnection().execute<T[]>(query, params);
}

async function waitFor<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number, everyMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(value)})`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** An exact amount per schedule, in cents: 1.01 to 97.99, varied so a lost or doubled item changes the sum. */
const cents = (index: number) => 100 * ((index % 97) + 1) + ((index * 37) % 99) + 1;
const asMoney = (value: number) => `${Math.floor(value / 100)}.${String(value % 100).padStart(2, '0')}`;

describe('scheduled billing: a worker killed mid-run', () => {
  it('resumes after a restart and bills every due schedule exactly once', async () => {
    const token = await startServer();
    // The server made the demo tenant (its staff token is the one printed); seed its schedules.
    const [tenant] = await sql<{ id: number }>('SELECT id FROM tenant WHERE key = ?', ['demo']);
    const em = database.orm.em.fork();
    const item = em.create(SaleableItem, { tenant: tenant.id, name: `${MARKER} item`, itemType: 'membership', price: '10.00' });
    const schedules = Array.from({ length: SCHEDULES }, (_, index) => em.create(ScheduledBilling, {
      tenant: tenant.id, contact: em.create(Contact, { tenant: tenant.id, kind: 'person', firstName: `Payer${index}`, lastName: 'Killed' }),
      membership: null, saleableItem: item, description: `${MARKER} ${index}`, amount: asMoney(cents(index)), frequencyMonths: 12,
      startDate: '2025-01-01', nextBillDate: '2026-01-01', status: 'active', paymentProfile: null, tags: [],
    }));
    await em.flush();
    const scheduleIds = schedules.map((schedule) => schedule.id);
    const expectedCents = Array.from({ length: SCHEDULES }, (_, index) => cents(index)).reduce((sum, value) => sum + value, 0);

    const started = await fetch(`http://127.0.0.1:${port}${SB}/items/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ CurrentAdvancedFilter: { NextBillDate: '2026-01-01', DescriptionLike: MARKER } }),
    });
    expect(started.status).toBe(200);
    expect(await started.text()).toBe('');
    // The run is the newest in the tenant's history (the demo's own run is older).
    const history = await fetch(`http://127.0.0.1:${port}${SB}/run/history`, { headers: { authorization: `Bearer ${token}` } });
    const [newest] = ((await history.json()) as { HistoryItems: { SystemJobId: number; BillDate: string }[] }).HistoryItems;
    expect(newest?.BillDate).toBe('2026-01-01');
    const runId = newest.SystemJobId;
    const itemCount = async () => Number((await sql<{ count: string }>('SELECT count(*) AS count FROM scheduled_billing_run_item WHERE run_id = ?', [runId]))[0].count);

    // Some items billed (a tenth of them, so the run is well under way), then SIGKILL.
    await waitFor('the run to bill its first items', itemCount, (count) => count >= SCHEDULES / 10, 60_000, 10);
    const killed = exited(child!);
    child!.kill('SIGKILL');
    await killed;
    const billedBeforeKill = await itemCount();
    const invoicesBeforeKill = Number((await sql<{ count: string }>(
      'SELECT count(*) AS count FROM invoice WHERE tenant_id = ? AND source_key IN (?)', [tenant.id, scheduleIds.map((id) => `scheduled-billing:${id}:2026-01-01`)],
    ))[0].count);
    expect(billedBeforeKill).toBeGreaterThan(0);
    expect(billedBeforeKill).toBeLessThan(SCHEDULES); // cut off in the middle
    expect(invoicesBeforeKill).toBe(billedBeforeKill); // each recorded item committed with its invoice, nothing more

    // Restarted on the same database: the cut-off job expires, is retried, and the run finishes.
    const restartedAt = Date.now();
    await startServer();
    await waitFor('the run to resume', itemCount, (count) => count > billedBeforeKill, 120_000);
    const resumedAfterMs = Date.now() - restartedAt;
    const [run] = await waitFor('the run to finish',
      () => sql<{ state: string; item_count: number; processed_count: number; billed_count: number; skipped_count: number; failed_count: number; billed_amount: string }>(
        'SELECT state, item_count, processed_count, billed_count, skipped_count, failed_count, billed_amount::text AS billed_amount FROM scheduled_billing_run_record WHERE id = ?', [runId],
      ),
      ([row]) => row?.state === 'completed' || row?.state === 'failed', 120_000);
    const finishedAfterMs = Date.now() - restartedAt;
    process.stdout.write(`billing-kill: ${SCHEDULES} schedules, ${billedBeforeKill} billed before SIGKILL, resumed ${resumedAfterMs} ms and finished ${finishedAfterMs} ms after the restart\n`);
    expect(run).toEqual({
      state: 'completed', item_count: SCHEDULES, processed_count: SCHEDULES, billed_count: SCHEDULES, skipped_count: 0, failed_count: 0, billed_amount: asMoney(expectedCents),
    });

    // Exactly one invoice per schedule for the period, nothing else, adding up exactly.
    const invoices = await sql<{ source_key: string; count: string }>(
      "SELECT source_key, count(*) AS count FROM invoice WHERE tenant_id = ? AND source_key LIKE 'scheduled-billing:%' GROUP BY source_key ORDER BY source_key", [tenant.id],
    );
    expect(invoices.filter((row) => Number(row.count) !== 1)).toEqual([]);
    expect(invoices.map((row) => row.source_key).sort()).toEqual(scheduleIds.map((id) => `scheduled-billing:${id}:2026-01-01`).sort());
    const [totals] = await sql<{ count: string; total: string }>(
      "SELECT count(*) AS count, sum(total)::text AS total FROM invoice WHERE tenant_id = ? AND source_key LIKE 'scheduled-billing:%'", [tenant.id],
    );
    expect(totals).toEqual({ count: String(SCHEDULES), total: asMoney(expectedCents) });
    // Each invoice bills its own schedule's amount.
    const mismatched = await sql<{ id: number }>(
      `SELECT s.id FROM scheduled_billing s JOIN invoice i ON i.tenant_id = s.tenant_id AND i.source_key = 'scheduled-billing:' || s.id || ':2026-01-01'
       WHERE s.id IN (?) AND i.total <> s.amount`, [scheduleIds],
    );
    expect(mismatched).toEqual([]);

    // Every schedule advanced exactly once: one period (12 months) on.
    const dates = await sql<{ next: string; count: string }>(
      "SELECT to_char(next_bill_date, 'YYYY-MM-DD') AS next, count(*) AS count FROM scheduled_billing WHERE id IN (?) GROUP BY next_bill_date", [scheduleIds],
    );
    expect(dates).toEqual([{ next: '2027-01-01', count: String(SCHEDULES) }]);
  }, 240_000);
});
