import 'reflect-metadata';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { benchDatabase, freePort, here, listOptions, seed, startServerProcess, stopServerProcess } from './support.js';

/**
 * `node dist/bench/cpu-profile.js`: the small-tenant shape of issue 37 (1,000 vendors, 64
 * connections, production mode, `LOG_LEVEL=warn`, the per-credential limit lifted) for the four
 * paths a CPU profile looks at — REST and GraphQL list of `--take` items and single read — each
 * next to the bare `node:http` + `pg` process with the token lookup (raw-server.ts), in the same
 * run, interleaved `--rounds` times (medians). `--profile <dir>` runs the service under
 * `--cpu-prof` (one .cpuprofile per run, written when it stops): use `--only` to profile one path.
 * `--items 5,500` adds lists of those sizes, for the overhead per item. Prints a table; writes nothing else.
 */
const { values: options } = parseArgs({
  options: {
    duration: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '2' },
    connections: { type: 'string', default: '64' },
    take: { type: 'string', default: '100' },
    items: { type: 'string', default: '' },
    only: { type: 'string' },
    profile: { type: 'string' },
  },
});
const duration = Number(options.duration);
const connections = Number(options.connections);

const db = await benchDatabase('bench_cpu_profile');
const seeded = await seed(db.url, { vendors: 1000, contacts: 100, terms: 10, otherTenants: 20, vendorsPerOtherTenant: 10 });
const ports = { raw: await freePort(), service: await freePort() };
const common = { DATABASE_URL: db.url, HOST: '127.0.0.1', NODE_ENV: 'production', LOG_LEVEL: 'warn', DATABASE_POOL_MAX: '10' };
const profileFlags = options.profile ? [`--cpu-prof`, `--cpu-prof-dir=${path.resolve(options.profile)}`] : [];
if (options.profile) mkdirSync(options.profile, { recursive: true });
const processes: ChildProcess[] = [
  await startServerProcess(path.join(here, 'raw-server.js'), { ...common, PORT: String(ports.raw), RAW_AUTH: 'token' }, /ready/),
  await startServerProcess(path.join(here, 'server.js'), { ...common, PORT: String(ports.service), CREDENTIAL_RATE_LIMIT_PER_MINUTE: '100000000' }, /ready/, profileFlags),
];
const bases = { raw: `http://127.0.0.1:${ports.raw}`, service: `http://127.0.0.1:${ports.service}` };

interface Path { name: string; baseline: boolean; method: 'GET' | 'POST'; path: (id: number) => string; body?: (id: number) => string }
const firstPage = seeded.vendorIds.slice(0, 100);
const gqlBody = (query: string) => JSON.stringify({ query });
const lists = (take: number): Path[] => [
  { name: `list ${take}`, baseline: true, method: 'GET', path: () => `/api/vendors?options=${listOptions({ Take: take })}` },
  { name: `REST list ${take}`, baseline: false, method: 'GET', path: () => `/api/vendors?options=${listOptions({ Take: take })}` },
  { name: `GraphQL list ${take}`, baseline: false, method: 'POST', path: () => '/graphql', body: () => gqlBody(`{ vendors(options: { Take: ${take} }) { VendorId Name WebsiteUrl Actions } }`) },
];
const paths = ([
  ...lists(Number(options.take)),
  ...options.items.split(',').filter(Boolean).flatMap((take) => lists(Number(take))),
  { name: 'single', baseline: true, method: 'GET', path: (id) => `/api/vendors/${id}` },
  { name: 'REST single', baseline: false, method: 'GET', path: (id) => `/api/vendors/${id}` },
  { name: 'GraphQL single', baseline: false, method: 'POST', path: () => '/graphql', body: (id) => gqlBody(`{ vendor(vendorId: ${id}) { VendorId Name WebsiteUrl AuditId } }`) },
] satisfies Path[] as Path[]).filter((entry) => !options.only || entry.name.includes(options.only));

async function statements(): Promise<number> {
  return ((await (await fetch(`${bases.service}/__bench/stats`)).json()) as { statements: number }).statements;
}

/** One autocannon run of `entry` (ids of single reads rotate over the first page); req/s, p50, p99 and SQL statements per request. */
async function run(entry: Path, seconds: number) {
  let next = 0;
  const before = entry.baseline ? 0 : await statements();
  const result = await autocannon({
    url: entry.baseline ? bases.raw : bases.service,
    connections,
    duration: seconds,
    requests: [{
      method: entry.method,
      headers: { authorization: `Bearer ${seeded.token}`, 'content-type': 'application/json' },
      setupRequest: (request) => {
        const id = firstPage[next++ % firstPage.length];
        return { ...request, path: entry.path(id), ...(entry.body ? { body: entry.body(id) } : {}) };
      },
    }],
  });
  const after = entry.baseline ? 0 : await statements();
  if (!entry.baseline) served += result.requests.total;
  const bad = result.errors + result.non2xx + result.timeouts;
  if (bad) throw new Error(`${entry.name}: ${bad} failed requests`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, sql: entry.baseline ? null : (after - before) / result.requests.total };
}

/** Requests the service answered in this run (warm-up included): a profile's time divided by it is its time per request. */
let served = 0;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
try {
  for (const entry of paths) await run(entry, 3);
  const runs = new Map(paths.map((entry) => [entry, [] as Awaited<ReturnType<typeof run>>[]]));
  const load: number[] = [];
  for (let round = 0; round < Number(options.rounds); round++) {
    for (const entry of paths) runs.get(entry)!.push(await run(entry, duration));
    load.push(os.loadavg()[0]);
  }
  const rows = paths.map((entry) => {
    const measured = runs.get(entry)!;
    return { entry, rps: median(measured.map((m) => m.rps)), p50: median(measured.map((m) => m.p50)), p99: median(measured.map((m) => m.p99)), sql: measured[0].sql };
  });
  const baselineOf = (name: string) => rows.find((row) => row.entry.baseline && name.endsWith(row.entry.name));
  process.stdout.write(`\n${new Date().toISOString()} · load average after each round ${load.map((value) => value.toFixed(1)).join(', ')} · ${connections} connections, ${duration} s × ${options.rounds}\n`);
  process.stdout.write('| path | req/s | ratio to raw+token | p50 / p99 ms | SQL per request |\n|---|---|---|---|---|\n');
  for (const row of rows) {
    const base = row.entry.baseline ? undefined : baselineOf(row.entry.name);
    const ratio = base ? (row.rps / base.rps).toFixed(2) : '–';
    process.stdout.write(`| ${row.entry.baseline ? `raw+token ${row.entry.name}` : row.entry.name} | ${row.rps.toFixed(0)} | ${ratio} | ${row.p50} / ${row.p99} | ${row.sql?.toFixed(2) ?? '–'} |\n`);
  }
  process.stdout.write(`service requests: ${served}\n`);
} finally {
  for (const child of processes.reverse()) await stopServerProcess(child);
  await db.drop();
  await db.server.stop();
}
