import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { connect } from 'node:net';
import { buildApp, type App } from '../src/app.js';
import { loadConfig } from '../src/core/config.js';
import { createLogger } from '../src/core/runtime/logger.js';
import { startTestServer, type TestServer } from './support/harness.js';

// The HTTP port is served by LISTEN_SOCKETS listening sockets of one SO_REUSEPORT group (Node
// accepts one connection per socket per event-loop turn; http/listening-sockets.ts): every socket
// hands its connections to the one server, and close() stops them all.

let database: TestServer;

beforeAll(async () => {
  database = await startTestServer();
});
afterAll(() => database.close());

/** The sockets listening on `port` (the kernel's table: state 0A is LISTEN). */
function listeningSocketsOn(port: number): number {
  const portHex = port.toString(16).toUpperCase().padStart(4, '0');
  return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((table) => readFileSync(table, 'utf8').split('\n').slice(1))
    .filter((line) => {
      const [, local, , state] = line.trim().split(/\s+/);
      return local?.endsWith(`:${portHex}`) && state === '0A';
    }).length;
}

/** One GET over a connection of its own, left open (keep-alive) after the answer; answers the status. */
function getOnNewConnection(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const agent = new http.Agent({ keepAlive: true });
    http.get({ host: '127.0.0.1', port, path, agent }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    }).on('error', reject);
  });
}

async function startInstance(listenSockets: number): Promise<{ app: App; port: number }> {
  const config = { ...database.config, LISTEN_SOCKETS: listenSockets };
  const app = await buildApp({ config, orm: database.orm, jobs: null, log: createLogger(config) });
  const { port } = await app.listen('127.0.0.1', 0);
  return { app, port };
}

describe('listening sockets', () => {
  it('LISTEN_SOCKETS sockets share the port; 64 connections opened at once are all answered; close() stops every socket and closes the idle connections', async () => {
    const { app, port } = await startInstance(4);
    let closing: Promise<void> | null = null;
    try {
      expect(listeningSocketsOn(port)).toBe(4);
      const statuses = await Promise.all(Array.from({ length: 64 }, () => getOnNewConnection(port, '/healthz')));
      expect(statuses).toEqual(Array.from({ length: 64 }, () => 200));
      // No drain bound: close() ends only if the connections the extra sockets accepted, idle and
      // kept alive, are closed with the server's own.
      closing = app.close();
      await closing;
    } finally {
      if (!closing) await app.close(5000);
    }
    expect(listeningSocketsOn(port)).toBe(0);
    const refused = await new Promise<string>((resolve) => {
      connect(port, '127.0.0.1').on('connect', () => resolve('connected')).on('error', (error: Error & { code?: string }) => resolve(error.code ?? ''));
    });
    expect(refused).toBe('ECONNREFUSED');
  });

  it('LISTEN_SOCKETS=1: the one socket Node opens', async () => {
    const { app, port } = await startInstance(1);
    try {
      expect(listeningSocketsOn(port)).toBe(1);
      expect(await getOnNewConnection(port, '/healthz')).toBe(200);
    } finally {
      await app.close(5000);
    }
  });

  it('a port another instance serves is refused (EADDRINUSE), as with one socket, instead of shared', async () => {
    const { app, port } = await startInstance(4);
    try {
      const second = await buildApp({ config: { ...database.config, LISTEN_SOCKETS: 4 }, orm: database.orm, jobs: null, log: createLogger(database.config) });
      await expect(second.listen('127.0.0.1', port)).rejects.toMatchObject({ code: 'EADDRINUSE' });
      await second.close();
      expect(listeningSocketsOn(port)).toBe(4);
    } finally {
      await app.close();
    }
  });

  it('LISTEN_SOCKETS outside 1–64 is refused at start', () => {
    expect(() => loadConfig({ LISTEN_SOCKETS: '0' })).toThrow(/LISTEN_SOCKETS/);
    expect(() => loadConfig({ LISTEN_SOCKETS: '65' })).toThrow(/LISTEN_SOCKETS/);
  });
});
