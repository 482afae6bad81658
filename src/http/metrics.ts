import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../core/config.js';
import { ApiError } from '../core/errors.js';
import { operationOf, type Metrics } from '../core/runtime/metrics.js';

/** Whether this instance serves its metrics (a token for `/metrics`, or a separate listener): otherwise nothing reads the per-request counters. */
export function metricsServed(config: Config): boolean {
  return Boolean(config.METRICS_TOKEN) || config.METRICS_PORT !== undefined;
}

/**
 * Counts every request by its operation and serves the metrics for Prometheus: on the service's
 * own port at `/metrics` only with `Authorization: Bearer <METRICS_TOKEN>` (compared in constant
 * time), or without a credential on a separate listener (`METRICS_PORT`, bound to `METRICS_HOST`,
 * 127.0.0.1 by default) that the outside world does not reach. Neither set: no metrics endpoint,
 * and no request is counted (a labelled counter and histogram per request cost 7–37 µs that no
 * one would read: BENCHMARKS.md, issue 37). Answers the separate listener, if any, for closing with the app.
 */
export async function mountMetrics(server: FastifyInstance, metrics: Metrics, config: Config): Promise<Server | null> {
  if (!metricsServed(config)) return null;
  // Callback-form hook: no promise per request (see app.ts); Fastify times the request itself.
  server.addHook('onResponse', (request, reply, done) => {
    const operation = operationOf(request);
    metrics.requests.inc({ operation, status: String(reply.statusCode) });
    metrics.requestSeconds.observe({ operation }, reply.elapsedTime / 1000);
    done();
  });

  const token = config.METRICS_TOKEN;
  if (token) {
    server.get('/metrics', async (request, reply) => {
      const given = Buffer.from(request.headers.authorization ?? '');
      const expected = Buffer.from(`Bearer ${token}`);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw new ApiError(401, 'UNAUTHENTICATED', 'The metrics need the metrics token.', [], { 'WWW-Authenticate': 'Bearer' });
      }
      return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
    });
  }
  if (config.METRICS_PORT === undefined) return null;
  const listener = createServer((request, response) => {
    if (request.url !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => response.writeHead(503).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(config.METRICS_PORT, config.METRICS_HOST, resolve);
  });
  return listener;
}
