import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { PgBoss } from 'pg-boss';
import { startJobs } from '../src/core/runtime/jobs.js';
import { createLogger } from '../src/core/runtime/logger.js';
import { SignInRequest } from '../src/entities/index.js';
import { housekeepingJob } from '../src/services/login/housekeeping.js';
import { startTestServer, type TestServer } from './support/harness.js';

let server: TestServer;
const bosses: PgBoss[] = [];

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  for (const boss of bosses) await boss.stop({ graceful: false, timeout: 2000 });
  await server.close();
});

async function oldSignInRequests(): Promise<number> {
  return server.orm.em.fork().count(SignInRequest, { requestedAt: { $lt: new Date(Date.now() - 2 * 86400_000) } });
}

async function seedOldRequest() {
  const em = server.orm.em.fork();
  em.create(SignInRequest, { addressHash: 'a'.repeat(64), requestedAt: new Date(Date.now() - 3 * 86400_000) });
  await em.flush();
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

describe('background jobs (pg-boss)', () => {
  it('queues jobs on an instance without a worker and runs them once a worker starts', async () => {
    const log = createLogger({ LOG_LEVEL: 'silent' });
    await seedOldRequest();
    const queueOnly = await startJobs({ url: server.databaseUrl, orm: server.orm, log, jobs: [housekeepingJob], worker: false });
    bosses.push(queueOnly);
    const jobId = await queueOnly.send(housekeepingJob.name, {});
    expect(jobId).toBeTruthy();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await oldSignInRequests()).toBe(1);

    const worker = await startJobs({ url: server.databaseUrl, orm: server.orm, log, jobs: [housekeepingJob], worker: true });
    bosses.push(worker);
    expect(await eventually(async () => (await oldSignInRequests()) === 0)).toBe(true);
    expect(await eventually(async () => (await worker.getJobById(housekeepingJob.name, jobId!))?.state === 'completed')).toBe(true);
  });
});
