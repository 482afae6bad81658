import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chaptersArea } from '../src/areas/chapters.js';
import { processZipCodeRun } from '../src/services/chapters/chapter-zip-codes.js';
import { Contact, Login } from '../src/entities/index.js';
import type { PostalAddress } from '../src/entities/contact.js';
import { createTestTenant, expectExactlyOneSucceeds, expectStatementsIndependentOfPageSize, graphql, rest, startTestServer, type TestServer, type TestTenant } from './support/harness.js';

// 401/403 on every operation, tenant isolation and the fuzz: test/sweeps.test.ts. Here: the area's own rules.
const BASE = '/api/chapters';
let server: TestServer;
let acme: TestTenant;

beforeAll(async () => {
  // A production-sized pool for the races, and the area's job running as in `npm start`.
  server = await startTestServer({ DATABASE_POOL_MAX: '20' }, { jobs: chaptersArea.jobs });
  acme = await createTestTenant(server, 'chapters');
}, 60_000);
afterAll(() => server.close());

const save = (id: number, body: Record<string, unknown>, forceSave = false, tenant = acme) =>
  rest(server, 'POST', `${BASE}/${id}/${forceSave}`, { token: tenant.staffToken, body });
async function create(name: string, extra: Record<string, unknown> = {}, tenant = acme): Promise<number> {
  const response = await save(0, { ChapterName: name, ...extra }, false, tenant);
  expect(response.status).toBe(200);
  return response.body.ChapterId as number;
}
async function person(tenantId: number, name: string, addresses: PostalAddress[] | null = null, organization: number | null = null): Promise<number> {
  const em = server.orm.em.fork();
  const contact = em.create(Contact, { tenant: tenantId, kind: 'person', firstName: name, addresses, organization });
  await em.flush();
  return contact.id;
}
async function loginContact(email: string): Promise<number> {
  const login = await server.orm.em.fork().findOneOrFail(Login, { email }, { filters: false });
  return login.contact!.id;
}
const get = (path: string, token = acme.staffToken) => rest(server, 'GET', `${BASE}/${path}`, { token });
/** A public directory (the directories area's documented save). */
async function createDirectory(name: string): Promise<number> {
  const response = await rest(server, 'POST', '/api/directory/directories/0', { token: acme.staffToken, body: { Name: name, IsPublic: true } });
  expect(response.status).toBe(200);
  return response.body.DirectoryId as number;
}
const names = (body: { Name: string }[]) => body.map((choice) => choice.Name);
async function primaries(contactId: number): Promise<number[]> {
  const rows = await server.orm.em.getConnection().execute<{ chapter_id: number }[]>('SELECT chapter_id FROM contact_chapter WHERE contact_id = ? AND is_primary', [contactId]);
  return rows.map((row) => row.chapter_id);
}

describe('chapters over REST', () => {
  it('creates, reads, lists, updates and deletes a chapter at the documented paths', async () => {
    const owner = await person(acme.id, 'Olga Owner');
    const directory = await createDirectory('Northern directory');
    const created = await save(0, {
      ChapterName: 'Northern Chapter', ChapterNumber: 'N-1', ChapterDescription: 'The north', OrganizationContactId: String(owner), PaymentGatewayId: 'gw-north',
      PaymentGatewayType: 'Stripe', GroupTypeId: '4', PrimaryGroupId: '9', DirectoryId: String(directory), Owners: [owner], PostalCodesJson: [' 0150 ', 'sw1a 1aa'],
      AffiliateTenantModel: { Name: 'North affiliate' }, ShouldAllowChapterTenantEditing: true,
    });
    expect(created.status).toBe(200);
    const id = created.body.ChapterId as number;
    const top = created.body.ParentOrganizationId as number;
    expect(created.body).toEqual({ ChapterId: id, AuditId: 1, OrganizationName: 'Northern Chapter', ParentOrganizationId: top, ParentOrganizationName: 'Tenant chapters', City: null, State: null });
    const read = await get(String(id));
    expect(read.body).toEqual({
      ChapterId: id, OrganizationId: id, ChapterName: 'Northern Chapter', ChapterNumber: 'N-1', ChapterDescription: 'The north', OrganizationContactId: String(owner),
      ParentOrganizationId: top, PrimaryCalenderId: null, CalendarDescription: null, GroupTypeId: '4', PrimaryGroupId: '9', DirectoryId: String(directory),
      PaymentGatewayId: 'gw-north', PaymentGatewayType: 'Stripe', PreviousDirectoryId: null, RemoveContactsFromPreviousDirectory: false, Owners: [owner],
      PostalCodesJson: ['0150', 'SW1A1AA'], IsDefaultPostalCodeEmpty: false, AffiliateTenantModel: { Name: 'North affiliate' }, ShouldAllowChapterTenantEditing: true,
      ForceSave: false, AuditId: 1,
    });
    const listed = await get(`items?options=${encodeURIComponent(JSON.stringify({ Filter: 'northern' }))}`, acme.memberToken);
    expect(listed.body).toEqual([created.body]);

    const updated = await save(id, { ChapterName: 'Northern Chapter', ChapterNumber: 'N-1', AuditId: 1, PaymentGatewayId: 'gw-2' });
    expect(updated.body).toMatchObject({ ChapterId: id, AuditId: 2 });
    expect((await get(String(id))).body).toMatchObject({ PaymentGatewayId: 'gw-2', Owners: [owner], PostalCodesJson: ['0150', 'SW1A1AA'] }); // absent lists are kept
    expect((await save(id, { ChapterName: 'Northern Chapter', AuditId: 1 })).status).toBe(409);
    expect((await save(987654, { ChapterName: 'Nowhere' })).status).toBe(404);
    expect((await save(top, { ChapterName: 'The top' })).status).toBe(404); // the top level is no chapter
    expect((await rest(server, 'DELETE', `${BASE}/${id}`, { token: acme.staffToken })).status).toBe(200);
    expect((await get(String(id))).status).toBe(404);
    expect((await rest(server, 'DELETE', `${BASE}/${id}`, { token: acme.staffToken })).status).toBe(404);
  });

  it('refuses a likely duplicate (same name or number) with 409 unless forcesave', async () => {
    const first = await create('Lakeside', { ChapterNumber: 'L 7' });
    const sameName = await save(0, { ChapterName: ' lakeside ' });
    expect(sameName.status).toBe(409);
    expect(sameName.body.errors[0]).toMatchObject({ field: 'ChapterName', message: expect.stringContaining(`ChapterId ${first}`) });
    const sameNumber = await save(0, { ChapterName: 'Other lake', ChapterNumber: 'l7' });
    expect(sameNumber.status).toBe(409);
    expect(sameNumber.body.errors[0].field).toBe('ChapterNumber');
    expect((await save(0, { ChapterName: 'Lakeside' }, true)).status).toBe(200);
    expect((await save(0, { ChapterName: 'Lakeside', ForceSave: true })).status).toBe(200);
    expect((await save(first, { ChapterName: 'Lakeside', ChapterNumber: 'L 7' })).status).toBe(409); // the forced copies are its duplicates now
  });

  it('keeps the hierarchy free of cycles (400), and offers only possible parents', async () => {
    const a = await create('Cycle A');
    const b = await create('Cycle B', { ParentOrganizationId: a });
    const c = await create('Cycle C', { ParentOrganizationId: b });
    for (const parent of [a, c]) {
      const response = await save(a, { ChapterName: 'Cycle A', ParentOrganizationId: parent });
      expect(response.status).toBe(400);
      expect(response.body.errors[0].field).toBe('ParentOrganizationId');
    }
    const parents = names((await get(`parentchapter/lookup?chapterId=${a}`)).body);
    expect(parents[0]).toBe('Tenant chapters');
    expect(parents).not.toEqual(expect.arrayContaining(['Cycle A']));
    expect(parents).not.toContain('Cycle B');
    expect(parents).not.toContain('Cycle C');
    expect(names((await get('parentchapter/lookup')).body)).toEqual(expect.arrayContaining(['Tenant chapters', 'Cycle A', 'Cycle B', 'Cycle C']));
    const unknown = await save(0, { ChapterName: 'Orphan', ParentOrganizationId: 987654 });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].field).toBe('ParentOrganizationId');
    // A chapter with children cannot be deleted.
    expect((await rest(server, 'DELETE', `${BASE}/${b}`, { token: acme.staffToken })).status).toBe(409);
    // Moving C up is fine.
    expect((await save(c, { ChapterName: 'Cycle C', ParentOrganizationId: a })).status).toBe(200);
  });

  it('serves the lookups: chapters, child chapters of the caller\'s organization, top-level choice, contacts and gateways', async () => {
    const tenant = await createTestTenant(server, 'chapter-lookups');
    const east = await create('East', { PaymentGatewayId: 'gw-east' }, tenant);
    const harbor = await create('Harbor', { ParentOrganizationId: east }, tenant);
    const west = await create('West', {}, tenant);
    const token = tenant.staffToken;
    expect(names((await get('chapters/lookup', token)).body)).toEqual(['East', 'Harbor', 'West']);
    // The staff login has no organization: the children are every chapter below the top level.
    expect(names((await get('childchapters/lookup', token)).body)).toEqual(['East', 'Harbor', 'West']);
    const ids = (await get('childchapterids/lookup', token)).body;
    expect(ids[0]).toEqual({ Id: String(east), Name: 'East', ExtraData: null, CssColor: null, IsSelected: false, IsDeleted: false, Order: 0 });
    const withTop = (await get('membershiptypeoptionchildchapterids/lookup/true', token)).body;
    expect(withTop.map((choice: { Id: string | null }) => choice.Id)).toEqual([null, String(east), String(harbor), String(west)]);
    expect((await get('membershiptypeoptionchildchapterids/lookup/false', token)).body).toHaveLength(3);
    // A member whose organization is East sees East's descendants only.
    const memberContact = await loginContact('member@chapter-lookups.example');
    await server.orm.em.fork().nativeUpdate(Contact, { id: memberContact }, { organization: east }, { filters: false });
    expect(names((await get('childchapters/lookup', tenant.memberToken)).body)).toEqual(['Harbor']);
    expect(names((await get('membershiptypeoptionchildchapterids/lookup/true', tenant.memberToken)).body)).toEqual(['Top level', 'Harbor']);

    expect((await get('chapters/contacts/lookup/true', token)).body).toEqual([
      { Id: expect.any(Number), Name: 'Tenant chapter-lookups', PaymentGatewayId: null },
      { Id: east, Name: 'East', PaymentGatewayId: 'gw-east' }, { Id: harbor, Name: 'Harbor', PaymentGatewayId: null }, { Id: west, Name: 'West', PaymentGatewayId: null },
    ]);
    expect(names((await get('chapters/contacts/lookup/FALSE', token)).body)).toEqual(['East', 'Harbor', 'West']);
    const bad = await get('chapters/contacts/lookup/maybe', token);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('includeparent');
    // Harbor has no gateway of its own: membership payments go through East's.
    expect((await get('chaptersformembership/lookup', token)).body).toEqual(expect.arrayContaining([{ Id: harbor, Name: 'Harbor', PaymentGatewayId: 'gw-east' }]));
    await rest(server, 'POST', `${BASE}/contactchapter`, { token, body: { ContactId: memberContact, ChapterId: west } });
    await rest(server, 'POST', `${BASE}/contactchapter`, { token, body: { ContactId: memberContact, ChapterId: harbor, MarkAsPrimary: true } });
    expect((await get('chaptersformembership/contacts/lookup', tenant.memberToken)).body).toEqual([
      { Id: harbor, Name: 'Harbor', PaymentGatewayId: 'gw-east' }, { Id: west, Name: 'West', PaymentGatewayId: null },
    ]);
  });

  it.each([
    [{ ChapterName: '' }, 'ChapterName'],
    [{ ChapterName: 'Bad directory', DirectoryId: 'twelve' }, 'DirectoryId'],
    [{ ChapterName: 'Bad owners', Owners: [987654] }, 'Owners.0'],
    [{ ChapterName: 'Bad owners', Owners: 'Olga' }, 'Owners'],
    [{ ChapterName: 'Bad contact', OrganizationContactId: '987654' }, 'OrganizationContactId'],
    [{ ChapterName: 'Bad calendar', PrimaryCalenderId: '987654' }, 'PrimaryCalenderId'],
    [{ ChapterName: 'Bad codes', PostalCodesJson: ['x'.repeat(21)] }, 'PostalCodesJson'],
    [{ ChapterName: 'Bad affiliate', AffiliateTenantModel: 'text' }, 'AffiliateTenantModel'],
  ])('answers %j with a 400 naming %s', async (body, field) => {
    const response = await save(0, body);
    expect(response.status).toBe(400);
    expect(response.body.errors.map((error: { field: string }) => error.field).join(' ')).toContain(field);
  });
});

describe('contact-chapter links', () => {
  it('links, reads, lists, marks primary and unlinks, keeping one primary', async () => {
    const x = await create('Link X');
    const y = await create('Link Y');
    const contact = await person(acme.id, 'Linda Link');
    const link = (chapterId: number, extra: Record<string, unknown> = {}) => rest(server, 'POST', `${BASE}/contactchapter`, { token: acme.staffToken, body: { ContactId: contact, ChapterId: chapterId, ...extra } });
    expect((await get(`contactchapter/${contact}`)).body).toEqual({ ContactId: contact, ChapterId: null, MarkAsPrimary: false, ContactHasPrimary: false });
    const linked = await link(x);
    expect(linked.status).toBe(200);
    expect(linked.text).toBe('');
    expect((await link(y)).status).toBe(200);
    expect((await link(y)).status).toBe(200); // again: nothing changes
    expect((await get(`contactchapter/${contact}`)).body).toEqual({ ContactId: contact, ChapterId: x, MarkAsPrimary: true, ContactHasPrimary: true });
    expect((await rest(server, 'POST', `${BASE}/contactchapter/markasprimary/${contact}/${y}`, { token: acme.staffToken })).status).toBe(200);
    expect(await primaries(contact)).toEqual([y]);
    expect((await get(`contactchapter/lookup/${contact}`)).body).toEqual([{ Id: y, Name: 'Link Y', PaymentGatewayId: null }, { Id: x, Name: 'Link X', PaymentGatewayId: null }]);
    // Unlinking the primary passes it on.
    expect((await rest(server, 'DELETE', `${BASE}/contactchapter/delete/${contact}/${y}`, { token: acme.staffToken })).status).toBe(200);
    expect(await primaries(contact)).toEqual([x]);
    expect((await rest(server, 'DELETE', `${BASE}/contactchapter/delete/${contact}/${y}`, { token: acme.staffToken })).status).toBe(404);
    expect((await rest(server, 'POST', `${BASE}/contactchapter/markasprimary/${contact}/${y}`, { token: acme.staffToken })).status).toBe(404);
    expect((await link(987654)).status).toBe(404);
    expect((await rest(server, 'POST', `${BASE}/contactchapter`, { token: acme.staffToken, body: { ContactId: 987654, ChapterId: x } })).status).toBe(404);
    // Deleting a chapter removes its links, and its members' primary passes on.
    await link(y);
    await rest(server, 'POST', `${BASE}/contactchapter/markasprimary/${contact}/${y}`, { token: acme.staffToken });
    expect((await rest(server, 'DELETE', `${BASE}/${y}`, { token: acme.staffToken })).status).toBe(200);
    expect(await primaries(contact)).toEqual([x]);
  });

  it('lets a member read its own chapters and no one else\'s', async () => {
    const chapter = await create('Member chapter');
    const own = await loginContact('member@chapters.example');
    const other = await person(acme.id, 'Someone Else');
    for (const contactId of [own, other]) await rest(server, 'POST', `${BASE}/contactchapter`, { token: acme.staffToken, body: { ContactId: contactId, ChapterId: chapter } });
    expect((await get(`contactchapter/${own}`, acme.memberToken)).body).toMatchObject({ ChapterId: chapter });
    expect((await get(`contactchapter/lookup/${own}`, acme.memberToken)).body).toEqual([{ Id: chapter, Name: 'Member chapter', PaymentGatewayId: null }]);
    expect((await get(`contactchapter/${other}`, acme.memberToken)).status).toBe(404);
    expect((await get(`contactchapter/lookup/${other}`, acme.memberToken)).status).toBe(404);
  });

  it('keeps exactly one primary chapter when mark-as-primary calls for different chapters race', async () => {
    const chapterIds = [];
    for (let index = 0; index < 5; index++) chapterIds.push(await create(`Race chapter ${index}`));
    for (let round = 0; round < 5; round++) {
      const contact = await person(acme.id, `Racer ${round}`);
      for (const chapterId of chapterIds) await rest(server, 'POST', `${BASE}/contactchapter`, { token: acme.staffToken, body: { ContactId: contact, ChapterId: chapterId } });
      const responses = await Promise.all([...chapterIds, ...chapterIds].map((chapterId) =>
        rest(server, 'POST', `${BASE}/contactchapter/markasprimary/${contact}/${chapterId}`, { token: acme.staffToken })));
      expect(responses.map((response) => response.status)).toEqual(Array(10).fill(200));
      expect(await primaries(contact)).toHaveLength(1);
    }
  });
});

describe('the chapter\'s directory', () => {
  const directoryOfChapter = async (chapterId: number) => (await rest(server, 'GET', `/api/directory/directories/chapters/${chapterId}`, { token: acme.staffToken })).body
    .map((item: { DirectoryId: number }) => item.DirectoryId);
  const listed = async (directoryId: number) => (await rest(server, 'GET', `/api/directory/directories/${directoryId}/public/find`, { headers: { 'x-tenant-key': acme.key } })).body
    .ListItems.map((item: { Name: string }) => item.Name);
  const listIn = async (directoryId: number, contactId: number) => {
    const response = await graphql(server, 'mutation($d: Int!, $c: Int!) { saveDirectoryListing(directoryId: $d, contactId: $c, input: {}) { DirectoryContactId } }', { d: directoryId, c: contactId }, acme.staffToken);
    expect(response.body.errors).toBeUndefined();
  };

  it('is one link, read the same from both sides; a move copies the chapter contacts\' listings and removes them from the previous directory when asked', async () => {
    const [first, second, third] = [await createDirectory('First home'), await createDirectory('Second home'), await createDirectory('Third home')];
    const chapter = await create('Mover', { DirectoryId: String(first) });
    expect(await directoryOfChapter(chapter)).toEqual([first]);
    expect((await get(String(chapter))).body.DirectoryId).toBe(String(first));
    expect((await rest(server, 'GET', `/api/directory/directories/${first}`, { token: acme.staffToken })).body.ChapterId).toBe(chapter);

    const member = await person(acme.id, 'Chapter Member');
    const outsider = await person(acme.id, 'Outside Member');
    expect((await rest(server, 'POST', `${BASE}/contactchapter`, { token: acme.staffToken, body: { ContactId: member, ChapterId: chapter } })).status).toBe(200);
    await listIn(first, member);
    await listIn(first, outsider);

    // Moved without the flag: copied to the new directory, still listed in the previous one.
    const moved = await save(chapter, { ChapterName: 'Mover', AuditId: 1, DirectoryId: String(second), PreviousDirectoryId: String(first) });
    expect(moved.status).toBe(200);
    expect(await listed(first)).toEqual(['Chapter Member', 'Outside Member']);
    expect(await listed(second)).toEqual(['Chapter Member']);
    expect(await directoryOfChapter(chapter)).toEqual([second]);
    expect((await get(String(chapter))).body.DirectoryId).toBe(String(second));
    expect((await rest(server, 'GET', `/api/directory/directories/${first}`, { token: acme.staffToken })).body.ChapterId).toBeNull();

    // A PreviousDirectoryId that is no longer the chapter's directory: 409.
    const stale = await save(chapter, { ChapterName: 'Mover', AuditId: 2, DirectoryId: String(third), PreviousDirectoryId: String(first) });
    expect(stale.status).toBe(409);
    expect(stale.body.errors[0].field).toBe('PreviousDirectoryId');
    // Moved with the flag: removed from the previous directory.
    const removing = await save(chapter, { ChapterName: 'Mover', AuditId: 2, DirectoryId: String(third), PreviousDirectoryId: String(second), RemoveContactsFromPreviousDirectory: true });
    expect(removing.status).toBe(200);
    expect(await listed(second)).toEqual([]);
    expect(await listed(third)).toEqual(['Chapter Member']);

    // Another chapter's directory (409) or none at all (400).
    const holder = await create('Holder', { DirectoryId: String(first) });
    const taken = await save(chapter, { ChapterName: 'Mover', AuditId: 3, DirectoryId: String(first) });
    expect(taken.status).toBe(409);
    expect(taken.body.errors[0]).toEqual({ field: 'DirectoryId', message: `belongs to ChapterId ${holder}` });
    expect((await save(chapter, { ChapterName: 'Mover', AuditId: 3, DirectoryId: '987654' })).body.errors[0].field).toBe('DirectoryId');

    // GraphQL reads the same link; deleting the chapter frees its directory.
    const read = await graphql(server, 'query($c: Int!) { chapter(chapterId: $c) { DirectoryId } chapterDirectories(chapterId: $c) { DirectoryId } }', { c: chapter }, acme.staffToken);
    expect(read.body.data).toEqual({ chapter: { DirectoryId: String(third) }, chapterDirectories: [{ DirectoryId: third }] });
    expect((await rest(server, 'DELETE', `${BASE}/${chapter}`, { token: acme.staffToken })).status).toBe(200);
    expect((await rest(server, 'GET', `/api/directory/directories/${third}`, { token: acme.staffToken })).body.ChapterId).toBeNull();
  });
});

describe('chapters under concurrency', () => {
  it('never lets two concurrent re-parentings make a cycle together', async () => {
    for (let round = 0; round < 5; round++) {
      const a = await create(`Swap A ${round}`);
      const b = await create(`Swap B ${round}`);
      const statuses = await expectExactlyOneSucceeds([
        () => save(a, { ChapterName: `Swap A ${round}`, ParentOrganizationId: b }),
        () => save(b, { ChapterName: `Swap B ${round}`, ParentOrganizationId: a }),
      ], [400]);
      expect(statuses).toContain(400);
    }
  });

  it('lets exactly one of 10 concurrent creations of one name through; the others are 409', async () => {
    await expectExactlyOneSucceeds(Array.from({ length: 10 }, () => () => save(0, { ChapterName: 'Raced Chapter' })), [409]);
  });

  it('never loses a save acknowledged while a delete races it', async () => {
    for (let round = 0; round < 5; round++) {
      const id = await create(`Save or delete ${round}`);
      const [saved, removed] = await Promise.all([
        save(id, { ChapterName: `Saved ${round}`, AuditId: 1 }),
        rest(server, 'DELETE', `${BASE}/${id}?auditid=1`, { token: acme.staffToken }),
      ]);
      expect([saved.status, removed.status].filter((status) => status === 200)).toHaveLength(1);
      const after = await get(String(id));
      if (saved.status === 200) expect(after.body).toMatchObject({ ChapterName: `Saved ${round}`, AuditId: 2 });
      else expect(after.status).toBe(404);
    }
  });
});

describe('assigning contacts to chapters by postal code', () => {
  it('runs as a job with progress staff can read, links the right contacts, and changes nothing the second time', async () => {
    const tenant = await createTestTenant(server, 'chapter-zips');
    const city = await create('City', { PostalCodesJson: ['10001', '10002'] }, tenant);
    const harbor = await create('Harbor', { PostalCodesJson: ['20001'] }, tenant);
    const em = server.orm.em.fork();
    const contacts: Contact[] = [];
    for (let index = 0; index < 1200; index++) {
      const code = ['10001', '10002-1234', '20001', '99999'][index % 4];
      const addresses: PostalAddress[] = index % 10 === 0 ? [{ kind: 'billing', postalCode: '99999' }, { kind: 'Primary', postalCode: code }] : [{ postalCode: code }];
      contacts.push(em.create(Contact, { tenant: tenant.id, kind: 'person', firstName: `Zip ${index}`, addresses }));
    }
    // Shapes a client never sends but old data may hold: no addresses, an object, a string.
    contacts.push(em.create(Contact, { tenant: tenant.id, kind: 'person', firstName: 'No address' }));
    await em.flush();
    await em.getConnection().execute(`UPDATE contact SET addresses = '{"postalCode":"10001"}'::jsonb WHERE id = ?`, [contacts[1].id]);
    await em.getConnection().execute(`UPDATE contact SET addresses = '["10001"]'::jsonb WHERE id = ?`, [contacts[5].id]);
    // One contact already linked (and primary) elsewhere keeps its primary.
    await rest(server, 'POST', `${BASE}/contactchapter`, { token: tenant.staffToken, body: { ContactId: contacts[0].id, ChapterId: harbor } });

    const started = await rest(server, 'GET', `${BASE}/contactchapter/assignzipcodes`, { token: tenant.staffToken });
    expect(started.status).toBe(200);
    expect(['queued', 'running', 'completed']).toContain(started.body.State);
    const first = await waitForRun(tenant, started.body.RunId);
    // 1200 people + the one without an address + the staff and member logins' contacts.
    expect(first).toMatchObject({ State: 'completed', TotalContacts: 1203, ProcessedContacts: 1203, FailedContacts: 0, FailedContactIds: [] });
    const counts = await server.orm.em.getConnection().execute<{ chapter_id: number; links: string; primaries: string }[]>(
      'SELECT chapter_id, count(*) AS links, count(*) FILTER (WHERE is_primary) AS primaries FROM contact_chapter WHERE tenant_id = ? GROUP BY chapter_id ORDER BY chapter_id', [tenant.id]);
    // City: 600 of codes 10001 and 10002-1234 but the two broken ones; Harbor: 300 of 20001, and contact 0 (whose code is City's).
    expect(counts.map((row) => [row.chapter_id, Number(row.links), Number(row.primaries)])).toEqual([[city, 598, 597], [harbor, 301, 301]]);
    expect(first.LinksCreated).toBe(598 + 300);
    expect(await primaries(contacts[0].id)).toEqual([harbor]);

    const again = await rest(server, 'GET', `${BASE}/contactchapter/assignzipcodes`, { token: tenant.staffToken });
    const second = await waitForRun(tenant, again.body.RunId);
    expect(second.RunId).not.toBe(first.RunId);
    expect(second).toMatchObject({ State: 'completed', LinksCreated: 0, PrimariesSet: 0, ProcessedContacts: 1203 });
  }, 60_000);

  it('answers the run under way instead of starting a second one', async () => {
    const tenant = await createTestTenant(server, 'chapter-zips-twice');
    const [one, two] = await Promise.all([0, 1].map(() => rest(server, 'GET', `${BASE}/contactchapter/assignzipcodes`, { token: tenant.staffToken })));
    expect(one.body.RunId).toBe(two.body.RunId);
    await waitForRun(tenant, one.body.RunId);
    const missing = await graphql(server, '{ chapterZipCodeAssignment(runId: 987654) { State } }', {}, tenant.staffToken);
    expect(missing.body.errors?.[0].extensions.code).toBe('NOT_FOUND');
  });
});

describe('the postal code job, interrupted and poisoned', () => {
  async function zipTenant(key: string, people: number) {
    const tenant = await createTestTenant(server, key);
    const chapter = await create('Zip chapter', { PostalCodesJson: ['777'] }, tenant);
    const em = server.orm.em.fork();
    const contacts = Array.from({ length: people }, (_, index) => em.create(Contact, { tenant: tenant.id, kind: 'person', firstName: `P ${index}`, addresses: [{ postalCode: '777' }] }));
    await em.flush();
    return { tenant, chapter, contacts };
  }
  async function newRun(tenantId: number, lastContactId = 0): Promise<number> {
    const [row] = await server.orm.em.getConnection().execute<{ id: number }[]>(
      `INSERT INTO chapter_zip_code_run (tenant_id, state, failed_contact_ids, last_contact_id) VALUES (?, 'running', '[]', ?) RETURNING id`, [tenantId, lastContactId]);
    return row.id;
  }
  const linked = async (tenantId: number) => Number((await server.orm.em.getConnection().execute<{ count: string }[]>(
    'SELECT count(*) FROM contact_chapter WHERE tenant_id = ?', [tenantId]))[0].count);

  it('resumes after the last finished batch when a run is picked up again (a restart)', async () => {
    const { tenant, contacts } = await zipTenant('chapter-zips-resume', 20);
    const runId = await newRun(tenant.id, contacts[9].id); // the first ten were done before the "crash"
    await processZipCodeRun(server.orm.em.fork(), tenant.id, runId);
    expect(await linked(tenant.id)).toBe(10);
    const run = await waitForRun(tenant, runId);
    expect(run).toMatchObject({ State: 'completed', LinksCreated: 10 });
    await processZipCodeRun(server.orm.em.fork(), tenant.id, runId); // a completed run is left alone
    expect(await linked(tenant.id)).toBe(10);
  });

  it('skips a contact that cannot be processed and goes on with the rest of its batch', async () => {
    const { tenant, contacts } = await zipTenant('chapter-zips-poison', 30);
    const poisoned = contacts[7].id;
    const connection = server.orm.em.getConnection();
    // A trigger stands in for whatever makes one contact fail: its link cannot be written.
    await connection.execute(`CREATE FUNCTION test_poison() RETURNS trigger AS $$ BEGIN
      IF NEW.contact_id = ${poisoned} THEN RAISE EXCEPTION 'poisoned contact'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`);
    await connection.execute('CREATE TRIGGER test_poison BEFORE INSERT ON contact_chapter FOR EACH ROW EXECUTE FUNCTION test_poison()');
    try {
      const runId = await newRun(tenant.id);
      await processZipCodeRun(server.orm.em.fork(), tenant.id, runId);
      const run = await waitForRun(tenant, runId);
      expect(run).toMatchObject({ State: 'completed', LinksCreated: 29, FailedContacts: 1, FailedContactIds: [poisoned] });
    } finally {
      await connection.execute('DROP TRIGGER test_poison ON contact_chapter');
      await connection.execute('DROP FUNCTION test_poison()');
    }
  });
});

async function waitForRun(tenant: TestTenant, runId: number) {
  for (let attempt = 0; attempt < 200; attempt++) {
    const response = await graphql(server, `query($runId: Int) { chapterZipCodeAssignment(runId: $runId) {
      RunId State TotalContacts ProcessedContacts LinksCreated PrimariesSet FailedContacts FailedContactIds Error CreatedAt FinishedAt } }`, { runId }, tenant.staffToken);
    const run = response.body.data?.chapterZipCodeAssignment;
    if (run && (run.State === 'completed' || run.State === 'failed')) return run;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`run ${runId} did not finish`);
}

describe('chapters over GraphQL', () => {
  it('runs the same operations', async () => {
    const tenant = await createTestTenant(server, 'chapter-graphql');
    const token = tenant.staffToken;
    const saved = await graphql(server, 'mutation($input: ChapterAddEditInput!) { saveChapter(chapterId: 0, forceSave: false, input: $input) { ChapterId AuditId ParentOrganizationName } }',
      { input: { ChapterName: 'GraphQL chapter', PostalCodesJson: ['555'] } }, token);
    expect(saved.body.errors).toBeUndefined();
    const id = saved.body.data.saveChapter.ChapterId as number;
    const contact = await loginContact('member@chapter-graphql.example');
    const linked = await graphql(server, 'mutation($input: ContactChapterAddEditInput!) { linkContactChapter(input: $input) }', { input: { ContactId: contact, ChapterId: id } }, token);
    expect(linked.body.data).toEqual({ linkContactChapter: true });
    const read = await graphql(server, `query($id: Int!, $contact: Int!) {
      chapter(chapterId: $id) { ChapterName PostalCodesJson AuditId }
      chapters(options: { Filter: "graphql" }) { ChapterId }
      chaptersLookup { Name }
      parentChapterLookup { Name }
      childChaptersLookup { Name }
      childChapterIdsLookup { Id }
      membershipTypeOptionChildChapterIds(includeTopLevelSelection: true) { Id Name }
      chapterContactsLookup(includeParent: "false") { Name }
      chaptersForMembershipLookup { Name }
      chaptersForMembershipContactsLookup { Name }
      contactChapter(contactId: $contact) { ChapterId ContactHasPrimary }
      contactChapterLookup(contactId: $contact) { Name }
    }`, { id, contact }, token);
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data).toMatchObject({
      chapter: { ChapterName: 'GraphQL chapter', PostalCodesJson: ['555'], AuditId: 1 },
      chapters: [{ ChapterId: id }],
      chaptersLookup: [{ Name: 'GraphQL chapter' }],
      parentChapterLookup: [{ Name: 'Tenant chapter-graphql' }, { Name: 'GraphQL chapter' }],
      childChaptersLookup: [{ Name: 'GraphQL chapter' }],
      childChapterIdsLookup: [{ Id: String(id) }],
      membershipTypeOptionChildChapterIds: [{ Id: null, Name: 'Top level' }, { Id: String(id), Name: 'GraphQL chapter' }],
      chapterContactsLookup: [{ Name: 'GraphQL chapter' }],
      chaptersForMembershipContactsLookup: [],
      contactChapter: { ChapterId: id, ContactHasPrimary: true },
      contactChapterLookup: [{ Name: 'GraphQL chapter' }],
    });
    const marked = await graphql(server, 'mutation($id: Int!, $contact: Int!) { markContactChapterPrimary(contactId: $contact, chapterId: $id) }', { id, contact }, token);
    expect(marked.body.data).toEqual({ markContactChapterPrimary: true });
    const run = await graphql(server, 'mutation { assignChapterZipCodes { RunId State } }', {}, token);
    expect(run.body.data.assignChapterZipCodes.RunId).toEqual(expect.any(Number));
    await waitForRun(tenant, run.body.data.assignChapterZipCodes.RunId);
    const unlinked = await graphql(server, 'mutation($id: Int!, $contact: Int!) { deleteContactChapter(contactId: $contact, chapterId: $id) }', { id, contact }, token);
    expect(unlinked.body.data).toEqual({ deleteContactChapter: true });
    const stale = await graphql(server, 'mutation($id: Int!) { deleteChapter(chapterId: $id, auditId: 5) }', { id }, token);
    expect(stale.body.errors?.[0].extensions.code).toBe('CONFLICT');
    const deleted = await graphql(server, 'mutation($id: Int!) { deleteChapter(chapterId: $id, auditId: 1) }', { id }, token);
    expect(deleted.body.data).toEqual({ deleteChapter: id });
  });
});

describe('chapter list cost', () => {
  it('runs the same number of SQL statements for 5 chapters as for 50, parents and addresses included', async () => {
    const tenant = await createTestTenant(server, 'chapters-bulk');
    const parent = await create('Bulk parent', {}, tenant);
    for (let index = 0; index < 55; index++) await create(`Bulk ${String(index).padStart(2, '0')}`, { ParentOrganizationId: index % 2 ? parent : 0 }, tenant);
    await expectStatementsIndependentOfPageSize(server, async (take) => {
      const response = await rest(server, 'GET', `${BASE}/items?options=${encodeURIComponent(JSON.stringify({ Take: take, Filter: 'Bulk ' }))}`, { token: tenant.staffToken });
      expect(response.body).toHaveLength(take);
    }, 4);
  });
});
