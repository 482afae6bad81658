import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildApp, type App } from '../src/app.js';
import { CredentialCache } from '../src/core/requests/credential-cache.js';
import { createLogger } from '../src/core/runtime/logger.js';
import { createTestTenant, eventuallyStatus, rest, startTestServer, type TestServer, type TestTenant } from './support/harness.js';

// A known credential costs a request no SQL statement; whatever ends or changes it — on this
// instance, on another, or straight in the database — is honoured by every instance at once
// (the trigger's notification), and an instance that lost its listener looks every credential up.

let server: TestServer;
let acme: TestTenant;
/** A second instance of the service on the same database. */
let second: App;
let secondUrl: string;

beforeAll(async () => {
  server = await startTestServer();
  acme = await createTestTenant(server, 'acme');
  second = await buildApp({ config: server.config, orm: server.orm, jobs: null, log: createLogger(server.config) });
  await second.listen('127.0.0.1', 0);
  secondUrl = `http://127.0.0.1:${(second.server.server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await second?.close();
  await server?.close();
});

const check = (token: string, on: { baseUrl: string } = server) => rest(on as TestServer, 'GET', '/api/login/logincheck', { token });
const vendors = (token: string) => rest(server, 'GET', '/api/vendors', { token });

/** Statements the service runs for one call (only this test's requests run meanwhile). */
async function statementsOf(call: () => Promise<unknown>): Promise<number> {
  const before = server.statements();
  await call();
  return server.statements() - before;
}

async function newSession(email: string, role: 'staff' | 'member' = 'staff'): Promise<string> {
  const em = server.orm.em.fork();
  const { createLogin, createSession, findTenant } = await import('../src/services/login/identity.js');
  const login = await createLogin(em, await findTenant(em, 'acme'), { email, role });
  return (await createSession(em, login, 1)).token;
}

describe('credential cache', () => {
  it('answers a known credential without a statement: a list costs one statement, the first request two', async () => {
    const token = await newSession('fresh@acme.example');
    const first = await statementsOf(() => vendors(token));
    const second = await statementsOf(() => vendors(token));
    // First: the credential lookup, its last-used stamp, the page. Then: the page alone.
    expect(first).toBe(3);
    expect(second).toBe(1);
  });

  it('refuses a session revoked straight in the database, on every instance', async () => {
    const token = await newSession('revoked@acme.example');
    expect((await check(token)).status).toBe(200);
    expect((await check(token, { baseUrl: secondUrl })).status).toBe(200);
    await server.orm.em.getConnection().execute(`update credential set revoked_at = now() where login_id = (select id from login where email = 'revoked@acme.example')`);
    await eventuallyStatus(() => check(token), 401);
    await eventuallyStatus(() => check(token, { baseUrl: secondUrl }), 401);
  });

  it('sees a changed role at once: staff made member loses staff operations', async () => {
    const token = await newSession('demoted@acme.example');
    const setup = () => rest(server, 'GET', '/api/setup/termsofuse', { token });
    expect((await setup()).status).toBe(200);
    await server.orm.em.getConnection().execute(`update login set roles = '{member}' where email = 'demoted@acme.example'`);
    await eventuallyStatus(setup, 403);
  });

  it('refuses at once, on the instance that deleted it, a login removed with the master key', async () => {
    const token = await newSession('leaving@acme.example', 'member');
    expect((await check(token)).status).toBe(200);
    const removed = await rest(server, 'DELETE', `/api/login/delete?username=leaving@acme.example&masterkey=${server.config.MASTER_KEY}`);
    expect(removed.status).toBe(200);
    expect((await check(token)).status).toBe(401);
  });

  it('looks every credential up while its listener is gone, and caches again once it is back', async () => {
    const token = acme.staffToken;
    await vendors(token);
    // Cached: one statement (a background job's statement may fall in a window: a few tries).
    let cached = 0;
    for (let attempt = 0; attempt < 10 && cached !== 1; attempt++) cached = await statementsOf(() => vendors(token));
    expect(cached).toBe(1);
    await server.orm.em.getConnection().execute(`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'credential-cache' and datname = current_database()`);
    // Lost: every request looks its credential up again (a revocation meanwhile cannot be missed).
    let looked = 0;
    for (let attempt = 0; attempt < 50 && looked < 2; attempt++) {
      looked = await statementsOf(() => vendors(token));
      if (looked < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(looked).toBe(2);
    // Reconnected within seconds: cached again.
    let statements = 2;
    for (let attempt = 0; attempt < 100 && statements !== 1; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await vendors(token);
      statements = await statementsOf(() => vendors(token));
    }
    expect(statements).toBe(1);
  });

  it('does not keep a lookup that raced with a change', async () => {
    const cache = new CredentialCache(server.databaseUrl, 60, createLogger(server.config));
    const known = { caller: { tenantId: 1, loginId: 1, contactId: null, roles: ['staff' as const], credentialId: 1 }, expiresAt: null, lastUsedAt: null };
    // Not listening yet: nothing is kept or answered.
    cache.remember('hash', known, cache.currentGeneration);
    expect(cache.get('hash')).toBeUndefined();
    await cache.start();
    try {
      const lookupBegan = cache.currentGeneration;
      cache.forgetAll(); // a change announced while the lookup ran
      cache.remember('hash', known, lookupBegan);
      expect(cache.get('hash')).toBeUndefined();
      cache.remember('hash', known, cache.currentGeneration);
      expect(cache.get('hash')).toBe(known);
    } finally {
      await cache.stop();
    }
  });

  it('keeps at most CREDENTIAL_CACHE_MB of estimated heap, forgetting the least recently used first', async () => {
    const cache = new CredentialCache(server.databaseUrl, 60, createLogger(server.config), 1);
    const known = (id: number) => ({ caller: { tenantId: 1, loginId: id, contactId: null, roles: ['staff' as const], credentialId: id, login: `user${id}@acme.example`, credentialKind: 'session' }, expiresAt: null, lastUsedAt: null });
    await cache.start();
    try {
      // About 500 bytes each (448 + 2 per character): 1 MB holds about 2,000 of them, not 4,000.
      for (let id = 0; id < 4000; id++) {
        cache.remember(`hash${id}`, known(id), cache.currentGeneration);
        if (id >= 1000) cache.get('hash0'); // kept in use: the least recently used are the others
      }
      const kept = Array.from({ length: 4000 }, (_, id) => cache.get(`hash${id}`) !== undefined);
      expect(kept.filter(Boolean).length).toBeGreaterThan(1500);
      expect(kept.filter(Boolean).length).toBeLessThan(2200);
      expect({ first: kept[0], second: kept[1], last: kept[3999] }).toEqual({ first: true, second: false, last: true });
    } finally {
      await cache.stop();
    }
  });
});
