import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { buildApp, type App } from '../src/app.js';
import { InFlightRequests } from '../src/core/runtime/in-flight.js';
import { createLogger } from '../src/core/runtime/logger.js';
import { startTestServer, type TestServer } from './support/harness.js';

// Shutdown (app.close) waits for the requests our code is still working on, even when their
// clients have gone, and for nothing else: a request whose client disconnected before sending its
// whole body never reaches a handler, and one whose handler returned without answering (its client
// gone) is over — neither may keep close() waiting (seen: a full `npm run bench` hung in close).

let database: TestServer;

beforeAll(async () => {
  database = await startTestServer();
});
afterAll(() => database.close());

/** A promise with its resolve function. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => { resolve = done; });
  return { promise, resolve };
}

/** An instance of the service on the test database, with the test's own routes. */
async function startInstance(configure: (server: FastifyInstance) => Promise<void>): Promise<{ app: App; port: number }> {
  const app = await buildApp({ config: database.config, orm: database.orm, jobs: null, log: createLogger(database.config), configure });
  await app.listen('127.0.0.1', 0);
  return { app, port: (app.server.server.address() as { port: number }).port };
}

/** Opens a connection and sends a POST's head and the first part of its JSON body (of a declared 100 bytes). */
async function sendHalfABody(port: number, path: string): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  socket.on('error', () => {});
  socket.write(`POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"emails": ["half`);
  return socket;
}

describe('close', () => {
  it('returns once every connection is closed when a client left half-way through its body, and the handler never runs', async () => {
    const bodyReading = signal();
    let handlerRan = false;
    const { app, port } = await startInstance(async (server) => {
      // A body read through a piped stream, as a route limiting its body does: a piped stream
      // does not pass the connection's failure on, so this body never ends.
      server.post('/__test/piped-body', {
        preParsing: (_request, _reply, payload, done) => {
          const piped = new PassThrough();
          piped.once('data', () => bodyReading.resolve());
          done(null, payload.pipe(piped));
        },
      }, async () => {
        handlerRan = true;
        return { ran: true };
      });
    });
    const requestsArrived = new Promise<void>((resolve) => {
      let count = 0;
      app.server.server.on('request', () => { if (++count === 2) resolve(); });
    });
    const piped = await sendHalfABody(port, '/__test/piped-body');
    // A documented route with a body limit of its own (the sign-in bodies').
    const signIn = await sendHalfABody(port, '/api/login/requestmagiclink');
    await Promise.all([bodyReading.promise, requestsArrived]);
    piped.destroy();
    signIn.destroy();

    await app.close();
    expect(handlerRan).toBe(false);
  });

  it('waits for a handler still running after its client left, then returns even though it sent no answer', async () => {
    const handlerStarted = signal();
    const release = signal();
    const events: string[] = [];
    let pool: App['deps']['pool'] | null = null;
    const { app, port } = await startInstance(async (server) => {
      server.post('/__test/slow', async () => {
        handlerStarted.resolve();
        await release.promise;
        // Uses the app's own pool after its client has gone: close() ends that pool only after this.
        const { rows: [row] } = await pool!.query<{ one: number }>('select 1 as one');
        events.push(`handler done (${row.one})`);
        // Returns nothing: with its client gone, Fastify sends nothing either (no onSend, no onResponse).
      });
    });
    pool = app.deps.pool;
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.on('error', () => {});
    socket.write('POST /__test/slow HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}');
    await handlerStarted.promise;
    socket.destroy();

    const serverClosed = once(app.server.server, 'close');
    const closing = app.close().then(() => events.push('closed'));
    await serverClosed;
    // Every connection is gone; close now waits on the handler alone.
    for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
    events.push('released');
    release.resolve();
    await closing;
    expect(events).toEqual(['released', 'handler done (1)', 'closed']);
  });

  it('forgets, without waiting for a shutdown, the requests whose clients left while nothing of ours ran for them', async () => {
    const server = Fastify();
    const inFlight = new InFlightRequests();
    inFlight.install(server);
    server.addHook('onRequest', (request, _reply, done) => { inFlight.started(request); done(); });
    server.addHook('onSend', (request, _reply, payload, done) => { inFlight.finished(request); done(null, payload); });
    const handlerStarted = signal();
    const release = signal();
    // Bodies read through a piped stream (a route limiting its body): they never end once their client has gone.
    server.post('/__test/piped-body', {
      preParsing: (_request, _reply, payload, done) => done(null, payload.pipe(new PassThrough())),
    }, async () => ({ ran: true }));
    server.post('/__test/slow', async () => {
      handlerStarted.resolve();
      await release.promise;
      // Returns nothing, its client gone: Fastify sends nothing (no onSend, no onResponse).
    });
    await server.listen({ host: '127.0.0.1', port: 0 });
    const { port } = server.server.address() as { port: number };
    try {
      const halfBodies = await Promise.all(Array.from({ length: 20 }, () => sendHalfABody(port, '/__test/piped-body')));
      const slow = connect(port, '127.0.0.1');
      await once(slow, 'connect');
      slow.on('error', () => {});
      slow.write('POST /__test/slow HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}');
      await handlerStarted.promise;
      for (const socket of [...halfBodies, slow]) socket.destroy();
      release.resolve();
      // The server sees the clients leave on its own turns of the event loop: give it a bounded number.
      for (let turn = 0; turn < 500 && inFlight.size > 0; turn++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(inFlight.size).toBe(0);
    } finally {
      await server.close();
    }
  });
});
