import 'reflect-metadata';
import v8 from 'node:v8';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/core/config.js';
import { startJobs } from '../src/core/runtime/jobs.js';
import { releaseStartupMemory } from '../src/core/runtime/startup-memory.js';
import { createLogger } from '../src/core/runtime/logger.js';
import { openOrm } from '../src/db/orm.js';
import { callbackJobs } from '../src/services/callbacks/callback-processing.js';
import { observeRuntime } from './runtime-stats.js';

/**
 * The benchmark's server process: the real service, plus (in this process only) a stats route
 * with the statement count and peak RSS. The baseline it is compared with runs in its own
 * process (`raw-server.ts`).
 */
const config = loadConfig();
const url = config.DATABASE_URL!;
/** The login the service serves as (bench/run.ts `--app-role`); pg-boss keeps the owner's (it creates its schema). */
const serveUrl = process.env.BENCH_SERVE_URL ?? url;
let statements = 0;
const seen = new Set<string>();
const orm = await openOrm({ url: serveUrl, poolMax: config.DATABASE_POOL_MAX, onQuery: ({ query: sql = '' }) => {
  statements++;
  // BENCH_SQL=1: each distinct statement once, to compare with the baseline's SQL (bench/raw-server.ts).
  if (process.env.BENCH_SQL && !seen.has(sql)) { seen.add(sql); process.stderr.write(`SQL ${sql}\n`); }
} });
/** The service's own plain pool (AppDeps.pool, pipeline mode as in buildApp), its statements counted too. */
const appPool = new pg.Pool({ connectionString: serveUrl, max: config.DATABASE_POOL_MAX, pipeline: true, connectionTimeoutMillis: 10_000 });
appPool.on('connect', (client) => {
  const run = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    statements++;
    return run(...args);
  };
});
const log = createLogger(config);
const runtime = observeRuntime();
// Callbacks are queued as in production, but not processed here: the benchmark measures ingestion.
const boss = await startJobs({ url, orm, log, jobs: callbackJobs(), worker: false });

/**
 * The statement count, memory and runtime (GC, event loop) of this process, for the benchmark's
 * figures; `?reset` restarts the runtime figures, `?gc` collects garbage first (when the process
 * runs with --expose-gc), so that the heap figure is what is live. `tail` splits the requests
 * served since the last call by the GC pauses they overlapped (each request's time from its
 * arrival to its response).
 */
async function statsRoute(server: FastifyInstance): Promise<void> {
  server.addHook('onResponse', (_request, reply, done) => {
    const end = performance.now();
    runtime.served(end - reply.elapsedTime, end);
    done();
  });
  server.get('/__bench/stats', async (request) => {
    const query = request.query as Record<string, unknown>;
    if (query.reset !== undefined) runtime.reset();
    if (query.gc !== undefined) (globalThis as { gc?: () => void }).gc?.();
    return {
      statements,
      rssBytes: process.memoryUsage().rss,
      memory: process.memoryUsage(),
      // The V8 heap by space (MB used / committed): what the heap part of the RSS is made of.
      heapSpaces: Object.fromEntries(v8.getHeapSpaceStatistics().map((space) => [space.space_name, `${(space.space_used_size / 1048576).toFixed(1)} / ${(space.physical_space_size / 1048576).toFixed(1)}`])),
      peakRssBytes: process.resourceUsage().maxRSS * 1024,
      runtime: runtime.stats(),
      tail: runtime.tail(),
    };
  });
}

const app = await buildApp({ config, orm, jobs: boss, pool: appPool, log, configure: statsRoute });
// As main.ts does, so that the RSS at rest is the one `npm start` has.
releaseStartupMemory();
await app.listen(config.HOST, config.PORT);
process.stdout.write('bench server ready\n');
process.on('SIGTERM', () => {
  // Bounded as main.ts bounds it: once, at the end of a full run, a request still counted as running held an unbounded close forever (cause not found yet).
  void app.close(config.SHUTDOWN_DRAIN_TIMEOUT_MS).then(() => boss.stop({ graceful: false, timeout: 2000 })).then(() => appPool.end()).then(() => orm.close()).then(() => process.exit(0));
});
