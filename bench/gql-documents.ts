import 'reflect-metadata';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { benchDatabase, bundle, freePort, seed, startServerProcess, stopServerProcess } from './support.js';

/**
 * `npm run bench:gql-documents`: distinct GraphQL documents against the service's caches
 * (http/graphql-caches.ts). The service runs as `npm start` runs it (its node flags, production
 * mode; `bench/server.js`, which adds the stats route, and --expose-gc so that the stats can
 * report the heap after a full collection), on a small seeded database, with no per-credential
 * limit. `--documents` (100,000) valid documents, each different (its own literals, about 1 KB,
 * as a client that inlines values instead of variables sends them), at `--connections` (8).
 * Reports the peak RSS, the heap (sampled every half second, and after a full GC before and
 * after), and the caches' figures; exits non-zero unless every answer was a 200, the process
 * is still up and its peak RSS stayed under `--max-rss-mb` (300).
 */
const { values: options } = parseArgs({
  options: {
    documents: { type: 'string', default: '100000' },
    connections: { type: 'string', default: '8' },
    'max-rss-mb': { type: 'string', default: '300' },
  },
});
const documentCount = Number(options.documents);
const connections = Number(options.connections);
const maxRssMb = Number(options['max-rss-mb']);
const METRICS_TOKEN = 'bench-metrics-token-0123456789';
const MB = 1024 * 1024;

/** The `n`th document: the same fields every time, different literals (so a different document to parse, validate and compile). */
function document(n: number): string {
  return `query Page${n} {
  first: vendors(options: { Take: 5, Skip: ${n % 900}, OrderBy: "Name" }, text: "Vendor ${String(n % 1000).padStart(6, '0')}") { VendorId Name WebsiteUrl Actions }
  second: vendors(options: { Take: ${1 + (n % 7)}, Skip: ${n % 97} }) { VendorId Name WebsiteUrl }
  third: vendors(options: { Take: 2, Skip: ${n % 31}, OrderBy: "Name desc" }) { VendorId Name }
  terms: termsOfUseList(options: { Take: ${1 + (n % 20)}, Skip: ${n % 3} }) { TermsOfUseId Name }
  recent: termsOfUseList(options: { Take: 1, OrderBy: "Name" }) { TermsOfUseId }
  me: aboutMe { FirstName LastName AllRoles HasAgreedOnBackOfficeTerms }
  lookup: termsOfUseLookup { Id Name IsSelected }
  # request ${n}: a document as a client that inlines its values instead of sending variables writes it
}`;
}

interface ServiceStats { rssBytes: number; peakRssBytes: number; memory: NodeJS.MemoryUsage }

async function main(): Promise<void> {
  const database = await benchDatabase('membership_gql_documents');
  const seeded = await seed(database.url, { vendors: 1000, contacts: 10, terms: 20, otherTenants: 0, vendorsPerOtherTenant: 0 });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const service = await startServerProcess(path.join(bundle, 'server.js'), {
    DATABASE_URL: database.url, PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'production', LOG_LEVEL: 'warn',
    CREDENTIAL_RATE_LIMIT_PER_MINUTE: '0', METRICS_TOKEN,
  }, /ready/, ['--expose-gc']);
  const stats = async (query = '') => (await (await fetch(`${base}/__bench/stats${query}`)).json()) as ServiceStats;
  try {
    const check = await fetch(`${base}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${seeded.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ query: document(0) }) });
    const checked = (await check.json()) as { errors?: unknown };
    if (check.status !== 200 || checked.errors) throw new Error(`the document is not served: ${check.status} ${JSON.stringify(checked)}`);
    const atRest = await stats('?gc');

    let peakHeapUsed = 0;
    const sampler = setInterval(() => {
      void stats().then((sample) => { peakHeapUsed = Math.max(peakHeapUsed, sample.memory.heapUsed); }, () => undefined);
    }, 500);
    let next = 1;
    const started = performance.now();
    const result = await autocannon({
      url: base, connections, amount: documentCount,
      requests: [{
        method: 'POST', path: '/graphql', headers: { authorization: `Bearer ${seeded.token}`, 'content-type': 'application/json' },
        setupRequest: (request) => ({ ...request, body: JSON.stringify({ query: document(next++) }) }),
      }],
    });
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);

    const up = (await fetch(`${base}/healthz`)).status === 200 && service.exitCode === null;
    const after = await stats('?gc');
    const scrape = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    const caches = [...scrape.matchAll(/^graphql_cache_(entries|max_entries|bytes|max_bytes)\{cache="(\w+)"\} (\S+)$/gm)];
    const figure = (name: string, cache: string) => Number(caches.find((match) => match[1] === name && match[2] === cache)?.[3] ?? NaN);
    const cacheNames = [...new Set(caches.map((match) => match[2]))];
    const estimated = cacheNames.reduce((sum, cache) => sum + figure('bytes', cache), 0);
    const peakRssMb = after.peakRssBytes / MB;
    const failed = result.non2xx + result.errors + result.timeouts;
    const report = [
      `${result.requests.total.toLocaleString('en')} distinct documents (${document(1).length} characters each) at ${connections} connections in ${seconds.toFixed(0)} s`
        + ` (${result.requests.average.toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms): ${result['2xx'].toLocaleString('en')} × 200,`
        + ` ${failed} failed (non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts}); the process ${up ? 'is still up' : '**is down**'}.`,
      `Peak RSS ${peakRssMb.toFixed(0)} MB (limit ${maxRssMb}); heap used at rest after a full GC ${(atRest.memory.heapUsed / MB).toFixed(0)} MB,`
        + ` peak (sampled every 0.5 s) ${(peakHeapUsed / MB).toFixed(0)} MB, after the run and a full GC ${(after.memory.heapUsed / MB).toFixed(0)} MB`
        + ` (${((after.memory.heapUsed - atRest.memory.heapUsed) / MB).toFixed(1)} MB more, against ${(estimated / MB).toFixed(1)} MB the caches estimate they hold).`,
      '',
      '| cache | entries | of at most | estimated heap MB | of at most |',
      '|---|---:|---:|---:|---:|',
      ...cacheNames.map((cache) => `| ${cache} | ${figure('entries', cache)} | ${figure('max_entries', cache)} | ${(figure('bytes', cache) / MB).toFixed(1)} | ${(figure('max_bytes', cache) / MB).toFixed(1)} |`),
    ].join('\n');
    process.stdout.write(`${report}\n`);
    if (!up || failed > 0 || result['2xx'] < documentCount || peakRssMb >= maxRssMb) throw new Error('distinct documents: a target was missed (see above)');
  } finally {
    await stopServerProcess(service);
    await database.drop();
    await database.server.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
