import type { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import { jobHandlersSettled } from './jobs.js';

/** What a shutdown stops, in this order. */
export interface ShutdownParts {
  /** The HTTP service (see `App` in src/app.ts). */
  http: { drain(): void; close(drainTimeoutMs?: number): Promise<void> };
  /** pg-boss (null when this instance has no queue). */
  jobs: PgBoss | null;
  /** The queues this instance works on (empty when its worker is off). */
  queues: string[];
  /** Closes the ORM, the pools and the embedded database: last, once nothing can use them. */
  closeDatabase(): Promise<void>;
  log: Logger;
}

export interface ShutdownSettings {
  graceMs: number;
  drainTimeoutMs: number;
  jobsTimeoutMs: number;
}

/**
 * A graceful stop (SIGTERM), each step only once the one before has finished:
 * 1. /readyz turns 503, requests that arrive get 503 problem+json (`Connection: close`), and the
 *    worker stops taking jobs; the port stays open for `graceMs` so a load balancer notices;
 * 2. the port closes and the requests in flight finish (at most `drainTimeoutMs`);
 * 3. running jobs finish (at most `jobsTimeoutMs`); those still running then are failed, which
 *    hands them back to the queue for another instance to retry (every job is idempotent), and
 *    their handlers are told to stop (`JobRun.signal`) and get as long again to do so;
 * 4. only then the ORM, the pools and the database close — closing them earlier fails the
 *    requests and jobs still using them ("driver has already been destroyed").
 */
export async function shutDown(parts: ShutdownParts, settings: ShutdownSettings): Promise<void> {
  const started = Date.now();
  parts.http.drain();
  // Requests still running may queue jobs (`send`), so pg-boss stays open; only the fetching stops.
  const jobs = parts.jobs;
  if (jobs) await Promise.all(parts.queues.map((queue) => jobs.offWork(queue, { wait: false })));
  if (settings.graceMs > 0) await new Promise((resolve) => setTimeout(resolve, settings.graceMs));
  await parts.http.close(settings.drainTimeoutMs);
  parts.log.info({ ms: Date.now() - started }, 'shutdown: requests drained');
  if (parts.jobs) {
    await parts.jobs.stop({ graceful: true, timeout: settings.jobsTimeoutMs });
    // Handed-back jobs' handlers were told to stop (their signal): let them reach their stopping point.
    await jobHandlersSettled(parts.jobs, settings.jobsTimeoutMs);
  }
  parts.log.info({ ms: Date.now() - started }, 'shutdown: jobs stopped');
  await parts.closeDatabase();
  parts.log.info({ ms: Date.now() - started }, 'shutdown: done');
}
