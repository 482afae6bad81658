import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './processes.js';

/** PgBouncer in transaction mode in front of a PostgreSQL server, for the PgBouncer-compatible mode's test. */
export interface Bouncer {
  /** The same database URL, through PgBouncer. */
  url(databaseUrl: string): string;
  /** Runs a statement on PgBouncer's admin console (`SHOW POOLS`, …). */
  admin<T extends pg.QueryResultRow>(command: string): Promise<T[]>;
  stop(): Promise<void>;
}

const CANDIDATES = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer'];

/**
 * The pgbouncer binary, or why the test cannot run. Tests never install system packages
 * themselves: `.ci/run` installs Debian's package; a developer runs `apt-get install pgbouncer`.
 */
export function findPgbouncer(): { binary: string } | { skip: string } {
  const found = CANDIDATES.find((candidate) => existsSync(candidate));
  return found ? { binary: found } : { skip: 'pgbouncer is not installed (apt-get install -y pgbouncer; .ci/run installs it)' };
}

/** Starts PgBouncer (pool_mode = transaction, `serverPoolSize` server connections per database) in front of the server of `serverUrl`. */
export async function startPgbouncer(binary: string, serverUrl: string, options: { serverPoolSize: number }): Promise<Bouncer> {
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username);
  const password = decodeURIComponent(server.password);
  const dir = await mkdtemp(path.join(tmpdir(), 'membership-pgbouncer-'));
  await chmod(dir, 0o755);
  const port = await freePort();
  await writeFile(path.join(dir, 'userlist.txt'), `"${user}" "${password}"\n`, { mode: 0o644 });
  await writeFile(path.join(dir, 'pgbouncer.ini'), [
    '[databases]',
    `* = host=${server.hostname} port=${server.port}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = scram-sha-256',
    `auth_file = ${path.join(dir, 'userlist.txt')}`,
    `admin_users = ${user}`,
    'pool_mode = transaction',
    `default_pool_size = ${options.serverPoolSize}`,
    'max_client_conn = 500',
    // 1.18 refuses startup parameters it does not know; node-postgres sends none of these, but JDBC-style clients do.
    'ignore_startup_parameters = extra_float_digits',
    '',
  ].join('\n'), { mode: 0o644 });
  // PgBouncer refuses to run as root; -u drops to the postgres system user (which the embedded server created).
  const asRoot = userInfo().uid === 0;
  const child: ChildProcess = spawn(binary, [...(asRoot ? ['-u', 'postgres'] : []), path.join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (chunk) => { log = (log + chunk).slice(-4000); });
  const url = (databaseUrl: string) => {
    const parsed = new URL(databaseUrl);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(port);
    return parsed.toString();
  };
  const admin = async <T extends pg.QueryResultRow>(command: string) => {
    const parsed = new URL(serverUrl);
    parsed.port = String(port);
    parsed.pathname = '/pgbouncer';
    const client = new pg.Client({ connectionString: parsed.toString(), connectionTimeoutMillis: 5000 });
    await client.connect();
    try {
      // Without parameters node-postgres uses the simple query protocol, the only one the admin console speaks.
      return (await client.query<T>(command)).rows;
    } finally {
      await client.end();
    }
  };
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('close', resolve));
      child.kill('SIGINT');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    await rm(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await admin('SHOW VERSION');
      break;
    } catch (error) {
      if (child.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw new Error(`pgbouncer did not start: ${(error as Error).message}\n${log}`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return { url, admin, stop };
}
