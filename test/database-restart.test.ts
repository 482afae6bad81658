/**
 * PostgreSQL stops under load and comes back: the server process must live through it, answer
 * 503 problem+json with Retry-After meanwhile (and /readyz 503), and then resume reads, writes,
 * callback ingestion and job processing by itself, with every acknowledged write and callback
 * present and every acknowledged callback processed.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedDatabase, type DatabaseServer } from '../src/db/database.js';
import { callbackSignature } from '../src/services/callbacks/callbacks.js';
import { freePort, runNode, startNode } from './support/processes.js';

let dataDir: string;
let database: DatabaseServer;
let dbPort: number;
let child: ChildProcess;
let base: string;
let token: string;
let secret: string;
/** What the server wrote (its errors are logged at LOG_LEVEL error). */
let serverOutput: () => string = () => '';

const startDatabase = () => startEmbeddedDatabase({ dataDir, port: dbPort, database: 'restart', fast: true });

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'membership-restart-'));
  await chmod(dataDir, 0o755); // PostgreSQL runs as its own user when the tests run as root
  dbPort = await freePort();
  database = await startDatabase();
  const env = { DATABASE_URL: database.url, LOG_LEVEL: 'error', NODE_ENV: 'development' };
  const port = await freePort();
  const started = await startNode('main.js', { ...env, PORT: String(port) }, /Bearer (\S+)/);
  child = started.child;
  serverOutput = started.output;
  token = /Bearer (\S+)/.exec(started.output())![1]!;
  base = `http://127.0.0.1:${port}`;
  // The server made the demo tenant; give it a callback secret.
  secret = (await runNode('cli.js', ['callback-secret', 'set', '--tenant', 'demo', '--provider', 'emailprovider1'], env)).stdout.trim();
}, 60_000);

afterAll(async () => {
  if (child) {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('close', resolve));
  }
  await database?.stop();
  await rm(dataDir, { recursive: true, force: true });
}, 30_000);

const call = (method: string, pathname: string, body?: unknown) => fetch(`${base}${pathname}`, {
  method,
  headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
  body: body === undefined ? undefined : JSON.stringify(body),
});

let eventNumber = 0;
/** Posts one signed callback with a new event; answers the status and the event id. */
async function postCallback(): Promise<{ status: number; eventId: string }> {
  const eventId = `restart-${++eventNumber}`;
  const body = JSON.stringify([{ sg_event_id: eventId, event: 'delivered', email: 'someone@demo.example', timestamp: 1700000000 }]);
  const timestamp = Math.floor(Date.now() / 1000);
  const response = await fetch(`${base}/api/callback/emailprovider1?tenant=demo`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-callback-timestamp': String(timestamp), 'x-callback-signature': callbackSignature(secret, timestamp, body) },
    body,
  });
  return { status: response.status, eventId };
}

describe('a database restart under load', () => {
  it('is survived: 503 with Retry-After meanwhile, everything acknowledged kept, then full service again', async () => {
    const acknowledgedVendors: string[] = [];
    const acknowledgedCallbacks: string[] = [];
    const outageAnswers: { status: number; retryAfter: string | null; type: string | null }[] = [];
    let running = true;
    let databaseDown = false;
    let serial = 0;
    // Load: writers, readers and callback senders, as fast as they are answered.
    const load = Array.from({ length: 6 }, (_, worker) => (async () => {
      while (running) {
        try {
          if (worker % 3 === 0) {
            const name = `Restart vendor ${++serial}`;
            const response = await call('POST', '/api/vendors', { Name: name });
            if (response.status === 200) acknowledgedVendors.push(name);
            else if (databaseDown) outageAnswers.push({ status: response.status, retryAfter: response.headers.get('retry-after'), type: response.headers.get('content-type') });
            await response.arrayBuffer();
          } else if (worker % 3 === 1) {
            const response = await call('GET', '/api/vendors?options=%7B%22Take%22%3A5%7D');
            if (response.status !== 200 && databaseDown) outageAnswers.push({ status: response.status, retryAfter: response.headers.get('retry-after'), type: response.headers.get('content-type') });
            await response.arrayBuffer();
          } else {
            const { status, eventId } = await postCallback();
            if (status === 200) acknowledgedCallbacks.push(eventId);
          }
        } catch {
          // A refused connection would mean the server died: checked below.
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })());

    await new Promise((resolve) => setTimeout(resolve, 1500));
    databaseDown = true;
    await database.stop();
    await new Promise((resolve) => setTimeout(resolve, 4000));
    const readyDuringOutage = await fetch(`${base}/readyz`);
    expect(readyDuringOutage.status).toBe(503);
    database = await startDatabase();
    databaseDown = false;
    // Service resumes by itself.
    let recovered = false;
    for (let attempt = 0; attempt < 60 && !recovered; attempt++) {
      recovered = (await call('GET', '/api/vendors')).status === 200 && (await fetch(`${base}/readyz`)).status === 200;
      if (!recovered) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(recovered).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    running = false;
    await Promise.all(load);

    expect(child.exitCode).toBeNull(); // the server process lived through it
    expect(outageAnswers.length).toBeGreaterThan(0);
    if (outageAnswers.some((answer) => answer.status >= 500 && answer.status !== 503)) {
      const unexpected = serverOutput().split('\n').filter((line) => line.includes('unexpected error')).map((line) => line.slice(0, 800));
      throw new Error(`a 5xx other than 503 during the outage; the server logged:\n${unexpected.join('\n')}`);
    }
    for (const answer of outageAnswers) {
      expect(answer).toEqual({ status: 503, retryAfter: expect.stringMatching(/^\d+$/), type: expect.stringContaining('application/problem+json') });
    }
    // Writes and callbacks work again after the restart.
    expect((await call('POST', '/api/vendors', { Name: 'After the restart' })).status).toBe(200);
    const after = await postCallback();
    expect(after.status).toBe(200);
    acknowledgedCallbacks.push(after.eventId);

    // Every acknowledged write is there, and every acknowledged callback gets processed.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows: vendors } = await client.query<{ name: string }>('SELECT name FROM vendor');
      const stored = new Set(vendors.map((row) => row.name));
      expect(acknowledgedVendors.filter((name) => !stored.has(name))).toEqual([]);
      let unprocessed: string[] = acknowledgedCallbacks;
      // A batch cut off by the outage runs again after its expiry (30 s), the next monitor pass
      // (within 10 s) and its first retry delay (5-10 s); the rest is headroom for a loaded machine.
      for (let attempt = 0; attempt < 180 && unprocessed.length > 0; attempt++) {
        const { rows } = await client.query<{ provider_event_id: string }>('SELECT provider_event_id FROM email_event');
        const recorded = new Set(rows.map((row) => row.provider_event_id));
        unprocessed = acknowledgedCallbacks.filter((eventId) => !recorded.has(eventId));
        if (unprocessed.length) await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(unprocessed).toEqual([]);
    } finally {
      await client.end();
    }
  }, 180_000);
});
