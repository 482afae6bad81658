import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestTenant, expectExactlyOneSucceeds, expectStatementsIndependentOfPageSize, graphql, rest, startRaceServer, type TestServer, type TestTenant } from './support/harness.js';

// 401/403 on every operation, tenant isolation and the fuzz: test/sweeps.test.ts. Here: the area's own rules.
const BASE = '/api/categorylists';
let server: TestServer;
let acme: TestTenant;

beforeAll(async () => {
  server = await startRaceServer();
  acme = await createTestTenant(server, 'categories');
});
afterAll(() => server.close());

const options = (value: object) => encodeURIComponent(JSON.stringify(value));
const save = (id: number, body: Record<string, unknown>, token = acme.staffToken) => rest(server, 'POST', `${BASE}/${id}`, { token, body });
async function create(body: Record<string, unknown>): Promise<{ CategoryListId: number; AuditId: number }> {
  const response = await save(0, body);
  expect(response.status).toBe(200);
  return response.body;
}
async function read(id: number, auditId = 0) {
  return rest(server, 'GET', `${BASE}/${id}/${auditId}/items`, { token: acme.staffToken });
}

describe('category lists over REST', () => {
  it('creates a list with items, reads it, lists it and updates it at the documented paths', async () => {
    const created = await create({
      CategoryTypeId: 'Contact', Name: 'Interests', Description: 'What members care about', IsMemberViewable: true, MinQuantity: '1', MaxQuantity: '3',
      Items: [{ Name: 'Advocacy' }, { Name: 'Education', Description: 'Courses' }, { Name: 'Golf', IsActive: false }],
    });
    expect(created).toMatchObject({
      Id: created.CategoryListId, AuditId: 1, IsSystem: false, CategoryTypeId: '1', CategoryTypeName: 'Contact', Name: 'Interests', ObjectTypeId: '1', ObjectType: 'Contact',
      ItemsCount: 3, Actions: ['Edit', 'Delete'], IsReadOnly: false, HideDelete: false, IsStaff: true, TotalRecordAvailable: 1,
    });
    const id = created.CategoryListId;
    const edit = await read(id);
    expect(edit.body).toEqual({
      CategoryListId: id, AuditId: 1, IsSystem: false, CategoryTypeId: '1', Name: 'Interests', Description: 'What members care about', IsActive: true, IsPublic: false,
      IsMemberViewable: true, IsMemberEditable: false, IsRequired: false, MinQuantity: '1', MaxQuantity: '3',
      Items: [
        { CategoryItemId: expect.any(Number), Name: 'Advocacy', Description: null, IsActive: true, SortOrder: 0 },
        { CategoryItemId: expect.any(Number), Name: 'Education', Description: 'Courses', IsActive: true, SortOrder: 1 },
        { CategoryItemId: expect.any(Number), Name: 'Golf', Description: null, IsActive: false, SortOrder: 2 },
      ],
    });
    expect((await read(id, 1)).status).toBe(200);
    expect((await read(id, 7)).status).toBe(409);
    expect((await read(987654)).status).toBe(404);

    // The list holds exactly the items sent: Advocacy kept (renamed, moved last), Education dropped, Networking added.
    const [advocacy] = edit.body.Items;
    const updated = await save(id, { Name: 'Interests', AuditId: 1, Items: [{ Name: 'Networking' }, { CategoryItemId: advocacy.CategoryItemId, Name: 'Advocacy & policy' }] });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ AuditId: 2, ItemsCount: 2 });
    const after = (await read(id)).body;
    expect(after.Items.map((item: { Name: string; SortOrder: number }) => [item.Name, item.SortOrder])).toEqual([['Networking', 0], ['Advocacy & policy', 1]]);
    expect(after.Items[1].CategoryItemId).toBe(advocacy.CategoryItemId);
    // A save of the flags alone keeps the items and still moves the version on.
    expect((await save(id, { Name: 'Interests', AuditId: 2, IsPublic: true })).body).toMatchObject({ AuditId: 3, ItemsCount: 2, IsPublic: true });
    expect((await save(id, { Name: 'Interests', AuditId: 2 })).status).toBe(409); // stale AuditId
    expect((await save(987654, { Name: 'Nowhere' })).status).toBe(404);

    const listed = await rest(server, 'GET', `${BASE}/all?options=${options({ Filter: 'interests' })}`, { token: acme.staffToken });
    expect(listed.body).toMatchObject({ Criteria: null, TotalRecordAvailable: '1', ModelItems: [], Results: [{ CategoryListId: id, ItemsCount: 2 }] });
    expect(listed.body.CriteriaItems).toHaveLength(6);

    expect((await rest(server, 'DELETE', `${BASE}/${id}/2`, { token: acme.staffToken })).status).toBe(409); // stale
    expect((await rest(server, 'DELETE', `${BASE}/${id}/3`, { token: acme.staffToken })).status).toBe(200);
    expect((await read(id)).status).toBe(404);
  });

  it('has one system list per category type, which cannot be deleted or renamed (409 with a reason)', async () => {
    const all = await rest(server, 'GET', `${BASE}/all?options=${options({ OrderBy: 'CategoryTypeId', Take: 1000 })}`, { token: acme.staffToken });
    const system = all.body.Results.filter((row: { IsSystem: boolean }) => row.IsSystem);
    expect(system.map((row: { CategoryTypeId: string }) => row.CategoryTypeId)).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(system[0]).toMatchObject({ HideDelete: true, Actions: ['Edit'] });
    const industries = system[0];
    const deleted = await rest(server, 'DELETE', `${BASE}/${industries.CategoryListId}/${industries.AuditId}`, { token: acme.staffToken });
    expect(deleted.status).toBe(409);
    expect(deleted.body.detail).toContain('system');
    const renamed = await save(industries.CategoryListId, { Name: 'Sectors', AuditId: industries.AuditId });
    expect(renamed.status).toBe(409);
    expect(renamed.body.errors[0]).toMatchObject({ field: 'Name', message: expect.stringContaining('system') });
    // Its flags and items may change.
    const edited = await save(industries.CategoryListId, { Name: industries.Name, AuditId: industries.AuditId, Items: [{ Name: 'Healthcare' }] });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ IsSystem: true, ItemsCount: 1 });
  });

  it('offers the lookups: types, lists of a type (empty ones on request), lists to reassign to, and items per type', async () => {
    const types = await rest(server, 'GET', `${BASE}/lookup/categorytypeid`, { token: acme.memberToken });
    expect(types.body.map((type: { Id: number; Name: string }) => [type.Id, type.Name])).toEqual([
      [1, 'Contact'], [2, 'Public contact'], [3, 'Product'], [4, 'Project'], [5, 'Certification'], [6, 'Sales'],
    ]);
    await create({ CategoryTypeId: '4', Name: 'Project phases', Items: [{ Name: 'Planning' }, { Name: 'Retired', IsActive: false }] });
    const empty = await create({ CategoryTypeId: 'project', Name: 'Project empty' });
    const inactive = await create({ CategoryTypeId: 'Project', Name: 'Project inactive', IsActive: false, Items: [{ Name: 'Hidden' }] });
    const names = (body: { Name: string }[]) => body.map((choice) => choice.Name);
    expect(names((await rest(server, 'GET', `${BASE}/lookup/4/false`, { token: acme.memberToken })).body)).toEqual(['Project inactive', 'Project phases']);
    expect(names((await rest(server, 'GET', `${BASE}/lookup/project/true`, { token: acme.memberToken })).body))
      .toEqual(['Project categories', 'Project empty', 'Project inactive', 'Project phases']);
    expect(names((await rest(server, 'GET', `${BASE}/lookup/reassigncategorylist/4?exceptCategoryListId=${empty.CategoryListId}`, { token: acme.staffToken })).body))
      .toEqual(['Project categories', 'Project phases']);
    const items = await rest(server, 'GET', `${BASE}/projectcategoryitem/lookup`, { token: acme.memberToken });
    expect(items.body).toEqual([expect.objectContaining({ Name: 'Planning', ExtraData: 'Project phases' })]);
    expect(inactive.CategoryListId).toBeGreaterThan(0);
    const bad = await rest(server, 'GET', `${BASE}/lookup/9/true`, { token: acme.staffToken });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('categorytypeid');
  });

  it('serves the per-type item lookups, members seeing only public or member-viewable contact lists', async () => {
    await create({ CategoryTypeId: '1', Name: 'Staff only tags', Items: [{ Name: 'Difficult' }] });
    await create({ CategoryTypeId: '1', Name: 'Member tags', IsMemberViewable: true, Items: [{ Name: 'Volunteer' }] });
    await create({ CategoryTypeId: '1', Name: 'Open tags', IsPublic: true, Items: [{ Name: 'Sponsor' }] });
    await create({ CategoryTypeId: '2', Name: 'Public directory', Items: [{ Name: 'Consultants' }] });
    await create({ CategoryTypeId: '3', Name: 'Shop', Items: [{ Name: 'Books' }] });
    await create({ CategoryTypeId: '5', Name: 'Credentials', Items: [{ Name: 'CPA' }] });
    await create({ CategoryTypeId: '6', Name: 'Deal stage', Items: [{ Name: 'Lead' }] });
    const names = async (path: string, token: string) => (await rest(server, 'GET', `${BASE}/${path}`, { token })).body.map((choice: { Name: string }) => choice.Name);
    expect(await names('contactcategoryitem/lookup', acme.staffToken)).toEqual(expect.arrayContaining(['Difficult', 'Volunteer', 'Sponsor']));
    const member = await names('contactcategoryitem/lookup', acme.memberToken);
    expect(member).toEqual(expect.arrayContaining(['Volunteer', 'Sponsor']));
    expect(member).not.toContain('Difficult');
    expect(await names('publiccontactcategoryitem/lookup', acme.memberToken)).toEqual(expect.arrayContaining(['Consultants', 'Sponsor']));
    expect(await names('productcategoryitems/lookup', acme.memberToken)).toEqual(['Books']);
    expect(await names('certificationcategoryitem/lookup', acme.memberToken)).toEqual(['CPA']);
    expect(await names('salescategory/lookup', acme.memberToken)).toEqual(['Lead']);
  });

  it('moves an item from another list of the same type (reassigning), never from another type', async () => {
    const source = await create({ CategoryTypeId: '3', Name: 'Old shelf', Items: [{ Name: 'Maps' }] });
    const itemId = (await read(source.CategoryListId)).body.Items[0].CategoryItemId;
    const target = await create({ CategoryTypeId: '3', Name: 'New shelf', Items: [{ CategoryItemId: itemId, Name: 'Maps' }] });
    expect((await read(target.CategoryListId)).body.Items[0].CategoryItemId).toBe(itemId);
    expect((await read(source.CategoryListId)).body.Items).toEqual([]);
    const otherType = await save(0, { CategoryTypeId: '4', Name: 'Wrong type', Items: [{ CategoryItemId: itemId, Name: 'Maps' }] });
    expect(otherType.status).toBe(400);
    expect(otherType.body.errors[0].field).toBe('Items.0.CategoryItemId');
  });

  it('saves sales categories only through the sales category path', async () => {
    const saved = await rest(server, 'POST', `${BASE}/salescategory/0`, { token: acme.staffToken, body: { Name: 'Deal sources', Items: [{ Name: 'Referral' }] } });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ CategoryTypeId: '6', CategoryTypeName: 'Sales', ObjectType: 'SalesOpportunity' });
    const product = await create({ CategoryTypeId: '3', Name: 'Not sales' });
    expect((await rest(server, 'POST', `${BASE}/salescategory/${product.CategoryListId}`, { token: acme.staffToken, body: { Name: 'Not sales' } })).status).toBe(404);
    expect((await rest(server, 'POST', `${BASE}/salescategory/0`, { token: acme.staffToken, body: { Name: 'x', CategoryTypeId: '1' } })).status).toBe(400);
  });

  it.each([
    [{ Name: '', CategoryTypeId: '1' }, 'Name'],
    [{ Name: 'No type' }, 'CategoryTypeId'],
    [{ Name: 'Bad type', CategoryTypeId: 'planets' }, 'CategoryTypeId'],
    [{ Name: 'Quantities', CategoryTypeId: '1', MinQuantity: 'many' }, 'MinQuantity'],
    [{ Name: 'Quantities', CategoryTypeId: '1', MinQuantity: '5', MaxQuantity: '2' }, 'MaxQuantity'],
    [{ Name: 'Items', CategoryTypeId: '1', Items: [{ Name: ' ' }] }, 'Items.0.Name'],
    [{ Name: 'Items', CategoryTypeId: '1', Items: 'Golf' }, 'Items'],
  ])('answers %j with a 400 naming %s', async (body, field) => {
    const response = await save(0, body);
    expect(response.status).toBe(400);
    expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
  });

  it('refuses to change the type of an existing list (400)', async () => {
    const list = await create({ CategoryTypeId: '1', Name: 'Typed' });
    const response = await save(list.CategoryListId, { Name: 'Typed', CategoryTypeId: '3' });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].field).toBe('CategoryTypeId');
  });
});

describe('category lists over GraphQL', () => {
  it('runs the same operations', async () => {
    const saved = await graphql(server, 'mutation($input: CategoryListAddEditInput!) { saveCategoryList(categoryListId: 0, input: $input) { CategoryListId AuditId ItemsCount } }',
      { input: { CategoryTypeId: '5', Name: 'GraphQL certs', Items: [{ Name: 'PMP' }] } }, acme.staffToken);
    const id = saved.body.data.saveCategoryList.CategoryListId as number;
    const read = await graphql(server, `query($id: Int!) {
      categoryList(categoryListId: $id, auditId: 1) { Name Items { Name } }
      categoryLists(options: { Filter: "graphql certs" }) { TotalRecordAvailable Results { CategoryListId } }
      categoryTypeLookup { Id }
      categoryListLookup(categoryTypeId: "5", showEmptyLists: false) { Name }
      categoryListReassignLookup(categoryTypeId: "5", exceptCategoryListId: $id) { Name }
      certificationCategoryItemLookup { Name }
      contactCategoryItemLookup { Name }
      publicContactCategoryItemLookup { Name }
      productCategoryItemLookup { Name }
      projectCategoryItemLookup { Name }
      salesCategoryLookup { Name }
    }`, { id }, acme.staffToken);
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data).toMatchObject({
      categoryList: { Name: 'GraphQL certs', Items: [{ Name: 'PMP' }] },
      categoryLists: { TotalRecordAvailable: '1', Results: [{ CategoryListId: id }] },
      categoryListLookup: expect.arrayContaining([{ Name: 'GraphQL certs' }]),
      certificationCategoryItemLookup: expect.arrayContaining([{ Name: 'PMP' }]),
    });
    expect(read.body.data.categoryListReassignLookup).not.toContainEqual({ Name: 'GraphQL certs' });
    const sales = await graphql(server, 'mutation { saveSalesCategoryList(categoryListId: 0, input: { Name: "GraphQL sales" }) { CategoryTypeId } }', {}, acme.staffToken);
    expect(sales.body.data.saveSalesCategoryList).toEqual({ CategoryTypeId: '6' });
    const stale = await graphql(server, 'mutation($id: Int!) { deleteCategoryList(categoryListId: $id, auditId: 9) }', { id }, acme.staffToken);
    expect(stale.body.errors?.[0].extensions.code).toBe('CONFLICT');
    const deleted = await graphql(server, 'mutation($id: Int!) { deleteCategoryList(categoryListId: $id, auditId: 1) }', { id }, acme.staffToken);
    expect(deleted.body.data.deleteCategoryList).toBe(id);
  });
});

describe('category lists under concurrency', () => {
  it('lets exactly one of 10 concurrent saves of one version through; the others are 409, and the items are those of the winner', async () => {
    const list = await create({ CategoryTypeId: '1', Name: 'Raced', Items: [{ Name: 'Start' }] });
    const statuses = await expectExactlyOneSucceeds(Array.from({ length: 10 }, (_, index) => () =>
      save(list.CategoryListId, { Name: 'Raced', AuditId: 1, Items: [{ Name: `Winner ${index}` }, { Name: `Second ${index}` }] })), [409]);
    const winner = statuses.indexOf(200);
    expect((await read(list.CategoryListId)).body.Items.map((item: { Name: string }) => item.Name)).toEqual([`Winner ${winner}`, `Second ${winner}`]);
  });

  it('lets exactly one of 20 concurrent deletes succeed', async () => {
    const list = await create({ CategoryTypeId: '1', Name: 'Deleted twenty times' });
    await expectExactlyOneSucceeds(Array.from({ length: 20 }, () => () => rest(server, 'DELETE', `${BASE}/${list.CategoryListId}/1`, { token: acme.staffToken })), [404]);
  });

  it('never loses a save acknowledged while a delete of the same version races it', async () => {
    for (let round = 0; round < 10; round++) {
      const list = await create({ CategoryTypeId: '1', Name: `Save or delete ${round}` });
      const [saved, removed] = await Promise.all([
        save(list.CategoryListId, { Name: `Saved ${round}`, AuditId: 1, Items: [{ Name: 'Kept' }] }),
        rest(server, 'DELETE', `${BASE}/${list.CategoryListId}/1`, { token: acme.staffToken }),
      ]);
      expect([saved.status, removed.status].filter((status) => status === 200)).toHaveLength(1);
      const after = await read(list.CategoryListId);
      if (saved.status === 200) expect(after.body).toMatchObject({ Name: `Saved ${round}`, AuditId: 2, Items: [{ Name: 'Kept' }] });
      else expect(after.status).toBe(404);
    }
  });

  it("seeds the system lists once even when a new tenant's first calls come at once", async () => {
    const tenant = await createTestTenant(server, 'categories-first');
    await Promise.all(Array.from({ length: 8 }, () => rest(server, 'GET', `${BASE}/lookup/1/true`, { token: tenant.memberToken })));
    const all = await rest(server, 'GET', `${BASE}/all`, { token: tenant.staffToken });
    expect(all.body.TotalRecordAvailable).toBe('6');
  });
});

describe('category list cost', () => {
  it('runs the same number of SQL statements for 5 lists as for 50, item counts and total included', async () => {
    const tenant = await createTestTenant(server, 'categories-bulk');
    for (let index = 0; index < 50; index++) {
      await rest(server, 'POST', `${BASE}/0`, { token: tenant.staffToken, body: { CategoryTypeId: '1', Name: `Bulk ${String(index).padStart(2, '0')}`, Items: [{ Name: 'One' }] } });
    }
    await expectStatementsIndependentOfPageSize(server, async (take) => {
      const response = await rest(server, 'GET', `${BASE}/all?options=${options({ Take: take })}`, { token: tenant.staffToken });
      expect(response.body.Results).toHaveLength(take);
      expect(response.body.TotalRecordAvailable).toBe('56');
    }, 4);
  });
});
