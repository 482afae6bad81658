import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import { startTestServer, type TestServer } from './support/harness.js';
import { freePort, startNode } from './support/processes.js';

let database: TestServer;

beforeAll(async () => {
  database = await startTestServer();
});
afterAll(() => database.close());

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.on('close', (code) => resolve(code)));
}

describe('npm start', () => {
  it('serves both APIs with a demo tenant and a staff token, the docs and their assets, then shuts down cleanly on SIGTERM', async () => {
    const port = await freePort();
    const { child, output } = await startNode('main.js', { DATABASE_URL: database.databaseUrl, PORT: String(port), LOG_LEVEL: 'warn', NODE_ENV: 'development' }, /Bearer (\S+)/);
    try {
      const token = /Bearer (\S+)/.exec(output())![1];
      expect(output()).toContain(`http://127.0.0.1:${port}/graphql`);
      const rest = await fetch(`http://127.0.0.1:${port}/api/vendors`, { headers: { authorization: `Bearer ${token}` } });
      expect(rest.status).toBe(200);
      expect(((await rest.json()) as unknown[]).length).toBeGreaterThan(0);
      const gql = await fetch(`http://127.0.0.1:${port}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ aboutMe { TenantKey } }' }),
      });
      expect(await gql.json()).toEqual({ data: { aboutMe: { TenantKey: 'demo' } } });
      // What the service reads from files found relative to its own modules (the bundle's folder,
      // not src/): the documented contract (spec/endpoints.json) and the docs' npm package assets.
      const openApi = await fetch(`http://127.0.0.1:${port}/api/openapi.json`);
      expect(Object.keys(((await openApi.json()) as { paths: object }).paths).length).toBeGreaterThan(200);
      for (const asset of ['/api/docs/assets/swagger-ui-bundle.js', '/graphiql/assets/graphiql/graphiql.min.js']) {
        const response = await fetch(`http://127.0.0.1:${port}${asset}`);
        expect([asset, response.status, response.headers.get('content-type')]).toEqual([asset, 200, expect.stringContaining('javascript')]);
      }
    } finally {
      const code = exited(child);
      child.kill('SIGTERM');
      expect(await code).toBe(0);
    }
  });

  it('refuses to start with a bad variable and names it', async () => {
    await expect(startNode('main.js', { DATABASE_URL: database.databaseUrl, PORT: 'eighty' }, /Bearer/)).rejects.toThrow(/PORT/);
  });
});
