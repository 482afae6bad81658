import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { PgBoss } from 'pg-boss';

/** A background job an area defines: its queue name, its handler and, optionally, a cron schedule. */
export interface JobDefinition {
  name: string;
  cron?: string;
  handle(orm: MikroORM, data: unknown): Promise<void>;
}

/**
 * Starts pg-boss on the service's database (schema `pgboss`). Queues are created on every
 * instance so any of them can enqueue; only instances with the worker enabled process jobs.
 */
export async function startJobs(options: {
  url: string;
  orm: MikroORM;
  log: Logger;
  jobs: JobDefinition[];
  worker: boolean;
}): Promise<PgBoss> {
  const boss = new PgBoss({ connectionString: options.url, schema: 'pgboss', max: 4 });
  boss.on('error', (error) => options.log.error({ err: error }, 'job queue error'));
  await boss.start();
  for (const job of options.jobs) {
    await boss.createQueue(job.name, { retryLimit: 5, retryBackoff: true });
    if (job.cron) await boss.schedule(job.name, job.cron);
    if (options.worker) {
      await boss.work(job.name, async (batch) => {
        for (const item of batch) await job.handle(options.orm, item.data);
      });
    }
  }
  return boss;
}
