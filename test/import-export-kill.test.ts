/**
 * Issue 38: a contact import neither loses nor duplicates rows when the process running it is
 * killed (SIGKILL) mid-import and the service restarts. The real server runs as its own process
 * (`dist/src/main.js`) on this file's database; the import is uploaded and started over REST, the
 * process is killed once some but not all batches are committed, then started again: the pump
 * hands the import, whose checkpoint stopped moving (IMPORT_STALE_SECONDS, shortened here), to a
 * new job, which resumes after the last committed batch.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import { MembershipType } from '../src/entities/membership.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { exited, freePort, killNow, startNode, waitFor } from './support/processes.js';

const ROWS = 3000;
const MARKER = 'Killed';

let database: TestServer;
let child: ChildProcess | null = null;
let env: Record<string, string>;
let baseUrl: string;

beforeAll(async () => {
  database = await startTestServer();
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  env = { DATABASE_URL: database.databaseUrl, PORT: String(port), LOG_LEVEL: 'error', NODE_ENV: 'development', IMPORT_BATCH_ROWS: '50', IMPORT_STALE_SECONDS: '3' };
}, 60_000);

afterAll(async () => {
  if (child) await killNow(child);
  await database?.close();
}, 30_000);

async function startServer(): Promise<string> {
  const started = await startNode('main.js', env, /Bearer (\S+)/);
  child = started.child;
  return /Bearer (\S+)/.exec(started.output())![1];
}

const sql = <T>(query: string, params: unknown[] = []) => database.orm.em.fork().getConnection().execute<T[]>(query, params);

describe('a contact import whose process is killed mid-import', () => {
  it('resumes after a restart and imports every row exactly once', async () => {
    const token = await startServer();
    const [tenant] = await sql<{ id: number }>('SELECT id FROM tenant WHERE key = ?', ['demo']);
    const em = database.orm.em.fork();
    em.create(MembershipType, { tenant: tenant.id, name: 'Kill type', durationMonths: 12 });
    await em.flush();

    const csv = ['ExternalId,FirstName,LastName,Email,MembershipType,MembershipStartDate',
      ...Array.from({ length: ROWS }, (_, index) => `K-${index},Row${index},${MARKER},row${index}@killed.example,Kill type,2026-01-01`)].join('\r\n');
    const form = new FormData();
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'killed.csv');
    const uploaded = await fetch(`${baseUrl}/api/imports/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    expect(uploaded.status).toBe(200);
    const { ImportId: importId } = (await uploaded.json()) as { ImportId: number };
    const started = await fetch(`${baseUrl}/api/imports/${importId}/start`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({}),
    });
    expect(started.status).toBe(200);

    const progress = async () => (await sql<{ rows_done: number; state: string; created: number }>('SELECT rows_done, state, created FROM contact_import WHERE id = ?', [importId]))[0];
    const imported = async () => Number((await sql<{ n: string }>('SELECT count(*) AS n FROM contact WHERE tenant_id = ? AND last_name = ?', [tenant.id, MARKER]))[0].n);
    await waitFor('the first batches', progress, (row) => row.rows_done >= ROWS / 10, 60_000, 10);
    const killed = exited(child!);
    child!.kill('SIGKILL');
    await killed;
    const atKill = await progress();
    expect(atKill.state).toBe('running');
    expect(atKill.rows_done).toBeLessThan(ROWS); // cut off in the middle
    expect(await imported()).toBe(atKill.rows_done); // each committed batch with its checkpoint, nothing more

    await startServer();
    const done = await waitFor('the import to finish', progress, (row) => row.state !== 'running', 120_000);
    process.stdout.write(`import-export-kill: ${ROWS} rows, ${atKill.rows_done} committed before SIGKILL\n`);
    expect(done).toEqual({ rows_done: ROWS, state: 'completed', created: ROWS });
    expect(await sql('SELECT count(*)::int AS n, count(DISTINCT email)::int AS emails FROM contact WHERE tenant_id = ? AND last_name = ?', [tenant.id, MARKER]))
      .toEqual([{ n: ROWS, emails: ROWS }]);
    expect(await sql(`SELECT count(*)::int AS n FROM membership m JOIN contact c ON c.id = m.contact_id WHERE c.tenant_id = ? AND c.last_name = ?`, [tenant.id, MARKER]))
      .toEqual([{ n: ROWS }]);
    expect(await sql('SELECT count(*)::int AS n FROM contact_external_id WHERE tenant_id = ?', [tenant.id])).toEqual([{ n: ROWS }]);
  }, 240_000);
});
