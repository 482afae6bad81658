import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Contact } from '../src/entities/index.js';
import { ContactRelationship } from '../src/entities/contact-relationship.js';
import {
  createTestTenant, expectExactlyOneSucceeds, expectStatementsIndependentOfPageSize, graphql, rest, startTestServer, useRaceServer, type TestServer, type TestTenant,
} from './support/harness.js';
import { saveWhileDeleted } from './support/races.js';

// 401/403 on every operation, tenant isolation and the fuzz: test/sweeps.test.ts. Here: the relationships' own rules.
let server: TestServer;
let acme: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  server = await startTestServer();
  acme = await createTestTenant(server, 'rel-acme');
  other = await createTestTenant(server, 'rel-other');
});
afterAll(() => server.close());

const path = (contactId: number, relationshipId?: number) => `/api/contacts/${contactId}/relationships${relationshipId === undefined ? '' : `/${relationshipId}`}`;

/** A contact made directly in the database (contacts CRUD is another area's). */
async function contact(testServer: TestServer, tenant: TestTenant, fields: { kind: 'person' | 'organization'; name?: string; firstName?: string; lastName?: string; email?: string; title?: string }): Promise<number> {
  const em = testServer.orm.em.fork();
  const created = em.create(Contact, { tenant: tenant.id, ...fields });
  await em.flush();
  return created.id;
}

const organization = (name: string, tenant = acme, testServer = server) => contact(testServer, tenant, { kind: 'organization', name });
const person = (firstName: string, lastName: string, tenant = acme, testServer = server) => contact(testServer, tenant, { kind: 'person', firstName, lastName });

async function relate(contactId: number, body: Record<string, unknown>, relationshipId = 0, token = acme.staffToken) {
  return rest(server, 'POST', path(contactId, relationshipId), { token, body });
}

describe('relationships through REST', () => {
  it('creates from either side, changes with AuditId, demotes the previous primary and deletes', async () => {
    const org = await organization('Harbour Works');
    const rita = await person('Rita', 'Owner');
    const sam = await person('Sam', 'Clerk');

    const created = await relate(org, { RelatedContactId: rita, Role: ' Owner ', IsPrimary: true });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      RelationshipId: expect.any(Number), PersonContactId: rita, PersonName: 'Rita Owner', OrganizationContactId: org, OrganizationName: 'Harbour Works',
      Role: 'Owner', IsPrimary: true, IsCurrentOrganization: true, AuditId: 1,
    });
    // From the person's side, the same relationship.
    const fromPerson = await relate(sam, { RelatedContactId: org, Role: 'Clerk', IsCurrentOrganization: false });
    expect(fromPerson.body).toMatchObject({ PersonContactId: sam, OrganizationContactId: org, IsPrimary: false, IsCurrentOrganization: false });
    expect((await rest(server, 'GET', path(rita), { token: acme.staffToken })).body).toEqual([created.body]);
    const ofOrganization = await rest(server, 'GET', `${path(org)}?options=${encodeURIComponent(JSON.stringify({ OrderBy: 'Role' }))}`, { token: acme.staffToken });
    expect(ofOrganization.body.map((row: { PersonName: string }) => row.PersonName)).toEqual(['Sam Clerk', 'Rita Owner']);

    // A stale AuditId is refused; the current one moves on.
    const { RelationshipId: samRelationship } = fromPerson.body;
    expect((await relate(sam, { RelatedContactId: org, Role: 'Stale', AuditId: 7 }, samRelationship)).status).toBe(409);
    const primary = await relate(sam, { RelatedContactId: org, IsPrimary: true, AuditId: 1 }, samRelationship);
    expect(primary.body).toMatchObject({ Role: 'Clerk', IsPrimary: true, AuditId: 2 });
    // Rita was demoted in the same transaction, her version moved on.
    expect((await rest(server, 'GET', path(rita), { token: acme.staffToken })).body[0]).toMatchObject({ IsPrimary: false, AuditId: 2 });

    // Delete: stale AuditId 409, then gone.
    expect((await rest(server, 'DELETE', `${path(org, samRelationship)}?auditid=1`, { token: acme.staffToken })).status).toBe(409);
    const deleted = await rest(server, 'DELETE', `${path(org, samRelationship)}?auditid=2`, { token: acme.staffToken });
    expect(deleted).toMatchObject({ status: 200, body: samRelationship });
    expect((await rest(server, 'DELETE', path(org, samRelationship), { token: acme.staffToken })).status).toBe(404);
    expect((await rest(server, 'GET', path(org), { token: acme.staffToken })).body.map((row: { PersonContactId: number }) => row.PersonContactId)).toEqual([rita]);
  });

  it('refuses what is not a person-organization pair, a second relationship of a pair, and unknown contacts', async () => {
    const org = await organization('Pair Co');
    const ana = await person('Ana', 'Pair');
    const bob = await person('Bob', 'Pair');
    const theirs = await person('Theo', 'Other', other);
    const field = async (response: Promise<{ status: number; body: { errors?: { field: string }[] } }>, status: number) => {
      const answered = await response;
      expect(answered.status).toBe(status);
      return answered.body.errors?.map((error) => error.field);
    };
    expect(await field(relate(ana, { RelatedContactId: bob }), 400)).toEqual(['RelatedContactId']);
    expect(await field(relate(ana, { RelatedContactId: ana }), 400)).toEqual(['RelatedContactId']);
    expect(await field(relate(ana, { RelatedContactId: 987654 }), 400)).toEqual(['RelatedContactId']);
    expect(await field(relate(ana, { RelatedContactId: theirs }), 400)).toEqual(['RelatedContactId']);
    expect(await field(relate(ana, { Role: 'x'.repeat(101), RelatedContactId: org }), 400)).toEqual(['Role']);
    expect(await field(relate(ana, {}), 400)).toEqual(['RelatedContactId']);
    expect((await relate(theirs, { RelatedContactId: org })).status).toBe(404);
    expect((await relate(987654, { RelatedContactId: org })).status).toBe(404);
    expect((await rest(server, 'GET', path(theirs), { token: acme.staffToken })).status).toBe(404);

    const first = await relate(ana, { RelatedContactId: org });
    expect(first.status).toBe(200);
    expect(await field(relate(org, { RelatedContactId: ana }), 409)).toEqual(['RelatedContactId']);
    // A relationship keeps its two contacts; another contact's relationship is not found through this one.
    expect(await field(relate(ana, { RelatedContactId: await organization('Elsewhere') }, first.body.RelationshipId), 400)).toEqual(['RelatedContactId']);
    expect((await relate(bob, { RelatedContactId: org }, first.body.RelationshipId)).status).toBe(404);
    // Another tenant's staff finds none of it.
    expect((await rest(server, 'DELETE', path(ana, first.body.RelationshipId), { token: other.staffToken })).status).toBe(404);
    expect((await rest(server, 'GET', path(ana), { token: other.staffToken })).status).toBe(404);
  });

  it('keeps the person\'s current organization: AboutMe and BillingContactInfo follow, and a deleted relationship falls back', async () => {
    const me = (await rest(server, 'GET', '/api/login/aboutme', { token: acme.memberToken })).body;
    expect(me).toMatchObject({ CurrentOrganizationId: null, CurrentOrganizationName: null });
    const first = await organization('First Employer');
    const second = await organization('Second Employer');
    const firstRelationship = (await relate(me.ContactId, { RelatedContactId: first, Role: 'Treasurer' })).body;
    expect(firstRelationship.IsCurrentOrganization).toBe(true); // a person without one gets the first
    const secondRelationship = (await relate(second, { RelatedContactId: me.ContactId, Role: 'Advisor' })).body;
    expect(secondRelationship.IsCurrentOrganization).toBe(false);
    expect((await rest(server, 'GET', '/api/login/aboutme', { token: acme.memberToken })).body).toMatchObject({ CurrentOrganizationId: first, CurrentOrganizationName: 'First Employer' });

    await relate(second, { RelatedContactId: me.ContactId, IsCurrentOrganization: true }, secondRelationship.RelationshipId);
    expect((await rest(server, 'GET', '/api/login/aboutme', { token: acme.memberToken })).body).toMatchObject({ CurrentOrganizationId: second, CurrentOrganizationName: 'Second Employer' });
    const billing = await rest(server, 'POST', '/api/public/events/determinebillingcontact', { token: acme.staffToken, body: { EmailAddress: `member@${acme.key}.example` } });
    expect(billing.body).toMatchObject({ ContactId: String(me.ContactId), OrganizationContactId: String(second), OrganizationName: 'Second Employer', ContactRoles: ['Advisor', 'Treasurer'] });

    // The current organization's relationship goes: the remaining one becomes current.
    expect((await rest(server, 'DELETE', path(me.ContactId, secondRelationship.RelationshipId), { token: acme.staffToken })).status).toBe(200);
    expect((await rest(server, 'GET', '/api/login/aboutme', { token: acme.memberToken })).body).toMatchObject({ CurrentOrganizationId: first, CurrentOrganizationName: 'First Employer' });
    await relate(me.ContactId, { RelatedContactId: first, IsCurrentOrganization: false }, firstRelationship.RelationshipId);
    expect((await rest(server, 'GET', '/api/login/aboutme', { token: acme.memberToken })).body).toMatchObject({ CurrentOrganizationId: null, CurrentOrganizationName: null });
  });

  it('counts an organization\'s people through its relationships in the organization statistics', async () => {
    const org = await organization('Counted Co');
    for (const name of ['One', 'Two', 'Three']) await relate(org, { RelatedContactId: await person(name, 'Counted'), IsCurrentOrganization: false });
    const stats = await rest(server, 'GET', `/api/summary/overallorgstats/${org}`, { token: acme.staffToken });
    expect(stats.body).toContainEqual(expect.objectContaining({ Name: 'Affiliated people', Value: '3' }));
  });

  it('lists an organization\'s people in statements independent of the page size', async () => {
    const org = await organization('Big Co');
    const em = server.orm.em.fork();
    for (let index = 0; index < 55; index++) {
      const member = em.create(Contact, { tenant: acme.id, kind: 'person', firstName: `P${index}`, lastName: 'Big' });
      em.create(ContactRelationship, { tenant: acme.id, person: member, organization: org, role: 'Staff' });
    }
    await em.flush();
    await expectStatementsIndependentOfPageSize(server, async (take) => {
      const page = await rest(server, 'GET', `${path(org)}?options=${encodeURIComponent(JSON.stringify({ Take: take }))}`, { token: acme.staffToken });
      expect(page.body).toHaveLength(take);
    }, 4);
  });
});

describe('relationships through GraphQL', () => {
  it('lists, saves and deletes with the same rules', async () => {
    const org = await organization('Graph Co');
    const gina = await person('Gina', 'Graph');
    const saved = await graphql(server, `mutation($c: Int!, $input: ContactRelationshipInput!) {
      saveContactRelationship(contactId: $c, relationshipId: 0, input: $input) { RelationshipId PersonName OrganizationName Role IsPrimary IsCurrentOrganization AuditId } }`,
    { c: gina, input: { RelatedContactId: org, Role: 'Founder', IsPrimary: true } }, acme.staffToken);
    expect(saved.body.data.saveContactRelationship).toEqual({
      RelationshipId: expect.any(Number), PersonName: 'Gina Graph', OrganizationName: 'Graph Co', Role: 'Founder', IsPrimary: true, IsCurrentOrganization: true, AuditId: 1,
    });
    const id = saved.body.data.saveContactRelationship.RelationshipId;
    const listed = await graphql(server, 'query($c: Int!) { contactRelationships(contactId: $c) { RelationshipId PersonContactId } }', { c: org }, acme.staffToken);
    expect(listed.body.data.contactRelationships).toEqual([{ RelationshipId: id, PersonContactId: gina }]);
    const stale = await graphql(server, 'mutation($c: Int!, $r: Int!) { deleteContactRelationship(contactId: $c, relationshipId: $r, auditId: 5) }', { c: org, r: id }, acme.staffToken);
    expect(stale.body.errors?.[0].extensions.code).toBe('CONFLICT');
    const member = await graphql(server, 'query($c: Int!) { contactRelationships(contactId: $c) { RelationshipId } }', { c: org }, acme.memberToken);
    expect(member.status).toBe(403);
    const deleted = await graphql(server, 'mutation($c: Int!, $r: Int!) { deleteContactRelationship(contactId: $c, relationshipId: $r, auditId: 1) }', { c: org, r: id }, acme.staffToken);
    expect(deleted.body.data).toEqual({ deleteContactRelationship: id });
  });
});

describe('relationships in a public directory listing', () => {
  it('fills RelatedContacts, RelatedOrgs, PrimaryContactId and PrimaryOrg as the listing type allows', async () => {
    const org = await organization('Listed Works');
    const lena = await contact(server, acme, { kind: 'person', firstName: 'Lena', lastName: 'Listed', title: 'CEO', email: 'lena@listed.example' });
    const omar = await person('Omar', 'Unlisted');
    await relate(org, { RelatedContactId: lena, Role: 'Owner', IsPrimary: true });
    await relate(org, { RelatedContactId: omar, Role: 'Sales' });
    const showing = (await rest(server, 'POST', '/api/directory/directorylistingtypes', { token: acme.staffToken, body: { Name: 'Related', ShowRelatedContacts: true, ShowPrimaryContact: true } })).body;
    const hiding = (await rest(server, 'POST', '/api/directory/directorylistingtypes', { token: acme.staffToken, body: { Name: 'Plain' } })).body;
    const directory = (await rest(server, 'POST', '/api/directory/directories/0', { token: acme.staffToken, body: { Name: 'Members', IsPublic: true } })).body.DirectoryId;
    const list = async (contactId: number, typeId: number) => {
      const response = await graphql(server, `mutation($d: Int!, $c: Int!, $t: Int!) {
        saveDirectoryListing(directoryId: $d, contactId: $c, input: { DirectoryListingTypeId: $t }) { DirectoryContactId HashedContactId } }`, { d: directory, c: contactId, t: typeId }, acme.staffToken);
      return response.body.data.saveDirectoryListing as { DirectoryContactId: number; HashedContactId: string };
    };
    const orgListing = await list(org, showing.DirectoryListingTypeId);
    const lenaListing = await list(lena, showing.DirectoryListingTypeId);
    const details = (id: number) => rest(server, 'GET', `/api/directory/directories/${directory}/public/details/${id}`, { headers: { 'x-tenant-key': acme.key } });

    const orgDetail = (await details(orgListing.DirectoryContactId)).body;
    const lenaEntry = { Name: 'Lena Listed', ContactTypeId: 'person', Role: 'Owner', IsPrimary: true, Title: 'CEO', DirectoryContactId: lenaListing.DirectoryContactId, HashedContactId: lenaListing.HashedContactId };
    const omarEntry = { Name: 'Omar Unlisted', ContactTypeId: 'person', Role: 'Sales', IsPrimary: false, Title: null, DirectoryContactId: null, HashedContactId: null };
    expect(orgDetail).toMatchObject({
      ShowRelatedContacts: true, ShowPrimaryContact: true, RelatedContacts: [lenaEntry, omarEntry], RelatedOrgs: [], RelatedOrgsAndContactsSorted: [lenaEntry, omarEntry],
      PrimaryContactId: String(lenaListing.DirectoryContactId), PrimaryOrg: null,
    });
    expect(JSON.stringify(orgDetail)).not.toContain('lena@listed.example');
    const lenaDetail = (await details(lenaListing.DirectoryContactId)).body;
    const orgEntry = { Name: 'Listed Works', ContactTypeId: 'organization', Role: 'Owner', IsPrimary: true, Title: null, DirectoryContactId: orgListing.DirectoryContactId, HashedContactId: orgListing.HashedContactId };
    expect(lenaDetail).toMatchObject({ RelatedContacts: [], RelatedOrgs: [orgEntry], RelatedOrgsAndContactsSorted: [orgEntry], PrimaryOrg: 'Listed Works', PrimaryContactId: null });

    // The same through GraphQL.
    const named = await rest(server, 'POST', '/graphql', {
      headers: { 'x-tenant-key': acme.key },
      body: { query: 'query($d: Int!, $id: Int!) { publicDirectoryListing(directoryId: $d, id: $id) { PrimaryContactId RelatedContacts { Name Role IsPrimary } } }', variables: { d: directory, id: orgListing.DirectoryContactId } },
    });
    expect(named.body.data.publicDirectoryListing).toEqual({
      PrimaryContactId: String(lenaListing.DirectoryContactId), RelatedContacts: [{ Name: 'Lena Listed', Role: 'Owner', IsPrimary: true }, { Name: 'Omar Unlisted', Role: 'Sales', IsPrimary: false }],
    });

    // A listing type that shows neither: nothing of it.
    await list(org, hiding.DirectoryListingTypeId);
    expect((await details(orgListing.DirectoryContactId)).body).toMatchObject({
      ShowRelatedContacts: false, ShowPrimaryContact: false, RelatedContacts: [], RelatedOrgs: [], RelatedOrgsAndContactsSorted: [], PrimaryContactId: null, PrimaryOrg: null,
    });
  });
});

describe('one primary contact per organization under a race', () => {
  const race = useRaceServer('rel-race');

  it('lets exactly one of 10 concurrent deletes through, and never acknowledges a save a delete overtook', async () => {
    const org = await organization('Deleted Co', race.tenant, race.server);
    const relationshipOf = async (firstName: string) => (await rest(race.server, 'POST', path(org, 0), {
      token: race.tenant.staffToken, body: { RelatedContactId: await person(firstName, 'Gone', race.tenant, race.server) },
    })).body as { RelationshipId: number; PersonContactId: number };
    const deleted = await relationshipOf('Del');
    await expectExactlyOneSucceeds(Array.from({ length: 10 }, () => () => rest(race.server, 'DELETE', path(org, deleted.RelationshipId), { token: race.tenant.staffToken })), [404]);
    const overtaken = await relationshipOf('Save');
    const save = await saveWhileDeleted(race.server, 'contact_relationship', overtaken.RelationshipId, () => rest(race.server, 'POST', path(org, overtaken.RelationshipId), {
      token: race.tenant.staffToken, body: { RelatedContactId: overtaken.PersonContactId, Role: 'Too late' },
    }));
    expect([404, 409]).toContain(save.status);
    expect((await rest(race.server, 'GET', path(org), { token: race.tenant.staffToken })).body).toEqual([]);
  });

  it('leaves exactly one primary when two saves mark different people primary at once', async () => {
    for (let round = 0; round < 5; round++) {
      const org = await organization(`Race ${round}`, race.tenant, race.server);
      const people = [await person('A', `Racer ${round}`, race.tenant, race.server), await person('B', `Racer ${round}`, race.tenant, race.server)];
      const relationships: { RelationshipId: number }[] = [];
      for (const id of people) {
        const created = await rest(race.server, 'POST', path(org, 0), { token: race.tenant.staffToken, body: { RelatedContactId: id } });
        relationships.push(created.body);
      }
      const saves = await Promise.all(relationships.map((relationship, index) => rest(race.server, 'POST', path(org, relationship.RelationshipId), {
        token: race.tenant.staffToken, body: { RelatedContactId: people[index], IsPrimary: true },
      })));
      expect(saves.map((save) => save.status)).toEqual([200, 200]);
      const after = (await rest(race.server, 'GET', path(org), { token: race.tenant.staffToken })).body as { IsPrimary: boolean }[];
      expect(after.filter((relationship) => relationship.IsPrimary)).toHaveLength(1);
    }
  });
});

describe('migration 0035 on existing data', () => {
  it('turns current organizations into relationships and keeps one link per chapter and directory, the one the chapter named', async () => {
    const old = await startTestServer();
    try {
      const tenant = await createTestTenant(old, 'rel-migration');
      const chapter = async (name: string) => (await rest(old, 'POST', '/api/chapters/0/false', { token: tenant.staffToken, body: { ChapterName: name } })).body.ChapterId as number;
      const directory = async (name: string) => (await rest(old, 'POST', '/api/directory/directories/0', { token: tenant.staffToken, body: { Name: name } })).body.DirectoryId as number;
      const [named, moved] = [await chapter('Named'), await chapter('Moved')];
      // Dropped gets the lower id: the chapter's own link, not the lowest id, decides which directory stays.
      const [dropped, kept, adopted] = [await directory('Dropped'), await directory('Kept'), await directory('Adopted')];
      const employer = await organization('Old Employer', tenant, old);
      const em = old.orm.em.fork();
      const employee = em.create(Contact, { tenant: tenant.id, kind: 'person', firstName: 'Old', lastName: 'Employee', organization: employer });
      await em.flush();

      // Back to before 0035, where both sides kept a link: "Named" names Kept while Dropped names "Named" too; "Moved" names Adopted.
      await old.orm.migrator.down({ to: '0033-membership-standing' });
      const sql = (text: string, params: unknown[]) => old.orm.em.getConnection().execute(text, params);
      await sql('update chapter set directory_id = ? where contact_id = ?', [kept, named]);
      await sql('update directory set chapter_id = ? where id = ?', [named, dropped]);
      await sql('update chapter set directory_id = ? where contact_id = ?', [adopted, moved]);
      await old.orm.migrator.up();

      const chapterDirectories = async (chapterId: number) => (await rest(old, 'GET', `/api/directory/directories/chapters/${chapterId}`, { token: tenant.staffToken })).body
        .map((item: { DirectoryId: number }) => item.DirectoryId);
      expect(await chapterDirectories(named)).toEqual([kept]);
      expect(await chapterDirectories(moved)).toEqual([adopted]);
      expect((await rest(old, 'GET', `/api/chapters/${named}`, { token: tenant.staffToken })).body.DirectoryId).toBe(String(kept));
      expect((await rest(old, 'GET', `/api/directory/directories/${dropped}`, { token: tenant.staffToken })).body.ChapterId).toBeNull();
      expect((await rest(old, 'GET', path(employee.id), { token: tenant.staffToken })).body).toEqual([
        expect.objectContaining({ OrganizationContactId: employer, Role: null, IsPrimary: false, IsCurrentOrganization: true }),
      ]);
    } finally {
      await old.close();
    }
  });
});
