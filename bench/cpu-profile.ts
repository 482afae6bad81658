import 'reflect-metadata';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import type { RuntimeStats } from './runtime-stats.js';
import { benchDatabase, bundle, freePort, here, listOptions, seed, startServerProcess, stopServerProcess } from './support.js';

/**
 * `node dist/bench/cpu-profile.js`: the small-tenant shape of issue 37 (1,000 vendors, 64
 * connections, production mode, `LOG_LEVEL=warn`, the per-credential limit lifted) for the four
 * paths a CPU profile looks at — REST and GraphQL list of `--take` items and single read — each
 * next to the bare `node:http` + `pg` process with the token lookup (raw-server.ts), in the same
 * run, interleaved `--rounds` times (medians). `--profile <dir>` runs the service under
 * `--cpu-prof` (one .cpuprofile per run, written when it stops): use `--only` to profile one path.
 * `--items 5,500` adds lists of those sizes, for the overhead per item. `--before <dir>` serves
 * the same paths from another build too (its folder holding server.js — dist/bundle, or
 * dist/bench before the bundle — e.g. of the commit before a change), in the same run, for before/after ratios. Besides CPU per request, each service row
 * shows its scavenges and GC pause per 1,000 requests: with the young generation at its size
 * under load, scavenges per request measure the garbage a request leaves. Prints a table; writes
 * nothing else.
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
    before: { type: 'string' },
  },
});
const duration = Number(options.duration);
const connections = Number(options.connections);

const db = await benchDatabase('bench_cpu_profile');
const seeded = await seed(db.url, { vendors: 1000, contacts: 100, terms: 10, otherTenants: 20, vendorsPerOtherTenant: 10 });
const ports = { raw: await freePort(), service: await freePort(), before: await freePort() };
const common = { DATABASE_URL: db.url, HOST: '127.0.0.1', NODE_ENV: 'production', LOG_LEVEL: 'warn', DATABASE_POOL_MAX: '10' };
const serviceEnv = (port: number) => ({ ...common, PORT: String(port), CREDENTIAL_RATE_LIMIT_PER_MINUTE: '100000000' });
const profileFlags = options.profile ? [`--cpu-prof`, `--cpu-prof-dir=${path.resolve(options.profile)}`] : [];
if (options.profile) mkdirSync(options.profile, { recursive: true });
const processes: ChildProcess[] = [
  await startServerProcess(path.join(here, 'raw-server.js'), { ...common, PORT: String(ports.raw), RAW_AUTH: 'token' }, /ready/),
  await startServerProcess(path.join(bundle, 'server.js'), serviceEnv(ports.service), /ready/, profileFlags),
  ...(options.before ? [await startServerProcess(path.join(path.resolve(options.before), 'server.js'), serviceEnv(ports.before), /ready/)] : []),
];
type Target = keyof typeof ports;
const pidOf = (target: Target) => processes[target === 'raw' ? 0 : target === 'service' ? 1 : 2].pid!;
/**
 * CPU seconds a process has used, all its threads and its main thread alone (Linux /proc: user +
 * system, in clock ticks of 10 ms). On a shared machine throughput follows the neighbours' load;
 * CPU per request much less so.
 */
function cpuSeconds(pid: number): { all: number; main: number } {
  const ticks = (stat: string) => {
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  };
  return { all: ticks(readFileSync(`/proc/${pid}/stat`, 'utf8')), main: ticks(readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8')) };
}
const baseOf = (target: Target) => `http://127.0.0.1:${ports[target]}`;

interface Path { name: string; target: Target; method: 'GET' | 'POST'; path: (id: number) => string; body?: (id: number) => string }
const firstPage = seeded.vendorIds.slice(0, 100);
const gqlBody = (query: string) => JSON.stringify({ query });
/** The service's paths of one shape, served by `target` ('service', or 'before': the build to compare with). */
const servicePaths = (target: Target, prefix: string, take: number): Path[] => [
  { name: `${prefix}REST list ${take}`, target, method: 'GET', path: () => `/api/vendors?options=${listOptions({ Take: take })}` },
  { name: `${prefix}GraphQL list ${take}`, target, method: 'POST', path: () => '/graphql', body: () => gqlBody(`{ vendors(options: { Take: ${take} }) { VendorId Name WebsiteUrl Actions } }`) },
  { name: `${prefix}REST single`, target, method: 'GET', path: (id) => `/api/vendors/${id}` },
  { name: `${prefix}GraphQL single`, target, method: 'POST', path: () => '/graphql', body: (id) => gqlBody(`{ vendor(vendorId: ${id}) { VendorId Name WebsiteUrl AuditId } }`) },
];
const shape = (take: number): Path[] => [
  { name: `raw+token list ${take}`, target: 'raw', method: 'GET', path: () => `/api/vendors?options=${listOptions({ Take: take })}` },
  { name: 'raw+token single', target: 'raw', method: 'GET', path: (id) => `/api/vendors/${id}` },
  ...servicePaths('service', '', take),
  ...(options.before ? servicePaths('before', 'before: ', take) : []),
];
const takes = [Number(options.take), ...options.items.split(',').filter(Boolean).map(Number)];
// Single reads once, whatever the list sizes.
const paths = takes.flatMap((take, index) => shape(take).filter((entry) => index === 0 || !entry.name.includes('single')))
  .filter((entry) => !options.only || entry.name.includes(options.only));

/** The service's statement count and GC pauses so far (bench/server.ts's stats route). */
async function serviceStats(target: Target): Promise<{ statements: number; scavenges: number; gcMs: number }> {
  const stats = (await (await fetch(`${baseOf(target)}/__bench/stats`)).json()) as { statements: number; runtime: RuntimeStats };
  const { scavenges, markCompacts } = stats.runtime;
  return { statements: stats.statements, scavenges: scavenges.count, gcMs: scavenges.totalMs + markCompacts.totalMs };
}

/** One autocannon run of `entry` (ids of single reads rotate over the first page); req/s, p50, p99 and SQL statements per request. */
async function run(entry: Path, seconds: number) {
  let next = 0;
  const counted = entry.target !== 'raw';
  const before = counted ? await serviceStats(entry.target) : null;
  const cpuBefore = cpuSeconds(pidOf(entry.target));
  const result = await autocannon({
    url: baseOf(entry.target),
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
  const after = counted ? await serviceStats(entry.target) : null;
  const cpuAfter = cpuSeconds(pidOf(entry.target));
  const perRequest = (seconds: number) => (seconds * 1e6) / result.requests.total;
  if (entry.target === 'service') served += result.requests.total;
  const bad = result.errors + result.non2xx + result.timeouts;
  if (bad) throw new Error(`${entry.name}: ${bad} failed requests`);
  // Per 1,000 requests: scavenges (each one a young generation filled: a measure of the garbage a request makes) and GC pause ms.
  const perThousand = (count: number) => (count * 1000) / result.requests.total;
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, sql: before && after ? (after.statements - before.statements) / result.requests.total : null,
    cpu: perRequest(cpuAfter.all - cpuBefore.all), mainCpu: perRequest(cpuAfter.main - cpuBefore.main),
    scavenges: before && after ? perThousand(after.scavenges - before.scavenges) : null, gcMs: before && after ? perThousand(after.gcMs - before.gcMs) : null };
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
    return { entry, rps: median(measured.map((m) => m.rps)), p50: median(measured.map((m) => m.p50)), p99: median(measured.map((m) => m.p99)), sql: measured[0].sql,
      cpu: median(measured.map((m) => m.cpu)), mainCpu: median(measured.map((m) => m.mainCpu)),
      scavenges: measured[0].scavenges === null ? null : median(measured.map((m) => m.scavenges ?? 0)), gcMs: measured[0].gcMs === null ? null : median(measured.map((m) => m.gcMs ?? 0)) };
  });
  // The baseline of a path: the raw+token row of the same shape (list of the same size, or single).
  const shapeOf = (name: string) => /(list \d+|single)$/.exec(name)?.[1];
  const baselineOf = (name: string) => rows.find((row) => row.entry.target === 'raw' && shapeOf(row.entry.name) === shapeOf(name));
  process.stdout.write(`\n${new Date().toISOString()} · load average after each round ${load.map((value) => value.toFixed(1)).join(', ')} · ${connections} connections, ${duration} s × ${options.rounds}\n`);
  process.stdout.write('| path | req/s | ratio to raw+token | p50 / p99 ms | SQL per request | CPU µs/req, all threads (main) | CPU ratio (raw+token CPU / this CPU) | scavenges / GC pause ms per 1,000 requests |\n|---|---|---|---|---|---|---|---|\n');
  for (const row of rows) {
    const base = row.entry.target === 'raw' ? undefined : baselineOf(row.entry.name);
    const ratio = base ? (row.rps / base.rps).toFixed(2) : '–';
    const cpuRatio = base ? (base.cpu / row.cpu).toFixed(2) : '–';
    process.stdout.write(`| ${row.entry.name} | ${row.rps.toFixed(0)} | ${ratio} | ${row.p50} / ${row.p99} | ${row.sql?.toFixed(2) ?? '–'} | ${row.cpu.toFixed(0)} (${row.mainCpu.toFixed(0)}) | ${cpuRatio} | ${row.scavenges === null ? '–' : `${row.scavenges.toFixed(1)} / ${row.gcMs!.toFixed(0)}`} |\n`);
  }
  process.stdout.write(`service requests: ${served}\n`);
} finally {
  for (const child of processes.reverse()) await stopServerProcess(child);
  await db.drop();
  await db.server.stop();
}
