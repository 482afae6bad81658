import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestTenant, graphql, rest, startTestServer, type TestServer, type TestTenant } from './support/harness.js';
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
  it('counts requests by route template and status, GraphQL operations by name, and the database pool', async () => {
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
    expect(scraped.text).toContain('graphql_operations_total{operation="ListVendors",type="query",outcome="ok"} 1');
    expect(scraped.text).toMatch(/db_pool_connections\{state="total"\} \d+/);
    expect(scraped.text).toContain('process_resident_memory_bytes');
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
