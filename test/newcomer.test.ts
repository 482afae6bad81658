import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EXAMPLE_QUERY } from '../src/http/docs.js';
import { createTestTenant, graphql, rawHttp, rest, startTestServer, type TestServer } from './support/harness.js';

// What a newcomer meets first: the service opened in a browser leads somewhere useful.

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('the way in', () => {
  it('serves a landing page at / linking both interfaces, the documents and how to get a token', async () => {
    const page = await rest(server, 'GET', '/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    for (const link of ['/graphiql', '/api/docs', '/api/openapi.json', '/graphql/schema.graphql']) expect(page.text).toContain(`href="${link}"`);
    expect(page.text).toContain('Authorization: Bearer');
  });

  it('leads /api to the landing page and /docs to Swagger UI', async () => {
    expect(await rawHttp(server, 'GET', '/api')).toMatchObject({ status: 302, headers: { location: '/' } });
    expect(await rawHttp(server, 'GET', '/docs')).toMatchObject({ status: 302, headers: { location: '/api/docs' } });
  });

  it('sends a browser opening /graphql to GraphiQL, while GraphQL GETs still answer', async () => {
    const browser = await rawHttp(server, 'GET', '/graphql', { accept: 'text/html,application/xhtml+xml' });
    expect(browser).toMatchObject({ status: 302, headers: { location: '/graphiql' } });
    const query = await rawHttp(server, 'GET', `/graphql?query=${encodeURIComponent('{ __typename }')}`, { accept: 'application/json', 'apollo-require-preflight': 'true' });
    expect(query.status).toBe(200);
    expect(JSON.parse(query.text)).toEqual({ data: { __typename: 'Query' } });
  });

  it('serves the schema as SDL, the same schema introspection answers', async () => {
    const sdl = await rest(server, 'GET', '/graphql/schema.graphql');
    expect(sdl.status).toBe(200);
    expect(sdl.text).toContain('type Query {');
    const { body } = await graphql(server, '{ __schema { queryType { fields { name } } } }');
    for (const { name } of body.data.__schema.queryType.fields.slice(0, 20)) expect(sdl.text).toContain(`  ${name}`);
  });

  it('opens GraphiQL with an example query for this API and keeps its headers across reloads in development', async () => {
    const init = await rest(server, 'GET', '/docs/graphiql-init.js');
    expect(init.text).toContain('defaultQuery');
    expect(init.text).toContain('vendors(options: { Take: 5 })');
    expect(init.text).toContain('shouldPersistHeaders: true');
    const tenant = await createTestTenant(server, 'newcomer');
    const example = await graphql(server, EXAMPLE_QUERY, {}, tenant.staffToken);
    expect(example.body.errors).toBeUndefined();
    expect(example.body.data).toMatchObject({ aboutMe: { AllRoles: expect.arrayContaining(['staff']) }, vendors: expect.any(Array) });
  });
});
