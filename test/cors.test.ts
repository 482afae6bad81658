import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestTenant, graphql, rawHttp, rest, startTestServer, type TestServer, type TestTenant } from './support/harness.js';

// CORS: CORS_ORIGINS for every request, plus the origins a tenant lists for the requests that
// name it (its domain as the Host, or ?tenant=<key>); a refused origin's preflight is answered
// without any Access-Control-Allow-* header, never 404.
const GLOBAL = 'https://global.example';
const PORTAL = 'https://portal.acme.example';
let server: TestServer;
let acme: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  server = await startTestServer({ CORS_ORIGINS: GLOBAL });
  acme = await createTestTenant(server, 'acme-cors');
  other = await createTestTenant(server, 'other-cors');
  await server.orm.em.getConnection().execute("update tenant set domain = 'members.acme.example' where key = 'acme-cors'");
});
afterAll(() => server.close());

const call = (method: string, path: string, headers: Record<string, string>) => rawHttp(server, method, path, headers);

const preflight = (origin: string, path: string, headers: Record<string, string> = {}) =>
  call('OPTIONS', path, { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,idempotency-key', ...headers });

const corsHeaders = (headers: Record<string, unknown>) => Object.keys(headers).filter((name) => name.startsWith('access-control-'));

describe('preflights', () => {
  it('answers a refused origin with an empty 204 and no Access-Control-* header, on known and unknown paths alike', async () => {
    for (const path of ['/api/vendors', '/graphql', '/api/nothing/here', '/ical/acme-cors/1.ics', '/api/setup/corsorigins']) {
      const response = await preflight('https://evil.example', path);
      expect({ path, status: response.status, cors: corsHeaders(response.headers), body: response.text }).toEqual({ path, status: 204, cors: [], body: '' });
      expect(response.headers.vary).toContain('Origin');
    }
  });

  it('answers an allowed origin with the methods and headers it may use, Idempotency-Key among them', async () => {
    const response = await preflight(GLOBAL, '/api/vendors');
    expect(response.status).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe(GLOBAL);
    expect(String(response.headers['access-control-allow-headers']).toLowerCase()).toContain('idempotency-key');
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('treats an OPTIONS that is no preflight as any other method: 405 with Allow on a known path, 404 elsewhere', async () => {
    for (const headers of [{}, { origin: GLOBAL }] as Record<string, string>[]) {
      const known = await call('OPTIONS', '/api/vendors', headers);
      expect({ status: known.status, allow: known.headers.allow, type: known.headers['content-type'] }).toEqual({ status: 405, allow: 'GET, POST', type: expect.stringContaining('application/problem+json') });
      expect((await call('OPTIONS', '/api/nothing/here', headers)).status).toBe(404);
    }
  });
});

describe("a tenant's own origins", () => {
  it('are saved by staff through REST, checked and normalized, and read back on both interfaces', async () => {
    const saved = await rest(server, 'POST', '/api/setup/corsorigins', { token: acme.staffToken, body: ['https://Portal.Acme.example/', 'http://localhost:5173', PORTAL, 'https://portal.acme.example:443'] });
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual(['http://localhost:5173', PORTAL]);
    expect((await rest(server, 'GET', '/api/setup/corsorigins', { token: acme.staffToken })).body).toEqual(['http://localhost:5173', PORTAL]);
    const viaGraphql = await graphql<{ corsOrigins: string[] }>(server, '{ corsOrigins }', {}, acme.staffToken);
    expect(viaGraphql.body.data?.corsOrigins).toEqual(['http://localhost:5173', PORTAL]);
    // Another tenant sees only its own (none).
    expect((await rest(server, 'GET', '/api/setup/corsorigins', { token: other.staffToken })).body).toEqual([]);
  });

  it('refuse what is not an origin, naming the entry, and more than 20', async () => {
    for (const bad of ['https://portal.acme.example/path', 'ftp://portal.acme.example', 'https://*.acme.example', 'https://user@acme.example', 'portal.acme.example', 'https://acme.example?x=1', 'https://', 'https://a_b.example']) {
      const response = await rest(server, 'POST', '/api/setup/corsorigins', { token: acme.staffToken, body: [PORTAL, bad] });
      expect({ bad, status: response.status, field: response.body?.errors?.[0]?.field }).toEqual({ bad, status: 400, field: '[1]' }); // REST names a body array's items by index (rest/gateway/responses.ts)
    }
    const many = Array.from({ length: 21 }, (_, index) => `https://site${index}.example`);
    expect((await rest(server, 'POST', '/api/setup/corsorigins', { token: acme.staffToken, body: many })).status).toBe(400);
    const viaGraphql = await graphql(server, 'mutation($origins: [String!]!) { saveCorsOrigins(origins: $origins) }', { origins: ['javascript:alert(1)'] }, acme.staffToken);
    expect(viaGraphql.body.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    // Nothing refused was stored.
    expect((await rest(server, 'GET', '/api/setup/corsorigins', { token: acme.staffToken })).body).toEqual(['http://localhost:5173', PORTAL]);
  });

  it('are allowed on requests naming the tenant (?tenant= or its domain as the Host), and on no other', async () => {
    const allowedOrigin = (response: { headers: Record<string, unknown> }) => response.headers['access-control-allow-origin'] ?? null;
    expect(allowedOrigin(await preflight(PORTAL, '/api/vendors?tenant=acme-cors'))).toBe(PORTAL);
    expect(allowedOrigin(await preflight(PORTAL, '/graphql', { host: 'members.acme.example' }))).toBe(PORTAL);
    const read = await call('GET', '/api/vendors?tenant=acme-cors', { origin: PORTAL, authorization: `Bearer ${acme.staffToken}` });
    expect({ status: read.status, origin: allowedOrigin(read) }).toEqual({ status: 200, origin: PORTAL });
    // Not named, or another tenant named: no CORS headers at all.
    for (const path of ['/api/vendors', '/api/vendors?tenant=other-cors', '/api/vendors?tenant=no-such-tenant']) {
      expect({ path, cors: corsHeaders((await preflight(PORTAL, path)).headers) }).toEqual({ path, cors: [] });
    }
    expect(allowedOrigin(await preflight(PORTAL, '/api/vendors', { host: 'members.other.example' }))).toBeNull();
  });

  it('stop being allowed as soon as they are removed', async () => {
    expect((await rest(server, 'POST', '/api/setup/corsorigins', { token: acme.staffToken, body: ['http://localhost:5173'] })).body).toEqual(['http://localhost:5173']);
    expect(corsHeaders((await preflight(PORTAL, '/api/vendors?tenant=acme-cors')).headers)).toEqual([]);
    expect((await preflight('http://localhost:5173', '/api/vendors?tenant=acme-cors')).headers['access-control-allow-origin']).toBe('http://localhost:5173');
  });

  it('are for staff only', async () => {
    expect((await rest(server, 'GET', '/api/setup/corsorigins', { token: acme.memberToken })).status).toBe(403);
    expect((await rest(server, 'POST', '/api/setup/corsorigins', { token: acme.memberToken, body: [PORTAL] })).status).toBe(403);
    expect((await rest(server, 'GET', '/api/setup/corsorigins')).status).toBe(401);
  });
});
