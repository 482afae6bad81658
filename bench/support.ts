import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/core/config.js';
import { dropDatabase, ensureDatabase, startEmbeddedDatabase, withDatabase, type DatabaseServer } from '../src/db/database.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { migrate, openOrm } from '../src/db/orm.js';
import { setCallbackSecret } from '../src/services/callbacks/callbacks.js';
import { createLogin, createSession, createTenant } from '../src/services/login/identity.js';

/** What the benchmark commands (`npm run bench`, `npm run soak`) share: a seeded database and the server as its own process. */

/** The compiled bench folder (dist/bench) and the project root. */
export const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '../..');
/**
 * The production bundle (tools/bundle.mjs): `main.js` is the service as `npm start` runs it,
 * `server.js` the bench's service (bench/server.ts) made of the same chunks.
 */
export const bundle = path.join(root, 'dist', 'bundle');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
    server.on('error', reject);
  });
}

/** A fresh database `name` on DATABASE_URL's server, or on an embedded one under .data/bench. */
export function benchDatabase(name: string): Promise<{ url: string; server: DatabaseServer; drop(): Promise<void> }> {
  return scratchDatabase(name, 'bench');
}

/**
 * How much the seed makes: the measured tenant's vendors, contacts and terms of use, the other
 * tenants (each with a staff login, a session and vendors), and the tenant `small`'s vendors
 * (`vendorsPerOtherTenant` unless said).
 */
export interface Volume { vendors: number; contacts: number; terms: number; otherTenants: number; vendorsPerOtherTenant: number; smallTenantVendors?: number }

export interface Seeded {
  tenantId: number;
  /** A staff token of the measured tenant (`bench`). */
  token: string;
  /** A staff token of the tenant `small`. */
  smallTenantToken: string;
  /** The first 1,000 of the measured tenant's vendors. */
  vendorIds: number[];
  /** The first 1,000 of the tenant `small`'s vendors. */
  smallTenantVendorIds: number[];
  /** The measured tenant's emailprovider1 callback secret. */
  callbackSecret: string;
}

/** Migrates and seeds the measured tenant `bench`, the tenant `small` and the other tenants, as `volume` says. */
export async function seed(url: string, volume: Volume): Promise<Seeded> {
  const orm = await openOrm({ url });
  await migrate(orm);
  const em = orm.em.fork();
  const tenant = await createTenant(em, { key: 'bench', name: 'Benchmark Association' });
  const login = await createLogin(em, tenant, { email: 'staff@bench.example', role: 'staff' });
  const small = await createTenant(em, { key: 'small', name: 'A Small Association' });
  const smallLogin = await createLogin(em, small, { email: 'staff@small.example', role: 'staff' });
  const connection = em.getConnection();
  await connection.execute(
    `INSERT INTO contact (tenant_id, kind, first_name, last_name, email, phone)
     SELECT ?, 'person', 'First' || n, 'Last' || n, 'person' || n || '@bench.example', '+1555' || lpad(n::text, 7, '0')
     FROM generate_series(1, ?) AS n`, [tenant.id, volume.contacts]);
  await insertVendors(connection, tenant.id, volume.vendors);
  await connection.execute(
    `INSERT INTO terms_of_use (tenant_id, name, name_key, description, login_type)
     SELECT ?, 'Terms ' || lpad(n::text, 4, '0'), 'terms' || lpad(n::text, 4, '0'), '<p>Terms ' || n || '</p>', CASE WHEN n % 2 = 0 THEN 'staff' ELSE 'hub' END
     FROM generate_series(1, ?) AS n`, [tenant.id, volume.terms]);
  // The rest of the tenants, each with a staff login, a session and its own vendors: the
  // measured tenant's queries must not slow down with the others' rows.
  await connection.execute(
    `INSERT INTO tenant (key, name) SELECT 'tenant-' || n, 'Association ' || n FROM generate_series(1, ?) AS n`, [Math.max(0, volume.otherTenants - 1)]);
  await connection.execute(
    `INSERT INTO login (tenant_id, email, roles) SELECT id, 'staff@' || key || '.example', ARRAY['staff'] FROM tenant WHERE key LIKE 'tenant-%'`);
  await connection.execute(
    `INSERT INTO credential (tenant_id, login_id, kind, token_hash, expires_at)
     SELECT tenant_id, id, 'session', md5(random()::text) || md5(random()::text), now() + interval '1 day' FROM login WHERE email LIKE 'staff@tenant-%'`);
  await connection.execute(
    `INSERT INTO vendor (tenant_id, name, name_key)
     SELECT t.id, 'Vendor ' || n, 'vendor' || n FROM tenant t, generate_series(1, ?) AS n WHERE t.key LIKE 'tenant-%'`, [volume.vendorsPerOtherTenant]);
  await insertVendors(connection, small.id, volume.smallTenantVendors ?? volume.vendorsPerOtherTenant);
  await connection.execute('ANALYZE');
  const firstVendorIds = async (tenantId: number) => (await connection.execute<{ id: number }[]>('SELECT id FROM vendor WHERE tenant_id = ? ORDER BY id LIMIT 1000', [tenantId])).map((row) => row.id);
  const vendorIds = await firstVendorIds(tenant.id);
  const smallTenantVendorIds = await firstVendorIds(small.id);
  const { token } = await createSession(em, login, 24);
  const { token: smallTenantToken } = await createSession(em, smallLogin, 24);
  const callbackSecret = await setCallbackSecret(em, tenant, 'emailprovider1');
  await orm.close();
  return { tenantId: tenant.id, token, smallTenantToken, vendorIds, smallTenantVendorIds, callbackSecret };
}

/** `count` vendors of the tenant `tenantId`, each with a name and a website (the shape every benchmarked vendor read answers). */
async function insertVendors(connection: ReturnType<EntityManager['getConnection']>, tenantId: number, count: number): Promise<void> {
  await connection.execute(
    `INSERT INTO vendor (tenant_id, name, name_key, website_url)
     SELECT ?, 'Vendor ' || lpad(n::text, 6, '0'), 'vendor' || lpad(n::text, 6, '0'), 'https://vendor' || n || '.example'
     FROM generate_series(1, ?) AS n`, [tenantId, count]);
}

const startScript = (): string[] => (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.split(/\s+/);

/** The node flags of the `start` script in package.json, so memory is measured as served. */
export function startFlags(): string[] {
  return startScript().filter((word) => word.startsWith('--'));
}

/** The environment the `start` script sets before `node` (glibc's malloc settings), for the same reason. */
export function startEnv(): Record<string, string> {
  const words = startScript();
  return Object.fromEntries(words.slice(0, words.indexOf('node')).map((word) => word.split('=', 2) as [string, string]));
}

/** Starts a compiled script (with the `start` flags) and resolves once its stdout shows `ready`; its stdout is also copied to `stdoutCopy` when given. */
export function startServerProcess(script: string, env: Record<string, string>, ready: RegExp, extraFlags: string[] = [], stdoutCopy?: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...startFlags(), ...extraFlags, script], { env: { ...process.env, ...startEnv(), ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    const copy = stdoutCopy ? createWriteStream(stdoutCopy) : null;
    let output: string | null = '';
    child.stdout.on('data', (chunk: Buffer) => {
      copy?.write(chunk);
      if (output === null) return;
      output += chunk.toString();
      if (ready.test(output)) {
        output = null;
        resolve(child);
      }
    });
    child.on('exit', (code) => reject(new Error(`${path.basename(script)} exited with ${code}`)));
  });
}

/** Sends SIGTERM and waits for the process to exit. */
export async function stopServerProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** A SendGrid-style batch (emailprovider1) of three events, new event ids each time. */
export function callbackBody(): string {
  const id = Math.random().toString(36).slice(2, 12);
  const email = `person${Math.floor(Math.random() * 10000) + 1}@bench.example`;
  return JSON.stringify([
    { email, timestamp: Math.floor(Date.now() / 1000), event: 'delivered', sg_event_id: `${id}-1`, sg_message_id: `${id}.filter0001`, response: '250 OK', category: ['newsletter'] },
    { email, timestamp: Math.floor(Date.now() / 1000), event: 'open', sg_event_id: `${id}-2`, sg_message_id: `${id}.filter0001`, useragent: 'Mozilla/5.0', ip: '192.0.2.10' },
    { email, timestamp: Math.floor(Date.now() / 1000), event: 'click', sg_event_id: `${id}-3`, sg_message_id: `${id}.filter0001`, url: 'https://bench.example/news?utm_source=newsletter' },
  ]);
}

export const listOptions = (options: Record<string, unknown>) => encodeURIComponent(JSON.stringify(options));

/** A fresh database `name` on DATABASE_URL's server, or on an embedded one under .data/<folder>. */
export async function scratchDatabase(name: string, folder: string): Promise<{ url: string; server: DatabaseServer; drop(): Promise<void> }> {
  const config = loadConfig();
  const server = config.DATABASE_URL
    ? { url: config.DATABASE_URL, embedded: false, stop: async () => {} }
    : await startEmbeddedDatabase({ dataDir: path.join(root, '.data', folder), port: await freePort(), database: 'postgres', fast: true });
  await dropDatabase(server.url, name);
  await ensureDatabase(server.url, name);
  return { url: withDatabase(server.url, name), server, drop: () => dropDatabase(server.url, name) };
}

/**
 * Starts the service exactly as `npm start` does (the bundle's main.js, its node flags) on `url`, in
 * production mode, in its own process; resolves once it listens. Its log lines (JSON) are kept:
 * `logLines()` answers those at `level` or above.
 */
export function startService(url: string, port: number, env: Record<string, string> = {}): Promise<ChildProcess & { logLines(level?: number): string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...startFlags(), path.join(bundle, 'main.js')], {
      env: { ...process.env, ...startEnv(), DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'production', LOG_LEVEL: 'warn', DATABASE_POOL_MAX: '10', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines: string[] = [];
    let partial = '';
    let ready = false;
    child.stdout.on('data', (chunk: Buffer) => {
      const text = partial + chunk.toString();
      const complete = text.split('\n');
      partial = complete.pop() ?? '';
      // The first thousand lines are enough to see what failed; the pipe is read to the end regardless.
      for (const line of complete) if (lines.length < 1000) lines.push(line);
      if (!ready && /GraphQL:/.test(text)) {
        ready = true;
        resolve(Object.assign(child, {
          logLines: (level = 50) => lines.filter((line) => {
            try {
              return (JSON.parse(line) as { level?: number }).level! >= level;
            } catch {
              return false;
            }
          }),
        }));
      }
    });
    child.on('exit', (code) => { if (!ready) reject(new Error(`the service exited with ${code}:\n${lines.join('\n')}`)); });
  });
}

/** A process's resident memory in MB. */
export async function residentMb(pid: number): Promise<number> {
  return Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

/** Runs `work` while sampling process `pid`'s RSS every 50 ms; answers its result, its time and the highest RSS seen. */
export async function sampledRss<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; ms: number; peakMb: number }> {
  let peakMb = await residentMb(pid);
  let running = true;
  const sampler = (async () => {
    while (running) {
      peakMb = Math.max(peakMb, await residentMb(pid));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const started = performance.now();
  try {
    const result = await work();
    return { result, ms: performance.now() - started, peakMb };
  } finally {
    running = false;
    await sampler;
  }
}

/** A GraphQL caller of the service at `base` with `token`: answers `data`, throws on errors. */
export function graphqlCaller(base: string, token: string): <T>(query: string, variables?: Record<string, unknown>) => Promise<T> {
  return async <T>(query: string, variables: Record<string, unknown> = {}) => {
    const response = await fetch(`${base}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
    const body = await response.json() as { data: T; errors?: unknown[] };
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  };
}
