import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import pg from 'pg';
import { Metrics } from '../src/core/runtime/metrics.js';
import { createTestTenant, graphql, metricSamples, rest, runConcurrently, startTestServer, type TestServer, type TestTenant } from './support/harness.js';
import { freePort } from './support/processes.js';

// Prometheus metrics: by documented operation (route template, not the raw path), protected by a token or on their own port.
const TOKEN = 'metrics-token-0123456789';
let server: TestServer;
let acme: TestTenant;
let metricsPort: number;

beforeAll(async () => {
  metricsPort = await freePort();
  server = await startTestServer({ METRICS_TOKEN: TOKEN, METRICS_PORT: String(metricsPort) });
  acme = await createTestTenant(server, 'metrics');
});
afterAll(() => server.close());

describe('/metrics', () => {
  it('counts requests by route template and status, GraphQL operations by root field, and the database pool', async () => {
    await rest(server, 'GET', '/api/vendors', { token: acme.staffToken });
    await rest(server, 'GET', '/api/vendors/424242', { token: acme.staffToken });
    await rest(server, 'GET', '/api/vendors/31337', { token: acme.staffToken });
    await graphql(server, 'query ListVendors { vendors { VendorId } }', {}, acme.staffToken);
    const scraped = await rest(server, 'GET', '/metrics', { token: TOKEN });
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toContain('text/plain');
    expect(scraped.text).toContain('http_requests_total{operation="GET /api/vendors",status="200"} 1');
    expect(scraped.text).toContain('http_requests_total{operation="GET /api/vendors/{vendorid}",status="404"} 2');
    expect(scraped.text).not.toContain('424242');
    expect(scraped.text).toMatch(/http_request_duration_seconds_bucket\{le="[\d.]+",operation="GET \/api\/vendors"\}/);
    expect(scraped.text).toContain('graphql_operations_total{operation="vendors",type="query",outcome="ok"} 1');
    expect(scraped.text).toMatch(/db_pool_connections\{state="total"\} \d+/);
    expect(scraped.text).toContain('process_resident_memory_bytes');
  });

  it('labels GraphQL operations with known root fields only: 2,000 invented operation names add no series', async () => {
    const statuses = await runConcurrently(2000, 8, async (index) => (await graphql(server, `query Invented${index} { __typename }`, {}, acme.staffToken)).status);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    await graphql(server, 'query Invented { vendors { VendorId } aboutMe { FirstName } }', {}, acme.staffToken);
    await graphql(server, 'query Invented { nosuchfield }', {}, acme.staffToken);
    await graphql(server, '{ vendors {', {}, acme.staffToken);
    const samples = metricSamples((await rest(server, 'GET', '/metrics', { token: TOKEN })).text, 'graphql_operations_total');
    const operations = new Set(samples.map((sample) => sample.labels.operation));
    // Every value is a root field of the schema, `multiple` or `other`; none is a name a client chose.
    expect([...operations].sort()).toEqual(['__typename', 'multiple', 'other', 'vendors']);
    const count = (operation: string) => samples.filter((sample) => sample.labels.operation === operation).reduce((sum, sample) => sum + sample.value, 0);
    expect(count('__typename')).toBe(2000);
    expect(count('multiple')).toBe(1);
    expect(count('other')).toBe(2);
  });

  it('answers 401 without the metrics token (a staff session is not enough)', async () => {
    expect((await rest(server, 'GET', '/metrics')).status).toBe(401);
    expect((await rest(server, 'GET', '/metrics', { token: acme.staffToken })).status).toBe(401);
  });

  it('serves the same metrics without a credential on the separate metrics port', async () => {
    const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('http_requests_total');
    expect((await fetch(`http://127.0.0.1:${metricsPort}/other`)).status).toBe(404);
  });
});

describe('a closed metrics instance', () => {
  it('is released: nothing process-wide (such as a GC observer) keeps it, or each test file’s modules, alive', async () => {
    // A full collection on demand, without starting jest with --expose-gc.
    setFlagsFromString('--expose-gc');
    const collectGarbage = runInNewContext('gc') as () => void;
    const pool = new pg.Pool();
    const released = (() => {
      const metrics = new Metrics(pool, null);
      metrics.close();
      return new WeakRef(metrics.registry);
    })();
    // A WeakRef holds its target until the current job ends.
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    expect(released.deref()).toBeUndefined();
    await pool.end();
  });
});
