import 'reflect-metadata';
import { afterAll, beforeAll, expect } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/core/config.js';
import { startJobs, type JobDefinition } from '../../src/core/runtime/jobs.js';
import { createLogger } from '../../src/core/runtime/logger.js';
import { dropDatabase, ensureDatabase, withDatabase } from '../../src/db/database.js';
import { migrate, openOrm, type OrmOptions } from '../../src/db/orm.js';
import { createLogin, createSession, createTenant } from '../../src/services/login/identity.js';
import { responseMismatch } from './openapi-check.js';

/** A running service on its own fresh database, reached over real HTTP. */
export interface TestServer {
  baseUrl: string;
  orm: MikroORM;
  app: App;
  config: Config;
  databaseUrl: string;
  /** pg-boss, when the server was started with `jobs`. */
  boss: PgBoss | null;
  /** SQL statements run since the server started. */
  statements(): number;
  close(): Promise<void>;
}

/**
 * Whether this file's tests have ended (its afterAll hooks are running). A server whose start
 * outlived its hook (a timeout on a loaded machine) is up only after the file's afterAll had nothing
 * to close: it closes itself, or it would keep jest's worker alive after the run.
 */
let fileEnded = false;
afterAll(() => {
  fileEnded = true;
});

/**
 * Starts the service on a new database created for this test file; `close` drops it. With
 * `jobs`, pg-boss runs on that database too (with these job definitions, worker on unless
 * `worker: false`), as in `npm start`; without, the service runs with no job queue.
 */
export async function startTestServer(
  env: Record<string, string> = {},
  options: { jobs?: JobDefinition[]; worker?: boolean; adminUrl?: string; replicaAdminUrls?: string[]; onQuery?: OrmOptions['onQuery'] } = {},
): Promise<TestServer> {
  // `adminUrl`: another PostgreSQL server than the test run's; `replicaAdminUrls`: its read replicas (the test database is named in them).
  const adminUrl = options.adminUrl ?? process.env.TEST_ADMIN_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_ADMIN_DATABASE_URL is not set: run the tests through jest (global-setup.mjs)');
  const database = `test_${randomBytes(6).toString('hex')}`;
  await ensureDatabase(adminUrl, database);
  const databaseUrl = withDatabase(adminUrl, database);
  let statements = 0;
  const replicaUrls = (options.replicaAdminUrls ?? []).map((url) => withDatabase(url, database));
  const orm = await openOrm({
    url: databaseUrl, poolMax: Number(env.DATABASE_POOL_MAX ?? 5), replicaUrls, onQuery: (statement) => { statements++; options.onQuery?.(statement); },
  });
  await migrate(orm);
  // Tests make many requests from one address and one token: the rate limits are high unless a test sets them.
  const config = loadConfig({
    NODE_ENV: 'test', LOG_LEVEL: 'silent', MASTER_KEY: 'test-master-key-0123456789', PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000', CREDENTIAL_RATE_LIMIT_PER_MINUTE: '1000000', ...env,
  });
  const boss = options.jobs
    ? await startJobs({ url: databaseUrl, orm, log: createLogger(config), jobs: options.jobs, worker: options.worker ?? true })
    : null;
  const app = await buildApp({ config, orm, jobs: boss, log: createLogger(config) });
  const { port } = await app.listen('127.0.0.1', 0);
  const server: TestServer = {
    baseUrl: `http://127.0.0.1:${port}`,
    orm,
    app,
    config,
    databaseUrl,
    boss,
    statements: () => statements,
    async close() {
      await app.close();
      await boss?.stop({ graceful: false, timeout: 2000 });
      await orm.close();
      await dropDatabase(adminUrl, database);
    },
  };
  if (fileEnded) {
    await server.close();
    throw new Error('The test server started after its test file had ended (its hook timed out); it is closed again.');
  }
  return server;
}

/**
 * A test server on a pool as large as production's (20 connections), for race tests: on the
 * default 5, concurrent requests queue for a connection and rarely meet inside PostgreSQL, so a
 * race test would pass by luck (seen: without the duplicate lock, 5 connections gave one 200 of
 * 20 saves, 20 connections two).
 */
export function startRaceServer(env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer({ DATABASE_POOL_MAX: '20', ...env });
}

/**
 * For a describe block of race tests: a race server (startRaceServer) with the tenant `tenantKey`,
 * started before the block's tests and closed after them. Its fields are set once they run.
 */
export function useRaceServer(tenantKey: string): { server: TestServer; tenant: TestTenant } {
  const race = {} as { server: TestServer; tenant: TestTenant };
  beforeAll(async () => {
    race.server = await startRaceServer();
    race.tenant = await createTestTenant(race.server, tenantKey);
  });
  afterAll(() => race.server.close());
  return race;
}

export interface TestTenant {
  id: number;
  key: string;
  staffToken: string;
  memberToken: string;
}

/** A tenant with a staff and a member login, each with a session token. */
export async function createTestTenant(server: TestServer, key: string): Promise<TestTenant> {
  const em = server.orm.em.fork();
  const tenant = await createTenant(em, { key, name: `Tenant ${key}` });
  const staff = await createLogin(em, tenant, { email: `staff@${key}.example`, role: 'staff', firstName: 'Sam', lastName: 'Staff' });
  const member = await createLogin(em, tenant, { email: `member@${key}.example`, role: 'member', firstName: 'Mia', lastName: 'Member' });
  return {
    id: tenant.id,
    key,
    staffToken: (await createSession(em, staff, 1)).token,
    memberToken: (await createSession(em, member, 1)).token,
  };
}

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

/** One REST call over real HTTP. `body` is sent as JSON unless it is a string. */
export async function rest<T = any>(
  server: TestServer,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${server.baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  // Every answer of a documented operation must be what the served OpenAPI document says (support/openapi-check.ts).
  const mismatch = await responseMismatch(method, path, response.status, response.headers.get('content-type'), text);
  if (mismatch) throw new Error(`The response differs from the OpenAPI document: ${mismatch}`);
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  return { status: response.status, headers: response.headers, text, body: parsed as T };
}

/**
 * One request by node:http, for what fetch refuses: any method (TRACE) and any header (Host).
 * The headers come back as Node gives them (lower-case names).
 */
export function rawHttp(server: TestServer, method: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(`${server.baseUrl}${path}`, { method, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => { text += chunk; });
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, text }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** One GraphQL call over real HTTP. */
export async function graphql<T = any>(
  server: TestServer,
  query: string,
  variables: Record<string, unknown> = {},
  token?: string,
): Promise<HttpResult<{ data: T | null; errors?: { message: string; extensions: { code: string; errors?: { field: string }[] } }[] }>> {
  return rest(server, 'POST', '/graphql', { token, body: { query, variables } });
}

/**
 * Asserts that a list costs the same number of SQL statements for a page of 5 as for 50, and at
 * most `max` (no query per row). `fetchPage(take)` requests one page and checks what came back.
 */
export async function expectStatementsIndependentOfPageSize(server: TestServer, fetchPage: (take: number) => Promise<void>, max: number): Promise<void> {
  const cost = async (take: number) => {
    const before = server.statements();
    await fetchPage(take);
    return server.statements() - before;
  };
  // Once first, so that both measured requests find the caller's credential known (cached) alike.
  await fetchPage(5);
  const five = await cost(5);
  const fifty = await cost(50);
  expect(fifty).toBe(five);
  expect(five).toBeLessThanOrEqual(max);
}

/**
 * Calls `call` until it answers `status` (at most 1 s): for what the service learns through a
 * PostgreSQL notification — a credential revoked outside this instance reaches its credential
 * cache a few milliseconds after the commit, not at the commit itself.
 */
export async function eventuallyStatus(call: () => Promise<{ status: number }>, status: number): Promise<void> {
  let last = 0;
  for (let attempt = 0; attempt < 50; attempt++) {
    last = (await call()).status;
    if (last === status) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(last).toBe(status);
}

/**
 * Fires `attempts` requests at once (all sent before any is answered) and asserts that exactly
 * one succeeded with 200 and every other one was refused with one of `refusals` (the record is
 * gone: 404; its version moved on: 409). Answers the statuses.
 */
export async function expectExactlyOneSucceeds(attempts: (() => Promise<HttpResult>)[], refusals: number[] = [404, 409]): Promise<number[]> {
  const statuses = (await Promise.all(attempts.map((attempt) => attempt()))).map((response) => response.status);
  expect(statuses.filter((status) => status === 200)).toHaveLength(1);
  for (const status of statuses.filter((candidate) => candidate !== 200)) expect(refusals).toContain(status);
  return statuses;
}

/** Calls `call(index)` for each index below `count`, `concurrency` at a time; answers the results in index order. */
export async function runConcurrently<T>(count: number, concurrency: number, call: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array<T>(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      results[index] = await call(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results;
}

/** The samples of metric `name` in a Prometheus text scrape: each one's labels and value. */
export function metricSamples(scrape: string, name: string): { labels: Record<string, string>; value: number }[] {
  return scrape.split('\n').flatMap((line) => {
    const match = new RegExp(`^${name}\\{([^}]*)\\} (\\S+)$`).exec(line);
    if (!match) return [];
    const labels = Object.fromEntries([...match[1].matchAll(/(\w+)="([^"]*)"/g)].map(([, key, value]) => [key, value]));
    return [{ labels, value: Number(match[2]) }];
  });
}
