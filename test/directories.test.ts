import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Contact, Membership, MembershipType } from '../src/entities/index.js';
import { DirectoryListingType } from '../src/entities/directory.js';
import type { PostalAddress } from '../src/entities/contact.js';
import { reconcileAllTenants } from '../src/services/directories/directory-listings.js';
import {
  createTestTenant, expectExactlyOneSucceeds, expectStatementsIndependentOfPageSize, graphql, rest, startRaceServer, startTestServer, type TestServer, type TestTenant,
} from './support/harness.js';

// 401/403 on every operation, tenant isolation and the fuzz: test/sweeps.test.ts. Here: the area's own rules.
const BASE = '/api/directory';
let server: TestServer;
let acme: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  server = await startRaceServer();
  acme = await createTestTenant(server, 'dir-acme');
  other = await createTestTenant(server, 'dir-other');
});
afterAll(() => server.close());

const anonymous = (tenant: TestTenant = acme) => ({ 'x-tenant-key': tenant.key });
const q = (value: unknown) => encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value));

async function createContact(tenant: TestTenant, name: string, extra: { email?: string; phone?: string; postalCode?: string; kind?: 'person' | 'organization' } = {}): Promise<number> {
  const em = server.orm.em.fork();
  const addresses: PostalAddress[] | null = extra.postalCode ? [{ line1: '1 Main St', city: 'Springfield', postalCode: extra.postalCode, country: 'US' }] : null;
  const contact = em.create(Contact, { tenant: tenant.id, kind: extra.kind ?? 'organization', name, email: extra.email ?? null, phone: extra.phone ?? null, addresses });
  await em.flush();
  return contact.id;
}

async function createMembershipType(tenant: TestTenant, name: string): Promise<number> {
  const em = server.orm.em.fork();
  const type = em.create(MembershipType, { tenant: tenant.id, name });
  await em.flush();
  return type.id;
}

async function addMembership(tenant: TestTenant, contactId: number, typeId: number, status: 'active' | 'lapsed' = 'active'): Promise<number> {
  const em = server.orm.em.fork();
  const membership = em.create(Membership, { tenant: tenant.id, contact: contactId, membershipType: typeId, startDate: '2020-01-01', status });
  await em.flush();
  return membership.id;
}

async function createDirectory(body: Record<string, unknown>, tenant = acme): Promise<number> {
  const response = await rest(server, 'POST', `${BASE}/directories/0`, { token: tenant.staffToken, body: { IsPublic: true, ...body } });
  expect(response.status).toBe(200);
  return response.body.DirectoryId as number;
}

/** A chapter (through the chapters area's documented save): a directory's ChapterId must name one. */
async function createCategoryList(name: string, tenant = acme): Promise<number> {
  const created = await rest(server, 'POST', '/api/categorylists/0', { token: tenant.staffToken, body: { Name: name, CategoryTypeId: '1' } });
  expect(created.status).toBe(200);
  return created.body.CategoryListId as number;
}

async function createChapter(name: string, tenant = acme): Promise<number> {
  const response = await rest(server, 'POST', `/api/chapters/0/false`, { token: tenant.staffToken, body: { ChapterName: name } });
  expect(response.status).toBe(200);
  return response.body.ChapterId as number;
}

async function createListingType(body: Record<string, unknown>, tenant = acme): Promise<number> {
  const response = await rest(server, 'POST', `${BASE}/directorylistingtypes`, { token: tenant.staffToken, body });
  expect(response.status).toBe(200);
  return response.body.DirectoryListingTypeId as number;
}

/** Items of a new public contact category list (listings name real category items), in the order given. */
async function createCategoryItems(names: string[], tenant = acme): Promise<number[]> {
  const saved = await rest(server, 'POST', '/api/categorylists/0', { token: tenant.staffToken, body: { CategoryTypeId: '2', Name: `Categories ${names.join(' ')}`, Items: names.map((Name) => ({ Name })) } });
  expect(saved.status).toBe(200);
  const read = await rest(server, 'GET', `/api/categorylists/${saved.body.CategoryListId}/0/items`, { token: tenant.staffToken });
  return read.body.Items.map((item: { CategoryItemId: number }) => item.CategoryItemId);
}

async function createCategoryItem(name: string, tenant = acme): Promise<number> {
  return (await createCategoryItems([name], tenant))[0];
}

/** Lists a contact through the GraphQL-only saveDirectoryListing. */
async function list(directoryId: number, contactId: number, input: Record<string, unknown> = {}, tenant = acme): Promise<{ DirectoryContactId: number; HashedContactId: string; AuditId: number }> {
  const response = await graphql(server, `mutation($d: Int!, $c: Int!, $input: DirectoryListingInput!) {
    saveDirectoryListing(directoryId: $d, contactId: $c, input: $input) { DirectoryContactId HashedContactId AuditId } }`, { d: directoryId, c: contactId, input }, tenant.staffToken);
  expect(response.body.errors).toBeUndefined();
  return response.body.data.saveDirectoryListing;
}

async function find(directoryId: number, query: Record<string, unknown>, headers = anonymous()) {
  const search = Object.entries(query).map(([key, value]) => `${key}=${q(value)}`).join('&');
  return rest(server, 'GET', `${BASE}/directories/${directoryId}/public/find?${search}`, { headers });
}

const names = (response: { body: { ListItems: { Name: string }[] } }) => response.body.ListItems.map((item) => item.Name);

describe('directory listing types', () => {
  it('creates, reads, lists, updates and deletes a type at the documented paths, AuditId checked', async () => {
    const id = await createListingType({ Name: 'Basic', Description: 'Name and phone', ShowContactDetails: 'true', EnhancedOnMap: true, Options: '{"color":"blue"}' });
    const read = await rest(server, 'GET', `${BASE}/directorylistingtypes/${id}`, { token: acme.staffToken });
    expect(read.body).toMatchObject({
      DirectoryListingTypeId: id, Id: id, AuditId: 1, Name: 'Basic', Description: 'Name and phone', ShowContactDetails: 'true', EnhancedOnMap: true,
      Options: '{"color":"blue"}', IsDeletable: true, Count: 0, ShowRETSDirectoryLinkOption: false, DefaultRank: null,
    });
    const listed = await rest(server, 'GET', `${BASE}/directorylistingtypes`, { token: acme.staffToken });
    expect(listed.body).toContainEqual({ DirectoryListingTypeId: id, Id: id, AuditId: 1, Name: 'Basic', Description: 'Name and phone', Count: 0, Actions: ['Edit', 'Delete'] });
    const updated = await rest(server, 'POST', `${BASE}/directorylistingtypes`, { token: acme.staffToken, body: { DirectoryListingTypeId: id, AuditId: 1, Name: 'Basic+' } });
    expect(updated.body).toMatchObject({ Name: 'Basic+', AuditId: 2 });
    expect((await rest(server, 'POST', `${BASE}/directorylistingtypes`, { token: acme.staffToken, body: { DirectoryListingTypeId: id, AuditId: 1, Name: 'Stale' } })).status).toBe(409);
    expect((await rest(server, 'DELETE', `${BASE}/directorylistingtypes/${id}/1`, { token: acme.staffToken })).status).toBe(409);
    expect((await rest(server, 'DELETE', `${BASE}/directorylistingtypes/${id}/2`, { token: acme.staffToken })).status).toBe(200);
    expect((await rest(server, 'GET', `${BASE}/directorylistingtypes/${id}`, { token: acme.staffToken })).status).toBe(404);
    expect((await rest(server, 'POST', `${BASE}/directorylistingtypes`, { token: acme.staffToken, body: { DirectoryListingTypeId: 987654, Name: 'Nowhere' } })).status).toBe(404);
  });

  it('takes JSON-as-text fields as text only (400 naming the field on both interfaces), and answers a row stored before as its JSON text', async () => {
    for (const Options of [{ color: 'blue' }, 5]) {
      const refused = await rest(server, 'POST', `${BASE}/directorylistingtypes`, { token: acme.staffToken, body: { DirectoryListingTypeId: 0, Name: 'Object', Options } });
      expect([refused.status, refused.body.errors[0].field]).toEqual([400, 'Options']);
    }
    const viaGraphql = await graphql(server, 'mutation($input: DirectoryListingTypeInput!) { saveDirectoryListingType(input: $input) { Options } }', { input: { Name: 'Object', Options: { color: 'blue' } } }, acme.staffToken);
    expect([viaGraphql.status, JSON.stringify(viaGraphql.body.errors)]).toEqual([400, expect.stringContaining('Options')]);
    const id = await createListingType({ Name: 'Old row' });
    await server.orm.em.fork().nativeUpdate(DirectoryListingType, { id }, { options: { color: 'blue' } }, { filters: false });
    const read = await rest(server, 'GET', `${BASE}/directorylistingtypes/${id}`, { token: acme.staffToken });
    expect(read.body.Options).toBe('{"color":"blue"}');
  });

  it('refuses to delete a type in use (409) and counts its listings', async () => {
    const typeId = await createListingType({ Name: 'In use' });
    const directoryId = await createDirectory({ Name: 'Typed directory', DirectoryListingTypeId: typeId });
    await list(directoryId, await createContact(acme, 'Typed Co'));
    const read = await rest(server, 'GET', `${BASE}/directorylistingtypes/${typeId}`, { token: acme.staffToken });
    expect(read.body).toMatchObject({ Count: 1, IsDeletable: false });
    const refused = await rest(server, 'DELETE', `${BASE}/directorylistingtypes/${typeId}/1`, { token: acme.staffToken });
    expect(refused.status).toBe(409);
    expect(refused.body.errors).toEqual([{ field: 'Count', message: '1' }]);
    // Once its only listing is removed (a tombstone) and the directory moves to no type, it can go.
    const [listing] = (await rest(server, 'GET', `${BASE}/directories/${directoryId}/public/find`, { headers: anonymous() })).body.ListItems;
    const removed = await graphql(server, 'mutation($id: Int!) { deleteDirectoryListing(directoryContactId: $id, auditId: 1) }', { id: listing.DirectoryContactId }, acme.staffToken);
    expect(removed.body.errors).toBeUndefined();
    expect((await rest(server, 'POST', `${BASE}/directories/${directoryId}`, { token: acme.staffToken, body: { Name: 'Typed directory' } })).status).toBe(200);
    expect((await rest(server, 'DELETE', `${BASE}/directorylistingtypes/${typeId}/1`, { token: acme.staffToken })).status).toBe(200);
  });

  it.each([
    [{ Name: '' }, 'Name'],
    [{ Name: 'x'.repeat(201) }, 'Name'],
    [{ Name: 'Ok', DefaultRank: 'r'.repeat(51) }, 'DefaultRank'],
  ])('answers %j with a 400 naming %s', async (body, field) => {
    const response = await rest(server, 'POST', `${BASE}/directorylistingtypes`, { token: acme.staffToken, body });
    expect(response.status).toBe(400);
    expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
  });

  it('lets exactly one of 20 concurrent deletes succeed', async () => {
    const id = await createListingType({ Name: 'Deleted twenty times' });
    await expectExactlyOneSucceeds(Array.from({ length: 20 }, () => () => rest(server, 'DELETE', `${BASE}/directorylistingtypes/${id}/1`, { token: acme.staffToken })), [404]);
  });
});

describe('directories setup', () => {
  it('creates, reads, lists, updates and deletes a directory at the documented paths', async () => {
    const typeId = await createListingType({ Name: 'Setup type' });
    const chapter = await createChapter('Setup chapter');
    const [sectors, regions] = [await createCategoryList('Sectors'), await createCategoryList('Regions')];
    const id = await createDirectory({
      Name: 'Members A-Z', DisplayName: 'Find a member', Description: 'All members', DirectoryListingTypeId: typeId, CatLists: [regions, sectors], CategoryListId: regions,
      SearchFilterOptions: { DisplayRadiusSearch: true }, KeywordSearchOptions: '{"SearchKeywords":true}', CustomFields: '[{"Name":"Founded"}]', ChapterId: chapter,
    });
    const read = await rest(server, 'GET', `${BASE}/directories/${id}`, { token: acme.staffToken });
    expect(read.body).toMatchObject({
      DirectoryId: id, Name: 'Members A-Z', DisplayName: 'Find a member', DirectoryListingTypeId: typeId, CatLists: [regions, sectors], CategoryListId: regions, IsPublic: true,
      SearchFilterOptions: { DisplayRadiusSearch: true, ShowPostalCodeFilter: false, AlphabetizeResults: true }, KeywordSearchOptions: '{"SearchKeywords":true}',
      CustomFields: '[{"Name":"Founded"}]', ChapterId: chapter, AutomaticallyAddRemoveMembers: false, InDevelopment: false, AuditId: 1,
    });
    const listed = await rest(server, 'GET', `${BASE}/directories`, { token: acme.memberToken });
    expect(listed.body).toContainEqual({
      Id: id, DirectoryId: id, Name: 'Members A-Z', AuditId: 1, Localize: 'Find a member', Description: 'All members', DirectoryListingTypeId: typeId,
      DirectoryListingTypeName: 'Setup type', IsPublic: true, ExtraData: false, IsVisibleToMembers: true, Availability: 'Public', AutomaticallyAddRemoveMembers: false, Actions: [],
    });
    const ofChapter = await rest(server, 'GET', `${BASE}/directories/chapters/${chapter}`, { token: acme.staffToken });
    expect(ofChapter.body.map((item: { DirectoryId: number }) => item.DirectoryId)).toEqual([id]);
    expect((await rest(server, 'GET', `${BASE}/directories/chapters/${chapter + 1000}`, { token: acme.staffToken })).body).toEqual([]);
    // One link: the chapter's DirectoryId answers the same directory.
    expect((await rest(server, 'GET', `/api/chapters/${chapter}`, { token: acme.staffToken })).body.DirectoryId).toBe(String(id));
    // A chapter has one directory; ChapterId must be a chapter.
    const second = await rest(server, 'POST', `${BASE}/directories/0`, { token: acme.staffToken, body: { Name: 'Second of the chapter', ChapterId: chapter } });
    expect(second.status).toBe(409);
    expect(second.body.errors).toEqual([{ field: 'ChapterId', message: `has DirectoryId ${id}` }]);
    const notChapter = await rest(server, 'POST', `${BASE}/directories/0`, { token: acme.staffToken, body: { Name: 'Nowhere', ChapterId: await createContact(acme, 'Plain Co') } });
    expect(notChapter.status).toBe(400);
    expect(notChapter.body.errors[0].field).toBe('ChapterId');

    // Category lists must exist; a list deleted later leaves the directory (migration 0044), and the directory stays.
    for (const [body, field] of [[{ CategoryListId: 987654 }, 'CategoryListId'], [{ CatLists: [sectors, 987654] }, 'CatLists[1]']] as const) {
      const unknown = await rest(server, 'POST', `${BASE}/directories/0`, { token: acme.staffToken, body: { Name: 'Unknown lists', ...body } });
      expect(unknown.status).toBe(400);
      expect(unknown.body.errors[0].field).toBe(field);
    }
    expect((await rest(server, 'DELETE', `/api/categorylists/${regions}/1`, { token: acme.staffToken })).status).toBe(200);
    expect((await rest(server, 'GET', `${BASE}/directories/${id}`, { token: acme.staffToken })).body).toMatchObject({ CatLists: [sectors], CategoryListId: null, AuditId: 1 });

    const saved = await rest(server, 'POST', `${BASE}/directories/${id}`, { token: acme.staffToken, body: { Name: 'Members', AuditId: 1, InDevelopment: true } });
    expect(saved.body).toMatchObject({ DirectoryId: id, Name: 'Members', AuditId: 2, Availability: 'In development' });
    expect((await rest(server, 'POST', `${BASE}/directories/${id}`, { token: acme.staffToken, body: { Name: 'Stale', AuditId: 1 } })).status).toBe(409);
    // Members do not see a directory in development.
    const memberList = await rest(server, 'GET', `${BASE}/directories`, { token: acme.memberToken });
    expect(memberList.body.map((item: { DirectoryId: number }) => item.DirectoryId)).not.toContain(id);

    expect((await rest(server, 'DELETE', `${BASE}/directories/${id}`, { token: acme.staffToken })).status).toBe(200);
    expect((await rest(server, 'GET', `${BASE}/directories/${id}`, { token: acme.staffToken })).status).toBe(404);
    expect((await rest(server, 'DELETE', `${BASE}/directories/${id}`, { token: acme.staffToken })).status).toBe(404);
    expect((await rest(server, 'POST', `${BASE}/directories/987654`, { token: acme.staffToken, body: { Name: 'Nowhere' } })).status).toBe(404);
    expect((await rest(server, 'GET', `${BASE}/directories/not-a-number`, { token: acme.staffToken })).status).toBe(404);
  });

  it('serves the setup ListResult with the DirectoriesListFilter fields from the query string', async () => {
    const tenant = await createTestTenant(server, 'dir-setup');
    for (const [name, isPublic] of [['Alpha', true], ['Beta', false], ['Gamma', true]] as const) await createDirectory({ Name: name, IsPublic: isPublic }, tenant);
    const page = await rest(server, 'GET', `${BASE}/directories/setup?Take=1&Skip=1&OrderBy=Name&Criteria=${q({ IsPublic: true })}`, { token: tenant.staffToken });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ Criteria: { IsPublic: true, ChapterId: null }, TotalRecordAvailable: '2', ModelItems: [], Results: [{ Name: 'Gamma' }] });
    const filtered = await rest(server, 'GET', `${BASE}/directories/setup?filter=bet`, { token: tenant.staffToken });
    expect(filtered.body.Results.map((item: { Name: string }) => item.Name)).toEqual(['Beta']);
    for (const [query, field] of [['Take=0', 'Take'], ['OrderBy=Color', 'OrderBy'], ['Criteria=%7B%22ChapterId%22%3A%22x%22%7D', 'Criteria.ChapterId']]) {
      const bad = await rest(server, 'GET', `${BASE}/directories/setup?${query}`, { token: tenant.staffToken });
      expect({ query, status: bad.status, fields: bad.body.errors.map((error: { field: string }) => error.field) }).toEqual({ query, status: 400, fields: [field] });
    }
  });

  it.each([
    [{ Name: ' ' }, 'Name'],
    [{ Name: 'x', DirectoryListingTypeId: 0 }, 'DirectoryListingTypeId'],
    [{ Name: 'x', CatLists: 'one' }, 'CatLists'],
    [{ Name: 'x', SortOrder: 1e12 }, 'SortOrder'],
    [{ Name: 'x\u0000y' }, 'Name'],
  ])('answers %j with a 400 naming %s', async (body, field) => {
    const response = await rest(server, 'POST', `${BASE}/directories/0`, { token: acme.staffToken, body });
    expect(response.status).toBe(400);
    expect(response.body.errors.map((error: { field: string }) => error.field).join(' ')).toContain(field);
  });

  it('costs the same statements for 5 directories as for 50, listing type names included', async () => {
    const tenant = await createTestTenant(server, 'dir-bulk');
    const typeId = await createListingType({ Name: 'Bulk type' }, tenant);
    for (let index = 0; index < 50; index++) await createDirectory({ Name: `Bulk ${String(index).padStart(2, '0')}`, DirectoryListingTypeId: typeId }, tenant);
    await expectStatementsIndependentOfPageSize(server, async (take) => {
      const response = await rest(server, 'GET', `${BASE}/directories?options=${q({ Take: take })}`, { token: tenant.staffToken });
      expect(response.body).toHaveLength(take);
    }, 4);
  });
});

describe('directory listings', () => {
  it('lists the holders of membership types, idempotently, and keeps automatic directories in line with memberships (reconcile job)', async () => {
    const typeId = await createMembershipType(acme, 'Business');
    const [keep, lapse, later] = [await createContact(acme, 'Keeper LLC'), await createContact(acme, 'Lapser Inc'), await createContact(acme, 'Latecomer Co')];
    await addMembership(acme, keep, typeId);
    const lapsing = await addMembership(acme, lapse, typeId);
    const directoryId = await createDirectory({ Name: 'Automatic', AutomaticallyAddRemoveMembers: true });
    const save = () => rest(server, 'POST', `${BASE}/adddirectorylistingsbymembershiptype/save`, { token: acme.staffToken, body: { DirectoryItems: [{ DirectoryId: directoryId, MembershipTypeIds: [typeId] }] } });
    // Two at once: one listing per contact all the same.
    const [first, second] = await Promise.all([save(), save()]);
    expect([first.status, second.status, first.text]).toEqual([200, 200, '']);
    expect(names(await find(directoryId, {}))).toEqual(['Keeper LLC', 'Lapser Inc']);

    await new Promise((resolve) => setTimeout(resolve, 20));
    const before = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await addMembership(acme, later, typeId);
    await server.orm.em.fork().getConnection().execute(`update membership set status = 'lapsed' where id = ${lapsing}`);
    await reconcileAllTenants(server.orm);
    expect(names(await find(directoryId, {}))).toEqual(['Keeper LLC', 'Latecomer Co']);
    await reconcileAllTenants(server.orm); // idempotent
    expect(names(await find(directoryId, {}))).toEqual(['Keeper LLC', 'Latecomer Co']);

    const changes = await rest(server, 'GET', `${BASE}/all/${q(before)}`, { token: acme.staffToken });
    expect(changes.status).toBe(200);
    const mine = changes.body.filter((item: { Directories: { DirectoryId: number }[] }) => item.Directories[0].DirectoryId === directoryId);
    expect(mine.map((item: { DisplayName: string; Directories: { IsDeleted: boolean }[] }) => [item.DisplayName, item.Directories[0].IsDeleted]).sort())
      .toEqual([['Lapser Inc', true], ['Latecomer Co', false]]);

    // The membership comes back: the same listing is revived.
    await server.orm.em.fork().getConnection().execute(`update membership set status = 'active' where id = ${lapsing}`);
    await reconcileAllTenants(server.orm);
    expect(names(await find(directoryId, {}))).toEqual(['Keeper LLC', 'Lapser Inc', 'Latecomer Co']);

    const unknownType = await rest(server, 'POST', `${BASE}/adddirectorylistingsbymembershiptype/save`, { token: acme.staffToken, body: { DirectoryItems: [{ DirectoryId: directoryId, MembershipTypeIds: [987654] }] } });
    expect(unknownType.status).toBe(400);
    expect(unknownType.body.errors[0].field).toBe('DirectoryItems[0].MembershipTypeIds');
    expect((await rest(server, 'POST', `${BASE}/adddirectorylistingsbymembershiptype/save`, { token: acme.staffToken, body: { DirectoryItems: [{ DirectoryId: 987654, MembershipTypeIds: [typeId] }] } })).status).toBe(404);
  });

  it('reports changed and removed listings since an instant (all/{modifiedsince}); a deleted directory removes its listings', async () => {
    const directoryId = await createDirectory({ Name: 'Sync' });
    const since = new Date(Date.now() - 1000).toISOString();
    const stays = await list(directoryId, await createContact(acme, 'Stays Co', { email: 'stays@example.org' }), { ShortDescription: 'Stays', CategoryItemIds: [await createCategoryItem('Sync category')] });
    const goes = await list(directoryId, await createContact(acme, 'Goes Co'));
    expect((await graphql(server, 'mutation($id: Int!, $a: Int!) { deleteDirectoryListing(directoryContactId: $id, auditId: $a) }', { id: goes.DirectoryContactId, a: goes.AuditId }, acme.staffToken)).body.data)
      .toEqual({ deleteDirectoryListing: goes.DirectoryContactId });
    const changes = await rest(server, 'GET', `${BASE}/all/${q(since)}`, { token: acme.staffToken });
    const byId = new Map(changes.body.map((item: { Directories: { DirectoryContactId: number }[] }) => [item.Directories[0].DirectoryContactId, item]));
    expect(byId.get(stays.DirectoryContactId)).toMatchObject({
      DisplayName: 'Stays Co', ShortDescription: 'Stays', EmailAddresses: ['stays@example.org'], Categories: [expect.any(Number)], SystemContactTypeId: 'organization',
      Directories: [{ DirectoryId: directoryId, Name: 'Sync', IsVisible: true, IsDeleted: false }], LastModifiedDate: expect.stringMatching(/Z$/),
    });
    expect(byId.get(goes.DirectoryContactId)).toMatchObject({ DisplayName: 'Goes Co', Directories: [{ IsDeleted: true }] });
    const future = await rest(server, 'GET', `${BASE}/all/${q(new Date(Date.now() + 60_000).toISOString())}`, { token: acme.staffToken });
    expect(future.body).toEqual([]);

    const deletedAt = new Date(Date.now() - 1000).toISOString();
    expect((await rest(server, 'DELETE', `${BASE}/directories/${directoryId}`, { token: acme.staffToken })).status).toBe(200);
    const afterDelete = await rest(server, 'GET', `${BASE}/all/${q(deletedAt)}`, { token: acme.staffToken });
    expect(afterDelete.body.filter((item: { Directories: { DirectoryId: number; IsDeleted: boolean }[] }) => item.Directories[0].DirectoryId === directoryId)
      .map((item: { Directories: { IsDeleted: boolean }[] }) => item.Directories[0].IsDeleted)).toEqual([true, true]);

    for (const bad of ['yesterday', '2026-13-01', '0000-01-01', '10000-01-01']) {
      const response = await rest(server, 'GET', `${BASE}/all/${q(bad)}`, { token: acme.staffToken });
      expect({ bad, status: response.status, field: response.body.errors?.[0]?.field }).toEqual({ bad, status: 400, field: 'modifiedsince' });
    }
  });

  it('never loses a listing save acknowledged while another save of the same version races it', async () => {
    const directoryId = await createDirectory({ Name: 'Race' });
    const contactId = await createContact(acme, 'Race Co');
    const listing = await list(directoryId, contactId);
    const attempts = Array.from({ length: 10 }, (_, index) => () => graphql(server, `mutation($d: Int!, $c: Int!, $input: DirectoryListingInput!) {
      saveDirectoryListing(directoryId: $d, contactId: $c, input: $input) { AuditId } }`, { d: directoryId, c: contactId, input: { AuditId: listing.AuditId, ShortDescription: `v${index}` } }, acme.staffToken));
    const results = await Promise.all(attempts.map((attempt) => attempt()));
    const winners = results.filter((result) => result.body.data?.saveDirectoryListing);
    expect(winners).toHaveLength(1);
    for (const loser of results.filter((result) => !result.body.data?.saveDirectoryListing)) expect(loser.body.errors?.[0]?.extensions.code).toBe('CONFLICT');
  });
});

describe('the public directory', () => {
  let directoryId: number;
  let shown: { DirectoryContactId: number; HashedContactId: string };
  let hidden: { DirectoryContactId: number };
  let bread: number;
  let shops: number;

  beforeAll(async () => {
    [bread, shops] = await createCategoryItems(['Bread', 'Shops']);
    const typeId = await createListingType({ Name: 'Public type' });
    directoryId = await createDirectory({ Name: 'Chamber', DisplayName: 'Chamber directory', Description: 'Local businesses', DirectoryListingTypeId: typeId, SearchFilterOptions: { ShowPostalCodeFilter: true } });
    shown = await list(directoryId, await createContact(acme, 'Bakery on Main', { email: 'secret-bakery@example.org', phone: '555-0101', postalCode: '90210' }), {
      ShortDescription: 'Fresh bread daily', Description: 'Since 1990', Keywords: 'sourdough croissant', CategoryItemIds: [bread, shops], Website: 'https://bakery.example',
    });
    await list(directoryId, await createContact(acme, 'Bike Shop', { phone: '555-0102', postalCode: '10001' }), { ShortDescription: 'Repairs', CategoryItemIds: [shops], Visibility: { Phone: false, Address: false } });
    hidden = await list(directoryId, await createContact(acme, 'Hidden Haberdashery'), { IsVisible: false, Keywords: 'sourdough' });
  });

  it('answers the index with visible entries and category counts, cacheable with an ETag', async () => {
    const response = await rest(server, 'GET', `${BASE}/directories/${directoryId}/public/index`, { headers: anonymous() });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      DirectoryId: directoryId, displayName: 'Chamber directory', name: 'Chamber', Name: 'Chamber', Description: 'Local businesses', ShowCategoryImages: false,
      OGMeta: { Title: 'Chamber directory', Description: 'Local businesses', Type: 'website' }, TotalEntries: 2,
      Categories: [{ CategoryItemId: bread, EntryCount: 1 }, { CategoryItemId: shops, EntryCount: 2 }], ShowPostalCodeFilter: true, DisplayRadiusSearch: false,
    });
    const etag = response.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]{43}"$/);
    expect(response.headers.get('cache-control')).toBe('public, max-age=60');
    expect(response.headers.get('vary')).toContain('X-Tenant-Key');
    const again = await rest(server, 'GET', `${BASE}/directories/${directoryId}/public/index`, { headers: { ...anonymous(), 'if-none-match': etag! } });
    expect([again.status, again.text]).toEqual([304, '']);
    const signedIn = await rest(server, 'GET', `${BASE}/directories/${directoryId}/public/index`, { token: acme.memberToken });
    expect(signedIn.headers.get('cache-control')).toBe('private, max-age=60');
  });

  it('finds by term, name prefix, category and postal code; never a hidden listing', async () => {
    expect(names(await find(directoryId, {}))).toEqual(['Bakery on Main', 'Bike Shop']);
    expect(names(await find(directoryId, { term: 'SOURDOUGH' }))).toEqual(['Bakery on Main']);
    expect(names(await find(directoryId, { term: 'fresh bread' }))).toEqual(['Bakery on Main']);
    expect(names(await find(directoryId, { term: 'bread bike' }))).toEqual([]);
    expect(names(await find(directoryId, { namestartswithterm: 'bi' }))).toEqual(['Bike Shop']);
    expect(names(await find(directoryId, { term: '%' }))).toEqual([]);
    expect(names(await find(directoryId, { advfilter: { CategoryItemId: bread } }))).toEqual(['Bakery on Main']);
    expect(names(await find(directoryId, { advfilter: { CategoryItemIds: [shops] } }))).toEqual(['Bakery on Main', 'Bike Shop']);
    expect(names(await find(directoryId, { advfilter: { PostalCode: '90210' } }))).toEqual(['Bakery on Main']);
    // The Bike Shop hides its address: its postal code is not searchable either.
    expect(names(await find(directoryId, { advfilter: { PostalCode: '10001' } }))).toEqual([]);
    const page = await find(directoryId, { term: 'bakery' });
    expect(page.body).toMatchObject({
      Name: 'Chamber', displayName: 'Chamber directory', ResultCount: '1', ShowPostalCodeFilter: true, DisplayRadiusSearch: false, CategoryItemId: null,
      ListItems: [{ DirectoryContactId: shown.DirectoryContactId, HashedContactId: shown.HashedContactId, Name: 'Bakery on Main', ShortDescription: 'Fresh bread daily', Categories: [bread, shops], City: 'Springfield', PostalCode: '90210', Latitude: null }],
    });
    expect(page.text).not.toContain('secret-bakery');
    expect(shown.HashedContactId).toMatch(/^[0-9a-f]{32}$/);
    expect((await find(directoryId, { pid: '2' })).body).toMatchObject({ ListItems: [], ResultCount: '2' });
  });

  it('shows a listing with only what its visibility allows; a hidden listing is 404', async () => {
    const detail = await rest(server, 'GET', `${BASE}/directories/${directoryId}/public/details/${shown.DirectoryContactId}`, { headers: anonymous() });
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      DirectoryContactId: shown.DirectoryContactId, DirectoryId: directoryId, ContactId: null, HashedContactId: shown.HashedContactId, Name: 'Bakery on Main',
      Description: 'Since 1990', Keywords: 'sourdough croissant', PrimaryPhone: '555-0101', PrimaryWebsite: 'https://bakery.example', PrimaryEmail: null, EmailAddresses: [],
      PrimaryAddress: { City: 'Springfield', PostalCode: '90210' }, IsAddressValid: true, Categories: [bread, shops],
      Visibility: { Email: false, Phone: true, Address: true, Website: true }, OGMeta: { Title: 'Bakery on Main', Type: 'profile' },
    });
    expect(detail.text).not.toContain('secret-bakery');
    expect(detail.headers.get('etag')).toBeTruthy();
    const bike = (await find(directoryId, { term: 'bike' })).body.ListItems[0];
    const bikeDetail = await rest(server, 'GET', `${BASE}/directories/${directoryId}/public/details/${bike.DirectoryContactId}`, { headers: anonymous() });
    expect(bikeDetail.body).toMatchObject({ PrimaryPhone: null, Phones: [], PrimaryAddress: null, Addresses: [] });
    expect(bikeDetail.text).not.toContain('555-0102');
    expect(bikeDetail.text).not.toContain('10001');
    expect((await rest(server, 'GET', `${BASE}/directories/${directoryId}/public/details/${hidden.DirectoryContactId}`, { headers: anonymous() })).status).toBe(404);
  });

  it('hides contact details for every listing of a type that says so', async () => {
    const typeId = await createListingType({ Name: 'Name only', ShowContactDetails: 'false' });
    const directory = await createDirectory({ Name: 'Names only', DirectoryListingTypeId: typeId });
    const listing = await list(directory, await createContact(acme, 'Quiet Co', { phone: '555-0199', email: 'quiet@example.org', postalCode: '10001' }), { Visibility: { Email: true } });
    const detail = await rest(server, 'GET', `${BASE}/directories/${directory}/public/details/${listing.DirectoryContactId}`, { headers: anonymous() });
    expect(detail.body).toMatchObject({ PrimaryPhone: null, PrimaryEmail: null, PrimaryAddress: null, Visibility: { Email: false, Phone: false, Address: false, Website: false } });
    expect(detail.text).not.toMatch(/555-0199|quiet@example/);
  });

  it('never shows the listing of a deleted contact, and the reconcile job removes it', async () => {
    const contactId = await createContact(acme, 'Bygone Bistro');
    const listing = await list(directoryId, contactId);
    const connection = server.orm.em.fork().getConnection();
    await connection.execute('update contact set deleted_at = now() where id = ?', [contactId]);
    expect(names(await find(directoryId, { term: 'bygone' }))).toEqual([]);
    expect((await rest(server, 'GET', `${BASE}/directories/${directoryId}/public/details/${listing.DirectoryContactId}`, { headers: anonymous() })).status).toBe(404);
    await reconcileAllTenants(server.orm);
    expect((await find(directoryId, { term: 'bygone' })).body.ResultCount).toBe('0');
    const [row] = await connection.execute<{ deleted: boolean }[]>('select deleted_at is not null as deleted from directory_listing where id = ?', [listing.DirectoryContactId]);
    expect(row.deleted).toBe(true);
  });

  it('answers 404 for a private directory, one in development, another tenant\'s, and without a tenant', async () => {
    const privateId = await createDirectory({ Name: 'Private', IsPublic: false });
    const developing = await createDirectory({ Name: 'Developing', InDevelopment: true });
    const privateListing = await list(privateId, await createContact(acme, 'Private Co'));
    for (const path of [
      `${BASE}/directories/${privateId}/public/index`, `${BASE}/directories/${privateId}/public/find`, `${BASE}/directories/${privateId}/public/details/${privateListing.DirectoryContactId}`,
      `${BASE}/directories/${developing}/public/index`,
    ]) {
      expect({ path, status: (await rest(server, 'GET', path, { headers: anonymous() })).status }).toEqual({ path, status: 404 });
    }
    for (const headers of [anonymous(other), {}]) {
      const response = await rest(server, 'GET', `${BASE}/directories/${directoryId}/public/index`, { headers });
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
    }
    expect((await rest(server, 'GET', `${BASE}/directories/${directoryId}/public/details/${shown.DirectoryContactId}`, { token: other.memberToken })).status).toBe(404);
    expect((await rest(server, 'GET', `${BASE}/directories/${directoryId}/public/index?tenant=${acme.key}`)).status).toBe(200);
    expect((await rest(server, 'GET', `${BASE}/directories/abc/public/find`, { headers: anonymous() })).status).toBe(404);
  });

  it.each([
    [{ term: 'a\u0000b' }, 'value'], // the shared NUL check names no scalar argument
    [{ term: 'x'.repeat(201) }, 'term'],
    [{ pid: '0' }, 'pid'],
    [{ pid: 'two' }, 'pid'],
    [{ returngeodata: 'perhaps' }, 'returngeodata'],
    [{ advfilter: '{broken' }, 'advfilter'],
    [{ advfilter: '[1]' }, 'advfilter'],
    [{ advfilter: { CategoryItemId: 'x' } }, 'advfilter.CategoryItemId'],
    [{ advfilter: { RadiusMiles: 5, PostalCode: '90210' } }, 'advfilter.RadiusMiles'],
    [{ returngeodata: 'true', advfilter: { RadiusMiles: 1e9, Latitude: 0, Longitude: 0 } }, 'advfilter.RadiusMiles'],
    [{ returngeodata: 'true', advfilter: { RadiusMiles: 5, Latitude: 91, Longitude: 0 } }, 'advfilter.Latitude'],
    [{ returngeodata: 'true', advfilter: { RadiusMiles: 5, PostalCode: '00000' } }, 'advfilter.PostalCode'],
    [{ returngeodata: 'true', advfilter: { RadiusMiles: 5 } }, 'advfilter.PostalCode'],
  ])('answers find %j with a 400 naming %s', async (query, field) => {
    const response = await find(directoryId, query);
    expect(response.status).toBe(400);
    expect(response.body.errors[0].field).toBe(field);
  });

  it('radius search returns exactly the listings inside the radius (seeded coordinates), nearest first', async () => {
    const radiusDirectory = await createDirectory({ Name: 'Radius', SearchFilterOptions: { DisplayRadiusSearch: true } });
    // Along a meridian from (40, -100): 0.1 degree of latitude is 6.917 miles on earthdistance's sphere.
    const points: [string, number, boolean][] = [['At origin', 40, true], ['Seven miles', 40.1, true], ['Fourteen miles', 39.8, true], ['Twenty-one miles', 40.3, false], ['Far away', 45, false]];
    const connection = server.orm.em.fork().getConnection();
    for (const [name, latitude] of points) {
      const listing = await list(radiusDirectory, await createContact(acme, name));
      await connection.execute('update directory_listing set latitude = ?, longitude = ?, updated_at = now() where id = ?', [latitude, -100, listing.DirectoryContactId]);
    }
    const hiddenAddress = await list(radiusDirectory, await createContact(acme, 'Hidden address'), { Visibility: { Address: false } });
    await connection.execute('update directory_listing set latitude = 40, longitude = -100 where id = ?', [hiddenAddress.DirectoryContactId]);

    const found = await find(radiusDirectory, { advfilter: { RadiusMiles: 20, Latitude: 40, Longitude: -100 } });
    expect(found.status).toBe(200);
    expect(names(found)).toEqual(['At origin', 'Seven miles', 'Fourteen miles']);
    expect(found.body.ListItems.map((item: { DistanceMiles: number }) => item.DistanceMiles)).toEqual([0, 6.92, 13.83]);
    expect(found.body.ListItems[1]).toMatchObject({ Latitude: 40.1, Longitude: -100 });
    expect(names(await find(radiusDirectory, { advfilter: { RadiusMiles: 22, Latitude: 40, Longitude: -100 } }))).toEqual(['At origin', 'Seven miles', 'Fourteen miles', 'Twenty-one miles']);
    expect(names(await find(radiusDirectory, { advfilter: { RadiusMiles: 0, Latitude: 40, Longitude: -100 } }))).toEqual(['At origin']);
  });

  it('geocodes a listing from its contact\'s postal code and searches around a postal code', async () => {
    // Shown above: the Bakery's contact has postal code 90210 (Beverly Hills: 34.0901, -118.4065 in the shipped dataset).
    const found = await find(directoryId, { returngeodata: 'true', advfilter: { PostalCode: '90210', RadiusMiles: 1 } });
    expect(found.body.ListItems).toEqual([expect.objectContaining({ Name: 'Bakery on Main', Latitude: 34.0901, Longitude: -118.4065, DistanceMiles: 0 })]);
    expect(names(await find(directoryId, { returngeodata: 'true', advfilter: { PostalCode: '90401', RadiusMiles: 10 } }))).toEqual(['Bakery on Main']); // Santa Monica
    expect(names(await find(directoryId, { returngeodata: 'true', advfilter: { PostalCode: '94103', RadiusMiles: 10 } }))).toEqual([]); // San Francisco
  });

  it('costs the same statements for 5 results as for 50', async () => {
    const bulk = await createDirectory({ Name: 'Bulk public' });
    const typeId = await createMembershipType(acme, 'Bulk members');
    for (let index = 0; index < 50; index++) await addMembership(acme, await createContact(acme, `${index < 5 ? 'Five' : 'Fifty'} member ${index}`, { postalCode: '10001' }), typeId);
    await rest(server, 'POST', `${BASE}/adddirectorylistingsbymembershiptype/save`, { token: acme.staffToken, body: { DirectoryItems: [{ DirectoryId: bulk, MembershipTypeIds: [typeId] }] } });
    await expectStatementsIndependentOfPageSize(server, async (take) => {
      const response = await find(bulk, { term: take === 5 ? 'five' : 'member' });
      expect(response.body.ListItems).toHaveLength(take);
    }, 3);
  });

  it('runs the same operations over GraphQL, without a credential', async () => {
    const response = await rest(server, 'POST', '/graphql', {
      headers: anonymous(),
      body: {
        query: `query($d: Int!, $s: String!, $id: Int!) {
          publicDirectoryIndex(directoryId: $d) { TotalEntries Categories { CategoryItemId EntryCount } }
          publicDirectorySearch(directoryId: $s, term: "croissant") { ResultCount ListItems { Name HashedContactId } }
          publicDirectoryListing(directoryId: $d, id: $id) { Name PrimaryEmail Visibility { Email } }
        }`,
        variables: { d: directoryId, s: String(directoryId), id: shown.DirectoryContactId },
      },
    });
    expect(response.body).toEqual({
      data: {
        publicDirectoryIndex: { TotalEntries: 2, Categories: [{ CategoryItemId: bread, EntryCount: 1 }, { CategoryItemId: shops, EntryCount: 2 }] },
        publicDirectorySearch: { ResultCount: '1', ListItems: [{ Name: 'Bakery on Main', HashedContactId: shown.HashedContactId }] },
        publicDirectoryListing: { Name: 'Bakery on Main', PrimaryEmail: null, Visibility: { Email: false } },
      },
    });
  });
});

describe('directories over GraphQL (staff)', () => {
  it('runs setup, listing types and listings', async () => {
    const type = await graphql(server, 'mutation { saveDirectoryListingType(input: { Name: "GraphQL type" }) { DirectoryListingTypeId AuditId } }', {}, acme.staffToken);
    const typeId = type.body.data.saveDirectoryListingType.DirectoryListingTypeId as number;
    const chapter = await createChapter('GraphQL chapter');
    const saved = await graphql(server, 'mutation($t: Int!, $c: Int!) { saveDirectory(directoryId: 0, input: { Name: "GraphQL directory", DirectoryListingTypeId: $t, ChapterId: $c }) { DirectoryId DirectoryListingTypeName } }',
      { t: typeId, c: chapter }, acme.staffToken);
    const directoryId = saved.body.data.saveDirectory.DirectoryId as number;
    expect(saved.body.data.saveDirectory.DirectoryListingTypeName).toBe('GraphQL type');
    const membershipType = await createMembershipType(acme, 'GraphQL members');
    await addMembership(acme, await createContact(acme, 'GraphQL Member Co'), membershipType);
    const added = await graphql(server, 'mutation($d: Int!, $m: Int!) { addDirectoryListingsByMembershipType(input: { DirectoryItems: [{ DirectoryId: $d, MembershipTypeIds: [$m] }] }) { Added } }',
      { d: directoryId, m: membershipType }, acme.staffToken);
    expect(added.body.data).toEqual({ addDirectoryListingsByMembershipType: { Added: 1 } });
    const read = await graphql(server, `query($ds: String!, $t: Int!, $since: String!, $c: Int!) {
      directory(directoryId: $ds) { Name MembershipTypeIds ChapterId }
      directories(options: { Filter: "graphql directory" }) { DirectoryId }
      chapterDirectories(chapterId: $c) { DirectoryId }
      directoriesSetup(filter: { Filter: "graphql directory" }) { TotalRecordAvailable Results { DirectoryId } }
      directoryListingTypes(options: { Filter: "graphql type" }) { Id Count }
      directoryListingType(directoryListingTypeId: $t) { Name Count IsDeletable }
      directoryListingsModifiedSince(modifiedSince: $since) { DisplayName Directories { DirectoryId } }
    }`, { ds: String(directoryId), t: typeId, since: new Date(Date.now() - 60_000).toISOString(), c: chapter }, acme.staffToken);
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data).toMatchObject({
      directory: { Name: 'GraphQL directory', MembershipTypeIds: [membershipType], ChapterId: chapter },
      directories: [{ DirectoryId: directoryId }],
      chapterDirectories: [{ DirectoryId: directoryId }],
      directoriesSetup: { TotalRecordAvailable: '1', Results: [{ DirectoryId: directoryId }] },
      directoryListingTypes: [{ Id: typeId, Count: 1 }],
      directoryListingType: { Name: 'GraphQL type', Count: 1, IsDeletable: false },
    });
    expect(read.body.data.directoryListingsModifiedSince).toContainEqual({ DisplayName: 'GraphQL Member Co', Directories: [{ DirectoryId: directoryId }] });
    expect((await graphql(server, 'mutation($d: Int!) { deleteDirectory(directoryId: $d) }', { d: directoryId }, acme.staffToken)).body.data).toEqual({ deleteDirectory: directoryId });
    // The directory's deletion released the type: its listings are gone, so it can be deleted.
    expect((await graphql(server, 'mutation($t: Int!) { deleteDirectoryListingType(directoryListingTypeId: $t, auditId: 1) }', { t: typeId }, acme.staffToken)).body.data)
      .toEqual({ deleteDirectoryListingType: typeId });
  });
});

describe('the public directory rate limit (the shared one for anonymous callers)', () => {
  let limited: TestServer;
  beforeAll(async () => { limited = await startTestServer({ PUBLIC_RATE_LIMIT_PER_MINUTE: '3' }); });
  afterAll(() => limited.close());

  it('answers 429 problem+json with Retry-After past the limit per client address, and limits only the public operations', async () => {
    const tenant = await createTestTenant(limited, 'dir-limited');
    const statuses: number[] = [];
    for (let index = 0; index < 5; index++) statuses.push((await rest(limited, 'GET', `${BASE}/directories/1/public/index`, { headers: { 'x-tenant-key': tenant.key } })).status);
    expect(statuses).toEqual([404, 404, 404, 429, 429]);
    const refused = await rest(limited, 'GET', `${BASE}/directories/1/public/find`, { headers: { 'x-tenant-key': tenant.key } });
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await rest(limited, 'GET', `${BASE}/directories`, { token: tenant.staffToken })).status).toBe(200);
  });
});
