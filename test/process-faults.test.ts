/**
 * Issue 20, faults: the real server process (`dist/bundle/main.js`, worker on) on this file's
 * database, 16 clients reading, listing, writing (creates and saves with Idempotency-Key) and
 * sending signed callbacks, and then
 * - SIGTERM: requests in flight finish with their normal answer, new ones are refused (503
 *   problem+json with `Connection: close`, or the connection refused), /readyz turns 503 first,
 *   the billing run the worker was running is handed back and finished by the next process, and
 *   the process exits 0 in bounded time;
 * - SIGKILL: after a restart on the same database every acknowledged write is there, every
 *   acknowledged callback is stored and processed (once), and idempotent repeats execute nothing.
 * Figures are printed (`faults:` lines) for the README's reliability section.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import pg from 'pg';
import { ScheduledBilling } from '../src/entities/billing.js';
import { SaleableItem } from '../src/entities/commerce.js';
import { Contact } from '../src/entities/contact.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { callbackBody, Load, multipartImage, pause, signedHeaders, slowRequest, type Outcome } from './support/load.js';
import { exited, freePort, runNode, startNode, waitFor } from './support/processes.js';

const CLIENTS = 16;
const SB = '/api/scheduledbilling/membershiptype';
/** Schedules in the billing run the SIGTERM cuts off: enough that it is still running when the worker's timeout ends. */
const RUN_SCHEDULES = 800;

let database: TestServer;
let secret: string;
const children: ChildProcess[] = [];

interface Server { child: ChildProcess; base: string; token: string; output: () => string }

async function startServer(extra: Record<string, string> = {}): Promise<Server> {
  const port = await freePort();
  const started = await startNode('main.js', {
    DATABASE_URL: database.databaseUrl, PORT: String(port), LOG_LEVEL: 'warn', NODE_ENV: 'development', DATABASE_POOL_MAX: '10',
    // Many callbacks from one address: the public limit would otherwise answer 429.
    PUBLIC_RATE_LIMIT_PER_MINUTE: '0', BILLING_RUN_EXPIRE_SECONDS: '600', ...extra,
  }, /Bearer (\S+)/, 90_000);
  children.push(started.child);
  return { child: started.child, base: `http://127.0.0.1:${port}`, token: /Bearer (\S+)/.exec(started.output())![1], output: started.output };
}

async function stopServer(server: Server): Promise<void> {
  const done = exited(server.child);
  server.child.kill('SIGTERM');
  await done;
}

async function sql<T>(query: string, params: unknown[] = []): Promise<T[]> {
  return database.orm.em.fork().getConnection().execute<T[]>(query, params);
}

beforeAll(async () => {
  database = await startTestServer();
  // A first start makes the demo tenant; then the tenant gets its callback secret.
  const first = await startServer();
  await stopServer(first);
  secret = (await runNode('cli.js', ['callback-secret', 'set', '--tenant', 'demo', '--provider', 'emailprovider1'], { DATABASE_URL: database.databaseUrl })).stdout.trim();
  expect(secret).toMatch(/\S{16,}/);
}, 120_000);

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      const done = exited(child);
      child.kill('SIGKILL');
      await done;
    }
  }
  await database?.close();
}, 60_000);

/** The demo vendor every reader reads. */
async function someVendorId(): Promise<number> {
  const [row] = await sql<{ id: number }>("SELECT v.id FROM vendor v JOIN tenant t ON t.id = v.tenant_id WHERE t.key = 'demo' ORDER BY v.id LIMIT 1");
  return row.id;
}

/**
 * Every acknowledged write is in the database: created vendors with their id and name, each
 * client's own vendor with its last acknowledged name (or the one save sent after it, which may
 * have committed unanswered), and every acknowledged callback stored. Answers the counts.
 */
async function expectAcknowledgedWritesPresent(load: Load): Promise<{ creates: number; saves: number; callbacks: number }> {
  const creates = load.acknowledged('create').filter((outcome) => !outcome.key.includes(' own '));
  const stored = new Map((await sql<{ id: number; name: string }>('SELECT id, name FROM vendor')).map((row) => [row.id, row.name]));
  expect(creates.filter((outcome) => stored.get(outcome.id!) !== outcome.key)).toEqual([]);

  const saves = load.acknowledged('save');
  const byVendor = new Map<number, Outcome[]>();
  for (const outcome of load.outcomes.filter((candidate) => candidate.kind === 'save')) byVendor.set(outcome.vendorId!, [...(byVendor.get(outcome.vendorId!) ?? []), outcome]);
  for (const [vendorId, sent] of byVendor) {
    const lastAcknowledged = sent.map((outcome) => outcome.status === 200).lastIndexOf(true);
    if (lastAcknowledged < 0) continue;
    // A client sends one save at a time: only the save after the last acknowledged one can have committed unanswered.
    const allowed = sent.slice(lastAcknowledged, lastAcknowledged + 2).map((outcome) => outcome.key);
    expect(allowed).toContain(stored.get(vendorId));
  }

  const callbacks = load.acknowledged('callback').map((outcome) => outcome.key);
  const bodies = new Set((await sql<{ event_id: string }>("SELECT body::json->0->>'sg_event_id' AS event_id FROM provider_callback")).map((row) => row.event_id));
  expect(callbacks.filter((eventId) => !bodies.has(eventId))).toEqual([]);
  return { creates: creates.length, saves: saves.length, callbacks: callbacks.length };
}

/** Every acknowledged callback is processed: its event recorded exactly once, its callback `processed`. */
async function expectCallbacksProcessed(eventIds: string[]): Promise<void> {
  const unprocessed = await waitFor('every acknowledged callback to be processed', async () => {
    const recorded = new Set((await sql<{ provider_event_id: string }>('SELECT provider_event_id FROM email_event')).map((row) => row.provider_event_id));
    return eventIds.filter((eventId) => !recorded.has(eventId));
  }, (missing) => missing.length === 0, 120_000, 500);
  expect(unprocessed).toEqual([]);
  const doubled = await sql<{ provider_event_id: string }>('SELECT provider_event_id FROM email_event GROUP BY tenant_id, provider, provider_event_id HAVING count(*) > 1');
  expect(doubled).toEqual([]);
  const notProcessed = await sql<{ state: string }>(
    "SELECT state FROM provider_callback WHERE body::json->0->>'sg_event_id' IN (?) AND state <> 'processed'", [eventIds],
  );
  expect(notProcessed).toEqual([]);
}

/** Seeds `count` due billing schedules (one per contact) and starts a run of them over REST; answers its run id. */
async function startBillingRun(server: Server, marker: string, count: number): Promise<number> {
  const [tenant] = await sql<{ id: number }>("SELECT id FROM tenant WHERE key = 'demo'");
  const em = database.orm.em.fork();
  const item = em.create(SaleableItem, { tenant: tenant.id, name: `${marker} item`, itemType: 'membership', price: '10.00' });
  for (let index = 0; index < count; index++) {
    em.create(ScheduledBilling, {
      tenant: tenant.id, contact: em.create(Contact, { tenant: tenant.id, kind: 'person', firstName: `Payer${index}`, lastName: marker }),
      membership: null, saleableItem: item, description: `${marker} ${index}`, amount: '12.34', frequencyMonths: 12,
      startDate: '2025-01-01', nextBillDate: '2026-01-01', status: 'active', paymentProfile: null, tags: [],
    });
  }
  await em.flush();
  const started = await fetch(`${server.base}${SB}/items/run`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ CurrentAdvancedFilter: { NextBillDate: '2026-01-01', DescriptionLike: marker } }),
  });
  expect(started.status).toBe(200);
  const [run] = await sql<{ id: number }>("SELECT id FROM scheduled_billing_run_record WHERE tenant_id = ? AND parameters->'filter'->>'DescriptionLike' = ? ORDER BY id DESC LIMIT 1", [tenant.id, marker]);
  return run.id;
}

const runItems = async (runId: number) => Number((await sql<{ count: string }>('SELECT count(*) AS count FROM scheduled_billing_run_item WHERE run_id = ?', [runId]))[0].count);

/** A request on a new connection: its status, or the network error. */
function freshRequest(base: string, path: string): Promise<{ status?: number; type?: string; connection?: string; error?: string }> {
  return new Promise((resolve) => {
    const request = httpRequest(`${base}${path}`, { agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode, type: response.headers['content-type'], connection: response.headers.connection }));
    });
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    request.end();
  });
}

const isNormal = (outcome: Outcome) => outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
/** The shutdown's refusal: 503 closing the connection, problem+json over REST (GraphQL answers its own error shape). */
const isRefusal = (outcome: Outcome) => outcome.status === 503 && outcome.connection === 'close'
  && (outcome.kind === 'graphql' ? /application\/json/ : /application\/problem\+json/).test(outcome.contentType ?? '');

describe('SIGTERM under load', () => {
  it('finishes the requests in flight, refuses new ones, hands its job back, and exits 0', async () => {
    const server = await startServer({ SHUTDOWN_GRACE_MS: '1500', SHUTDOWN_JOBS_TIMEOUT_MS: '1000' });
    const readId = await someVendorId();
    const runId = await startBillingRun(server, 'Sigterm dues', RUN_SCHEDULES);
    const load = new Load(server.base, server.token, secret, 'Sigterm', readId);
    load.start(CLIENTS);

    // /readyz, polled on its own connections: what it answers, and when the port closed.
    const readiness: string[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const answer = await freshRequest(server.base, '/readyz');
        readiness.push(answer.error ?? String(answer.status));
        await pause(50);
      }
    })();

    // Requests provably in flight at the signal: the server has taken each in (100 Continue) but not its body yet.
    const auth = { authorization: `Bearer ${server.token}` };
    const inflightNames = ['Sigterm in flight A', 'Sigterm in flight B'];
    const inflightEvent = 'sigterm-in-flight-callback';
    const image = multipartImage('in-flight.png');
    const callback = callbackBody(inflightEvent);
    const slow = [
      ...inflightNames.map((name) => slowRequest(`${server.base}/api/vendors`, 'POST', { ...auth, 'content-type': 'application/json' }, JSON.stringify({ Name: name }))),
      slowRequest(`${server.base}/api/callback/emailprovider1?tenant=demo`, 'POST', signedHeaders(secret, callback), callback),
      slowRequest(`${server.base}/api/images/upload`, 'POST', { ...auth, 'content-type': image.contentType }, image.body),
    ];

    // A save whose client goes away while its handler waits for a row lock held here: the handler
    // outlives its connection, and the shutdown must still wait for it before closing the database.
    const orphanCreated = await fetch(`${server.base}/api/vendors`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ Name: 'Sigterm orphan' }) });
    const orphanId = ((await orphanCreated.json()) as { VendorId: number }).VendorId;
    const lock = new pg.Client({ connectionString: database.databaseUrl });
    await lock.connect();
    await lock.query('BEGIN');
    await lock.query('SELECT id FROM vendor WHERE id = $1 FOR UPDATE', [orphanId]);
    const orphan = httpRequest(`${server.base}/api/vendors`, { method: 'POST', agent: false, headers: { ...auth, 'content-type': 'application/json' } });
    orphan.on('error', () => {});
    orphan.end(JSON.stringify({ VendorId: orphanId, Name: 'Sigterm orphan saved' }));
    await waitFor('the orphan save to wait for the lock', async () => Number((await lock.query<{ count: string }>(
      "SELECT count(*) AS count FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
    )).rows[0].count), (count) => count > 0, 60_000, 50);
    orphan.destroy();

    // Load well under way, the billing run too; then SIGTERM.
    await waitFor('load and the billing run to be under way', async () => ({ answered: load.outcomes.length, billed: await runItems(runId) }),
      ({ answered, billed }) => answered >= 100 && billed >= 10, 60_000, 100);
    await Promise.all(slow.map((request) => request.accepted));
    const exit = exited(server.child);
    const signalledAt = Date.now();
    load.markSignal();
    server.child.kill('SIGTERM');

    // The held-back bodies go out after the signal: each request still gets its normal answer.
    await pause(500);
    const afterSignal = await freshRequest(server.base, '/api/vendors');
    const slowAnswers = await Promise.all(slow.map((request) => request.finish()));
    await pause(1000);
    await lock.query('ROLLBACK');
    await lock.end();
    const code = await Promise.race([exit, pause(60_000).then(() => 'timeout' as const)]);
    const exitMs = Date.now() - signalledAt;
    polling = false;
    await poller;
    await load.stop();

    expect(code).toBe(0);
    expect(server.output()).not.toMatch(/destroyed|unexpected error/);
    expect(slowAnswers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    const [vendorA, vendorB, , upload] = slowAnswers.map((answer) => (answer.body ? JSON.parse(answer.body) : null) as Record<string, unknown> | null);
    expect([vendorA?.Name, vendorB?.Name]).toEqual(inflightNames);
    expect(upload?.FileId).toEqual(expect.any(Number));
    // A new connection after the signal: refused, or 503 problem+json closing the connection.
    expect(afterSignal.error === 'ECONNREFUSED' || (afterSignal.status === 503 && /problem\+json/.test(afterSignal.type ?? '') && afterSignal.connection === 'close')).toBe(true);

    // Every answer is the normal one or the shutdown refusal; nothing else (no 500, no 4xx).
    const answered = load.outcomes.filter((outcome) => outcome.status !== undefined);
    expect(answered.filter((outcome) => !isNormal(outcome) && !isRefusal(outcome)).map((outcome) => `${outcome.kind} ${outcome.status}`)).toEqual([]);
    // No answer at all only once the signal was given (the port closing); such writes were never applied.
    const unanswered = load.outcomes.filter((outcome) => outcome.error !== undefined);
    expect(unanswered.filter((outcome) => !outcome.endedAfter)).toEqual([]);
    const vendorNames = new Set((await sql<{ name: string }>('SELECT name FROM vendor')).map((row) => row.name));
    const storedCallbacks = new Set((await sql<{ event_id: string }>("SELECT body::json->0->>'sg_event_id' AS event_id FROM provider_callback")).map((row) => row.event_id));
    expect(unanswered.filter((outcome) => (outcome.kind === 'create' || outcome.kind === 'save') ? vendorNames.has(outcome.key) : outcome.kind === 'callback' && storedCallbacks.has(outcome.key))).toEqual([]);
    // /readyz said 503 before the port closed.
    const firstNotReady = readiness.indexOf('503');
    const firstRefused = readiness.findIndex((answer) => /ECONN/.test(answer));
    expect(firstNotReady).toBeGreaterThanOrEqual(0);
    if (firstRefused >= 0) expect(firstNotReady).toBeLessThan(firstRefused);
    expect(readiness.slice(firstNotReady).every((answer) => answer !== '200')).toBe(true);

    // The billing run was cut off, its job handed back (failed by the shutdown, to be retried).
    const billedAtExit = await runItems(runId);
    const [handedBack] = await sql<{ state: string; retry_count: number; output: unknown }>(
      "SELECT state, retry_count, output FROM pgboss.job WHERE name = 'scheduled-billing-run' AND data->>'runId' = ?", [String(runId)],
    );
    expect(billedAtExit).toBeLessThan(RUN_SCHEDULES);
    expect(handedBack?.state).toBe('retry');
    expect(JSON.stringify(handedBack?.output)).toContain('shut down');

    // Another instance takes the job back and finishes the run: every schedule billed once.
    const next = await startServer();
    const [run] = await waitFor('the handed-back run to finish on the next instance',
      () => sql<{ state: string; item_count: number; billed_count: number }>('SELECT state, item_count, billed_count FROM scheduled_billing_run_record WHERE id = ?', [runId]),
      ([row]) => row?.state === 'completed' || row?.state === 'failed', 240_000, 500);
    expect(run).toEqual({ state: 'completed', item_count: RUN_SCHEDULES, billed_count: RUN_SCHEDULES });
    const [invoices] = await sql<{ invoices: string; keys: string }>(
      "SELECT count(*) AS invoices, count(DISTINCT source_key) AS keys FROM invoice WHERE source_key LIKE 'scheduled-billing:%:2026-01-01'",
    );
    expect(invoices.invoices).toBe(invoices.keys);

    // Everything acknowledged is there, the in-flight writes too, and every acknowledged callback gets processed.
    const counts = await expectAcknowledgedWritesPresent(load);
    expect(vendorNames.has(inflightNames[0]) && vendorNames.has(inflightNames[1])).toBe(true);
    // The orphaned save finished after its client had gone: committed, not cut off by a closed database.
    expect(vendorNames.has('Sigterm orphan saved')).toBe(true);
    await expectCallbacksProcessed([...load.acknowledged('callback').map((outcome) => outcome.key), inflightEvent]);
    const file = await fetch(`${next.base}/api/images/file/${String(upload?.FileId)}`, { headers: { authorization: `Bearer ${next.token}` } });
    expect(file.status).toBe(200);
    await stopServer(next);

    const inFlight = load.outcomes.filter((outcome) => outcome.sentBefore && outcome.endedAfter);
    process.stdout.write(`faults: SIGTERM with ${CLIENTS} clients: ${load.outcomes.length} requests, ${inFlight.length} in flight at the signal `
      + `(${inFlight.filter(isNormal).length} answered normally, ${inFlight.filter(isRefusal).length} refused with 503) plus ${slow.length} held-back requests all answered 200 `
      + 'and one save whose client had gone committed; '
      + `after the signal ${load.outcomes.filter((outcome) => !outcome.sentBefore && isRefusal(outcome)).length} refused with 503 and ${unanswered.length} refused connections; `
      + `acknowledged ${counts.creates} creates, ${counts.saves} saves, ${counts.callbacks} callbacks, lost 0; billing run handed back at ${billedAtExit}/${RUN_SCHEDULES} and finished by the next instance; exit 0 after ${exitMs} ms\n`);
  }, 480_000);
});

describe('SIGKILL under load', () => {
  it('loses no acknowledged write or callback, and processes every callback once after the restart', async () => {
    const server = await startServer();
    const load = new Load(server.base, server.token, secret, 'Sigkill', await someVendorId());
    load.start(CLIENTS);
    await waitFor('load to be under way', async () => load.acknowledged('create').length + load.acknowledged('callback').length, (count) => count >= 150, 60_000, 100);
    const exit = exited(server.child);
    load.markSignal();
    server.child.kill('SIGKILL');
    await exit;
    await load.stop();
    const inFlight = load.outcomes.filter((outcome) => outcome.sentBefore && outcome.endedAfter).length;

    // Before any restart, the database already holds every acknowledged write and callback.
    const counts = await expectAcknowledgedWritesPresent(load);

    // Restarted on the same database: the stored callbacks are queued and processed, once each.
    const restarted = await startServer();
    await expectCallbacksProcessed(load.acknowledged('callback').map((outcome) => outcome.key));
    // Repeating acknowledged creates with their Idempotency-Key (keys are per credential: the same
    // token as before the kill) answers the same record and creates nothing.
    const repeats = load.acknowledged('create').filter((outcome) => !outcome.key.includes(' own ')).slice(-20);
    for (const outcome of repeats) {
      const response = await fetch(`${restarted.base}/api/vendors`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', 'idempotency-key': outcome.key.replace(/\s/g, '_') },
        body: JSON.stringify({ Name: outcome.key }),
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { VendorId: number }).VendorId).toBe(outcome.id);
    }
    const duplicated = await sql<{ name: string }>("SELECT name FROM vendor WHERE name LIKE 'Sigkill %' GROUP BY tenant_id, name HAVING count(*) > 1");
    expect(duplicated).toEqual([]);
    await stopServer(restarted);
    process.stdout.write(`faults: SIGKILL with ${CLIENTS} clients: ${load.outcomes.length} requests, ${inFlight} in flight at the kill; acknowledged ${counts.creates} creates, `
      + `${counts.saves} saves, ${counts.callbacks} callbacks; lost 0; every acknowledged callback processed once after the restart; ${repeats.length} idempotent repeats, 0 executed again\n`);
  }, 300_000);
});
