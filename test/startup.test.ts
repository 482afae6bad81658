import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { dropDatabase, ensureDatabase, withDatabase } from '../src/db/database.js';
import { migrations } from '../src/db/migrations/index.js';
import { openOrm } from '../src/db/orm.js';
import { freePort, runNode, startNode } from './support/processes.js';

// Starts that must refuse, as the operator sees them: the built server and CLI, spawned.
// A first start migrates a whole database: more than the default on a busy 2-core machine.
jest.setTimeout(120_000);

const adminUrl = process.env.TEST_ADMIN_DATABASE_URL!;
const created: string[] = [];
let dataDir: string;

beforeAll(async () => {
  expect(adminUrl).toBeTruthy();
  dataDir = await mkdtemp(path.join(tmpdir(), 'membership-startup-'));
});
afterAll(async () => {
  for (const database of created) await dropDatabase(adminUrl, database);
  await rm(dataDir, { recursive: true, force: true });
});

/** A new database migrated up to `to` (every migration when null); answers its URL. */
async function databaseAt(to: string | null): Promise<string> {
  const database = `startup_${randomBytes(5).toString('hex')}`;
  await ensureDatabase(adminUrl, database);
  created.push(database);
  const url = withDatabase(adminUrl, database);
  const orm = await openOrm({ url, poolMax: 2 });
  try {
    await orm.migrator.up(to ? { to } : undefined);
  } finally {
    await orm.close();
  }
  return url;
}

async function sql<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Asserts a refusal as the operator must see it: exit 1, one line on stderr, no crash of our own. */
function expectOneLineRefusal(result: { code: number | null; stderr: string }): string {
  expect(result.code).toBe(1);
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(result.stderr).not.toMatch(/TypeError|undefined|\n\s+at /);
  return lines[0];
}

describe('the embedded database\'s port already in use', () => {
  let occupant: Server;
  let port: number;

  beforeAll(async () => {
    occupant = createServer();
    await new Promise<void>((resolve) => occupant.listen(0, '127.0.0.1', resolve));
    port = (occupant.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => occupant.close(() => resolve())));

  const env = () => ({ DATABASE_URL: '', DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(port), PORT: '0', LOG_LEVEL: 'silent' });

  it('stops the server with one line naming the port and EMBEDDED_PG_PORT, exit code 1', async () => {
    const line = expectOneLineRefusal(await runNode('main.js', [], env()));
    expect(line).toContain(`port ${port}`);
    expect(line).toContain('EMBEDDED_PG_PORT');
  });

  it('stops the CLI the same way, never printing "error: undefined"', async () => {
    const line = expectOneLineRefusal(await runNode('cli.js', ['migrate'], env()));
    expect(line).toMatch(new RegExp(`^error: .*port ${port}.*EMBEDDED_PG_PORT`));
  });
});

describe('versions: the code and the database\'s migrations', () => {
  it('refuses to start on a database migrated by a newer build, naming the migrations it does not know', async () => {
    const url = await databaseAt(null);
    await sql(url, "INSERT INTO mikro_orm_migrations (name) VALUES ('9998-from-the-future'), ('9999-also-newer')");
    const server = expectOneLineRefusal(await runNode('main.js', [], { DATABASE_URL: url, PORT: '0', LOG_LEVEL: 'silent' }));
    expect(server).toMatch(/newer version.*9998-from-the-future, 9999-also-newer/);
    const cli = expectOneLineRefusal(await runNode('cli.js', ['migrate'], { DATABASE_URL: url, LOG_LEVEL: 'silent' }));
    expect(cli).toMatch(/^error: .*9998-from-the-future, 9999-also-newer/);
    // Refused before anything ran: nothing was applied or recorded.
    expect((await sql<{ n: string }>(url, 'SELECT count(*) AS n FROM mikro_orm_migrations'))[0].n).toBe(String(migrations.length + 2));
  });

  it('starts a newer build on older data: it applies the missing migrations and keeps the rows', async () => {
    const earlier = migrations[migrations.length - 4].name;
    const url = await databaseAt(earlier);
    await sql(url, "INSERT INTO tenant (key, name) VALUES ('kept', 'Kept Before The Upgrade')");
    const before = (await sql<{ name: string }>(url, 'SELECT name FROM mikro_orm_migrations')).map((row) => row.name);
    expect(before).toHaveLength(migrations.length - 3);

    const port = await freePort();
    const { child } = await startNode('main.js', { DATABASE_URL: url, PORT: String(port), NODE_ENV: 'production', LOG_LEVEL: 'warn' }, /GraphQL:/, 90_000);
    try {
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    } finally {
      const code = exited(child);
      child.kill('SIGTERM');
      expect(await code).toBe(0);
    }
    const after = (await sql<{ name: string }>(url, 'SELECT name FROM mikro_orm_migrations ORDER BY id')).map((row) => row.name);
    expect(after).toEqual(migrations.map((migration) => migration.name));
    expect(await sql(url, "SELECT name FROM tenant WHERE key = 'kept'")).toEqual([{ name: 'Kept Before The Upgrade' }]);
  });
});

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.on('close', (code) => resolve(code)));
}
