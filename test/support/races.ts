import pg from 'pg';
import type { HttpResult, TestServer } from './harness.js';

/**
 * Makes a delete land exactly between a save's read and its write, instead of hoping a race hits
 * that moment: another transaction locks the record's row, `save` is sent, and once the save's
 * `UPDATE` of `table` waits for that lock, the other transaction deletes the row and commits. The
 * save's UPDATE then finds no row. Answers the save's response, which must not be a 200: a save
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
    for (const deadline = Date.now() + 10_000; !(await updateWaitsForLock(deleter, table));) {
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

/** Whether a backend's `UPDATE` of `table` waits for a lock `client`'s transaction holds. */
async function updateWaitsForLock(client: pg.Client, table: string): Promise<boolean> {
  // Statistics views are a snapshot taken once per transaction unless cleared (PostgreSQL 15+).
  await client.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await client.query<{ waiting: number }>(
    `SELECT count(*)::int AS waiting FROM pg_stat_activity
      WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid)) AND query ILIKE $1`,
    [`update "${table}"%`],
  );
  return (rows[0]?.waiting ?? 0) > 0;
}
