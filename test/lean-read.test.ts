import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { countsBy, insertIgnoringDuplicates, leanCount, leanDistinctOn } from '../src/core/data/lean-read.js';
import { TENANT_FILTER } from '../src/entities/base.js';
import { EmailEvent, Vendor } from '../src/entities/index.js';
import { vendorNameKey } from '../src/entities/vendor.js';
import { createTestTenant, graphql, rest, startTestServer, type TestServer, type TestTenant } from './support/harness.js';

/** The typed read helpers of src/core/data/lean-read.ts, against the real database, tenant filter included. */
describe('lean-read helpers', () => {
  let server: TestServer;
  let acme: TestTenant;
  let other: TestTenant;
  beforeAll(async () => {
    server = await startTestServer();
    acme = await createTestTenant(server, 'lean-acme');
    other = await createTestTenant(server, 'lean-other');
    const em = server.orm.em.fork();
    const vendors: [number, string, string | null][] = [
      [acme.id, 'A one', 'https://a.example'], [acme.id, 'A two', 'https://a.example'], [acme.id, 'A three', null],
      [other.id, 'B one', 'https://a.example'],
    ];
    for (const [tenant, name, websiteUrl] of vendors) em.create(Vendor, { tenant, name, nameKey: vendorNameKey(name), websiteUrl });
    await em.flush();
  });
  afterAll(() => server.close());

  const tenantEm = (tenantId: number) => {
    const em = server.orm.em.fork();
    em.setFilterParams(TENANT_FILTER, { tenantId });
    return em;
  };

  it('counts per value in one grouped statement, within the tenant', async () => {
    const counts = await countsBy(tenantEm(acme.id), Vendor, 'websiteUrl', {});
    expect(counts).toEqual(new Map<unknown, number>([['https://a.example', 2], [null, 1]]));
    expect(await leanCount(tenantEm(other.id), Vendor, {})).toBe(1);
  });

  it('takes the first row of each group by the given order (DISTINCT ON)', async () => {
    const newest = await leanDistinctOn(tenantEm(acme.id), Vendor, {
      fields: ['websiteUrl', 'name'], distinctOn: ['websiteUrl'], where: {}, orderBy: [{ websiteUrl: 'asc' }, { id: 'desc' }],
    });
    expect(newest).toEqual([{ websiteUrl: 'https://a.example', name: 'A two' }, { websiteUrl: null, name: 'A three' }]);
  });

  it('inserts rows once, skipping those whose unique key exists, also when racing', async () => {
    const row = (id: string) => ({ tenant: acme.id, provider: 'emailprovider1' as const, providerEventId: id, kind: 'delivered' as const, email: 'a@b.example', occurredAt: new Date() });
    expect(await insertIgnoringDuplicates(tenantEm(acme.id), EmailEvent, [row('e1'), row('e2')], ['tenant', 'provider', 'providerEventId'])).toBe(2);
    const raced = await Promise.all(Array.from({ length: 10 }, () => insertIgnoringDuplicates(tenantEm(acme.id), EmailEvent, [row('e2'), row('e3')], ['tenant', 'provider', 'providerEventId'])));
    expect(raced.reduce((sum, inserted) => sum + inserted, 0)).toBe(1);
    expect(await leanCount(tenantEm(acme.id), EmailEvent, {})).toBe(3);
    expect(await insertIgnoringDuplicates(tenantEm(acme.id), EmailEvent, [], ['tenant'])).toBe(0);
  });

  it('answers read-only requests through the tenant\'s shared reader, without a fork per request; a write still gets its own', async () => {
    const forks = { count: 0 };
    const fork = server.orm.em.fork.bind(server.orm.em);
    server.orm.em.fork = (...args: Parameters<typeof fork>) => {
      forks.count++;
      return fork(...args);
    };
    try {
      const names = async (tenant: TestTenant) => (await rest(server, 'GET', '/api/vendors', { token: tenant.staffToken })).body.map((vendor: { Name: string }) => vendor.Name).sort();
      // The first read of each tenant makes its reader; the readers then keep each tenant to its own rows.
      expect(await names(acme)).toEqual(['A one', 'A three', 'A two']);
      expect(await names(other)).toEqual(['B one']);
      const afterReaders = forks.count;
      for (let round = 0; round < 3; round++) {
        expect(await names(other)).toEqual(['B one']);
        expect(await names(acme)).toEqual(['A one', 'A three', 'A two']);
        const viaGraphql = await graphql(server, '{ vendors(options: { Take: 10 }) { Name } }', {}, other.staffToken);
        expect(viaGraphql.body.data.vendors).toEqual([{ Name: 'B one' }]);
      }
      expect(forks.count).toBe(afterReaders);
      const saved = await rest(server, 'POST', '/api/vendors', { token: other.staffToken, body: { VendorId: 0, Name: 'B two' } });
      expect(saved.status).toBe(200);
      expect(forks.count).toBe(afterReaders + 1);
      expect(await names(other)).toEqual(['B one', 'B two']);
      expect(await names(acme)).toEqual(['A one', 'A three', 'A two']);
    } finally {
      server.orm.em.fork = fork;
    }
  });
});
