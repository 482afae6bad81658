import { once } from 'node:events';
import net, { type AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** The properties a Node HTTP(S) server gives the sockets it accepts (net.Server sets them from its options). */
type SocketSettings = Pick<net.ServerOpts, 'allowHalfOpen' | 'noDelay' | 'keepAlive' | 'keepAliveInitialDelay' | 'highWaterMark'>;

/**
 * Listens on `host:port` with `count` listening sockets of one SO_REUSEPORT group, all feeding the
 * one HTTP server; answers the address and a function that stops the extra sockets listening.
 *
 * Why: libuv accepts one connection per listening socket per event-loop turn (since libuv 1.45,
 * libuv/libuv#3696), and a turn of a loaded service takes 10–15 ms. Sixty-four connections opened
 * while the service served lists of 500 waited in the kernel's accept queue up to a second for
 * their turn, far longer than their requests then took (OPERATIONS.md "Accepting connections";
 * the measurements: BENCHMARKS.md "Issue 37, session 14").
 * The kernel spreads new connections over a group's sockets, so `count` are accepted per turn.
 * Each extra socket hands its connections to the HTTP server, the way Node documents for the
 * server's 'connection' event, with the socket settings the server gives its own.
 * Linux only (elsewhere SO_REUSEPORT does not spread connections): one socket there.
 */
export async function listenOnSockets(server: FastifyInstance, host: string, port: number, count: number): Promise<{ address: AddressInfo; closeExtra: () => void }> {
  const grouped = count > 1 && process.platform === 'linux';
  // Fastify passes the options on to Node's listen, whose `reusePort` its types do not list yet.
  const listenOn = grouped ? await claimPort(host, port) : port;
  await server.listen({ host, port: listenOn, ...(grouped ? { reusePort: true } : {}) } as { host: string; port: number });
  const httpServer = server.server;
  const address = httpServer.address() as AddressInfo;
  const settings = httpServer as unknown as SocketSettings;
  const extra: net.Server[] = [];
  // Stops listening at once; the connections they accepted are the HTTP server's to close (a
  // net.Server's close callback would wait for them, and the HTTP server closes them only later).
  const closeExtra = () => {
    for (const socket of extra.splice(0)) socket.close();
  };
  try {
    for (let opened = 1; grouped && opened < count; opened++) {
      const acceptor = net.createServer({
        allowHalfOpen: settings.allowHalfOpen, noDelay: settings.noDelay, keepAlive: settings.keepAlive,
        keepAliveInitialDelay: settings.keepAliveInitialDelay, highWaterMark: settings.highWaterMark,
      }, (connection) => httpServer.emit('connection', connection));
      acceptor.listen({ host: address.address, port: address.port, reusePort: true });
      await once(acceptor, 'listening');
      extra.push(acceptor);
    }
  } catch (error) {
    closeExtra();
    await server.close();
    throw error;
  }
  return { address, closeExtra };
}

/**
 * The port, checked free by a plain socket that then lets it go (a free one chosen for 0). With
 * SO_REUSEPORT alone, a second process of the same user (an old instance still running) would
 * silently join a port already served instead of failing with EADDRINUSE, as a single socket does.
 */
async function claimPort(host: string, port: number): Promise<number> {
  const probe = net.createServer().listen({ host, port });
  await once(probe, 'listening');
  const claimed = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  return claimed;
}
