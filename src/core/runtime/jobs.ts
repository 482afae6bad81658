import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import pg from 'pg';
import { PgBoss, type Db, type JobInsert, type JobResult, type Queue } from 'pg-boss';
import { runAsJob } from '../data/audit.js';
import { acrossTenantsInTransaction } from '../data/tenant-sql.js';
import { inSpan } from './tracing.js';

/** What a handler knows about the job it runs. */
export interface JobRun {
  id: string;
  /** Failed attempts before this one (0 on the first). */
  retryCount: number;
  /** Retries allowed after the first attempt; when `retryCount` reaches it, this is the last attempt. */
  retryLimit: number;
  /**
   * Aborted when a shutdown hands the job back (it is failed, and retried elsewhere): a long
   * handler stops at its next safe point instead of working on while the database closes.
   */
  signal?: AbortSignal;
}

/** A background job an area defines: its queue name, its handler and, optionally, a cron schedule. */
export interface JobDefinition {
  name: string;
  cron?: string;
  /**
   * Queue settings (default: 5 retries with exponential backoff). A `deadLetter` queue must be
   * defined earlier in the list than the queue that names it.
   */
  queue?: Pick<Queue, 'retryLimit' | 'retryDelay' | 'retryBackoff' | 'retryDelayMax' | 'expireInSeconds' | 'deadLetter'>;
  /**
   * Worker settings: jobs fetched at once (each still settled on its own; default 1), the idle
   * poll interval, and how many batches one instance works on at once (default 1; each holds a
   * database connection while it runs).
   */
  work?: { batchSize?: number; pollingIntervalSeconds?: number; concurrency?: number };
  handle(orm: MikroORM, data: unknown, job: JobRun): Promise<void>;
  /**
   * Work the worker instances repeat every `everyMs` besides handling jobs — e.g. moving stored
   * rows into this queue in batches — on a connection of their own. Runs never overlap.
   */
  pump?: { everyMs: number; run(client: pg.PoolClient, boss: PgBoss): Promise<unknown> };
}

/**
 * How often pg-boss looks for jobs past their expiry (whose worker died or lost the database):
 * with a queue's `expireInSeconds` and its first retry delay, the longest a cut-off job waits
 * before it runs again. (pg-boss fails expired jobs in its monitor pass, 60 s apart by default.)
 */
export const JOB_SUPERVISE_SECONDS = 10;

/** The handlers running in each pg-boss instance's worker (see `jobHandlersSettled`). */
const runningHandlers = new WeakMap<PgBoss, Set<Promise<unknown>>>();

/**
 * Resolves once the handlers still running have returned (at most `timeoutMs`). pg-boss's own
 * `stop` hands back the jobs still active at its timeout but does not wait for their handlers, so
 * a shutdown waits here before it closes the database the handlers use.
 */
export async function jobHandlersSettled(boss: PgBoss, timeoutMs: number): Promise<void> {
  const running = [...(runningHandlers.get(boss) ?? [])];
  if (!running.length) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled(running), new Promise((resolve) => { timer = setTimeout(resolve, timeoutMs); })]);
  clearTimeout(timer);
}

/**
 * Queues a job about rows `em` has written. Inside `em`'s open transaction (a write under an
 * Idempotency-Key runs in one) the job is inserted in that transaction, so it exists exactly
 * when those rows commit: a worker never takes it up before it can read them, and a request
 * rolled back (or killed) leaves no job behind. Otherwise it is queued at once, as `send` does.
 * Answers the job's id.
 */
export function queueJob(boss: PgBoss, em: EntityManager, queue: string, data: object): Promise<string | null> {
  return boss.send(queue, data, em.isInTransaction() ? { db: statementsIn(em) } : {});
}

/**
 * One batch of a pump (`JobDefinition.pump`): one transaction on the pump's connection, on the
 * named cross-tenant path of row-level security (a pump serves every tenant), in which `work`
 * claims its rows and `queue` inserts their jobs — so rows and jobs commit together or not at all.
 */
export async function inPumpTransaction<T>(
  client: pg.ClientBase, boss: PgBoss, work: (queue: (name: string, jobs: JobInsert[]) => Promise<void>) => Promise<T>,
): Promise<T> {
  await client.query('BEGIN');
  try {
    await acrossTenantsInTransaction(client);
    const result = await work(async (name, jobs) => {
      if (jobs.length) await boss.insert(name, jobs, { db: { executeSql: (text, values) => client.query(text, values) } });
    });
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/** pg-boss's statements run on `em`'s transaction: their `$n` parameters become MikroORM's `?`, in the order they appear. */
function statementsIn(em: EntityManager): Db {
  return {
    async executeSql(text, values = []) {
      const params: unknown[] = [];
      const sql = text.replace(/\$(\d+)/g, (_placeholder, position: string) => {
        params.push(values[Number(position) - 1]);
        return '?';
      });
      return { rows: await em.execute(sql, params) };
    },
  };
}

/** Where pg-boss keeps its tables (created when it starts). */
export const JOBS_SCHEMA = 'pgboss';

/**
 * Starts pg-boss on the service's database (schema `pgboss`). Queues are created on every
 * instance so any of them can enqueue; only instances with the worker enabled process jobs.
 * Each job of a fetched batch succeeds or fails on its own (a failing job is retried, then
 * dead-lettered, without taking the rest of its batch with it).
 */
export async function startJobs(options: {
  url: string;
  orm: MikroORM;
  log: Logger;
  jobs: JobDefinition[];
  worker: boolean;
}): Promise<PgBoss> {
  const boss = new PgBoss({ connectionString: options.url, schema: JOBS_SCHEMA, max: 4, superviseIntervalSeconds: JOB_SUPERVISE_SECONDS, monitorIntervalSeconds: JOB_SUPERVISE_SECONDS });
  boss.on('error', (error) => {
    // After a shutdown handed a job back, pg-boss still tries to settle it on its closed connection: expected, not an error.
    if (/Database connection is not opened/.test(error.message)) options.log.info({ err: error }, 'job settled after shutdown (already handed back)');
    else options.log.error({ err: error }, 'job queue error');
  });
  await boss.start();
  const running = new Set<Promise<unknown>>();
  runningHandlers.set(boss, running);
  const pumps = options.worker ? options.jobs.flatMap((job) => (job.pump ? [job.pump] : [])) : [];
  if (pumps.length) startPumps(boss, options.url, pumps, options.log);
  for (const job of options.jobs) {
    await boss.createQueue(job.name, { retryLimit: 5, retryBackoff: true, ...job.queue });
    if (job.cron) await boss.schedule(job.name, job.cron);
    if (options.worker) {
      const batchSize = job.work?.batchSize ?? 1;
      await boss.work(job.name, {
        includeMetadata: true,
        perJobResults: true,
        batchSize,
        burstWhenBatchFull: batchSize > 1,
        localConcurrency: job.work?.concurrency ?? 1,
        ...(job.work?.pollingIntervalSeconds ? { pollingIntervalSeconds: job.work.pollingIntervalSeconds } : {}),
      }, async (batch) => {
        const results: JobResult[] = [];
        for (const item of batch) {
          if (item.signal.aborted) break; // handed back by a shutdown: pg-boss has failed the batch already
          const handled = runAsJob(job.name, () => inSpan(`job ${job.name}`, { 'messaging.system': 'pg-boss', 'messaging.destination.name': job.name, 'messaging.message.id': item.id },
            () => job.handle(options.orm, item.data, { id: item.id, retryCount: item.retryCount, retryLimit: item.retryLimit, signal: item.signal })));
          running.add(handled);
          try {
            await handled;
            results.push({ id: item.id, status: 'completed' });
          } catch (error) {
            options.log.warn({ err: error, job: job.name, jobId: item.id, retryCount: item.retryCount }, 'job failed');
            results.push({ id: item.id, status: 'failed', output: { message: (error as Error).message ?? String(error) } });
          } finally {
            running.delete(handled);
          }
        }
        return results;
      });
    }
  }
  return boss;
}

/** Runs each pump on its interval until pg-boss stops; a failed run is logged and tried again next time. */
function startPumps(boss: PgBoss, url: string, pumps: NonNullable<JobDefinition['pump']>[], log: Logger): void {
  const pool = new pg.Pool({ connectionString: url, max: pumps.length });
  // A connection the server drops (a restart, a failover) must not take the process down: pg
  // reports it as an 'error' event, fatal without a listener — on the pool for idle clients, on
  // the client while it is checked out. The pool discards the client; the next run reconnects.
  pool.on('error', (error) => log.warn({ err: error }, 'job pump connection lost'));
  const timers = pumps.map((pump) => {
    let running = false;
    return setInterval(() => {
      if (running) return;
      running = true;
      void (async () => {
        const client = await pool.connect();
        const onLost = (error: Error) => log.warn({ err: error }, 'job pump connection lost');
        client.on('error', onLost);
        try {
          await pump.run(client, boss);
        } finally {
          client.off('error', onLost);
          client.release();
        }
      })().catch((error: unknown) => log.warn({ err: error }, 'job pump failed')).finally(() => { running = false; });
    }, pump.everyMs);
  });
  boss.once('stopped', () => {
    for (const timer of timers) clearInterval(timer);
    void pool.end();
  });
}
