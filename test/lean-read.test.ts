import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { countsBy, insertIgnoringDuplicates, leanCount, leanDistinctOn } from '../src/core/lean-read.js';
import { TENANT_FILTER } from '../src/entities/base.js';
import { EmailEvent, Vendor } from '../src/entities/index.js';
import { vendorNameKey } from '../src/entities/vendor.js';
import { createTestTenant, startTestServer, type TestServer, type TestTenant } from './support/harness.js';

/** The typed read helpers of src/core/lean-read.ts, against the real database, tenant filter included. */
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
});
