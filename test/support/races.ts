import pg from 'pg';
import type { HttpResult, TestServer } from './harness.js';

/**
 * Makes a delete land exactly between a save's read and its write, instead of hoping a race hits
 * that moment: another transaction locks the record's row, `save` is sent, and once the save's
 * `UPDATE` of `table` waits for that lock, the other transaction deletes the row and commits. The
 * save's UPDATE (or its locking read) then finds no row. Answers the save's response, which must not be a 200: a save
 * is never acknowledged for a write that did not happen.
 */
export async function saveWhileDeleted(server: TestServer, table: string, id: number, save: () => Promise<HttpResult>): Promise<HttpResult> {
  const deleter = new pg.Client({ connectionString: server.databaseUrl });
  await deleter.connect();
  try {
    await deleter.query('BEGIN');
    const locked = await deleter.query(`SELECT id FROM "${table}" WHERE id = $1 FOR UPDATE`, [id]);
    if (locked.rowCount !== 1) throw new Error(`${table} ${id} does not exist`);
    let answered = false;
    const pending = save().finally(() => { answered = true; });
    for (const deadline = Date.now() + 10_000; !(await waitsForLock(deleter, table));) {
      if (answered || Date.now() > deadline) {
        await deleter.query('ROLLBACK');
        throw new Error(`The save never waited to update ${table} ${id} (status ${(await pending).status})`);
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await deleter.query(`DELETE FROM "${table}" WHERE id = $1`, [id]);
    await deleter.query('COMMIT');
    return await pending;
  } finally {
    await deleter.end();
  }
}

/** Whether a backend's statement on `table` (its UPDATE, or a locking read before it) waits for a lock `client`'s transaction holds. */
async function waitsForLock(client: pg.Client, table: string): Promise<boolean> {
  // Statistics views are a snapshot taken once per transaction unless cleared (PostgreSQL 15+).
  await client.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await client.query<{ waiting: number }>(
    `SELECT count(*)::int AS waiting FROM pg_stat_activity
      WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid)) AND query ILIKE $1`,
    [`%"${table}"%`],
  );
  return (rows[0]?.waiting ?? 0) > 0;
}

/**
 * Stops `request` between two of its writes, to look at (or kill) it there: a SHARE lock on
 * `first` holds it back at its write there; once it waits, a SHARE lock on `second` is taken and
 * the first let go, so the request makes its write to `first` and waits again at its write to
 * `second`. `meanwhile` then runs, given the id of the request's database backend; afterwards the
 * request is let go. Answers what `request` answered, and that backend.
 */
export async function stoppedBetween<T>(
  databaseUrl: string, tables: { first: string; second: string }, request: () => Promise<T>, meanwhile: (backend: number) => Promise<void>,
): Promise<{ response: T; backend: number }> {
  const holders: pg.Client[] = [];
  const holdShare = async (table: string) => {
    const client = new pg.Client({ connectionString: databaseUrl });
    holders.push(client);
    await client.connect();
    await client.query('BEGIN');
    await client.query(`LOCK TABLE "${table}" IN SHARE MODE`);
    return client;
  };
  try {
    const firstHolder = await holdShare(tables.first);
    const pending = request();
    const backend = await waitingFor(firstHolder, tables.first);
    const secondHolder = await holdShare(tables.second);
    await firstHolder.query('COMMIT');
    if (await waitingFor(secondHolder, tables.second) !== backend) throw new Error(`another backend than ${backend} waits for ${tables.second}`);
    await meanwhile(backend);
    await secondHolder.query('COMMIT');
    return { response: await pending, backend };
  } finally {
    await Promise.all(holders.map((client) => client.end()));
  }
}

/** The backend waiting for the lock `holder` holds on `table`, once one does (10 s at the most). */
async function waitingFor(holder: pg.Client, table: string): Promise<number> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 10))) {
    const { rows } = await holder.query<{ pid: number }>(
      'SELECT pid FROM pg_locks WHERE NOT granted AND relation = $1::regclass AND pg_backend_pid() = ANY(pg_blocking_pids(pid))', [table]);
    if (rows[0]) return rows[0].pid;
  }
  throw new Error(`nothing waited for the lock on ${table}`);
}
