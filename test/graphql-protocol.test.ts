import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestTenant, graphql, rest, startTestServer, type TestServer, type TestTenant } from './support/harness.js';

/** The GraphQL protocol edges a hostile or careless client reaches: never a 5xx, never a mutation it did not ask for. */
describe.each([['development'], ['production']])('GraphQL protocol (%s mode)', (mode) => {
  let server: TestServer;
  let acme: TestTenant;
  beforeAll(async () => {
    server = await startTestServer({ NODE_ENV: mode });
    acme = await createTestTenant(server, `gql-${mode.slice(0, 4)}`);
  });
  afterAll(() => server.close());

  const vendorCount = async () => (await rest(server, 'GET', '/api/vendors', { token: acme.staffToken })).body.length as number;
  const expectNoLeaks = (text: string) => {
    expect(text).not.toMatch(/stacktrace|at \w+ \(|node_modules|\.ts:\d+|SELECT |INSERT /i);
  };

  it('answers a syntax error with 400 and the GraphQL error body', async () => {
    const response = await graphql(server, '{ vendors { ', {}, acme.staffToken);
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.extensions.code).toBe('GRAPHQL_PARSE_FAILED');
    expectNoLeaks(response.text);
  });

  it('answers a document over the token limit with 400', async () => {
    const response = await graphql(server, `{ ${'vendors { VendorId } '.repeat(600)} }`, {}, acme.staffToken);
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.message).toBeDefined();
    expectNoLeaks(response.text);
  });

  it('executes nothing when operationName names no operation of the document', async () => {
    const before = await vendorCount();
    const response = await rest(server, 'POST', '/graphql', {
      token: acme.staffToken,
      body: { query: 'mutation Save { saveVendor(input: { Name: "Should not exist" }) { VendorId } }', operationName: 'Other' },
    });
    expect(response.status).toBe(400);
    expect(await vendorCount()).toBe(before);
    expectNoLeaks(response.text);
  });

  it('never executes a mutation sent with GET, even with the CSRF preflight header', async () => {
    const before = await vendorCount();
    const query = encodeURIComponent('mutation { saveVendor(input: { Name: "From GET" }) { VendorId } }');
    const response = await rest(server, 'GET', `/graphql?query=${query}`, { token: acme.staffToken, headers: { 'apollo-require-preflight': 'true' } });
    expect([400, 405]).toContain(response.status);
    expect(await vendorCount()).toBe(before);
  });

  it('suggests no field names outside development', async () => {
    const response = await graphql(server, '{ vendorz { VendorId } }', {}, acme.staffToken);
    expect(response.status).toBe(400);
    if (mode === 'production') expect(response.text).not.toMatch(/Did you mean/i);
  });

  it('answers broken JSON and a wrong body shape with 400, no stack trace', async () => {
    for (const body of ['{"query": ', '[]', '{"query": 5}', '"just a string"']) {
      const response = await rest(server, 'POST', '/graphql', { token: acme.staffToken, body });
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
      expectNoLeaks(response.text);
    }
  });
});

describe('production mode', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ NODE_ENV: 'production' });
  });
  afterAll(() => server.close());

  it('serves no GraphiQL and no introspection, but keeps the REST documentation', async () => {
    expect((await rest(server, 'GET', '/graphiql')).status).toBe(404);
    const introspection = await graphql(server, '{ __schema { queryType { name } } }');
    expect(introspection.status).toBe(400);
    expect((await rest(server, 'GET', '/api/docs')).status).toBe(200);
    expect((await rest(server, 'GET', '/api/openapi.json')).status).toBe(200);
  });
});
