import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MembershipLevel, MembershipType } from '../src/entities/index.js';
import { createTestTenant, expectExactlyOneSucceeds, expectStatementsIndependentOfPageSize, graphql, rest, startRaceServer, type TestServer, type TestTenant } from './support/harness.js';

// 401/403 on every operation, tenant isolation and the fuzz: test/sweeps.test.ts. Here: the area's own rules.
const BASE = '/api/benefitpackages';
let server: TestServer;
let acme: TestTenant;

beforeAll(async () => {
  server = await startRaceServer();
  acme = await createTestTenant(server, 'benefits');
});
afterAll(() => server.close());

const save = (id: number, body: Record<string, unknown>, token = acme.staffToken) => rest(server, 'POST', `${BASE}/${id}`, { token, body });
async function create(name: string, extra: Record<string, unknown> = {}): Promise<number> {
  const response = await save(0, { Name: name, ...extra });
  expect(response.status).toBe(200);
  return response.body.BenefitPackageId as number;
}

/** Assigns a package to a new membership type (and optionally a level of it), as the billing area will. */
async function assign(packageId: number, level = false): Promise<void> {
  const em = server.orm.em.fork();
  const type = em.create(MembershipType, { tenant: acme.id, name: `Type for ${packageId}`, benefitPackage: level ? null : packageId });
  if (level) em.create(MembershipLevel, { tenant: acme.id, membershipType: type, name: `Gold for ${packageId}`, benefitPackage: packageId });
  await em.flush();
}

describe('benefit packages over REST', () => {
  it('creates, reads, lists, updates and deletes a package at the documented paths', async () => {
    const id = await create('Corporate', {
      Description: 'For companies', ActiveDates: { Start: '2026-01-01', End: '2026-12-31' },
      BenefitItems: [{ Name: 'Directory listing' }, { Name: 'Newsletter ad', Description: 'Quarterly', IsActive: false }],
    });
    const read = await rest(server, 'GET', `${BASE}/${id}`, { token: acme.memberToken });
    expect(read.body).toEqual({
      BenefitPackageId: id, Name: 'Corporate', Description: 'For companies', ActiveDates: { Start: '2026-01-01', End: '2026-12-31' },
      BenefitItems: [
        { BenefitItemId: 1, Name: 'Directory listing', Description: null, IsActive: true },
        { BenefitItemId: 2, Name: 'Newsletter ad', Description: 'Quarterly', IsActive: false },
      ],
      ForceSave: false, AuditId: 1,
    });
    const listed = await rest(server, 'GET', `${BASE}?options=${encodeURIComponent(JSON.stringify({ Filter: 'corporate' }))}`, { token: acme.staffToken });
    expect(listed.body).toEqual([{
      BenefitPackageId: id, Id: id, Name: 'Corporate', Description: 'For companies', ActivePeriodStart: '2026-01-01', ActivePeriodEnd: '2026-12-31',
      Assignments: 0, Actions: ['Edit', 'Delete'],
    }]);
    // Item 1 keeps its number, the new item gets the next one after the highest.
    const updated = await save(id, { Name: 'Corporate', AuditId: 1, BenefitItems: [{ BenefitItemId: 1, Name: 'Directory listing+' }, { Name: 'Event discount' }] });
    expect(updated.status).toBe(200);
    expect((await rest(server, 'GET', `${BASE}/${id}`, { token: acme.staffToken })).body.BenefitItems.map((item: { BenefitItemId: number }) => item.BenefitItemId)).toEqual([1, 3]);
    expect((await save(id, { Name: 'Corporate', AuditId: 1 })).status).toBe(409);
    expect((await rest(server, 'DELETE', `${BASE}/${id}`, { token: acme.staffToken })).status).toBe(200);
    expect((await rest(server, 'GET', `${BASE}/${id}`, { token: acme.staffToken })).status).toBe(404);
    expect((await save(987654, { Name: 'Nowhere' })).status).toBe(404);
  });

  it('refuses a likely duplicate name with 409 naming the other package, unless ForceSave', async () => {
    const first = await create('Individual Plan');
    const duplicate = await save(0, { Name: ' individual   plan ' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.errors[0]).toMatchObject({ field: 'Name', message: expect.stringContaining(`BenefitPackageId ${first}`) });
    expect((await save(0, { Name: 'Individual Plan', ForceSave: true })).status).toBe(200);
    expect((await save(first, { Name: 'Individual Plan' })).status).toBe(200); // its own name is no duplicate
  });

  it.each([
    [{ Name: '' }, 'Name'],
    [{ Name: 'Dates', ActiveDates: { Start: '2026-05-01', End: '2026-04-01' } }, 'ActiveDates.End'],
    [{ Name: 'Dates', ActiveDates: { Start: 'soon' } }, 'ActiveDates.Start'],
    [{ Name: 'Dates', ActiveDates: { Start: '2026-02-30' } }, 'ActiveDates.Start'],
    [{ Name: 'Items', BenefitItems: [{ Name: ' ' }] }, 'BenefitItems.0.Name'],
    [{ Name: 'Items', BenefitItems: 'Directory' }, 'BenefitItems'],
  ])('answers %j with a 400 naming %s', async (body, field) => {
    const response = await save(0, body);
    expect(response.status).toBe(400);
    expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
  });

  it('lists where a package is assigned, counts it, and refuses to delete it while assigned (409)', async () => {
    const id = await create('Assigned Package');
    await assign(id);
    await assign(id, true);
    const assignments = await rest(server, 'GET', `${BASE}/${id}/assignmentlist`, { token: acme.staffToken });
    expect(assignments.body).toEqual({
      BenefitPackageId: id,
      AssignmentItem: [
        { Kind: 'MembershipType', Id: expect.any(Number), Name: `Type for ${id}` },
        { Kind: 'MembershipLevel', Id: expect.any(Number), Name: `Gold for ${id}` },
      ],
    });
    const listed = await rest(server, 'GET', `${BASE}?options=${encodeURIComponent(JSON.stringify({ Filter: 'Assigned Package' }))}`, { token: acme.staffToken });
    expect(listed.body[0].Assignments).toBe(2);
    expect((await rest(server, 'DELETE', `${BASE}/${id}`, { token: acme.staffToken })).status).toBe(409);
    expect((await rest(server, 'GET', `${BASE}/${id}`, { token: acme.staffToken })).status).toBe(200);
  });

  it('offers a copy template with the inactive items apart, and copies into a new package', async () => {
    const id = await create('Source Package', { BenefitItems: [{ Name: 'Kept' }, { Name: 'Retired', IsActive: false }] });
    const template = await rest(server, 'GET', `${BASE}/copy/${id}`, { token: acme.staffToken });
    expect(template.body).toMatchObject({
      BenefitPackageId: 0, Name: 'Copy of Source Package', BenefitItems: [{ Name: 'Kept', IsActive: true }], InactiveBenefitItems: [{ Name: 'Retired', IsActive: false }],
    });
    const copied = await rest(server, 'POST', `${BASE}/copy/${id}`, { token: acme.staffToken, body: template.body });
    expect(copied.status).toBe(200);
    expect(copied.body.BenefitPackageId).not.toBe(id);
    const copy = await rest(server, 'GET', `${BASE}/${copied.body.BenefitPackageId}`, { token: acme.staffToken });
    expect(copy.body).toMatchObject({ Name: 'Copy of Source Package', BenefitItems: [{ BenefitItemId: 1, Name: 'Kept' }], AuditId: 1 });
    expect((await rest(server, 'POST', `${BASE}/copy/${id}`, { token: acme.staffToken, body: template.body })).status).toBe(409); // the same name again
    expect((await rest(server, 'GET', `${BASE}/copy/987654`, { token: acme.staffToken })).status).toBe(404);
    expect((await rest(server, 'POST', `${BASE}/copy/987654`, { token: acme.staffToken, body: { Name: 'Orphan copy' } })).status).toBe(404);
  });
});

describe('benefit packages over GraphQL', () => {
  it('runs the same operations', async () => {
    const saved = await graphql(server, 'mutation($input: BenefitPackageAddEditInput!) { saveBenefitPackage(benefitPackageId: 0, input: $input) { BenefitPackageId Name Assignments } }',
      { input: { Name: 'GraphQL Package', BenefitItems: [{ Name: 'One' }] } }, acme.staffToken);
    const id = saved.body.data.saveBenefitPackage.BenefitPackageId as number;
    const read = await graphql(server, `query($id: Int!) {
      benefitPackage(benefitPackageId: $id) { Name BenefitItems { BenefitItemId Name } AuditId }
      benefitPackages(options: { Filter: "graphql package" }) { BenefitPackageId }
      benefitPackageAssignments(benefitPackageId: $id) { AssignmentItem { Kind } }
      benefitPackageCopyTemplate(benefitPackageId: $id) { Name InactiveBenefitItems { Name } }
    }`, { id }, acme.staffToken);
    expect(read.body.data).toEqual({
      benefitPackage: { Name: 'GraphQL Package', BenefitItems: [{ BenefitItemId: 1, Name: 'One' }], AuditId: 1 },
      benefitPackages: [{ BenefitPackageId: id }],
      benefitPackageAssignments: { AssignmentItem: [] },
      benefitPackageCopyTemplate: { Name: 'Copy of GraphQL Package', InactiveBenefitItems: [] },
    });
    const copied = await graphql(server, 'mutation($id: Int!) { copyBenefitPackage(benefitPackageId: $id, input: { Name: "GraphQL Copy" }) { Name } }', { id }, acme.staffToken);
    expect(copied.body.data.copyBenefitPackage).toEqual({ Name: 'GraphQL Copy' });
    const deleted = await graphql(server, 'mutation($id: Int!) { deleteBenefitPackage(benefitPackageId: $id, auditId: 1) }', { id }, acme.staffToken);
    expect(deleted.body.data.deleteBenefitPackage).toBe(id);
  });
});

describe('benefit packages under concurrency', () => {
  it('lets exactly one of 20 concurrent saves of a new name through; the others are 409', async () => {
    await expectExactlyOneSucceeds(Array.from({ length: 20 }, () => () => save(0, { Name: 'Raced Name' })), [409]);
  });

  it('lets exactly one of 20 concurrent deletes succeed', async () => {
    const id = await create('Deleted Twenty Times');
    await expectExactlyOneSucceeds(Array.from({ length: 20 }, () => () => rest(server, 'DELETE', `${BASE}/${id}`, { token: acme.staffToken })), [404]);
  });

  it('never loses a save acknowledged while a delete of the version it replaced races it', async () => {
    for (let round = 0; round < 10; round++) {
      const id = await create(`Save or delete ${round}`);
      const [saved, removed] = await Promise.all([
        save(id, { Name: `Saved ${round}`, AuditId: 1 }),
        rest(server, 'DELETE', `${BASE}/${id}?auditid=1`, { token: acme.staffToken }),
      ]);
      expect([saved.status, removed.status].filter((status) => status === 200)).toHaveLength(1);
      const after = await rest(server, 'GET', `${BASE}/${id}`, { token: acme.staffToken });
      if (saved.status === 200) expect(after.body).toMatchObject({ Name: `Saved ${round}`, AuditId: 2 });
      else expect(after.status).toBe(404);
    }
  });
});

describe('benefit package list cost', () => {
  it('runs the same number of SQL statements for 5 packages as for 50, assignments included', async () => {
    const tenant = await createTestTenant(server, 'benefits-bulk');
    for (let index = 0; index < 50; index++) {
      await rest(server, 'POST', `${BASE}/0`, { token: tenant.staffToken, body: { Name: `Bulk ${String(index).padStart(2, '0')}` } });
    }
    await expectStatementsIndependentOfPageSize(server, async (take) => {
      const response = await rest(server, 'GET', `${BASE}?options=${encodeURIComponent(JSON.stringify({ Take: take }))}`, { token: tenant.staffToken });
      expect(response.body).toHaveLength(take);
    }, 4);
  });
});
