import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { callbackSignature } from '../src/services/callbacks/callbacks.js';
import { benchDatabase, bundle, callbackBody, freePort, listOptions, seed, startServerProcess, stopServerProcess, type Seeded } from './support.js';

/**
 * `npm run soak -- --minutes 10`: the service as `npm start` runs it (the bundle's main.js, its job
 * worker on, the same V8 memory limits) on a seeded database (embedded PostgreSQL, or
 * DATABASE_URL's server), under mixed load minute after minute: vendor reads, list pages,
 * GraphQL lists, saves, image uploads (multipart) and signed callbacks (which the worker then
 * processes). Each minute records req/s, p50 and p99 per kind, errors, and the server's RSS and
 * heap (from its /metrics). Prints the first and last minute side by side and exits non-zero
 * when any request failed, a callback failed processing, or memory grew without bound:
 * last-minute RSS over 1.5 × the first minute's, or over `--max-rss-mb` (320). `--minutes 1` is
 * the quick check.
 */
const { values: options } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    /** Connections per kind of request. */
    connections: { type: 'string', default: '2' },
    /** The most resident memory the server may have after the last minute. */
    'max-rss-mb': { type: 'string', default: '320' },
  },
});
const minutes = Number(options.minutes);
const connections = Number(options.connections);
if (!Number.isInteger(minutes) || minutes < 1 || !Number.isInteger(connections) || connections < 1) {
  throw new Error('usage: npm run soak -- --minutes <whole minutes, at least 1> [--connections <per kind>]');
}
/**
 * Bounds for "memory did not grow without bound". The ceiling is the V8 heap limit of `npm start`
 * (--max-old-space-size=192) plus room for what lives outside the heap (sharp/libvips, buffers,
 * code); the growth bound catches a leak long before the ceiling would.
 */
const RSS_LIMIT_MB = Number(options['max-rss-mb']);
const RSS_GROWTH_LIMIT = 1.5;
const METRICS_TOKEN = randomBytes(24).toString('hex');

/** A 1×1 PNG, uploaded as multipart/form-data. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const BOUNDARY = '----soak-boundary-7d1f';
const UPLOAD_BODY = Buffer.concat([
  Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="soak.png"\r\nContent-Type: image/png\r\n\r\n`),
  PNG,
  Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
]);

type Kind = 'read' | 'list' | 'graphql' | 'save' | 'upload' | 'callback';

/** One autocannon request definition per kind. */
function requests(seeded: Seeded): Record<Kind, autocannon.Request> {
  const { token, vendorIds, callbackSecret } = seeded;
  const auth = { authorization: `Bearer ${token}` };
  const json = { ...auth, 'content-type': 'application/json' };
  let next = 0;
  const someId = () => vendorIds[next++ % vendorIds.length];
  return {
    read: { method: 'GET', path: '/api/vendors/1', headers: auth, setupRequest: (request) => ({ ...request, path: `/api/vendors/${someId()}` }) },
    list: {
      method: 'GET', path: '/api/vendors', headers: auth,
      setupRequest: (request) => ({ ...request, path: `/api/vendors?options=${listOptions({ Take: 20, Skip: 20 * Math.floor(Math.random() * 50) })}` }),
    },
    graphql: { method: 'POST', path: '/graphql', headers: json, body: JSON.stringify({ query: '{ vendors(options: { Take: 20 }) { VendorId Name WebsiteUrl Actions } }' }) },
    save: {
      method: 'POST', path: '/api/vendors', headers: json,
      setupRequest: (request) => ({ ...request, body: JSON.stringify({ VendorId: someId(), Name: `Vendor ${Math.random().toString(36).slice(2, 10)}` }) }),
    },
    upload: { method: 'POST', path: '/api/images/upload', headers: { ...auth, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, body: UPLOAD_BODY },
    callback: {
      method: 'POST', path: '/api/callback/emailprovider1?tenant=bench',
      setupRequest: (request) => {
        const body = callbackBody();
        const timestamp = Math.floor(Date.now() / 1000);
        return {
          ...request, body,
          headers: { 'content-type': 'application/json', 'x-callback-timestamp': String(timestamp), 'x-callback-signature': callbackSignature(callbackSecret, timestamp, body) },
        };
      },
    },
  };
}

interface KindFigures { requestsPerSecond: number; p50: number; p99: number; errors: number }
interface Minute { minute: number; kinds: Record<Kind, KindFigures>; rssMb: number; heapUsedMb: number; errors: number; requests: number }

/** The server's resident memory and used heap, from its Prometheus metrics. */
async function memory(base: string): Promise<{ rssMb: number; heapUsedMb: number }> {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  return { rssMb: value('process_resident_memory_bytes') / 2 ** 20, heapUsedMb: value('nodejs_heap_size_used_bytes') / 2 ** 20 };
}

/** One minute of every kind at once; memory read at its end. */
async function runMinute(base: string, kinds: Record<Kind, autocannon.Request>, minute: number): Promise<Minute> {
  const entries = Object.entries(kinds) as [Kind, autocannon.Request][];
  const results = await Promise.all(entries.map(([, request]) => autocannon({ url: base, connections, duration: 60, requests: [request] })));
  const figures = Object.fromEntries(entries.map(([kind], index) => {
    const result = results[index];
    return [kind, { requestsPerSecond: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx + result.timeouts }];
  })) as Record<Kind, KindFigures>;
  const { rssMb, heapUsedMb } = await memory(base);
  return {
    minute, kinds: figures, rssMb, heapUsedMb,
    errors: Object.values(figures).reduce((sum, kind) => sum + kind.errors, 0),
    requests: results.reduce((sum, result) => sum + result.requests.total, 0),
  };
}

function report(idle: { rssMb: number; heapUsedMb: number }, first: Minute, last: Minute, backlog: Backlog): string {
  const kinds = Object.keys(first.kinds) as Kind[];
  const cell = (figures: KindFigures) => `${figures.requestsPerSecond.toFixed(0)} | ${figures.p50} | ${figures.p99}`;
  return [
    `| kind | req/s, minute 1 | p50 ms | p99 ms | req/s, minute ${last.minute} | p50 ms | p99 ms | errors (both) |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...kinds.map((kind) => `| ${kind} | ${cell(first.kinds[kind])} | ${cell(last.kinds[kind])} | ${first.kinds[kind].errors + (last === first ? 0 : last.kinds[kind].errors)} |`),
    '',
    `Server RSS ${idle.rssMb.toFixed(0)} MB at rest before the load, ${first.rssMb.toFixed(0)} MB after the first minute, ${last.rssMb.toFixed(0)} MB after the last; heap used ${first.heapUsedMb.toFixed(0)} MB → ${last.heapUsedMb.toFixed(0)} MB.`,
    `Callbacks: ${backlog.stored} stored, ${backlog.processedAtEnd} processed by the worker when the load ended, ${backlog.processed} after ${backlog.waitedSeconds} s more `
      + `(${backlog.stored - backlog.processed} waiting, ${backlog.failed} failed or retrying).`,
  ].join('\n');
}

const BACKLOG_WAIT_SECONDS = 60;

interface Backlog { stored: number; processedAtEnd: number; processed: number; failed: number; waitedSeconds: number }

/**
 * Stored and processed callbacks when the load ends, and once the worker has had up to a minute
 * more to catch up (a figure, not a failure: ingestion is meant to outpace processing in bursts).
 */
async function callbackBacklog(url: string): Promise<Backlog> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const count = async () => {
    const { rows } = await client.query<{ stored: string; processed: string; failed: string }>(
      "SELECT count(*) AS stored, count(*) FILTER (WHERE state = 'processed') AS processed, count(*) FILTER (WHERE state IN ('dead', 'retrying')) AS failed FROM provider_callback",
    );
    return { stored: Number(rows[0].stored), processed: Number(rows[0].processed), failed: Number(rows[0].failed) };
  };
  try {
    const atEnd = await count();
    for (let waited = 0; ; waited++) {
      const now = await count();
      if (now.stored === now.processed || waited >= BACKLOG_WAIT_SECONDS) return { ...now, processedAtEnd: atEnd.processed, waitedSeconds: waited };
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const database = await benchDatabase('membership_soak');
  // One tenant of 1,000 vendors and 10,000 contacts (and the bench's small tenant): the soak is about time, not volume.
  const seeded = await seed(database.url, { vendors: 1000, contacts: 10_000, terms: 20, otherTenants: 1, vendorsPerOtherTenant: 10 });
  const port = await freePort();
  const server = await startServerProcess(path.join(bundle, 'main.js'), {
    DATABASE_URL: database.url, PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'production', LOG_LEVEL: 'warn', DATABASE_POOL_MAX: '10',
    // No rate limits: every kind shares one token, whose 6,000 a minute the soak's mix passes in seconds (it measures service, not 429s).
    METRICS_TOKEN, PUBLIC_RATE_LIMIT_PER_MINUTE: '0', CREDENTIAL_RATE_LIMIT_PER_MINUTE: '0',
  }, /GraphQL:/);
  const base = `http://127.0.0.1:${port}`;
  let failed = false;
  try {
    process.stdout.write(`soak: ${minutes} min, ${connections} connections per kind, ${os.cpus().length} CPUs shared with PostgreSQL (and whatever else runs)\n`);
    const kinds = requests(seeded);
    const idle = await memory(base);
    const done: Minute[] = [];
    for (let minute = 1; minute <= minutes; minute++) {
      const figures = await runMinute(base, kinds, minute);
      done.push(figures);
      const line = (Object.entries(figures.kinds) as [Kind, KindFigures][]).map(([kind, value]) => `${kind} ${value.requestsPerSecond.toFixed(0)}/s p99 ${value.p99}`).join(', ');
      process.stdout.write(`minute ${minute}: ${line}; RSS ${figures.rssMb.toFixed(0)} MB, heap ${figures.heapUsedMb.toFixed(0)} MB, errors ${figures.errors}\n`);
    }
    const backlog = await callbackBacklog(database.url);
    const first = done[0];
    const last = done[done.length - 1];
    process.stdout.write(`\n${report(idle, first, last, backlog)}\n`);
    const errors = done.reduce((sum, minute) => sum + minute.errors, 0);
    process.stdout.write(`${done.reduce((sum, minute) => sum + minute.requests, 0)} requests in all, ${errors} failed\n`);
    const problems = [
      ...(errors > 0 ? [`${errors} requests failed`] : []),
      ...(backlog.failed > 0 ? [`${backlog.failed} callbacks failed processing`] : []),
      ...(last.rssMb > RSS_LIMIT_MB ? [`last-minute RSS ${last.rssMb.toFixed(0)} MB is over ${RSS_LIMIT_MB} MB`] : []),
      ...(last.rssMb > RSS_GROWTH_LIMIT * first.rssMb ? [`RSS grew from ${first.rssMb.toFixed(0)} MB to ${last.rssMb.toFixed(0)} MB (over ${RSS_GROWTH_LIMIT}×)`] : []),
    ];
    if (problems.length) {
      failed = true;
      process.stdout.write(`\nsoak FAILED: ${problems.join('; ')}\n`);
    } else {
      process.stdout.write('\nsoak passed: no errors, memory bounded\n');
    }
  } finally {
    await stopServerProcess(server);
    await database.drop();
    await database.server.stop();
  }
  if (failed) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
