/**
 * Issue 31, item 8: an Idempotency-Key write is applied once even when the server process is
 * killed (SIGKILL) between the operation's write and the storing of its response. The real server
 * runs as its own process (`dist/bundle/main.js`) on this file's database. The test stops a keyed
 * create at exactly that point with table locks of its own (`stoppedBetween`: SHARE on `vendor`
 * holds the write back until the test lets it go, SHARE on `idempotency_record` then holds back
 * the storing of the response), kills the process there, and restarts it: the repeat with the same key runs afresh
 * (the write had not committed), a further repeat replays that answer, and one vendor exists. A
 * keyed write answered before the kill is replayed after the restart, not run again.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { startTestServer, type TestServer } from './support/harness.js';
import { freePort, killNow, startNode, waitFor } from './support/processes.js';
import { stoppedBetween } from './support/races.js';

let database: TestServer;
let child: ChildProcess | null = null;
let base: string;
let env: Record<string, string>;
/** The test's connection for its queries. */
let queries: pg.Client;

beforeAll(async () => {
  database = await startTestServer();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  env = { DATABASE_URL: database.databaseUrl, PORT: String(port), LOG_LEVEL: 'error', NODE_ENV: 'development' };
  queries = await connect();
}, 60_000);

afterAll(async () => {
  if (child) await killNow(child);
  await queries?.end();
  await database?.close();
}, 30_000);

/** Starts the server process; answers the demo tenant's staff token it prints. */
async function startServer(): Promise<string> {
  const started = await startNode('main.js', env, /Bearer (\S+)/, 60_000);
  child = started.child;
  return /Bearer (\S+)/.exec(started.output())![1];
}

async function connect(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: database.databaseUrl });
  await client.connect();
  return client;
}

async function sql<T extends pg.QueryResultRow>(query: string, params: unknown[] = []): Promise<T[]> {
  return (await queries.query<T>(query, params)).rows;
}

const createVendor = (token: string, name: string, key: string) => fetch(`${base}/api/vendors`, {
  method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify({ Name: name }),
});

const vendorsNamed = async (name: string) => Number((await sql<{ count: string }>('SELECT count(*) AS count FROM vendor WHERE name = $1', [name]))[0].count);

describe('Idempotency-Key: a server killed between the write and the stored response', () => {
  it('applies the write once: the repeat after the restart runs it afresh, later repeats replay it', async () => {
    const token = await startServer();
    const answeredBeforeKill = await createVendor(token, 'Idem answered before kill', 'kill-answered');
    expect(answeredBeforeKill.status).toBe(200);
    const answeredBody = await answeredBeforeKill.json();

    // Stop the create between its write and the storing of its response, and kill the server there.
    const { response, backend } = await stoppedBetween(database.databaseUrl, { first: 'vendor', second: 'idempotency_record' },
      () => createVendor(token, 'Idem killed mid-write', 'kill-mid-write').then(() => 'answered', () => 'no answer'),
      async (backend) => {
        // The write is made (its table's ROW EXCLUSIVE lock is held) but not committed, and the key has no response.
        const held = await sql<{ mode: string }>("SELECT mode FROM pg_locks WHERE pid = $1 AND granted AND relation = 'vendor'::regclass", [backend]);
        expect(held.map((lock) => lock.mode)).toContain('RowExclusiveLock');
        expect(await sql("SELECT state, status_code FROM idempotency_record WHERE key = 'kill-mid-write'")).toEqual([{ state: 'open', status_code: null }]);
        await killNow(child!);
      });
    expect(response).toBe('no answer');
    // Let go, the orphaned backend finds its client gone, and PostgreSQL rolls its transaction back.
    await waitFor('the killed server\'s backend to end', async () => (await sql('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [backend])).length, (count) => count === 0, 30_000, 50);
    expect(await vendorsNamed('Idem killed mid-write')).toBe(0);

    await startServer(); // the first session stays valid: the same credential, so the same keys
    const repeat = await createVendor(token, 'Idem killed mid-write', 'kill-mid-write');
    expect(repeat.status).toBe(200);
    expect(repeat.headers.get('idempotent-replayed')).toBeNull(); // run afresh: nothing had been applied
    const again = await createVendor(token, 'Idem killed mid-write', 'kill-mid-write');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await repeat.json());
    expect(await vendorsNamed('Idem killed mid-write')).toBe(1);

    // The write answered before the kill keeps its answer: replayed, not run again.
    const replayed = await createVendor(token, 'Idem answered before kill', 'kill-answered');
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(await replayed.json()).toEqual(answeredBody);
    expect(await vendorsNamed('Idem answered before kill')).toBe(1);
  }, 180_000);
});
