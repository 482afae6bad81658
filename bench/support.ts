import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/core/config.js';
import { dropDatabase, ensureDatabase, startEmbeddedDatabase, withDatabase, type DatabaseServer } from '../src/db/database.js';

/** For the long runs outside the test suite (`npm run fuzz`): a scratch database and the service in its own process. */

const here = path.dirname(fileURLToPath(import.meta.url));
/** The project folder (this file runs from dist/bench). */
export const root = path.resolve(here, '../..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
    server.on('error', reject);
  });
}

/** A fresh database `name` on DATABASE_URL's server, or on an embedded one under .data/<folder>. */
export async function scratchDatabase(name: string, folder: string): Promise<{ url: string; server: DatabaseServer; drop(): Promise<void> }> {
  const config = loadConfig();
  const server = config.DATABASE_URL
    ? { url: config.DATABASE_URL, embedded: false, stop: async () => {} }
    : await startEmbeddedDatabase({ dataDir: path.join(root, '.data', folder), port: await freePort(), database: 'postgres', fast: true });
  await dropDatabase(server.url, name);
  await ensureDatabase(server.url, name);
  return { url: withDatabase(server.url, name), server, drop: () => dropDatabase(server.url, name) };
}

/** The node flags of the `start` script in package.json. */
export function startFlags(): string[] {
  const start = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  return start.split(/\s+/).filter((word) => word.startsWith('--'));
}

/**
 * Starts the service exactly as `npm start` does (dist/src/main.js, its node flags) on `url`, in
 * production mode, in its own process; resolves once it listens. Its log lines (JSON) are kept:
 * `logLines()` answers those at `level` or above.
 */
export function startService(url: string, port: number, env: Record<string, string> = {}): Promise<ChildProcess & { logLines(level?: number): string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...startFlags(), path.join(root, 'dist', 'src', 'main.js')], {
      env: { ...process.env, DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'production', LOG_LEVEL: 'warn', DATABASE_POOL_MAX: '10', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines: string[] = [];
    let partial = '';
    let ready = false;
    child.stdout.on('data', (chunk: Buffer) => {
      const text = partial + chunk.toString();
      const complete = text.split('\n');
      partial = complete.pop() ?? '';
      // The first thousand lines are enough to see what failed; the pipe is read to the end regardless.
      for (const line of complete) if (lines.length < 1000) lines.push(line);
      if (!ready && /GraphQL:/.test(text)) {
        ready = true;
        resolve(Object.assign(child, {
          logLines: (level = 50) => lines.filter((line) => {
            try {
              return (JSON.parse(line) as { level?: number }).level! >= level;
            } catch {
              return false;
            }
          }),
        }));
      }
    });
    child.on('exit', (code) => { if (!ready) reject(new Error(`the service exited with ${code}:\n${lines.join('\n')}`)); });
  });
}
