import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Vendor } from '../src/entities/index.js';
import { vendorNameKey } from '../src/entities/vendor.js';
import { createTestTenant, expectExactlyOneSucceeds, expectStatementsIndependentOfPageSize, graphql, rest, startTestServer, type TestServer, type TestTenant, useRaceServer } from './support/harness.js';

let server: TestServer;
let acme: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  server = await startTestServer();
  acme = await createTestTenant(server, 'acme');
  other = await createTestTenant(server, 'other');
});
afterAll(() => server.close());

async function createVendor(name: string, tenant = acme, websiteUrl: string | null = null) {
  const response = await rest(server, 'POST', '/api/vendors', { token: tenant.staffToken, body: { Name: name, WebsiteUrl: websiteUrl } });
  expect(response.status).toBe(200);
  return response.body as { VendorId: number; Name: string };
}

describe('vendors over REST', () => {
  it('creates, reads, lists, updates and deletes a vendor at the documented paths', async () => {
    const created = await rest(server, 'POST', '/api/vendors', { token: acme.staffToken, body: { VendorId: 0, Name: 'Harbor Supplies', WebsiteUrl: 'https://harbor.example' } });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ VendorId: expect.any(Number), Name: 'Harbor Supplies', WebsiteUrl: 'https://harbor.example', Actions: ['Edit', 'Delete'] });
    const id = created.body.VendorId;

    const read = await rest(server, 'GET', `/api/vendors/${id}`, { token: acme.staffToken });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ VendorId: id, Name: 'Harbor Supplies', WebsiteUrl: 'https://harbor.example', AuditId: 1 });

    const list = await rest(server, 'GET', '/api/vendors', { token: acme.staffToken });
    expect(list.body.map((vendor: { VendorId: number }) => vendor.VendorId)).toContain(id);

    const updated = await rest(server, 'POST', '/api/vendors', { token: acme.staffToken, body: { VendorId: id, Name: 'Harbor Supplies Ltd', AuditId: 1 } });
    expect(updated.status).toBe(200);
    expect(updated.body.Name).toBe('Harbor Supplies Ltd');
    expect((await rest(server, 'GET', `/api/vendors/${id}`, { token: acme.staffToken })).body.AuditId).toBe(2);

    const deleted = await rest(server, 'DELETE', `/api/vendors/${id}`, { token: acme.staffToken });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toBe(id);
    expect((await rest(server, 'GET', `/api/vendors/${id}`, { token: acme.staffToken })).status).toBe(404);
  });

  it('matches paths case-insensitively and with a trailing slash', async () => {
    const vendor = await createVendor('Casing Co');
    expect((await rest(server, 'GET', '/API/Vendors/', { token: acme.staffToken })).status).toBe(200);
    expect((await rest(server, 'GET', `/api/VENDORS/${vendor.VendorId}/`, { token: acme.staffToken })).body.Name).toBe('Casing Co');
  });

  it('prefers the literal search route over the id route and matches this[] text', async () => {
    await createVendor('Zeppelin Tours');
    const found = await rest(server, 'GET', '/api/vendors/search?this[]=zeppelin&length=7', { token: acme.staffToken });
    expect(found.status).toBe(200);
    expect(found.body.map((vendor: { Name: string }) => vendor.Name)).toEqual(['Zeppelin Tours']);
    const encoded = await rest(server, 'GET', '/api/vendors/search?this%5B%5D=ZEPP', { token: acme.staffToken });
    expect(encoded.body).toHaveLength(1);
  });

  it('finds duplicates ignoring case and whitespace, excluding the vendor itself', async () => {
    const original = await createVendor('Blue  Ocean Catering');
    const check = await rest(server, 'POST', '/api/vendors/duplicatecheck', { token: acme.staffToken, body: { Name: ' blueocean CATERING ' } });
    expect(check.status).toBe(200);
    expect(check.body).toEqual([{ Id: original.VendorId, Name: 'Blue  Ocean Catering', Description: null }]);
    const self = await rest(server, 'POST', '/api/vendors/duplicatecheck', { token: acme.staffToken, body: { VendorId: original.VendorId, Name: 'Blue Ocean Catering' } });
    expect(self.body).toEqual([]);
    const otherTenant = await rest(server, 'POST', '/api/vendors/duplicatecheck', { token: other.staffToken, body: { Name: 'Blue Ocean Catering' } });
    expect(otherTenant.body).toEqual([]);
  });

  it('pages, orders and filters the list through options', async () => {
    for (const name of ['Paging A', 'Paging B', 'Paging C']) await createVendor(name);
    const options = encodeURIComponent(JSON.stringify({ Filter: 'paging', OrderBy: 'Name desc', Skip: 1, Take: 1 }));
    const page = await rest(server, 'GET', `/api/vendors?options=${options}`, { token: acme.staffToken });
    expect(page.body.map((vendor: { Name: string }) => vendor.Name)).toEqual(['Paging B']);
    const top = await rest(server, 'GET', `/api/vendors?options=${encodeURIComponent('{"Filter":"paging","Top":"2"}')}`, { token: acme.staffToken });
    expect(top.body).toHaveLength(2);
  });

  it('ignores unknown and server-owned fields in a body', async () => {
    const created = await rest(server, 'POST', '/api/vendors', { token: acme.staffToken, body: { Name: 'Owned Fields', TenantId: other.id, Unknown: true } });
    expect(created.status).toBe(200);
    const stored = await server.orm.em.fork().findOneOrFail(Vendor, { id: created.body.VendorId }, { filters: false });
    expect(stored.tenant.id).toBe(acme.id);
  });
});

describe('vendors over GraphQL', () => {
  it('runs the same operations', async () => {
    const saved = await graphql(server, 'mutation($input: VendorAddEditInput!) { saveVendor(input: $input) { VendorId Name WebsiteUrl Actions } }', { input: { Name: 'GraphQL Goods', WebsiteUrl: 'https://gg.example' } }, acme.staffToken);
    expect(saved.status).toBe(200);
    const id = saved.body.data.saveVendor.VendorId;
    expect(saved.body.data.saveVendor).toEqual({ VendorId: id, Name: 'GraphQL Goods', WebsiteUrl: 'https://gg.example', Actions: ['Edit', 'Delete'] });

    const read = await graphql(server, 'query($id: Int!) { vendor(vendorId: $id) { VendorId Name AuditId } vendors { VendorId } vendorSearch: vendors(text: "graphql goods", options: { Take: 5 }) { VendorId } }', { id }, acme.staffToken);
    expect(read.body.data.vendor).toEqual({ VendorId: id, Name: 'GraphQL Goods', AuditId: 1 });
    expect(read.body.data.vendors).toContainEqual({ VendorId: id });
    expect(read.body.data.vendorSearch).toEqual([{ VendorId: id }]);

    const duplicates = await graphql(server, 'query { vendorDuplicateCheck(input: { Name: "graphqlgoods" }) { Id } }', {}, acme.staffToken);
    expect(duplicates.body.data.vendorDuplicateCheck).toEqual([{ Id: id }]);

    const deleted = await graphql(server, 'mutation($id: Int!) { deleteVendor(vendorId: $id) }', { id }, acme.staffToken);
    expect(deleted.body.data.deleteVendor).toBe(id);
    const gone = await graphql(server, 'query($id: Int!) { vendor(vendorId: $id) { VendorId } }', { id }, acme.staffToken);
    expect(gone.status).toBe(404);
    expect(gone.body.errors?.[0]?.extensions.code).toBe('NOT_FOUND');
  });
});

describe('vendor access', () => {
  // 401 without a credential and 403 for a member on every operation: test/sweeps.test.ts.
  it('answers 401 for an unknown or malformed token', async () => {
    expect((await rest(server, 'GET', '/api/vendors', { token: 'mms_not-a-real-token-at-all' })).status).toBe(401);
    expect((await rest(server, 'GET', '/api/vendors', { headers: { authorization: 'Basic abc' } })).status).toBe(401);
  });

  it('lets members read but not change vendors (403)', async () => {
    const vendor = await createVendor('Member Visible');
    const list = await rest(server, 'GET', '/api/vendors', { token: acme.memberToken });
    expect(list.status).toBe(200);
    expect(list.body.find((row: { VendorId: number }) => row.VendorId === vendor.VendorId).Actions).toEqual([]);
    expect((await rest(server, 'POST', '/api/vendors', { token: acme.memberToken, body: { Name: 'Nope' } })).status).toBe(403);
    expect((await rest(server, 'DELETE', `/api/vendors/${vendor.VendorId}`, { token: acme.memberToken })).status).toBe(403);
    const gql = await graphql(server, 'mutation { saveVendor(input: { Name: "Nope" }) { VendorId } }', {}, acme.memberToken);
    expect(gql.status).toBe(403);
    expect(gql.body.errors?.[0]?.extensions.code).toBe('FORBIDDEN');
  });

  it("keeps another tenant's vendors invisible and untouchable (404)", async () => {
    const vendor = await createVendor('Private To Acme');
    const id = vendor.VendorId;
    expect((await rest(server, 'GET', `/api/vendors/${id}`, { token: other.staffToken })).status).toBe(404);
    const list = await rest(server, 'GET', '/api/vendors', { token: other.staffToken });
    expect(list.body.map((row: { VendorId: number }) => row.VendorId)).not.toContain(id);
    const search = await rest(server, 'GET', '/api/vendors/search?this[]=private', { token: other.staffToken });
    expect(search.body).toEqual([]);
    const save = await rest(server, 'POST', '/api/vendors', { token: other.staffToken, body: { VendorId: id, Name: 'Hijacked' } });
    expect(save.status).toBe(404);
    expect((await rest(server, 'DELETE', `/api/vendors/${id}`, { token: other.staffToken })).status).toBe(404);
    const gql = await graphql(server, 'query($id: Int!) { vendor(vendorId: $id) { Name } }', { id }, other.staffToken);
    expect(gql.status).toBe(404);
    const stillThere = await rest(server, 'GET', `/api/vendors/${id}`, { token: acme.staffToken });
    expect(stillThere.body.Name).toBe('Private To Acme');
  });
});

// Broken JSON, a missing body, another media type, ids that are not integers and fields of the
// wrong type: the generated malformed-input sweep (test/sweeps.test.ts). Here: the vendor's own rules.
describe('vendor input validation', () => {
  const badBodies: [string, unknown, string][] = [
    ['a missing Name', { WebsiteUrl: 'https://x.example' }, 'Name'],
    ['a blank Name', { Name: '   ' }, 'Name'],
    ['an over-long Name', { Name: 'x'.repeat(201) }, 'Name'],
    ['a website that is not a URL', { Name: 'Ok', WebsiteUrl: 'not a url' }, 'WebsiteUrl'],
    ['a negative AuditId', { Name: 'Ok', VendorId: 0, AuditId: -1 }, 'AuditId'],
    ['a NUL character (PostgreSQL cannot store it)', { Name: 'a\u0000b' }, 'Name'],
  ];

  it.each(badBodies)('rejects %s with a 400 naming the field', async (_label, body, field) => {
    const response = await rest(server, 'POST', '/api/vendors', { token: acme.staffToken, body });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
  });

  it('names the field on GraphQL too', async () => {
    const response = await graphql(server, 'mutation($input: VendorAddEditInput!) { saveVendor(input: $input) { VendorId } }', { input: { Name: 'x'.repeat(201) } }, acme.staffToken);
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    expect(response.body.errors?.[0]?.extensions.errors?.[0]?.field).toBe('Name');
  });

  it.each([
    [`/api/vendors?options=${encodeURIComponent('{"Take":0}')}`, 'options.Take'],
    [`/api/vendors?options=${encodeURIComponent('{"Take":100000}')}`, 'options.Take'],
    [`/api/vendors?options=${encodeURIComponent('{"Skip":-1}')}`, 'options.Skip'],
    [`/api/vendors?options=${encodeURIComponent('{"OrderBy":"Password"}')}`, 'options.OrderBy'],
    [`/api/vendors?options=${encodeURIComponent('{"OrderBy":"Name sideways"}')}`, 'options.OrderBy'],
    [`/api/vendors?options=${encodeURIComponent('{"CalendarStartDate":"yesterday"}')}`, 'options.CalendarStartDate'],
    ['/api/vendors/search?this[]=a%00b', 'value'],
  ])('GET %s is a 400 naming %s', async (path, field) => {
    const response = await rest(server, 'GET', path, { token: acme.staffToken });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].field).toBe(field);
  });

  it('answers 413 for a body over the limit (API_BODY_LIMIT_BYTES, 256 KiB by default)', async () => {
    for (const size of [2 * 1024 * 1024, 300 * 1024]) {
      const response = await rest(server, 'POST', '/api/vendors', { token: acme.staffToken, body: { Name: 'x'.repeat(size) } });
      expect(response.status).toBe(413);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
    }
    expect((await rest(server, 'POST', '/api/vendors', { token: acme.staffToken, body: { Name: 'x'.repeat(200 * 1024) } })).status).toBe(400); // under the limit: the field's own rule
  });
});

describe('vendor concurrency', () => {
  it('refuses a save with a stale AuditId (409) and changes nothing', async () => {
    const vendor = await createVendor('Versioned Vendor');
    const first = await rest(server, 'POST', '/api/vendors', { token: acme.staffToken, body: { VendorId: vendor.VendorId, Name: 'First Edit', AuditId: 1 } });
    expect(first.status).toBe(200);
    const stale = await rest(server, 'POST', '/api/vendors', { token: acme.staffToken, body: { VendorId: vendor.VendorId, Name: 'Lost Update', AuditId: 1 } });
    expect(stale.status).toBe(409);
    expect(stale.body.errors[0].field).toBe('AuditId');
    const current = await rest(server, 'GET', `/api/vendors/${vendor.VendorId}`, { token: acme.staffToken });
    expect(current.body).toMatchObject({ Name: 'First Edit', AuditId: 2 });
  });

  it('refuses a delete with a stale auditid (409) and keeps the vendor', async () => {
    const vendor = await createVendor('Delete Guarded');
    await rest(server, 'POST', '/api/vendors', { token: acme.staffToken, body: { VendorId: vendor.VendorId, Name: 'Delete Guarded 2' } });
    const stale = await rest(server, 'DELETE', `/api/vendors/${vendor.VendorId}?auditid=1`, { token: acme.staffToken });
    expect(stale.status).toBe(409);
    expect((await rest(server, 'GET', `/api/vendors/${vendor.VendorId}`, { token: acme.staffToken })).status).toBe(200);
    const current = await rest(server, 'DELETE', `/api/vendors/${vendor.VendorId}?auditid=2`, { token: acme.staffToken });
    expect(current.status).toBe(200);
  });

  it('lets only one of two concurrent saves of the same version win', async () => {
    const vendor = await createVendor('Raced Vendor');
    const results = await Promise.all(['Racer A', 'Racer B'].map((Name) =>
      rest(server, 'POST', '/api/vendors', { token: acme.staffToken, body: { VendorId: vendor.VendorId, Name, AuditId: 1 } })));
    const statuses = results.map((result) => result.status).sort();
    expect(statuses).toEqual([200, 409]);
    expect((await rest(server, 'GET', `/api/vendors/${vendor.VendorId}`, { token: acme.staffToken })).body.AuditId).toBe(2);
  });
});

describe('vendor list cost', () => {
  it('runs the same number of SQL statements for 5 rows as for 50', async () => {
    const tenant = await createTestTenant(server, 'bulk');
    const em = server.orm.em.fork();
    for (let index = 0; index < 50; index++) {
      const name = `Bulk ${String(index).padStart(2, '0')}`;
      em.create(Vendor, { tenant: tenant.id, name, nameKey: vendorNameKey(name), websiteUrl: null });
    }
    await em.flush();
    // One request first, so once-in-a-while work (the credential's last-use stamp) is not counted.
    await rest(server, 'GET', '/api/login/logincheck', { token: tenant.staffToken });
    await expectStatementsIndependentOfPageSize(server, async (take) => {
      const response = await rest(server, 'GET', `/api/vendors?options=${encodeURIComponent(JSON.stringify({ Take: take }))}`, { token: tenant.staffToken });
      expect(response.body).toHaveLength(take);
    }, 3);
  });
});

describe('vendor races against the real database', () => {
  const race = useRaceServer('race-acme');

  const create = async (name: string) => (await rest(race.server, 'POST', '/api/vendors', { token: race.tenant.staffToken, body: { Name: name } })).body.VendorId as number;

  it('lets exactly one of 20 concurrent deletes of one vendor succeed', async () => {
    const id = await create('Deleted Twenty Times');
    await expectExactlyOneSucceeds(Array.from({ length: 20 }, () => () => rest(race.server, 'DELETE', `/api/vendors/${id}`, { token: race.tenant.staffToken })));
    expect((await rest(race.server, 'GET', `/api/vendors/${id}`, { token: race.tenant.staffToken })).status).toBe(404);
  });

  it('never loses a save acknowledged while a delete of the version it replaced races it', async () => {
    for (let round = 0; round < 10; round++) {
      const id = await create(`Raced ${round}`);
      const [save, remove] = await Promise.all([
        rest(race.server, 'POST', '/api/vendors', { token: race.tenant.staffToken, body: { VendorId: id, Name: `Raced ${round} saved`, AuditId: 1 } }),
        rest(race.server, 'DELETE', `/api/vendors/${id}?auditid=1`, { token: race.tenant.staffToken }),
      ]);
      // Exactly one wins; the loser is told (a save after the delete: 404; a delete of the replaced version: 409).
      expect([save.status, remove.status].filter((status) => status === 200)).toHaveLength(1);
      expect([404, 409]).toContain(save.status === 200 ? remove.status : save.status);
      const after = await rest(race.server, 'GET', `/api/vendors/${id}`, { token: race.tenant.staffToken });
      if (save.status === 200) expect(after.body).toMatchObject({ Name: `Raced ${round} saved`, AuditId: 2 });
      else expect(after.status).toBe(404);
    }
  });
});
