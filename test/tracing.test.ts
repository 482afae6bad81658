/**
 * Issue 36: OpenTelemetry traces across REST → GraphQL → SQL → jobs. The service runs as its own
 * process, started as `npm start` starts it (with the tracing preload), exporting OTLP/HTTP to a
 * collector in this test; the spans of one request share the trace its caller sent (W3C
 * traceparent), its problem+json and its log lines name that trace, and a job has its own span.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, type TestServer } from './support/harness.js';
import { DIST, freePort, killNow, startNode, waitFor } from './support/processes.js';

interface ExportedSpan { traceId: string; spanId: string; parentSpanId?: string; name: string; attributes: { key: string; value: Record<string, unknown> }[] }

const spans: ExportedSpan[] = [];
let collector: Server;
let database: TestServer;
let service: { child: ChildProcessWithoutNullStreams; output: () => string };
let base: string;
let token: string;

/** A collector that keeps every span posted to /v1/traces (OTLP/HTTP JSON). */
function startCollector(): Promise<string> {
  collector = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => { body += chunk; });
    request.on('end', () => {
      const payload = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: ExportedSpan[] }[] }[] };
      for (const resource of payload.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) => collector.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(collector.address() as AddressInfo).port}`)));
}

const traceparent = (traceId: string) => `00-${traceId}-${'1'.repeat(16)}-01`;
const spansOf = (traceId: string) => spans.filter((span) => span.traceId === traceId);
const hasAttribute = (span: ExportedSpan, key: string) => span.attributes.some((attribute) => attribute.key === key);

beforeAll(async () => {
  database = await startTestServer();
  const endpoint = await startCollector();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  service = await startNode('main.js', {
    DATABASE_URL: database.databaseUrl, PORT: String(port), NODE_ENV: 'development', LOG_LEVEL: 'info',
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '100',
  }, /Bearer (\S+)/, 30_000, ['--import', `${DIST}/core/runtime/tracing-preload.js`]);
  token = /Bearer (\S+)/.exec(service.output())![1];
}, 60_000);

afterAll(async () => {
  if (service) await killNow(service.child);
  collector?.close();
  await database?.close();
});

describe('traces', () => {
  it('follows a REST list through the compiled GraphQL execution to its SQL, in the trace the caller sent', async () => {
    const traceId = 'a1'.repeat(16);
    const response = await fetch(`${base}/api/vendors?options=${encodeURIComponent('{"Take":5}')}`, { headers: { authorization: `Bearer ${token}`, traceparent: traceparent(traceId) } });
    expect(response.status).toBe(200);
    const trace = await waitFor('the spans', async () => spansOf(traceId), (found) => found.some((span) => span.name.startsWith('graphql.execute')) && found.some((span) => hasAttribute(span, 'db.system.name') || hasAttribute(span, 'db.system')), 15_000);
    const server = trace.find((span) => span.name === 'GET /api/vendors')!;
    expect(server).toBeDefined();
    const execution = trace.find((span) => span.name === 'graphql.execute vendors')!;
    expect(execution.parentSpanId).toBe(server.spanId);
    const sql = trace.filter((span) => hasAttribute(span, 'db.system.name') || hasAttribute(span, 'db.system'));
    expect(sql.length).toBeGreaterThan(0);
  });

  it('names the trace in a problem+json answer and in the log lines of the request', async () => {
    const traceId = 'b2'.repeat(16);
    const response = await fetch(`${base}/api/vendors/987654`, { headers: { authorization: `Bearer ${token}`, traceparent: traceparent(traceId) } });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ status: 404, traceId });
    await waitFor('a log line of the trace', async () => service.output(), (output) => output.includes(`"trace_id":"${traceId}"`), 5_000);
    expect(service.output()).toContain(`"trace_id":"${traceId}"`);
  });

  it('traces GraphQL over /graphql, both the first (graphql-js) and the compiled runs', async () => {
    const traceIds = ['c3'.repeat(16), 'd4'.repeat(16)];
    for (const traceId of traceIds) {
      const response = await fetch(`${base}/graphql`, {
        method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', traceparent: traceparent(traceId) },
        body: JSON.stringify({ query: 'query Few { vendors(options: { Take: 2 }) { VendorId } }' }),
      });
      expect(response.status).toBe(200);
    }
    await waitFor('both traces', async () => traceIds.map(spansOf), (found) => found.every((trace) => trace.some((span) => /graphql/i.test(span.name))), 15_000);
    // The graphql instrumentation (loaded through the ES module hook) sees Apollo parse and validate; the compiled run is ours.
    expect(spansOf(traceIds[0]).map((span) => span.name)).toEqual(expect.arrayContaining(['graphql.parse', 'graphql.validate']));
    expect(spansOf(traceIds[1]).some((span) => span.name === 'graphql.execute Few')).toBe(true);
  });

  it('gives a background job a span of its own, with its SQL under it', async () => {
    const response = await fetch(`${base}/api/login/requestmagiclink?type=staff`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-tenant-key': 'demo' }, body: JSON.stringify(['staff@demo.example']),
    });
    expect(response.status).toBe(200);
    const [job] = await waitFor('the delivery job span', async () => spans.filter((span) => span.name === 'job email-delivery'), (found) => found.length > 0, 20_000);
    expect(job.attributes).toEqual(expect.arrayContaining([{ key: 'messaging.system', value: { stringValue: 'pg-boss' } }]));
    await waitFor('SQL under the job', async () => spansOf(job.traceId), (found) => found.some((span) => span.parentSpanId === job.spanId), 10_000);
  });
});
