import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { EntityManager } from '@mikro-orm/postgresql';
import { leanRows } from '../src/core/data/lean-read.js';
import { cachedStatement } from '../src/core/data/statement-cache.js';
import { TENANT_FILTER } from '../src/entities/base.js';
import { Vendor } from '../src/entities/vendor.js';
import { createTestTenant, startTestServer, type TestServer, type TestTenant } from './support/harness.js';

// Lean reads reuse the SQL of a query shape with each request's own values: the tenant, every
// filter value, the page. Whatever the cache holds, each call must answer exactly what the
// QueryBuilder would have for its own values — above all, its own tenant's rows.

let server: TestServer;
let north: TestTenant;
let south: TestTenant;

beforeAll(async () => {
  server = await startTestServer();
  north = await createTestTenant(server, 'north');
  south = await createTestTenant(server, 'south');
  const em = server.orm.em.fork();
  for (const [tenant, names] of [[north, ['Alpha', 'Bravo', 'Charlie']], [south, ['Delta', 'Echo']]] as const) {
    await em.getConnection().execute(
      `insert into vendor (tenant_id, name, name_key) select ?, n, lower(n) from unnest(string_to_array(?, ',')) as n`, [tenant.id, names.join(',')]);
  }
});
afterAll(() => server?.close());

function emOf(tenant: TestTenant): EntityManager {
  const em = server.orm.em.fork() as EntityManager;
  em.setFilterParams(TENANT_FILTER, { tenantId: tenant.id });
  return em;
}

const names = (rows: { name: string }[]) => rows.map((row) => row.name);
// The parts as leanRows keys its statements: each column selected under its row key.
const vendorPage = (where: object, limit?: number) => ({ entity: 'Vendor', fields: ['id as id', 'name as name'], where, orderBy: [{ name: 'asc' }, { id: 'asc' }], limit });
/** The cached statement of a query, asking for no build: answers whether one was needed. */
async function cachedOnly(em: EntityManager, parts: ReturnType<typeof vendorPage>) {
  let built = false;
  const statement = await cachedStatement(em, parts, () => {
    built = true;
    return Promise.reject(new Error('not compiled yet'));
  });
  return { statement, built };
}
const page = (em: EntityManager, where: object, limit?: number, offset?: number) =>
  leanRows(em, Vendor, { fields: ['id', 'name'], where, orderBy: [{ name: 'asc' }, { id: 'asc' }], limit, offset });

describe('compiled lean reads', () => {
  it('serves each tenant its own rows through one compiled statement', async () => {
    expect(names(await page(emOf(north), {}, 10))).toEqual(['Alpha', 'Bravo', 'Charlie']);
    // The shape north's read compiled, with south's tenant id and limit as the parameters.
    const { statement, built } = await cachedOnly(emOf(south), vendorPage({}, 10));
    expect(built).toBe(false);
    expect(statement?.sql).toMatch(/"tenant_id" = \?/);
    expect(statement?.params).toEqual(expect.arrayContaining([south.id, 10]));
    expect(names(await page(emOf(south), {}, 10))).toEqual(['Delta', 'Echo']);
    expect(names(await page(emOf(north), {}, 10))).toEqual(['Alpha', 'Bravo', 'Charlie']);
  });

  it('takes every value from the request: filters, lists of any length, limit and offset', async () => {
    const north1 = emOf(north);
    expect(names(await page(north1, { name: { $ilike: '%a%' } }, 2))).toEqual(['Alpha', 'Bravo']);
    expect(names(await page(north1, { name: { $ilike: '%a%' } }, 2, 1))).toEqual(['Bravo', 'Charlie']);
    expect(names(await page(north1, { name: { $ilike: '%rav%' } }, 2))).toEqual(['Bravo']);
    expect(names(await page(north1, { name: { $in: ['Alpha', 'Charlie'] } }))).toEqual(['Alpha', 'Charlie']);
    expect(names(await page(north1, { name: { $in: ['Bravo'] } }))).toEqual(['Bravo']);
    expect(names(await page(north1, { name: { $in: ['Bravo', 'Alpha', 'Charlie'] } }))).toEqual(['Alpha', 'Bravo', 'Charlie']);
    // Another tenant, same shapes: still only its own.
    expect(names(await page(emOf(south), { name: { $in: ['Alpha', 'Delta'] } }))).toEqual(['Delta']);
  });

  it('treats nulls and booleans as part of the shape, and leaves what it cannot map to the QueryBuilder', async () => {
    const em = emOf(north);
    expect(names(await page(em, { websiteUrl: null }))).toEqual(['Alpha', 'Bravo', 'Charlie']);
    expect(names(await page(em, { websiteUrl: { $ne: null } }))).toEqual([]);
    // A date value is not cached (the QueryBuilder converts it), but answers all the same.
    const dated = { createdAt: { $lt: new Date(Date.now() + 60_000) } };
    expect(await cachedOnly(em, vendorPage(dated))).toEqual({ statement: null, built: false });
    expect(names(await page(em, dated))).toEqual(['Alpha', 'Bravo', 'Charlie']);
  });
});
