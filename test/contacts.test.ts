import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Login, Tenant } from '../src/entities/index.js';
import { Membership, MembershipType } from '../src/entities/membership.js';
import { ScheduledBilling } from '../src/entities/billing.js';
import { SaleableItem } from '../src/entities/commerce.js';
import { createApiKey, createLogin, createSession, enableLogin, findLogin } from '../src/services/login/identity.js';
import { addDays, todayUtc } from '../src/core/dates.js';
import { createTestTenant, expectStatementsIndependentOfPageSize, graphql, rest, startTestServer, useRaceServer, type HttpResult, type TestServer, type TestTenant } from './support/harness.js';

// 401/403/400 shapes, tenant isolation and the fuzz of every operation: test/sweeps.test.ts. Here: the area's own rules.
let server: TestServer;
let acme: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  server = await startTestServer();
  acme = await createTestTenant(server, 'contacts-acme');
  other = await createTestTenant(server, 'contacts-other');
});
afterAll(() => server.close());

type Body = Record<string, unknown>;
const save = (contactId: number, body: Body, token = acme.staffToken) => rest(server, 'POST', `/api/contacts/${contactId}`, { token, body });
const read = (contactId: number, token = acme.staffToken) => rest(server, 'GET', `/api/contacts/${contactId}`, { token });
const list = (body: Body, token = acme.staffToken) => rest(server, 'POST', '/api/contacts/items', { token, body });
const archive = (contactId: number, auditId: number, token = acme.staffToken) => rest(server, 'DELETE', `/api/contacts/${contactId}/${auditId}`, { token });
const restore = (contactId: number, token = acme.staffToken) => rest(server, 'POST', `/api/contacts/${contactId}/restore`, { token });
const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => server.orm.em.fork().getConnection().execute<T[]>(text, params);

let unique = 0;
/** A person with names nobody else has (so no likely duplicate), plus `extra`. */
function person(extra: Body = {}): Body {
  unique++;
  return { Kind: 'person', FirstName: `First${unique}`, LastName: `Last${unique}`, ...extra };
}

async function created(body: Body, token = acme.staffToken): Promise<Body & { ContactId: number; AuditId: number }> {
  const response = await save(0, body, token);
  expect({ status: response.status, body: response.status === 200 ? null : response.body }).toEqual({ status: 200, body: null });
  return response.body;
}

function expectProblem(response: HttpResult, status: number, field: string): void {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toContain('application/problem+json');
  expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
}

describe('contacts over REST', () => {
  it('creates a person with every field, reads, lists, searches and updates it', async () => {
    const body = {
      Kind: 'person', Prefix: 'Dr.', FirstName: 'Grace', MiddleName: 'Brewster', LastName: 'Hopper', Suffix: 'PhD', Title: 'Rear Admiral', JobTitle: 'Programmer',
      Emails: [{ EmailAddress: 'grace@navy.example', Kind: 'Work', IsPrimary: true }, { EmailAddress: 'grace@home.example', Kind: 'Home' }],
      Phones: [{ PhoneNumber: '+1 555 0101', Kind: 'Work' }, { PhoneNumber: '+1 555 0102', Kind: 'Mobile', IsPrimary: true }],
      Addresses: [{ Kind: 'Mailing', Line1: 'PO Box 1', City: 'Arlington', State: 'VA', PostalCode: '22201', Country: 'US' }, { Kind: 'Physical', Line1: '1 Navy Way', IsPrimary: true }],
      Websites: [{ Url: 'https://grace.example', Kind: 'Blog' }],
      IsTaxExempt: true, TaxExemptNumber: 'TX-9', NationalID: 'N-100', StateID: 'VA-1',
    };
    const contact = await created(body);
    const expected = {
      ContactId: contact.ContactId, Kind: 'person', DisplayName: 'Grace Hopper', Prefix: 'Dr.', FirstName: 'Grace', MiddleName: 'Brewster', LastName: 'Hopper', Suffix: 'PhD',
      Name: null, Title: 'Rear Admiral', JobTitle: 'Programmer', EmailAddress: 'grace@navy.example', PhoneNumber: '+1 555 0102',
      Emails: [{ EmailAddress: 'grace@navy.example', Kind: 'Work', IsPrimary: true }, { EmailAddress: 'grace@home.example', Kind: 'Home', IsPrimary: false }],
      Phones: [{ PhoneNumber: '+1 555 0102', Kind: 'Mobile', IsPrimary: true }, { PhoneNumber: '+1 555 0101', Kind: 'Work', IsPrimary: false }],
      Addresses: [
        { Kind: 'physical', Line1: '1 Navy Way', Line2: null, City: null, State: null, PostalCode: null, Country: null, IsPrimary: true },
        { Kind: 'mailing', Line1: 'PO Box 1', Line2: null, City: 'Arlington', State: 'VA', PostalCode: '22201', Country: 'US', IsPrimary: false },
      ],
      Websites: [{ Url: 'https://grace.example', Kind: 'Blog', IsPrimary: true }],
      IsTaxExempt: true, TaxExemptNumber: 'TX-9', NationalID: 'N-100', StateID: 'VA-1', OrganizationId: null, OrganizationName: null, ParentOrganizationId: null,
      IsArchived: false, ArchivedDate: null, LastModifiedDate: expect.any(String), AuditId: 1, CustomFields: {},
    };
    expect(contact).toEqual(expected);
    expect((await read(contact.ContactId)).body).toEqual(expected);
    // The columns other areas read hold the primary entries.
    expect(await sql('SELECT email, secondary_email, phone, mobile_phone FROM contact WHERE id = ?', [contact.ContactId]))
      .toEqual([{ email: 'grace@navy.example', secondary_email: 'grace@home.example', phone: '+1 555 0102', mobile_phone: '+1 555 0102' }]);

    const found = await list({ Filter: 'HOPPER' });
    expect(found.status).toBe(200);
    expect(found.body.TotalRecordAvailable).toBe('1');
    expect(found.body.Results).toEqual([expected]);
    expect((await list({ Filter: 'navy.example' })).body.Results.map((row: Body) => row.ContactId)).toEqual([contact.ContactId]);
    const byGet = await rest(server, 'GET', '/api/contacts/items?Filter=grace&Take=5', { token: acme.staffToken });
    expect(byGet.body.Results.map((row: Body) => row.ContactId)).toEqual([contact.ContactId]);
    expect((await list({ Criteria: { EmailAddress: 'GRACE@NAVY.EXAMPLE' } })).body.Results.map((row: Body) => row.ContactId)).toEqual([contact.ContactId]);

    const updated = await save(contact.ContactId, { ...body, FirstName: 'Amazing Grace', Emails: [{ EmailAddress: 'amazing@navy.example' }], AuditId: 1 });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ FirstName: 'Amazing Grace', EmailAddress: 'amazing@navy.example', Emails: [{ EmailAddress: 'amazing@navy.example', Kind: null, IsPrimary: true }], AuditId: 2 });
  });

  it('links a person to an organization and lists by kind and organization, with the organizations as ModelItems', async () => {
    const organization = await created({ Kind: 'organization', Name: 'Lighthouse Cooperative', Websites: [{ Url: 'https://lighthouse.example' }] });
    expect(organization).toMatchObject({ Kind: 'organization', DisplayName: 'Lighthouse Cooperative', Websites: [{ Url: 'https://lighthouse.example', IsPrimary: true }] });
    const keeper = await created(person({ OrganizationId: organization.ContactId }));
    expect(keeper).toMatchObject({ OrganizationId: organization.ContactId, OrganizationName: 'Lighthouse Cooperative' });
    const people = await list({ Criteria: { OrganizationId: organization.ContactId, Kind: 'person' } });
    expect(people.body).toMatchObject({ TotalRecordAvailable: '1', ModelItems: [{ Id: organization.ContactId, Name: 'Lighthouse Cooperative' }] });
    expect(people.body.Results.map((row: Body) => row.ContactId)).toEqual([keeper.ContactId]);
    const organizations = await list({ Criteria: { Kind: 'organization' }, Take: '1000' });
    expect(organizations.body.Results.every((row: Body) => row.Kind === 'organization')).toBe(true);
    expect(organizations.body.Results.map((row: Body) => row.ContactId)).toContain(organization.ContactId);
  });

  it('archives (listed only on request), refuses to edit an archived contact, and restores it', async () => {
    const contact = await created(person({ Emails: [{ EmailAddress: 'archive-me@x.example' }] }));
    const archived = await archive(contact.ContactId, 1);
    expect(archived.status).toBe(200);
    expect(archived.body).toEqual({
      ContactId: contact.ContactId, AuditId: 2, LoginsDisabled: 0, CredentialsRevoked: 0, MembershipsCancelled: 0, BillingSchedulesEnded: 0,
      StoreOrdersCancelled: [], ChapterLinksRemoved: 0, EventRegistrationsCancelled: 0,
    });
    expect((await read(contact.ContactId)).body).toMatchObject({ IsArchived: true, ArchivedDate: expect.any(String), AuditId: 2 });
    expect((await list({ Filter: 'archive-me' })).body.TotalRecordAvailable).toBe('0');
    expect((await list({ Filter: 'archive-me', Criteria: { IsArchived: true } })).body.Results.map((row: Body) => row.ContactId)).toEqual([contact.ContactId]);
    expect((await list({ Filter: 'archive-me', Criteria: { IncludeArchived: true } })).body.TotalRecordAvailable).toBe('1');
    expect((await save(contact.ContactId, { ...person(), AuditId: 2 })).status).toBe(404);
    expect((await archive(contact.ContactId, 2)).status).toBe(404);

    const restored = await restore(contact.ContactId);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ IsArchived: false, ArchivedDate: null, AuditId: 3 });
    expect(restored.body.LastModifiedDate > String(contact.LastModifiedDate)).toBe(true);
    expect((await list({ Filter: 'archive-me' })).body.TotalRecordAvailable).toBe('1');
    // Restoring a live contact changes nothing.
    expect((await restore(contact.ContactId)).body.AuditId).toBe(3);
  });
});

describe('statements per page', () => {
  it('reads a page of contacts, their total and their organizations at the same cost for 5 rows as for 50', async () => {
    const organization = await created({ Kind: 'organization', Name: `Counted Org ${unique++}` });
    for (let index = 0; index < 55; index++) await created(person({ OrganizationId: organization.ContactId }));
    await expectStatementsIndependentOfPageSize(server, async (take) => {
      const page = await list({ Take: String(take), Criteria: { OrganizationId: organization.ContactId } });
      expect(page.body.Results).toHaveLength(take);
      expect(page.body.ModelItems).toMatchObject([{ Id: organization.ContactId, Name: organization.Name }]);
    }, 3);
  });
});

describe('contacts over GraphQL', () => {
  const MODEL = 'ContactId Kind DisplayName FirstName LastName Name EmailAddress OrganizationId IsArchived AuditId Emails { EmailAddress IsPrimary }';

  it('lists, reads, saves, archives and restores', async () => {
    const saved = await graphql(server, `mutation($input: ContactInput!) { saveContact(contactId: 0, input: $input) { ${MODEL} } }`,
      { input: { Kind: 'Organization', Name: 'Graph Guild', Emails: [{ EmailAddress: 'guild@graph.example' }] } }, acme.staffToken);
    expect(saved.body.errors).toBeUndefined();
    const contact = saved.body.data.saveContact;
    expect(contact).toEqual({
      ContactId: expect.any(Number), Kind: 'organization', DisplayName: 'Graph Guild', FirstName: null, LastName: null, Name: 'Graph Guild', EmailAddress: 'guild@graph.example',
      OrganizationId: null, IsArchived: false, AuditId: 1, Emails: [{ EmailAddress: 'guild@graph.example', IsPrimary: true }],
    });
    const id = contact.ContactId;
    const listed = await graphql(server, `query($filter: ContactListFilterInput) { contacts(filter: $filter) { TotalRecordAvailable Results { ContactId } CriteriaItems { Id Name } } }`,
      { filter: { Filter: 'graph guild', Criteria: { Kind: 'organization' } } }, acme.staffToken);
    expect(listed.body.data.contacts).toEqual({ TotalRecordAvailable: '1', Results: [{ ContactId: id }], CriteriaItems: [{ Id: 0, Name: 'person' }, { Id: 1, Name: 'organization' }] });
    const one = await graphql(server, `query($id: Int!) { contact(contactId: $id) { ${MODEL} } }`, { id }, acme.staffToken);
    expect(one.body.data.contact).toEqual(contact);
    const updated = await graphql(server, `mutation($id: Int!, $input: ContactInput!) { saveContact(contactId: $id, input: $input) { Name AuditId } }`,
      { id, input: { Kind: 'organization', Name: 'Graph Guild Ltd', AuditId: 1 } }, acme.staffToken);
    expect(updated.body.data.saveContact).toEqual({ Name: 'Graph Guild Ltd', AuditId: 2 });
    const archived = await graphql(server, 'mutation($id: Int!) { deleteContact(contactId: $id, auditId: 2) { ContactId AuditId MembershipsCancelled } }', { id }, acme.staffToken);
    expect(archived.body.data.deleteContact).toEqual({ ContactId: id, AuditId: 3, MembershipsCancelled: 0 });
    const restored = await graphql(server, 'mutation($id: Int!) { restoreContact(contactId: $id) { IsArchived AuditId } }', { id }, acme.staffToken);
    expect(restored.body.data.restoreContact).toEqual({ IsArchived: false, AuditId: 4 });
  });

  it('names the field of a rule it breaks, and answers another tenant\'s id as not found', async () => {
    const blank = await graphql(server, 'mutation { saveContact(contactId: 0, input: { Kind: "person", FirstName: "  " }) { ContactId } }', {}, acme.staffToken);
    expect(blank.body.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    expect(blank.body.errors?.[0]?.extensions.errors?.[0]?.field).toBe('FirstName');
    const theirs = await created(person(), other.staffToken);
    const notMine = await graphql(server, 'query($id: Int!) { contact(contactId: $id) { ContactId } }', { id: theirs.ContactId }, acme.staffToken);
    expect(notMine.body.errors?.[0]?.extensions.code).toBe('NOT_FOUND');
  });
});

describe('rules', () => {
  it('refuses blank and too long names, bad e-mails, two primaries, an unknown organization and a change of kind (400 naming the field)', async () => {
    expectProblem(await save(0, { Kind: 'person', FirstName: ' ', LastName: '' }), 400, 'FirstName');
    expectProblem(await save(0, { Kind: 'organization', Name: '   ' }), 400, 'Name');
    expectProblem(await save(0, { Kind: 'robot', Name: 'R2' }), 400, 'Kind');
    expectProblem(await save(0, person({ LastName: 'x'.repeat(101) })), 400, 'LastName');
    const badEmail = await save(0, person({ Emails: [{ EmailAddress: 'not-an-address' }] }));
    expect(badEmail.status).toBe(400);
    expect(JSON.stringify(badEmail.body.errors)).toContain('EmailAddress');
    expectProblem(await save(0, person({ Emails: [{ EmailAddress: 'a@x.example', IsPrimary: true }, { EmailAddress: 'b@x.example', IsPrimary: true }] })), 400, 'Emails');
    expectProblem(await save(0, person({ Phones: [{ PhoneNumber: '1' }, { PhoneNumber: '2' }] })), 400, 'Phones');
    expectProblem(await save(0, person({ OrganizationId: 999999 })), 400, 'OrganizationId');
    const somebody = await created(person());
    expectProblem(await save(0, person({ OrganizationId: somebody.ContactId })), 400, 'OrganizationId');
    const theirOrganization = await created({ Kind: 'organization', Name: `Theirs ${unique++}` }, other.staffToken);
    expectProblem(await save(0, person({ OrganizationId: theirOrganization.ContactId })), 400, 'OrganizationId');
    expectProblem(await save(0, { Kind: 'organization', Name: 'Nested Org', OrganizationId: somebody.ContactId }), 400, 'OrganizationId');
    expectProblem(await save(somebody.ContactId, { Kind: 'organization', Name: 'Now an org', AuditId: 1 }), 400, 'Kind');
    expect((await read(somebody.ContactId)).body.AuditId).toBe(1);
  });

  it('answers another tenant\'s contact as not found for every operation', async () => {
    const theirs = await created(person(), other.staffToken);
    expect((await read(theirs.ContactId)).status).toBe(404);
    expect((await save(theirs.ContactId, person({ AuditId: 1 }))).status).toBe(404);
    expect((await archive(theirs.ContactId, 1)).status).toBe(404);
    expect((await restore(theirs.ContactId)).status).toBe(404);
    expect((await read(theirs.ContactId, other.staffToken)).body.AuditId).toBe(1);
  });

  it('refuses a stale AuditId on save and archive (409 naming AuditId)', async () => {
    const contact = await created(person());
    expect((await save(contact.ContactId, person({ AuditId: 1 }))).status).toBe(200);
    expectProblem(await save(contact.ContactId, person({ AuditId: 1 })), 409, 'AuditId');
    expectProblem(await archive(contact.ContactId, 1), 409, 'AuditId');
    expect((await read(contact.ContactId)).body).toMatchObject({ IsArchived: false, AuditId: 2 });
  });

  it('answers likely duplicates (same e-mail in any case, same name) with 409 listing them, unless ForceSave', async () => {
    const first = await created({ Kind: 'person', FirstName: 'Ada', LastName: 'Lovelace', Emails: [{ EmailAddress: 'ada@engine.example' }] });
    const sameEmail = await save(0, person({ Emails: [{ EmailAddress: 'ADA@Engine.example' }] }));
    expectProblem(sameEmail, 409, 'Emails');
    expect(sameEmail.body.errors[0].message).toContain(`ContactId ${first.ContactId}`);
    const sameName = await save(0, { Kind: 'person', FirstName: ' ada ', LastName: 'LOVELACE' });
    expectProblem(sameName, 409, 'LastName');
    expect(sameName.body.errors[0].message).toContain(`ContactId ${first.ContactId}`);
    const forced = await save(0, { Kind: 'person', FirstName: 'Ada', LastName: 'Lovelace', ForceSave: true });
    expect(forced.status).toBe(200);
    // Both now match: listed oldest first.
    const both = await save(0, { Kind: 'person', FirstName: 'Ada', LastName: 'Lovelace' });
    expect(both.body.errors.map((error: { message: string }) => error.message.match(/ContactId (\d+)/)?.[1])).toEqual([String(first.ContactId), String(forced.body.ContactId)]);
    await created({ Kind: 'organization', Name: 'Analytical Society' });
    expectProblem(await save(0, { Kind: 'organization', Name: 'analytical society ' }), 409, 'Name');
    // An update is not a create: saving the same record again is no duplicate.
    expect((await save(first.ContactId, { Kind: 'person', FirstName: 'Ada', LastName: 'Lovelace', Emails: [{ EmailAddress: 'ada@engine.example' }], AuditId: 1 })).status).toBe(200);
    // Archived contacts are no duplicates.
    const archived = await created(person({ Emails: [{ EmailAddress: 'gone@x.example' }] }));
    expect((await archive(archived.ContactId, 1)).status).toBe(200);
    expect((await save(0, person({ Emails: [{ EmailAddress: 'gone@x.example' }] }))).status).toBe(200);
  });

  it('keeps NationalID unique among live contacts: 409 naming it, free again once archived, and a restore that would clash is refused', async () => {
    const holder = await created(person({ NationalID: 'NAT-1' }));
    const clash = await save(0, person({ NationalID: 'NAT-1' }));
    expectProblem(clash, 409, 'NationalID');
    const other1 = await created(person());
    expectProblem(await save(other1.ContactId, person({ NationalID: 'NAT-1', AuditId: 1 })), 409, 'NationalID');
    expect((await archive(holder.ContactId, 1)).status).toBe(200);
    const taker = await created(person({ NationalID: 'NAT-1' }));
    expectProblem(await restore(holder.ContactId), 409, 'NationalID');
    expect((await read(holder.ContactId)).body.IsArchived).toBe(true);
    expect((await archive(taker.ContactId, 1)).status).toBe(200);
    expect((await restore(holder.ContactId)).body).toMatchObject({ IsArchived: false, NationalID: 'NAT-1' });
  });

  it('shows the primary e-mail and phone another area wrote into the columns', async () => {
    const contact = await created(person({ Emails: [{ EmailAddress: 'old@x.example', IsPrimary: true }, { EmailAddress: 'second@x.example' }], Phones: [{ PhoneNumber: '111' }] }));
    await sql('UPDATE contact SET email = ?, phone = NULL WHERE id = ?', ['second@x.example', contact.ContactId]);
    const shown = (await read(contact.ContactId)).body;
    expect(shown).toMatchObject({ EmailAddress: 'second@x.example', PhoneNumber: null, Phones: [] });
    expect(shown.Emails).toEqual([{ EmailAddress: 'second@x.example', Kind: null, IsPrimary: true }, { EmailAddress: 'old@x.example', Kind: null, IsPrimary: false }]);
  });
});

describe('archiving a contact with everything hanging on it', () => {
  it('disables the login, revokes its credentials at once, cancels memberships, ends schedules, cancels pending orders and coming registrations, removes chapter links — in one go', async () => {
    const em = server.orm.em.fork();
    const tenant = await em.findOneOrFail(Tenant, { id: acme.id });
    const login = await createLogin(em, tenant, { email: 'leaving@acme.example', role: 'member', firstName: 'Lee', lastName: 'Leaving' });
    const session = await createSession(em, login, 1);
    const apiKey = await createApiKey(em, login, 'Leaving key', null);
    const contactId = login.contact!.id;
    expect((await rest(server, 'GET', '/api/login/aboutme', { token: session.token })).status).toBe(200);

    // Memberships: one running since last year, one pending from next month, one that ended long ago.
    const type = em.create(MembershipType, { tenant, name: 'Individual' });
    const today = todayUtc();
    const running = em.create(Membership, { tenant, contact: login.contact!, membershipType: type, startDate: addDays(today, -300), endDate: addDays(today, 65), status: 'active' });
    const future = em.create(Membership, { tenant, contact: login.contact!, membershipType: type, startDate: addDays(today, 30), endDate: addDays(today, 395), status: 'pending' });
    const lapsed = em.create(Membership, { tenant, contact: login.contact!, membershipType: type, startDate: addDays(today, -800), endDate: addDays(today, -400), status: 'lapsed' });
    const item = em.create(SaleableItem, { tenant, name: 'Dues', itemType: 'membership', price: '50.00' });
    const schedule = em.create(ScheduledBilling, { tenant, contact: login.contact!, saleableItem: item, description: 'Dues', amount: '50.00', startDate: today, nextBillDate: today });
    await em.flush();

    // A pending store order of the member (stock taken, invoice raised), and a chapter link.
    const stock = await rest(server, 'POST', '/api/store/storeitems/0/save', { token: acme.staffToken, body: { StoreItemId: 0, Name: 'Mug', Price: 12, InventoryTrackingMethodTypeId: '1', InventoryRemaining: '5' } });
    expect(stock.status).toBe(200);
    const order = await graphql(server, 'mutation($input: StoreCheckoutInput!) { checkoutStoreOrder(input: $input) { StorePurchaseId InvoiceId } }',
      { input: { Items: [{ StoreItemId: stock.body.StoreItemId, Quantity: 2 }] } }, session.token);
    expect(order.body.errors).toBeUndefined();
    const { StorePurchaseId: orderId, InvoiceId: invoiceId } = order.body.data.checkoutStoreOrder;
    const chapter = await rest(server, 'POST', '/api/chapters/0/false', { token: acme.staffToken, body: { ChapterName: 'Harbour Chapter' } });
    expect(chapter.status).toBe(200);
    const link = await rest(server, 'POST', '/api/chapters/contactchapter', { token: acme.staffToken, body: { ContactId: contactId, ChapterId: chapter.body.ChapterId, MarkAsPrimary: true } });
    expect(link.status).toBe(200);

    // A registration for an event still to come, its seat taken.
    const event = await graphql(server, 'mutation($input: EventInput!) { saveEvent(eventId: 0, input: $input) { EventId } }',
      { input: { Name: 'Harbour gala', StartDate: '2099-05-01T18:00:00Z', EndDate: '2099-05-01T22:00:00Z', Status: 'open', Capacity: 10, RequireCaptcha: false } }, acme.staffToken);
    const eventId = event.body.data.saveEvent.EventId as number;
    const guestType = await graphql(server, 'mutation($input: EventRegistrationTypeInput!) { saveEventRegistrationType(eventRegistrationTypeId: 0, input: $input) { EventRegistrationTypeId } }',
      { input: { EventId: eventId, Name: 'Guest', Price: 0, Capacity: null } }, acme.staffToken);
    const attendee = { EventRegistrationTypeId: guestType.body.data.saveEventRegistrationType.EventRegistrationTypeId, FirstName: 'Lee', LastName: 'Leaving', EmailAddress: 'leaving@acme.example' };
    const registered = await rest(server, 'POST', `/api/public/events/register_v2/${eventId}`, {
      headers: { 'x-tenant-key': acme.key }, body: { BillingInfo: { FirstName: 'Lee', LastName: 'Leaving', EmailAddress: 'leaving@acme.example' }, Registrations: [attendee] },
    });
    expect(registered.status).toBe(200);
    expect(await sql('SELECT seats_taken FROM event WHERE id = ?', [eventId])).toEqual([{ seats_taken: 1 }]);

    const auditId = (await read(contactId)).body.AuditId as number;
    const archived = await archive(contactId, auditId);
    expect(archived.status).toBe(200);
    expect(archived.body).toEqual({
      ContactId: contactId, AuditId: auditId + 1, LoginsDisabled: 1, CredentialsRevoked: 2, MembershipsCancelled: 2, BillingSchedulesEnded: 1,
      StoreOrdersCancelled: [orderId], ChapterLinksRemoved: 1, EventRegistrationsCancelled: 1,
    });
    expect(await sql('SELECT seats_taken FROM event WHERE id = ?', [eventId])).toEqual([{ seats_taken: 0 }]);

    // The very next request with its credentials is refused on this instance.
    expect((await rest(server, 'GET', '/api/login/aboutme', { token: session.token })).status).toBe(401);
    expect((await rest(server, 'GET', '/api/login/aboutme', { token: apiKey.token })).status).toBe(401);
    await expect(createSession(server.orm.em.fork(), await server.orm.em.fork().findOneOrFail(Login, { id: login.id }, { filters: false }), 1)).rejects.toThrow('disabled');

    const memberships = await sql<{ id: number; status: string; end_date: string }>(`SELECT id, status, to_char(end_date, 'YYYY-MM-DD') AS end_date FROM membership WHERE contact_id = ? ORDER BY id`, [contactId]);
    expect(memberships).toEqual([
      { id: running.id, status: 'cancelled', end_date: addDays(today, -1) },
      // Never before its start − 1: a term that had not started ends the day before it would have.
      { id: future.id, status: 'cancelled', end_date: addDays(today, 29) },
      { id: lapsed.id, status: 'lapsed', end_date: addDays(today, -400) },
    ]);
    expect(await sql('SELECT status FROM scheduled_billing WHERE id = ?', [schedule.id])).toEqual([{ status: 'ended' }]);
    expect(await sql('SELECT status FROM store_order WHERE id = ?', [orderId])).toEqual([{ status: 'Cancelled' }]);
    expect(await sql('SELECT status FROM invoice WHERE id = ?', [invoiceId])).toEqual([{ status: 'void' }]);
    expect(await sql('SELECT remaining FROM store_item WHERE id = ?', [stock.body.StoreItemId])).toEqual([{ remaining: 5 }]);
    expect(await sql('SELECT count(*)::int AS links FROM contact_chapter WHERE contact_id = ?', [contactId])).toEqual([{ links: 0 }]);

    // Restoring brings the contact back, and nothing else.
    expect((await restore(contactId)).body.IsArchived).toBe(false);
    expect((await rest(server, 'GET', '/api/login/aboutme', { token: session.token })).status).toBe(401);
    expect(await sql(`SELECT count(*)::int AS running FROM membership WHERE contact_id = ? AND status IN ('active', 'pending')`, [contactId])).toEqual([{ running: 0 }]);
    expect(await sql('SELECT disabled_at IS NOT NULL AS disabled FROM login WHERE id = ?', [login.id])).toEqual([{ disabled: true }]);
    // Re-enabled by an operator (CLI `login enable`), it signs in again with a new credential; the revoked ones stay revoked.
    const again = server.orm.em.fork();
    const reloaded = await findLogin(again, await again.findOneOrFail(Tenant, { id: acme.id }), 'leaving@acme.example');
    await enableLogin(again, reloaded);
    expect((await rest(server, 'GET', '/api/login/aboutme', { token: (await createSession(again, reloaded, 1)).token })).status).toBe(200);
    expect((await rest(server, 'GET', '/api/login/aboutme', { token: session.token })).status).toBe(401);
  });

  it('keeps a login of an archived contact disabled until the contact is restored', async () => {
    const em = server.orm.em.fork();
    const login = await createLogin(em, await em.findOneOrFail(Tenant, { id: acme.id }), { email: 'still-away@acme.example', role: 'member' });
    expect((await archive(login.contact!.id, (await read(login.contact!.id)).body.AuditId)).body.LoginsDisabled).toBe(1);
    await expect(enableLogin(em, login)).rejects.toThrow('archived');
  });

  it('refuses a chapter\'s organization and an organization with people or child organizations (409 with the reason), changing nothing', async () => {
    const chapter = await rest(server, 'POST', '/api/chapters/0/false', { token: acme.staffToken, body: { ChapterName: 'Refusing Chapter' } });
    expect(chapter.status).toBe(200);
    const refused = await archive(chapter.body.ChapterId, (await read(chapter.body.ChapterId)).body.AuditId);
    expectProblem(refused, 409, 'ContactId');
    expect(refused.body.errors[0].message).toBe('is a chapter');
    expect((await read(chapter.body.ChapterId)).body.IsArchived).toBe(false);

    const organization = await created({ Kind: 'organization', Name: `Busy Org ${unique++}` });
    const member = await created(person({ OrganizationId: organization.ContactId }));
    const busy = await archive(organization.ContactId, 1);
    expectProblem(busy, 409, 'ContactId');
    expect(busy.body.errors[0].message).toContain('1 people');
    expect((await archive(member.ContactId, 1)).status).toBe(200);
    expect((await archive(organization.ContactId, 1)).status).toBe(200);
  });
});

describe('races', () => {
  const race = useRaceServer('contacts-race');
  const raceSave = (contactId: number, body: Body) => rest(race.server, 'POST', `/api/contacts/${contactId}`, { token: race.tenant.staffToken, body });

  it('lets one of two staff editing the same contact win; the other gets 409', async () => {
    const contact = (await raceSave(0, person())).body;
    const statuses = (await Promise.all([
      raceSave(contact.ContactId, { Kind: 'person', FirstName: 'Edit', LastName: 'One', AuditId: 1 }),
      raceSave(contact.ContactId, { Kind: 'person', FirstName: 'Edit', LastName: 'Two', AuditId: 1 }),
    ])).map((response) => response.status).sort();
    expect(statuses).toEqual([200, 409]);
    const current = await rest(race.server, 'GET', `/api/contacts/${contact.ContactId}`, { token: race.tenant.staffToken });
    expect(current.body.AuditId).toBe(2);
  });

  it('creates one contact when concurrent creates share a NationalID or an e-mail', async () => {
    const nationals = await Promise.all(Array.from({ length: 6 }, () => raceSave(0, person({ NationalID: 'RACE-1', ForceSave: true }))));
    expect(nationals.map((response) => response.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    expect(nationals.filter((response) => response.status === 409).every((response) => response.body.errors[0].field === 'NationalID')).toBe(true);
    const emails = await Promise.all(Array.from({ length: 6 }, () => raceSave(0, person({ Emails: [{ EmailAddress: 'race@x.example' }] }))));
    expect(emails.map((response) => response.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    const [{ live }] = await race.server.orm.em.fork().getConnection().execute<{ live: number }[]>(
      `SELECT count(*)::int AS live FROM contact WHERE tenant_id = ? AND (national_id = 'RACE-1' OR email = 'race@x.example') AND deleted_at IS NULL`, [race.tenant.id]);
    expect(live).toBe(2);
  });

  it('archives consistently while partner updates of the same contact arrive', async () => {
    const em = race.server.orm.em.fork();
    const partner = await createLogin(em, await em.findOneOrFail(Tenant, { id: race.tenant.id }), { email: 'partner@race.example', role: 'partner' });
    const key = (await createApiKey(em, partner, 'race', null)).token;
    let sequence = 0;
    const upsert = (name: string) => rest(race.server, 'POST', '/api/partnersync/person/upsert', {
      token: key, body: { IsNational: true, Transaction: { TransactionId: `race-${++sequence}`, ChangedAt: new Date(Date.now() - 60_000 + sequence).toISOString(), Record: { NationalID: 77001, FirstName: name, LastName: 'Racer' } } },
    });
    const first = await upsert('Start');
    expect(first.status).toBe(200);
    const contactId = first.body.PlatformID as number;
    const auditId = (await rest(race.server, 'GET', `/api/contacts/${contactId}`, { token: race.tenant.staffToken })).body.AuditId as number;
    const [archived, ...updates] = await Promise.all([
      rest(race.server, 'DELETE', `/api/contacts/${contactId}/${auditId}`, { token: race.tenant.staffToken }),
      upsert('During 1'), upsert('During 2'), upsert('During 3'),
    ]);
    // Each side either committed or was refused with 409 (never a 5xx, never a lost archive).
    expect([200, 409]).toContain(archived.status);
    for (const update of updates) expect([200, 409]).toContain(update.status);
    const after = (await rest(race.server, 'GET', `/api/contacts/${contactId}`, { token: race.tenant.staffToken })).body;
    expect(after.IsArchived).toBe(archived.status === 200);
    if (archived.status === 200) {
      // Once archived, partner updates are stale and cannot bring it back.
      const late = await upsert('Late');
      expect(late.body.Outcome).toBe('stale');
      expect((await rest(race.server, 'GET', `/api/contacts/${contactId}`, { token: race.tenant.staffToken })).body.IsArchived).toBe(true);
    } else {
      expect(archived.body.errors[0].field).toBe('AuditId');
    }
  });
});

describe('the partner change feed', () => {
  it('reports a partner-linked contact\'s staff edit, archive and restore in order, resumably, and applies later partner updates by the stale rules', async () => {
    const em = server.orm.em.fork();
    const partner = await createLogin(em, await em.findOneOrFail(Tenant, { id: acme.id }), { email: 'partner@contacts-acme.example', role: 'partner' });
    const key = (await createApiKey(em, partner, 'feed', null)).token;
    const partnerPost = (changedAt: string, record: Body) => rest(server, 'POST', '/api/partnersync/person/upsert', {
      token: key, body: { IsNational: true, Transaction: { TransactionId: `feed-${changedAt}-${unique++}`, ChangedAt: changedAt, Record: { NationalID: 88001, ...record } } },
    });
    const feed = (since: string, after?: string) => rest(server, 'GET',
      `/api/partnersync/getchangessince/${encodeURIComponent(since)}?take=100${after ? `&after=${encodeURIComponent(after)}` : ''}`, { token: key });
    const ours = (response: HttpResult) => response.body.Changes.filter((change: Body) => change.NationalID === 88001);

    const start = new Date().toISOString();
    const created1 = await partnerPost('2026-01-01T00:00:00Z', { FirstName: 'Pat', LastName: 'Partner', Email: 'pat@partner.example' });
    expect(created1.body.Outcome).toBe('applied');
    const contactId = created1.body.PlatformID as number;
    // Created by the partner: nothing of ours to report.
    expect(ours(await feed(start))).toEqual([]);

    // A staff edit is a change.
    const current = (await read(contactId)).body;
    const edited = await save(contactId, { Kind: 'person', FirstName: 'Patricia', LastName: 'Partner', Emails: current.Emails, NationalID: current.NationalID, AuditId: current.AuditId });
    expect(edited.status).toBe(200);
    const afterEdit = await feed(start);
    expect(ours(afterEdit)).toEqual([expect.objectContaining({ PlatformID: contactId, ChangeType: 'Changed', FirstName: 'Patricia', Email: 'pat@partner.example' })]);
    const editedAt = ours(afterEdit)[0].ChangedAt as string;

    // Archiving is a tombstone, after the edit.
    expect((await archive(contactId, edited.body.AuditId)).status).toBe(200);
    const afterArchive = ours(await feed(start));
    expect(afterArchive).toEqual([expect.objectContaining({ PlatformID: contactId, ChangeType: 'Deleted' })]);
    expect(afterArchive[0].ChangedAt > editedAt).toBe(true);
    // A partner update of the archived contact is stale (the deletion is ours, in the feed).
    expect((await partnerPost('2026-02-01T00:00:00Z', { FirstName: 'Ignored' })).body.Outcome).toBe('stale');

    // Resumable: a reader that stopped after the edit's instant sees only what came after it.
    expect(ours(await feed(new Date(new Date(editedAt).getTime() + 1).toISOString())).map((change: Body) => change.ChangeType)).toEqual(['Deleted']);

    // Restoring is a change again, later than the tombstone.
    const restored = await restore(contactId);
    expect(restored.status).toBe(200);
    const afterRestore = ours(await feed(start));
    expect(afterRestore).toEqual([expect.objectContaining({ PlatformID: contactId, ChangeType: 'Changed', FirstName: 'Patricia' })]);
    expect(afterRestore[0].ChangedAt > afterArchive[0].ChangedAt).toBe(true);

    // A newer partner update applies to the restored contact (and, being the partner's own, leaves the feed); an older one stays stale.
    expect((await partnerPost('2025-06-01T00:00:00Z', { FirstName: 'Older' })).body.Outcome).toBe('stale');
    expect((await partnerPost('2026-03-01T00:00:00Z', { FirstName: 'Patty' })).body.Outcome).toBe('applied');
    expect((await read(contactId)).body).toMatchObject({ FirstName: 'Patty', IsArchived: false });
    expect(ours(await feed(start))).toEqual([]);
  });
});
