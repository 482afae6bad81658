import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestTenant, graphql, rest, startTestServer, type TestServer, type TestTenant } from './support/harness.js';

let server: TestServer;
let tenant: TestTenant;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await createTestTenant(server, 'platform');
});
afterAll(() => server.close());

describe('health', () => {
  it('answers /healthz and /readyz', async () => {
    expect((await rest(server, 'GET', '/healthz')).body).toEqual({ status: 'ok' });
    expect((await rest(server, 'GET', '/readyz')).body).toEqual({ status: 'ready' });
  });

  it('echoes a request id, or makes one', async () => {
    const given = await rest(server, 'GET', '/healthz', { headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers.get('x-request-id')).toBe('abc-123');
    const made = await rest(server, 'GET', '/healthz');
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('REST errors', () => {
  it('answers an unknown path with a 404 problem', async () => {
    const response = await rest(server, 'GET', '/api/nothing/here', { token: tenant.staffToken });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body).toMatchObject({ type: 'about:blank', title: 'Not Found', status: 404 });
  });

  it('answers a known path with the wrong method with 405 and Allow', async () => {
    const response = await rest(server, 'DELETE', '/api/vendors', { token: tenant.staffToken });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST');
  });

  it('answers bad percent-encoding with a 400', async () => {
    expect((await rest(server, 'GET', '/api/vendors/%E0%A4%A', { token: tenant.staffToken })).status).toBe(400);
  });

  it('sets security headers', async () => {
    const response = await rest(server, 'GET', '/api/vendors', { token: tenant.staffToken });
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
  });
});

describe('GraphQL protections', () => {
  it('blocks requests that could be cross-site (CSRF prevention)', async () => {
    const response = await fetch(`${server.baseUrl}/graphql?query=${encodeURIComponent('{ loginCheck }')}`, { headers: { authorization: `Bearer ${tenant.staffToken}` } });
    expect(response.status).toBe(400);
    const allowed = await fetch(`${server.baseUrl}/graphql?query=${encodeURIComponent('{ loginCheck }')}`, {
      headers: { authorization: `Bearer ${tenant.staffToken}`, 'apollo-require-preflight': 'true' },
    });
    expect(allowed.status).toBe(200);
  });

  it('limits aliases and depth', async () => {
    const aliases = Array.from({ length: 30 }, (_, index) => `a${index}: loginCheck`).join(' ');
    const response = await graphql(server, `{ ${aliases} }`, {}, tenant.staffToken);
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.message).toMatch(/alias/i);
  });

  it('reports GraphQL errors with extensions.code and the HTTP status', async () => {
    const unknown = await graphql(server, '{ noSuchField }', {}, tenant.staffToken);
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    const missing = await graphql(server, 'query($id: Int!) { vendor(vendorid: $id) { Name } }', { id: 'seven' }, tenant.staffToken);
    expect(missing.status).toBe(400);
  });

  it('allows introspection outside production and not in production', async () => {
    const query = '{ __schema { queryType { name } } }';
    expect((await graphql(server, query)).body.data).toEqual({ __schema: { queryType: { name: 'Query' } } });
    const production = await startTestServer({ NODE_ENV: 'production' });
    try {
      const refused = await graphql(production, query);
      expect(refused.status).toBe(400);
      expect(refused.body.data ?? null).toBeNull();
    } finally {
      await production.close();
    }
  });
});
