/**
 * Issue 38: a contact import neither loses nor duplicates rows when the process running it is
 * killed (SIGKILL) mid-import and the service restarts. The real server runs as its own process
 * (`dist/bundle/main.js`) on this file's database; the import is uploaded and started over REST, the
 * process is killed once some but not all batches are committed, then started again: the pump
 * hands the import, whose checkpoint stopped moving (IMPORT_STALE_SECONDS, shortened here), to a
 * new job, which resumes after the last committed batch. A dry run resumes the same way, with the
 * state its committed batches kept (services/imports/dry-run.ts).
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

/** The demo staff token the running server printed. */
let token: string;

async function startServer(): Promise<void> {
  const started = await startNode('main.js', env, /Bearer (\S+)/);
  child = started.child;
  token = /Bearer (\S+)/.exec(started.output())![1];
}

const sql = <T>(query: string, params: unknown[] = []) => database.orm.em.fork().getConnection().execute<T[]>(query, params);

const progress = async (importId: number) =>
  (await sql<{ rows_done: number; state: string; created: number; updated: number; unchanged: number }>(
    'SELECT rows_done, state, created, updated, unchanged FROM contact_import WHERE id = ?', [importId]))[0];

/**
 * Uploads `csv` to the running server, starts it (a dry run or the import), kills the server once
 * a tenth of the rows are settled, starts it again and waits for the run to finish; answers the
 * import and its final progress.
 */
type Progress = Awaited<ReturnType<typeof progress>>;

async function runKilled(csv: string, dryRun: boolean, onKilled: (atKill: Progress) => Promise<void>): Promise<{ importId: number; done: Progress }> {
  const form = new FormData();
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'killed.csv');
  const uploaded = await fetch(`${baseUrl}/api/imports/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  expect(uploaded.status).toBe(200);
  const { ImportId: importId } = (await uploaded.json()) as { ImportId: number };
  const started = await fetch(`${baseUrl}/api/imports/${importId}/start`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ DryRun: dryRun }),
  });
  expect(started.status).toBe(200);
  await waitFor('the first batches', () => progress(importId), (row) => row.rows_done >= ROWS / 10, 60_000, 10);
  const killed = exited(child!);
  child!.kill('SIGKILL');
  await killed;
  const atKill = await progress(importId);
  expect(atKill.state).toBe('running');
  expect(atKill.rows_done).toBeLessThan(ROWS); // cut off in the middle
  await onKilled(atKill);
  await startServer();
  const done = await waitFor('the run to finish', () => progress(importId), (row) => row.state !== 'running', 120_000);
  process.stdout.write(`import-export-kill: ${ROWS} rows${dryRun ? ' (dry run)' : ''}, ${atKill.rows_done} settled before SIGKILL\n`);
  return { importId, done };
}

describe('a contact import whose process is killed mid-import', () => {
  let tenantId: number;

  beforeAll(async () => {
    await startServer(); // it makes the demo tenant
    const [tenant] = await sql<{ id: number }>('SELECT id FROM tenant WHERE key = ?', ['demo']);
    tenantId = tenant.id;
    const em = database.orm.em.fork();
    em.create(MembershipType, { tenant: tenantId, name: 'Kill type', durationMonths: 12 });
    await em.flush();
  });

  it('resumes after a restart and imports every row exactly once', async () => {
    const csv = ['ExternalId,FirstName,LastName,Email,MembershipType,MembershipStartDate',
      ...Array.from({ length: ROWS }, (_, index) => `K-${index},Row${index},${MARKER},row${index}@killed.example,Kill type,2026-01-01`)].join('\r\n');
    const imported = async () => Number((await sql<{ n: string }>('SELECT count(*) AS n FROM contact WHERE tenant_id = ? AND last_name = ?', [tenantId, MARKER]))[0].n);
    const { done } = await runKilled(csv, false, async (atKill) => {
      expect(await imported()).toBe(atKill.rows_done); // each committed batch with its checkpoint, nothing more
    });
    expect(done).toEqual({ rows_done: ROWS, state: 'completed', created: ROWS, updated: 0, unchanged: 0 });
    expect(await sql('SELECT count(*)::int AS n, count(DISTINCT email)::int AS emails FROM contact WHERE tenant_id = ? AND last_name = ?', [tenantId, MARKER]))
      .toEqual([{ n: ROWS, emails: ROWS }]);
    expect(await sql(`SELECT count(*)::int AS n FROM membership m JOIN contact c ON c.id = m.contact_id WHERE c.tenant_id = ? AND c.last_name = ?`, [tenantId, MARKER]))
      .toEqual([{ n: ROWS }]);
    expect(await sql('SELECT count(*)::int AS n FROM contact_external_id WHERE tenant_id = ?', [tenantId])).toEqual([{ n: ROWS }]);
  }, 240_000);

  it('resumes a dry run with the state its committed batches kept: a key repeated after the kill is still updated, never created twice', async () => {
    // Each person twice: first in the first half of the file, again (renamed) in the second.
    const half = ROWS / 2;
    const csv = ['ExternalId,FirstName,LastName,Email',
      ...Array.from({ length: ROWS }, (_, index) => `DRY-${index % half},${index < half ? 'First' : 'Again'}${index % half},Dry${MARKER},dry${index % half}@killed.example`)].join('\r\n');
    const { importId, done } = await runKilled(csv, true, async () => {});
    expect(done).toEqual({ rows_done: ROWS, state: 'completed', created: half, updated: half, unchanged: 0 });
    expect(await sql('SELECT count(*)::int AS n FROM contact WHERE tenant_id = ? AND last_name = ?', [tenantId, `Dry${MARKER}`])).toEqual([{ n: 0 }]);
    expect(await sql(`SELECT outcome, count(*)::int AS n, count(contact_id)::int AS ids FROM contact_import_row WHERE contact_import_id = ? GROUP BY outcome ORDER BY outcome`, [importId]))
      .toEqual([{ outcome: 'created', n: half, ids: 0 }, { outcome: 'updated', n: half, ids: 0 }]);
  }, 240_000);
});
