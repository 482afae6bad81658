import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
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
    // The same headers on refusals and on the other interface; no HSTS without TLS.
    for (const other of [await rest(server, 'GET', '/api/vendors'), await rest(server, 'GET', '/api/nothing-here', { token: tenant.staffToken }), await fetch(`${server.baseUrl}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${tenant.staffToken}`, 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' })]) {
      expect(other.headers.get('x-content-type-options')).toBe('nosniff');
      expect(other.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect(other.headers.get('content-security-policy')).toBe(response.headers.get('content-security-policy'));
      expect(other.headers.get('strict-transport-security')).toBeNull();
    }
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
    // The protocol's own code for a document that does not fit the schema (GraphQL clients know it).
    expect(unknown.body.errors?.[0]?.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const missing = await graphql(server, 'query($id: Int!) { vendor(vendorId: $id) { Name } }', { id: 'seven' }, tenant.staffToken);
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

describe('database outage', () => {
  it('answers 503 problem+json while the database refuses connections, and recovers', async () => {
    const outage = await startTestServer();
    const tenant = await createTestTenant(outage, 'outage');
    const database = new URL(outage.databaseUrl).pathname.slice(1);
    const admin = new pg.Client({ connectionString: process.env.TEST_ADMIN_DATABASE_URL });
    await admin.connect();
    try {
      // ALLOW_CONNECTIONS false holds for superusers too (CONNECTION LIMIT does not).
      await admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS false`);
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const ready = await rest(outage, 'GET', '/readyz');
      expect(ready.status).toBe(503);
      const list = await rest(outage, 'GET', '/api/vendors', { token: tenant.staffToken });
      expect(list.status).toBe(503);
      expect(list.headers.get('content-type')).toContain('application/problem+json');
      expect(list.headers.get('retry-after')).toBeTruthy();
      const gql = await graphql(outage, '{ vendors { VendorId } }', {}, tenant.staffToken);
      expect(gql.status).toBe(503);
      await admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`);
      expect((await rest(outage, 'GET', '/api/vendors', { token: tenant.staffToken })).status).toBe(200);
    } finally {
      await admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`);
      await admin.end();
      await outage.close();
    }
  });
});

describe('HTTPS', () => {
  it('serves TLS when TLS_CERT_FILE and TLS_KEY_FILE are set, on every listening socket', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tls-'));
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost'], { stdio: 'ignore' });
    const secure = await startTestServer({ TLS_CERT_FILE: cert, TLS_KEY_FILE: key });
    try {
      const port = new URL(secure.baseUrl).port;
      const ca = readFileSync(cert);
      // Each on a connection of its own: the kernel spreads them over the LISTEN_SOCKETS sockets,
      // whose connections the HTTPS server must take as its own (http/listening-sockets.ts).
      const bodies = await Promise.all(Array.from({ length: 16 }, () => new Promise<string>((resolve, reject) => {
        https.get({ host: '127.0.0.1', port, path: '/healthz', ca, servername: 'localhost', agent: false }, (response) => {
          let text = '';
          response.on('data', (chunk) => { text += chunk; });
          response.on('end', () => resolve(text));
        }).on('error', reject);
      })));
      expect(bodies.map((body) => JSON.parse(body) as unknown)).toEqual(Array.from({ length: 16 }, () => ({ status: 'ok' })));
    } finally {
      await secure.close();
    }
  });
});

describe('GraphQL error messages', () => {
  it('do not suggest field names (the schema stays hidden where introspection is off)', async () => {
    const response = await graphql(server, '{ vendorz { VendorId } }', {}, tenant.staffToken);
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.message).not.toMatch(/Did you mean/);
  });
});
