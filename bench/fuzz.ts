import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { buildApiSchema, rawRoutes, routes } from '../src/areas/index.js';
import { migrate, openOrm } from '../src/db/orm.js';
import { compileRoutes } from '../src/rest/gateway/routes.js';
import { seedAreas } from '../src/services/seed/demo.js';
import { createLogin, createSession, createTenant } from '../src/services/login/identity.js';
import {
  graphqlProtocolArbitrary, graphqlRequestArbitrary, rawRequestArbitrary, restRequestArbitrary, restSampleCall, type RestCall,
} from './fuzz-generators.js';
import { freePort, scratchDatabase, startService } from './support.js';

/**
 * `npm run fuzz -- --cases 20000`: the long fuzz run. Starts the service as `npm start` runs it
 * (the bundle's main.js in production mode, its own process, the V8 limits of `npm start`) on a
 * fresh database (DATABASE_URL's server, or an embedded one under .data/fuzz) seeded with every
 * area's demo records, then sends `--cases` property-based malformed requests (the generators of
 * the sweeps, bench/fuzz-generators.ts) spread over every REST route, every raw route and every
 * GraphQL root field, plus malformed GraphQL requests, as staff and without a credential.
 *
 * Fails (exit 1), listing the first offending requests, on any 5xx, any REST 4xx that is not
 * application/problem+json, any GraphQL error without extensions.code, a stack trace or SQL in
 * an answer, a request that hangs, the server dying, a V8 heap in use ≥ 200 MB at the end, or
 * RSS grown by `--max-rss-growth` MB (100) or more. (RSS itself is not bounded by 200 MB: the
 * service as `npm start` runs it holds about 220 MB before its first request.)
 * `--seed` replays a run; `--concurrency` requests are in flight at once.
 */
const { values: options } = parseArgs({
  options: {
    cases: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '8' },
    seed: { type: 'string', default: '20261124' },
    'max-rss-growth': { type: 'string', default: '100' },
  },
});
const CASES = Number(options.cases);
const CONCURRENCY = Number(options.concurrency);
const SEED = Number(options.seed);
/** The bound on memory: the V8 heap in use at the end, and how far RSS may grow over the run (MB). */
const HEAP_LIMIT_MB = 200;
const RSS_GROWTH_LIMIT_MB = Number(options['max-rss-growth']);
const METRICS_TOKEN = 'fuzz-metrics-token-0123456789';
const REQUEST_TIMEOUT_MS = 60_000;

type Interface = 'REST' | 'raw' | 'GraphQL' | 'GraphQL protocol';

interface Case {
  kind: Interface;
  /** The operation it aims at (route or field), for the coverage count. */
  operation: string;
  call: RestCall;
  anonymous: boolean;
}

interface Offence {
  problem: string;
  kind: Interface;
  anonymous: boolean;
  method: string;
  path: string;
  body: string;
  status: number | string;
  answer: string;
}

/** The seeded tenant: every area's demo records, a staff session, and the ids to aim at. */
async function seed(url: string): Promise<{ token: string; tenantKey: string; ids: number[] }> {
  const orm = await openOrm({ url });
  await migrate(orm);
  const em = orm.em.fork();
  const tenantKey = 'fuzz';
  const tenant = await createTenant(em, { key: tenantKey, name: 'Fuzz Association' });
  const staff = await createLogin(em, tenant, { email: 'staff@fuzz.example', role: 'staff', firstName: 'Fay', lastName: 'Fuzz' });
  await seedAreas(em, tenant, 'FuzzMarker');
  const { token } = await createSession(em, staff, 24);
  // The smallest ids of the tenant's records (what well-typed path and argument values aim at).
  const ids = (await em.getConnection().execute<{ id: number }[]>(
    `SELECT DISTINCT id FROM (SELECT id FROM vendor UNION SELECT id FROM contact UNION SELECT id FROM stored_file) AS t ORDER BY id LIMIT 8`,
  )).map((row) => row.id);
  await orm.close();
  return { token, tenantKey, ids: ids.length ? ids : [1] };
}

/** The cases, interleaved: ~45 % REST routes, ~35 % GraphQL fields, ~10 % raw routes, ~10 % GraphQL protocol; one in four anonymous. */
async function buildCases(ids: number[]): Promise<Case[]> {
  const schema = await buildApiSchema();
  const compiled = compileRoutes(schema, routes);
  const rawOperations = rawRoutes.flatMap((area) => area.operations);
  const count = (share: number) => Math.max(1, Math.round(CASES * share));
  const restCount = count(0.45);
  const graphqlCount = count(0.35);
  const rawCount = count(0.1);
  const protocolCount = Math.max(1, CASES - restCount - graphqlCount - rawCount);
  const rest: Case[] = fc.sample(restRequestArbitrary(compiled, ids), { seed: SEED, numRuns: restCount }).map((sample) => {
    const route = compiled[sample.route];
    return { kind: 'REST', operation: `${route.row.method} ${route.row.path}`, call: restSampleCall(compiled, sample), anonymous: false };
  });
  const graphql: Case[] = fc.sample(graphqlRequestArbitrary(schema, ids), { seed: SEED + 1, numRuns: graphqlCount }).map(({ field, document, variables }) => ({
    kind: 'GraphQL', operation: field, call: { method: 'POST', path: '/graphql', body: { query: document, variables } }, anonymous: false,
  }));
  const raw: Case[] = fc.sample(rawRequestArbitrary(rawOperations, ids), { seed: SEED + 2, numRuns: rawCount }).map((call) => ({
    kind: 'raw', operation: rawOperations.find((operation) => call.path.toLowerCase().startsWith(operation.path.split('{')[0].toLowerCase()) && operation.method === call.method)?.path ?? call.path, call, anonymous: false,
  }));
  const protocol: Case[] = fc.sample(graphqlProtocolArbitrary(schema), { seed: SEED + 3, numRuns: protocolCount }).map((call) => ({
    kind: 'GraphQL protocol', operation: 'protocol', call, anonymous: false,
  }));
  // Interleaved, so that every stretch of the run mixes interfaces (memory is measured over the whole).
  const queues = [rest, graphql, raw, protocol];
  const cases: Case[] = [];
  for (let index = 0; cases.length < rest.length + graphql.length + raw.length + protocol.length; index++) {
    for (const queue of queues) if (index < queue.length) cases.push(queue[index]);
  }
  cases.forEach((item, index) => { item.anonymous = index % 4 === 3; });
  process.stdout.write(`operations: ${compiled.length} REST routes, ${rawOperations.length} raw routes, ${Object.keys(schema.getQueryType()!.getFields()).length + Object.keys(schema.getMutationType()!.getFields()).length} GraphQL root fields\n`);
  return cases;
}

/** The server's V8 heap in use (MB), from its Prometheus metrics. */
async function heapUsedMb(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const match = /^nodejs_heap_size_used_bytes (\S+)$/m.exec(text);
  return match ? Math.round(Number(match[1]) / 1048576) : NaN;
}

function rssMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Math.round(Number(match[1]) / 1024) : NaN;
}

/** Stack frames, or PostgreSQL's words, in an answer: an internal failure shown to the caller. */
const LEAK = /\n\s+at [\w.<>]+ \(|node_modules|syntax error at or near|violates (?:unique|foreign key|not-null|check) constraint|relation "[^"]+" does not exist/;

const excerpt = (value: unknown, length = 200) => {
  const text = value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > length ? `${text.slice(0, length)}… (${text.length} chars)` : text;
};

async function send(base: string, item: Case, token: string, tenantKey: string): Promise<{ status: number; contentType: string; text: string }> {
  const headers: Record<string, string> = { ...item.call.headers };
  if (!item.anonymous) headers.authorization = `Bearer ${token}`;
  // Half the anonymous cases name the tenant, so that public operations run rather than 404.
  else if (item.call.path.length % 2 === 0) headers['x-tenant-key'] = tenantKey;
  let body: string | undefined;
  if (item.call.body !== undefined && item.call.method !== 'GET') {
    body = typeof item.call.body === 'string' ? item.call.body : JSON.stringify(item.call.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${base}${item.call.path}`, { method: item.call.method, headers, body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', text: await response.text() };
}

/** What is wrong with an answer, or null. */
function judge(item: Case, status: number, contentType: string, text: string): string | null {
  if (status >= 500) return '5xx';
  if (LEAK.test(text)) return 'stack trace or SQL in the answer';
  const graphql = item.kind === 'GraphQL' || item.kind === 'GraphQL protocol';
  if (!graphql) return status >= 400 && !contentType.includes('application/problem+json') ? 'non-problem 4xx' : null;
  if (status < 400 && !contentType.includes('json')) return null; // e.g. a 200 of a GET without a query: nothing to judge
  let errors: unknown;
  try {
    errors = (JSON.parse(text) as { errors?: unknown } | null)?.errors;
  } catch {
    return status >= 400 ? 'non-problem 4xx' : null;
  }
  const list = Array.isArray(errors) ? errors as ({ extensions?: { code?: unknown } } | null)[] : [];
  if (status >= 400 && list.length === 0) return 'non-problem 4xx';
  if (list.some((error) => typeof error?.extensions?.code !== 'string')) return status >= 400 ? 'non-problem 4xx' : 'GraphQL error without extensions.code';
  return null;
}

async function main(): Promise<void> {
  const started = Date.now();
  const database = await scratchDatabase('membership_fuzz', 'fuzz');
  let server: Awaited<ReturnType<typeof startService>> | null = null;
  try {
    const { token, tenantKey, ids } = await seed(database.url);
    const cases = await buildCases(ids);
    const port = await freePort();
    // No rate limits: the run sends thousands of requests a minute from one address and one token.
    server = await startService(database.url, port, { PUBLIC_RATE_LIMIT_PER_MINUTE: '0', CREDENTIAL_RATE_LIMIT_PER_MINUTE: '0', METRICS_TOKEN });
    const pid = server.pid!;
    const base = `http://127.0.0.1:${port}`;
    const rssBefore = rssMb(pid, 'VmRSS');
    const heapBefore = await heapUsedMb(base);
    let rssMax = rssBefore;
    const sampler = setInterval(() => { try { rssMax = Math.max(rssMax, rssMb(pid, 'VmRSS')); } catch { /* exited */ } }, 500);
    process.stdout.write(`server RSS before: ${rssBefore} MB (V8 heap in use ${heapBefore} MB); ${cases.length} cases, ${CONCURRENCY} at a time, seed ${SEED}\n`);

    const perInterface = new Map<Interface, { cases: number; statuses: Map<number, number>; operations: Set<string> }>();
    const offences: Offence[] = [];
    const tally = new Map<string, number>();
    let connectionErrors = 0;
    let next = 0;
    let done = 0;
    const fuzzStarted = Date.now();
    const worker = async () => {
      while (next < cases.length) {
        const item = cases[next++];
        const stats = perInterface.get(item.kind) ?? { cases: 0, statuses: new Map(), operations: new Set() };
        perInterface.set(item.kind, stats);
        stats.cases++;
        stats.operations.add(item.operation);
        let problem: string | null;
        let status: number | string;
        let answer = '';
        try {
          const response = await send(base, item, token, tenantKey);
          status = response.status;
          answer = response.text;
          stats.statuses.set(response.status, (stats.statuses.get(response.status) ?? 0) + 1);
          problem = judge(item, response.status, response.contentType, response.text);
        } catch (error) {
          const name = (error as Error).name;
          const cause = (error as { cause?: { code?: string; message?: string } }).cause;
          status = name === 'TimeoutError' ? 'timeout' : `${name}: ${(error as Error).message} ${cause?.code ?? cause?.message ?? ''}`;
          // A request the server refused to read to its end (413 on a huge body) may end in a reset: not a failure in itself.
          problem = name === 'TimeoutError' ? 'no answer within 60 s' : null;
          if (!problem) connectionErrors++;
        }
        if (problem) {
          tally.set(problem, (tally.get(problem) ?? 0) + 1);
          if (offences.length < 25) {
            const { method, path, body } = item.call;
            offences.push({ problem, kind: item.kind, anonymous: item.anonymous, method, path: excerpt(path), body: excerpt(body), status, answer: excerpt(answer, 300) });
          }
        }
        if (++done % 1000 === 0) {
          const rate = done / ((Date.now() - fuzzStarted) / 1000);
          process.stdout.write(`  ${done} cases, ${rate.toFixed(0)}/s, RSS ${rssMb(pid, 'VmRSS')} MB, problems ${[...tally.values()].reduce((a, b) => a + b, 0)}\n`);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const fuzzSeconds = (Date.now() - fuzzStarted) / 1000;
    clearInterval(sampler);
    const alive = server.exitCode === null && server.signalCode === null;
    // A moment without requests, so that what is left in memory is what stays.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const rssAfter = alive ? rssMb(pid, 'VmRSS') : NaN;
    const rssPeak = alive ? rssMb(pid, 'VmHWM') : NaN;
    const heapAfter = alive ? await heapUsedMb(base) : NaN;
    if (!alive) tally.set('server died', 1);
    if (!(heapAfter < HEAP_LIMIT_MB)) tally.set(`V8 heap in use after ≥ ${HEAP_LIMIT_MB} MB`, 1);
    if (!(rssAfter - rssBefore < RSS_GROWTH_LIMIT_MB)) tally.set(`server RSS grew by ≥ ${RSS_GROWTH_LIMIT_MB} MB`, 1);

    const count = (problem: string) => tally.get(problem) ?? 0;
    const lines = [
      '',
      `cases: ${done} in ${fuzzSeconds.toFixed(0)} s (${(done / fuzzSeconds).toFixed(0)}/s, ${CONCURRENCY} at a time; whole run with seeding ${((Date.now() - started) / 1000).toFixed(0)} s), seed ${SEED}`,
      ...[...perInterface].map(([kind, stats]) => `  ${kind.padEnd(17)} ${String(stats.cases).padStart(6)} cases over ${stats.operations.size} operations; statuses ${[...stats.statuses].sort((a, b) => a[0] - b[0]).map(([code, n]) => `${code}×${n}`).join(' ')}`),
      `  anonymous: ${cases.filter((item) => item.anonymous).length}, staff: ${cases.filter((item) => !item.anonymous).length}`,
      `5xx: ${count('5xx')}`,
      `4xx not problem+json (REST) / without GraphQL errors carrying extensions.code: ${count('non-problem 4xx')}`,
      `GraphQL errors without extensions.code on a 200: ${count('GraphQL error without extensions.code')}`,
      `stack traces or SQL in answers: ${count('stack trace or SQL in the answer')}`,
      `requests without an answer in 60 s: ${count('no answer within 60 s')}; connections reset by the server (huge bodies refused unread): ${connectionErrors}`,
      `server RSS before: ${rssBefore} MB, after: ${rssAfter} MB (growth limit ${RSS_GROWTH_LIMIT_MB} MB), highest sampled: ${rssMax} MB, peak (VmHWM): ${rssPeak} MB`,
      `server V8 heap in use before: ${heapBefore} MB, after: ${heapAfter} MB (limit ${HEAP_LIMIT_MB} MB)`,
      `server alive at the end: ${alive ? 'yes' : 'NO'}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    if (offences.length) {
      process.stdout.write('\nfirst offending requests:\n');
      for (const offence of offences) process.stdout.write(`${JSON.stringify(offence)}\n`);
    }
    const errors = server.logLines(50);
    if (errors.length) process.stdout.write(`\nserver error log (first ${Math.min(errors.length, 10)} of ${errors.length}):\n${errors.slice(0, 10).map((line) => line.slice(0, 2000)).join('\n')}\n`);
    if (tally.size > 0) {
      process.stdout.write(`\nFAILED: ${[...tally].map(([problem, n]) => `${problem} ×${n}`).join(', ')}\n`);
      process.exitCode = 1;
    } else {
      process.stdout.write('\nPASSED\n');
    }
  } finally {
    if (server && server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server!.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    await database.drop();
    await database.server.stop();
  }
}

// Exits explicitly: the embedded database's exit hook would otherwise end the process with 0.
main().then(() => process.exit(process.exitCode ?? 0), (error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
