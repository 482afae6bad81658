import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { EntityManager } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import { mapError } from '../src/core/error-mapping.js';
import { dropDatabase, ensureDatabase, withDatabase } from '../src/db/database.js';
import { CrossAreaForeignKeys } from '../src/db/migrations/0036-cross-area-foreign-keys.js';
import { DirectoryCategoryLists } from '../src/db/migrations/0044-directory-category-lists.js';
import { openOrm } from '../src/db/orm.js';
import { MembershipTypePaymentPlan, PaymentGatewayAccount, ScheduledBilling, ScheduledBillingRunItem, ScheduledBillingRunRecord } from '../src/entities/billing.js';
import { CategoryItem, CategoryList, CategoryType } from '../src/entities/category-list.js';
import { Invoice, SaleableItem } from '../src/entities/commerce.js';
import { Contact } from '../src/entities/contact.js';
import { DEFAULT_SEARCH_SETTINGS, DEFAULT_VISIBILITY, Directory, DirectoryListing } from '../src/entities/directory.js';
import { Event, EventRegistrationType, EventSession } from '../src/entities/event.js';
import { MembershipLevel, MembershipType } from '../src/entities/membership.js';
import { StoreItem } from '../src/entities/store.js';
import { Tenant } from '../src/entities/tenant.js';
import { createLogin } from '../src/services/login/identity.js';
import { createTestTenant, expectExactlyOneSucceeds, graphql, rest, startRaceServer, type TestServer, type TestTenant } from './support/harness.js';

// The keys between areas (migration 0036, ARCHITECTURE.md "References between areas"): what a
// delete of a referenced record does, through the API where one deletes it, in the database where
// none does; and the migration on a database holding dangling ids.
let server: TestServer;
let acme: TestTenant;

beforeAll(async () => {
  server = await startRaceServer();
  acme = await createTestTenant(server, 'fk-acme');
});
afterAll(() => server.close());

const LISTS = '/api/categorylists';
const SAVE_LIST = `mutation($id: Int!, $input: CategoryListAddEditInput!) { saveCategoryList(categoryListId: $id, input: $input) { AuditId ItemsCount } }`;
const DELETE_LIST = `mutation($id: Int!, $a: Int!) { deleteCategoryList(categoryListId: $id, auditId: $a) }`;

interface SavedList { id: number; auditId: number; items: { CategoryItemId: number; Name: string }[] }

/** A new category list of `type` holding `names`, read back with its item ids. */
async function createList(type: string, names: string[]): Promise<SavedList> {
  const saved = await rest(server, 'POST', `${LISTS}/0`, { token: acme.staffToken, body: { CategoryTypeId: type, Name: `List ${randomBytes(3).toString('hex')}`, Items: names.map((Name) => ({ Name })) } });
  expect(saved.status).toBe(200);
  return readList(saved.body.CategoryListId);
}

async function readList(id: number): Promise<SavedList> {
  const read = await rest(server, 'GET', `${LISTS}/${id}/0/items`, { token: acme.staffToken });
  expect(read.status).toBe(200);
  return { id, auditId: read.body.AuditId, items: read.body.Items };
}

/** The list's save body keeping only the items named. */
function keeping(list: SavedList, names: string[]) {
  return { Name: `Kept ${list.id}`, AuditId: list.auditId, Items: list.items.filter((item) => names.includes(item.Name)).map(({ CategoryItemId, Name }) => ({ CategoryItemId, Name })) };
}

function expect409Naming(response: { status: number; body: any }, ...words: string[]): void {
  expect(response.status).toBe(409);
  for (const word of words) expect(response.body.detail).toContain(word);
}

function expectGraphQL409Naming(response: { body: any }, ...words: string[]): void {
  const [error] = response.body.errors;
  expect(error.extensions.code).toBe('CONFLICT');
  for (const word of words) expect(error.message).toContain(word);
}

const sql = <T>(text: string, params: unknown[] = []) => server.orm.em.fork().getConnection().execute<T[]>(text, params);

describe('a category item in use is not deleted out from under what uses it', () => {
  it('a store item: leaving its item out of a list save, or deleting the list, is 409 naming both (REST and GraphQL); unused items still go', async () => {
    const list = await createList('3', ['Mugs', 'Caps', 'Spare']);
    const mugs = list.items.find((item) => item.Name === 'Mugs')!.CategoryItemId;
    const caps = list.items.find((item) => item.Name === 'Caps')!.CategoryItemId;
    const item = await rest(server, 'POST', '/api/store/storeitems/0/save', { token: acme.staffToken, body: { StoreItemId: 0, Name: 'Blue mug', Price: 9, CategoryItemId: String(mugs) } });
    expect(item.status).toBe(200);

    const rest409 = await rest(server, 'POST', `${LISTS}/${list.id}`, { token: acme.staffToken, body: keeping(list, ['Caps', 'Spare']) });
    expect409Naming(rest409, 'category item "Mugs"', 'store item "Blue mug"');
    expect(rest409.headers.get('content-type')).toContain('application/problem+json');
    expect(rest409.body.errors[0].field).toBe('Items');
    expectGraphQL409Naming(await graphql(server, SAVE_LIST, { id: list.id, input: keeping(list, ['Caps']) }, acme.staffToken), '"Mugs"', 'store item "Blue mug"');
    expect409Naming(await rest(server, 'DELETE', `${LISTS}/${list.id}/${list.auditId}`, { token: acme.staffToken }), '"Mugs"', '"Blue mug"');
    expectGraphQL409Naming(await graphql(server, DELETE_LIST, { id: list.id, a: list.auditId }, acme.staffToken), '"Mugs"', '"Blue mug"');
    expect((await readList(list.id)).items.map((kept) => kept.Name)).toEqual(['Mugs', 'Caps', 'Spare']);

    // An unused item goes as before; the used one stays with its id.
    const saved = await rest(server, 'POST', `${LISTS}/${list.id}`, { token: acme.staffToken, body: keeping(list, ['Mugs', 'Caps']) });
    expect([saved.status, saved.body.ItemsCount]).toEqual([200, 2]);
    expect((await readList(list.id)).items.map((kept) => kept.CategoryItemId)).toEqual([mugs, caps]);

    // Once the store item is filed elsewhere, the item and then the list may go.
    const refiled = await rest(server, 'POST', '/api/store/storeitems/0/save', {
      token: acme.staffToken, body: { StoreItemId: item.body.StoreItemId, AuditId: 1, Name: 'Blue mug', Price: 9, CategoryItemId: String(caps) },
    });
    expect(refiled.status).toBe(200);
    const afterRefile = await readList(list.id);
    const dropped = await graphql(server, SAVE_LIST, { id: list.id, input: keeping(afterRefile, ['Caps']) }, acme.staffToken);
    expect(dropped.body).toEqual({ data: { saveCategoryList: { AuditId: afterRefile.auditId + 1, ItemsCount: 1 } } });
    const list2 = await createList('3', ['Unused']);
    expect((await rest(server, 'DELETE', `${LISTS}/${list2.id}/${list2.auditId}`, { token: acme.staffToken })).status).toBe(200);
  });

  it('a live directory listing refuses it (409); a removed listing loses the id; an unknown id is 400 naming CategoryItemIds', async () => {
    const list = await createList('2', ['Green', 'Blue']);
    const [green, blue] = list.items.map((item) => item.CategoryItemId);
    const directory = await rest(server, 'POST', '/api/directory/directories/0', { token: acme.staffToken, body: { Name: 'Members', IsPublic: true } });
    const em = server.orm.em.fork();
    const contact = em.create(Contact, { tenant: acme.id, kind: 'organization', name: 'Green Grocer' });
    await em.flush();
    const LISTING = `mutation($d: Int!, $c: Int!, $input: DirectoryListingInput!) { saveDirectoryListing(directoryId: $d, contactId: $c, input: $input) { DirectoryContactId AuditId } }`;
    const unknown = await graphql(server, LISTING, { d: directory.body.DirectoryId, c: contact.id, input: { CategoryItemIds: [green, 987654] } }, acme.staffToken);
    expect(unknown.body.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', errors: [{ field: 'CategoryItemIds' }] });
    const listed = await graphql(server, LISTING, { d: directory.body.DirectoryId, c: contact.id, input: { CategoryItemIds: [green, blue] } }, acme.staffToken);
    const listing = listed.body.data.saveDirectoryListing;

    expect409Naming(await rest(server, 'POST', `${LISTS}/${list.id}`, { token: acme.staffToken, body: keeping(list, ['Blue']) }), '"Green"', 'directory listing "Green Grocer"');
    expectGraphQL409Naming(await graphql(server, DELETE_LIST, { id: list.id, a: list.auditId }, acme.staffToken), '"Green"', 'directory listing "Green Grocer"');

    const removed = await graphql(server, 'mutation($id: Int!, $a: Int!) { deleteDirectoryListing(directoryContactId: $id, auditId: $a) }', { id: listing.DirectoryContactId, a: listing.AuditId }, acme.staffToken);
    expect(removed.body.errors).toBeUndefined();
    expect((await rest(server, 'POST', `${LISTS}/${list.id}`, { token: acme.staffToken, body: keeping(list, ['Blue']) })).status).toBe(200);
    expect(await sql('select category_item_ids from directory_listing where id = ?', [listing.DirectoryContactId])).toEqual([{ category_item_ids: [blue] }]);
  });

  it('a billing schedule refuses it too (409 naming the schedule)', async () => {
    const list = await createList('6', ['Corporate']);
    const em = server.orm.em.fork();
    const contact = em.create(Contact, { tenant: acme.id, kind: 'person', firstName: 'Pat', lastName: 'Payer' });
    const dues = em.create(SaleableItem, { tenant: acme.id, name: 'Dues', itemType: 'membership', price: '100.00' });
    em.create(ScheduledBilling, {
      tenant: acme.id, contact, saleableItem: dues, description: 'Corporate dues', amount: '100.00', startDate: '2026-01-01', nextBillDate: '2027-01-01',
      categoryItemId: list.items[0].CategoryItemId,
    });
    await em.flush();
    expect409Naming(await rest(server, 'DELETE', `${LISTS}/${list.id}/${list.auditId}`, { token: acme.staffToken }), '"Corporate"', 'billing schedule "Corporate dues"');
    expectGraphQL409Naming(await graphql(server, SAVE_LIST, { id: list.id, input: keeping(list, []) }, acme.staffToken), 'billing schedule "Corporate dues"');
  });
});

describe('a category item used while its list drops it: exactly one wins, no id left dangling', () => {
  const ROUNDS = 6;
  const LISTING = `mutation($d: Int!, $c: Int!, $input: DirectoryListingInput!) { saveDirectoryListing(directoryId: $d, contactId: $c, input: $input) { AuditId } }`;

  it('a store item filed under it races the list save (REST)', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const list = await createList('3', ['Racing', 'Stays']);
      await expectExactlyOneSucceeds([
        () => rest(server, 'POST', '/api/store/storeitems/0/save', { token: acme.staffToken, body: { StoreItemId: 0, Name: `Racer ${round}`, Price: 1, CategoryItemId: String(list.items[0].CategoryItemId) } }),
        () => rest(server, 'POST', `${LISTS}/${list.id}`, { token: acme.staffToken, body: keeping(list, ['Stays']) }),
      ], [400, 409]);
    }
    expect(await sql(`select count(*)::int as n from store_item s where category_item_id is not null and not exists (select 1 from category_item c where c.id = s.category_item_id)`)).toEqual([{ n: 0 }]);
  });

  it('a directory listing filed under it races the list save (GraphQL)', async () => {
    const directory = await rest(server, 'POST', '/api/directory/directories/0', { token: acme.staffToken, body: { Name: 'Race directory', IsPublic: true } });
    for (let round = 0; round < ROUNDS; round++) {
      const list = await createList('2', ['Racing', 'Stays']);
      const em = server.orm.em.fork();
      const contact = em.create(Contact, { tenant: acme.id, kind: 'organization', name: `Racer ${round}` });
      await em.flush();
      await expectExactlyOneSucceeds([
        () => graphql(server, LISTING, { d: directory.body.DirectoryId, c: contact.id, input: { CategoryItemIds: [list.items[0].CategoryItemId] } }, acme.staffToken),
        () => graphql(server, SAVE_LIST, { id: list.id, input: keeping(list, ['Stays']) }, acme.staffToken),
      ], [400, 409]);
    }
    expect(await sql(`select count(*)::int as n from directory_listing l, jsonb_array_elements(l.category_item_ids) as e(value)
      where not exists (select 1 from category_item c where to_jsonb(c.id) = e.value)`)).toEqual([{ n: 0 }]);
  });
});

describe('records the API removes: the stated rule', () => {
  it('removing a login (REST and GraphQL deleteLogin) keeps the billing runs it asked for, without the requester (set null)', async () => {
    const em = server.orm.em.fork();
    const tenant = await em.findOneOrFail(Tenant, acme.id);
    const [rest1, graph1] = [await createLogin(em, tenant, { email: 'leaving-rest@fk-acme.example', role: 'staff' }), await createLogin(em, tenant, { email: 'leaving-gql@fk-acme.example', role: 'staff' })];
    const runs = [rest1, graph1].map((login) => em.create(ScheduledBillingRunRecord, { tenant: acme.id, parameters: runParameters(), requestedBy: login.id }));
    await em.flush();

    expect((await rest(server, 'DELETE', `/api/login/delete?username=leaving-rest@fk-acme.example&masterkey=${server.config.MASTER_KEY}`)).status).toBe(200);
    const removed = await graphql(server, 'mutation($u: String!, $k: String!) { deleteLogin(username: $u, masterKey: $k) }', { u: 'leaving-gql@fk-acme.example', k: server.config.MASTER_KEY });
    expect(removed.body).toEqual({ data: { deleteLogin: true } });
    expect(await sql('select id, requested_by from scheduled_billing_run_record where id in (?, ?) order by id', runs.map((run) => run.id)))
      .toEqual(runs.map((run) => ({ id: run.id, requested_by: null })));
  });
});

describe('records no operation deletes (events, sessions, invoices, contacts, membership types and levels): the rule holds in the database', () => {
  let world: World;
  beforeAll(async () => {
    world = await buildWorld(server.orm.em.fork(), acme.id);
  });

  it('an event: its billing schedules keep billing without it (set null)', async () => {
    await sql('delete from event where id = ?', [world.eventId]);
    expect(await sql('select event_id, status from scheduled_billing where id = ?', [world.scheduleId])).toEqual([{ event_id: null, status: 'active' }]);
  });

  it('a session: registration types no longer include it (cleaned)', async () => {
    const other = await buildWorld(server.orm.em.fork(), acme.id);
    await sql('delete from event_session where id = ?', [other.sessionId]);
    expect(await sql('select session_ids from event_registration_type where id = ?', [other.registrationTypeId])).toEqual([{ session_ids: [other.secondSessionId] }]);
  });

  it('a chapter organization: its gateway account stays, as the tenant\'s (set null)', async () => {
    await sql('delete from contact where id = ?', [world.chapterContactId]);
    expect(await sql('select chapter_id from payment_gateway_account where id = ?', [world.gatewayAccountId])).toEqual([{ chapter_id: null }]);
  });

  it('an invoice a billing run raised, a membership type a directory lists, a level a payment plan serves: refused, mapped to a 409 naming both', async () => {
    const cases: [() => Promise<unknown>, string][] = [
      [() => server.orm.em.fork().nativeDelete(Invoice, { id: world.invoiceId }, { filters: false }), `The invoice ${world.invoiceId} is used by at least one billing run item`],
      [() => server.orm.em.fork().nativeDelete(MembershipType, { id: world.membershipTypeId }, { filters: false }), `The membership type ${world.membershipTypeId} is used by at least one directory`],
      [() => server.orm.em.fork().nativeDelete(MembershipLevel, { id: world.levelId }, { filters: false }), `The membership level ${world.levelId} is used by at least one payment plan`],
    ];
    for (const [remove, message] of cases) {
      const thrown = await remove().then(() => null, (error: unknown) => error);
      const { error, unexpected } = mapError(thrown);
      expect({ status: error.status, message: error.message, unexpected }).toEqual({ status: 409, message: `${message}; change or remove that use first.`, unexpected: false });
    }
    expect(await sql('select count(*)::int as n from invoice where id = ?', [world.invoiceId])).toEqual([{ n: 1 }]);
  });

  it('a membership type a store item is offered to: refused; once nothing lists it, it goes', async () => {
    await sql('update directory set membership_type_ids = ? where id = ?', ['[]', world.directoryId]);
    const remove = () => server.orm.em.fork().nativeDelete(MembershipType, { id: world.membershipTypeId }, { filters: false });
    const thrown = await remove().then(() => null, (error: unknown) => error);
    expect(mapError(thrown).error.message).toBe(`The membership type ${world.membershipTypeId} is used by at least one store item; change or remove that use first.`);
    await sql('update store_item set membership_types = ? where id = ?', ['[]', world.storeItemId]);
    await sql('update membership_type_payment_plan set level_ids = ? where id = ?', ['[]', world.planId]);
    expect(await remove()).toBe(1);
  });
});

describe('migration 0036 on a database holding dangling ids', () => {
  const adminUrl = process.env.TEST_ADMIN_DATABASE_URL!;
  const database = `fk_${randomBytes(5).toString('hex')}`;
  afterAll(() => dropDatabase(adminUrl, database));

  it('migrates: dangling ids become null, dangling array elements go, every real reference stays', async () => {
    await ensureDatabase(adminUrl, database);
    const orm = await openOrm({ url: withDatabase(adminUrl, database), poolMax: 2 });
    /**
     * Takes the keys back (0044's, which use 0036's trigger function, then 0036's) or adds them again,
     * by themselves: later migrations' columns stay, so the entities can write the world.
     */
    const step = async (direction: 'up' | 'down') => {
      const steps = [CrossAreaForeignKeys, DirectoryCategoryLists];
      for (const Step of direction === 'up' ? steps : [...steps].reverse()) {
        const migration = new Step(orm.em.getDriver(), orm.config);
        await migration[direction]();
        for (const query of migration.getQueries()) await orm.em.fork().getConnection().execute(query);
      }
    };
    try {
      await orm.migrator.up();
      // A database from before the keys: 0036 taken back, everything before and after it in place.
      await step('down');
      const em = orm.em.fork();
      const tenant = em.create(Tenant, { key: 'dangling', name: 'Dangling' });
      await em.flush();
      const world = await buildWorld(em, tenant.id);
      const other = await buildWorld(em, tenant.id);
      const run = (text: string, params: unknown[] = []) => orm.em.fork().getConnection().execute(text, params);
      // What a database from before the keys may hold: ids of records deleted since, or of another event's session.
      const missing = 987654321;
      await run('update store_item set category_item_id = ?, membership_types = ? where id = ?', [missing, JSON.stringify([world.membershipTypeId, missing]), world.storeItemId]);
      await run('update scheduled_billing set category_item_id = ?, event_id = ? where id = ?', [missing, missing, world.scheduleId]);
      await run('update scheduled_billing_run_item set invoice_id = ? where id = ?', [missing, world.runItemId]);
      await run('update scheduled_billing_run_record set requested_by = ? where id = ?', [missing, world.runId]);
      await run('update payment_gateway_account set chapter_id = ? where id = ?', [missing, world.gatewayAccountId]);
      await run('update directory_listing set category_item_ids = ? where id = ?', [JSON.stringify([missing, world.categoryItemId]), world.listingId]);
      await run('update event_registration_type set session_ids = ? where id = ?', [JSON.stringify([world.sessionId, other.sessionId, missing]), world.registrationTypeId]);
      await run('update membership_type_payment_plan set level_ids = ? where id = ?', [JSON.stringify([world.levelId, other.levelId]), world.planId]);
      await run('update directory set membership_type_ids = ? where id = ?', [JSON.stringify([missing, world.membershipTypeId]), world.directoryId]);

      await step('up');

      const read = async (text: string, id: number) => (await run(text, [id]))[0];
      expect(await read('select category_item_id, membership_types from store_item where id = ?', world.storeItemId)).toEqual({ category_item_id: null, membership_types: [world.membershipTypeId] });
      expect(await read('select category_item_id, event_id from scheduled_billing where id = ?', world.scheduleId)).toEqual({ category_item_id: null, event_id: null });
      expect(await read('select invoice_id from scheduled_billing_run_item where id = ?', world.runItemId)).toEqual({ invoice_id: null });
      expect(await read('select requested_by from scheduled_billing_run_record where id = ?', world.runId)).toEqual({ requested_by: null });
      expect(await read('select chapter_id from payment_gateway_account where id = ?', world.gatewayAccountId)).toEqual({ chapter_id: null });
      expect(await read('select category_item_ids from directory_listing where id = ?', world.listingId)).toEqual({ category_item_ids: [world.categoryItemId] });
      expect(await read('select session_ids from event_registration_type where id = ?', world.registrationTypeId)).toEqual({ session_ids: [world.sessionId] });
      expect(await read('select level_ids from membership_type_payment_plan where id = ?', world.planId)).toEqual({ level_ids: [world.levelId] });
      expect(await read('select membership_type_ids from directory where id = ?', world.directoryId)).toEqual({ membership_type_ids: [world.membershipTypeId] });
      // The untouched world keeps every reference.
      expect(await read('select category_item_id from store_item where id = ?', other.storeItemId)).toEqual({ category_item_id: other.categoryItemId });
      expect(await read('select invoice_id from scheduled_billing_run_item where id = ?', other.runItemId)).toEqual({ invoice_id: other.invoiceId });
      expect(await read('select session_ids from event_registration_type where id = ?', other.registrationTypeId)).toEqual({ session_ids: [other.sessionId, other.secondSessionId] });
      // And the keys hold from now on.
      await expect(run('update store_item set category_item_id = ? where id = ?', [missing, other.storeItemId])).rejects.toThrow(/store_item_category_item_id_foreign/);
    } finally {
      await orm.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------

function runParameters() {
  return { filter: {}, billDate: '2026-01-01', membershipTypeId: null, membershipLevelId: null, changeCurrentMembership: false, createMembership: false, removeMembership: false, scheduleIds: null };
}

type World = Awaited<ReturnType<typeof buildWorld>>;

/** One record of every kind the cross-area references join, each reference set to a real record. */
async function buildWorld(em: EntityManager, tenantId: number) {
  const tenant = tenantId;
  const chapter = em.create(Contact, { tenant, kind: 'organization', name: 'North chapter' });
  const person = em.create(Contact, { tenant, kind: 'person', firstName: 'Pat', lastName: 'Payer' });
  const list = em.create(CategoryList, { tenant, categoryType: CategoryType.Product, name: 'Products' });
  const categoryItem = em.create(CategoryItem, { tenant, list, name: 'Mugs' });
  const type = em.create(MembershipType, { tenant, name: 'Individual' });
  const level = em.create(MembershipLevel, { tenant, membershipType: type, name: 'Gold' });
  const event = em.create(Event, { tenant, name: 'Gala', startsAt: new Date('2026-05-01T18:00:00Z'), endsAt: new Date('2026-05-01T22:00:00Z') });
  const session = em.create(EventSession, { tenant, event, name: 'Dinner' });
  const secondSession = em.create(EventSession, { tenant, event, name: 'Dance' });
  const dues = em.create(SaleableItem, { tenant, name: 'Dues', itemType: 'membership', price: '100.00' });
  await em.flush();
  const registrationType = em.create(EventRegistrationType, { tenant, event, name: 'Guest', price: '10.00', sessionIds: [session.id, secondSession.id] });
  const invoice = em.create(Invoice, { tenant, number: Math.floor(Math.random() * 1e9), contact: person, invoiceDate: '2026-01-01', dueDate: '2026-01-31', total: '100.00', source: 'scheduled-billing' });
  const storeItem = em.create(StoreItem, { tenant, variant: 0, name: 'Mug', price: '9.00', categoryItemId: categoryItem.id, membershipTypes: [type.id] });
  const schedule = em.create(ScheduledBilling, {
    tenant, contact: person, saleableItem: dues, description: 'Dues', amount: '100.00', startDate: '2026-01-01', nextBillDate: '2027-01-01',
    categoryItemId: categoryItem.id, eventId: event.id,
  });
  const run = em.create(ScheduledBillingRunRecord, { tenant, parameters: runParameters(), requestedBy: null });
  const gatewayAccount = em.create(PaymentGatewayAccount, { tenant, accountId: `acct_${randomBytes(4).toString('hex')}`, gatewayTypeId: 1, name: 'North account', chapterId: chapter.id });
  const plan = em.create(MembershipTypePaymentPlan, { tenant, membershipType: type, name: 'Quarterly', payments: 4, startDate: '2026-01-01', levelIds: [level.id] });
  const directory = em.create(Directory, { tenant, name: 'Members', searchSettings: { ...DEFAULT_SEARCH_SETTINGS }, membershipTypeIds: [type.id] });
  const listing = em.create(DirectoryListing, { tenant, directory, contact: chapter, visibility: { ...DEFAULT_VISIBILITY }, categoryItemIds: [categoryItem.id] });
  await em.flush();
  const runItem = em.create(ScheduledBillingRunItem, { tenant, run, schedule, periodStart: '2026-01-01', outcome: 'billed', amount: '100.00', invoiceId: invoice.id });
  await em.flush();
  return {
    chapterContactId: chapter.id, categoryItemId: categoryItem.id, membershipTypeId: type.id, levelId: level.id, eventId: event.id,
    sessionId: session.id, secondSessionId: secondSession.id, registrationTypeId: registrationType.id, invoiceId: invoice.id, storeItemId: storeItem.id,
    scheduleId: schedule.id, runId: run.id, runItemId: runItem.id, gatewayAccountId: gatewayAccount.id, planId: plan.id, directoryId: directory.id, listingId: listing.id,
  };
}
