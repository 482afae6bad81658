import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './processes.js';

const run = promisify(execFile);
const TOOLS = ['initdb', 'pg_ctl', 'postgres', 'pg_dump', 'pg_restore'];

/**
 * The bin folder of an installed PostgreSQL whose server and client tools are one major version
 * (PG_BIN_DIR, else the newest Debian `postgresql-<major>` under /usr/lib/postgresql), or null.
 * pg_dump refuses a server newer than itself, so a backup test needs both of one version.
 */
export function findPostgresBin(): string | null {
  const candidates = process.env.PG_BIN_DIR
    ? [process.env.PG_BIN_DIR]
    : (existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql') : [])
      .filter((major) => /^\d+$/.test(major)).sort((a, b) => Number(b) - Number(a)).map((major) => `/usr/lib/postgresql/${major}/bin`);
  return candidates.find((bin) => TOOLS.every((tool) => existsSync(path.join(bin, tool)))) ?? null;
}

/** A throwaway PostgreSQL server from `bin`, on 127.0.0.1 and a free port, trusting local connections. */
export interface Cluster {
  bin: string;
  adminUrl: string;
  url(database: string): string;
  /** Runs one of the cluster's client tools (pg_dump, pg_restore) and answers its stdout. */
  tool(name: 'pg_dump' | 'pg_restore', args: string[]): Promise<string>;
  stop(): Promise<void>;
}

export async function startCluster(bin: string): Promise<Cluster> {
  const dir = await mkdtemp(path.join(tmpdir(), 'membership-backup-pg-'));
  const data = path.join(dir, 'data');
  const port = await freePort();
  // The server refuses to run as root: there it runs as the postgres system user (Debian's package makes it).
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    await chmod(dir, 0o755);
    await mkdir(data, { mode: 0o700 });
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(data, Number(stdout), Number(gid));
  }
  const server = (tool: string, args: string[]) => asRoot
    ? run('runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args])
    : run(path.join(bin, tool), args);
  await server('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C']);
  await server('pg_ctl', ['-D', data, '-w', '-l', path.join(data, 'server.log'), '-o',
    `-c listen_addresses=127.0.0.1 -p ${port} -k ${data} -c fsync=off -c full_page_writes=off -c max_connections=100`, 'start']);
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    bin,
    adminUrl: url('postgres'),
    url,
    async tool(name, args) {
      return (await run(path.join(bin, name), args, { maxBuffer: 64 * 1024 * 1024 })).stdout;
    },
    async stop() {
      await server('pg_ctl', ['-D', data, '-w', '-m', 'fast', 'stop']).catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}
