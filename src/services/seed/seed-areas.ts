import type { Faker } from '@faker-js/faker';
import type { EntityClass, EntityDictionary, RequiredEntityData } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { addDays, addMonths } from '../../core/dates.js';
import { money, toMoneyString } from '../../core/money.js';
import type { RequestContext } from '../../core/context.js';
import { jobContext } from '../../core/runtime/job-context.js';
import type { StartProgress } from '../../core/runtime/progress.js';
import { Chapter, ContactChapter } from '../../entities/chapter.js';
import { SaleableItem } from '../../entities/commerce.js';
import { Contact } from '../../entities/contact.js';
import { DEFAULT_SEARCH_SETTINGS, DEFAULT_VISIBILITY, Directory, DirectoryListing, DirectoryListingType } from '../../entities/directory.js';
import { Event, EventRegistration, EventRegistrationOrder, EventRegistrationType, EventSession } from '../../entities/event.js';
import { StoreItem, StoreSettings } from '../../entities/store.js';
import { Vendor, vendorNameKey } from '../../entities/vendor.js';
import type { MembershipStatus } from '../../entities/membership.js';
import type { PostalAddress } from '../../entities/contact.js';
import type { ContactAddress } from '../../schema/contacts.js';
import { foldKey } from '../chapters/chapter-hierarchy.js';
import { contactColumns } from '../contacts/contacts.js';
import { saveBillingSchedule } from '../billing/billing-schedules.js';
import { recordPayment } from '../commerce/invoices.js';
import { saveMembershipType } from '../memberships/membership-types.js';
import { lapseEndedMembershipsOf } from '../memberships/lapse.js';
import { cancelMembership, getMembership, renewMembership, saveMembership } from '../memberships/memberships.js';
import type { MembershipView } from '../../schema/memberships.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';

/**
 * The demo data of `npm run seed`, one function per area, each writing that area's tables with
 * multi-row INSERTs (`em.insertMany`, BATCH rows a statement) inside the seed's transaction: no
 * entity is hydrated and nothing is flushed row by row, so 200,000 contacts and vendors take
 * seconds. Memberships (their types, terms, invoices and payments) and billing schedules are made
 * through their services instead (`throughServices`, one call per record, in the same
 * transaction), so the demo data obeys the same rules as the API's: a term is billed, turns
 * active when its invoice is paid, is renewed, cancelled and lapsed as staff and the jobs do it. Every value comes from the seeded `faker` (or from counts derived from it), in a fixed
 * order, so the same seed makes the same data; dates are offsets from the day of the run, so
 * "active" memberships and "upcoming" events stay current.
 *
 * Every contact's e-mail address is under `seed.example` (a reserved domain: demo data never
 * mails anyone), which is also how a second run recognises a seeded tenant (services/seed/seed.ts).
 */

export const SEED_EMAIL_DOMAIN = 'seed.example';

/** Rows per INSERT statement (well under PostgreSQL's 65,535 parameters for the widest table). */
const BATCH = 1000;

export interface Volumes {
  people: number;
  /** Businesses: the member organizations, every one listed in the business directory. */
  organizations: number;
  chapters: number;
  vendors: number;
  storeItems: number;
  events: number;
  registrationsPerEvent: readonly [number, number];
}

export interface Seeding {
  em: EntityManager;
  tenantId: number;
  tenantName: string;
  faker: Faker;
  volumes: Volumes;
  /** The day of the run (YYYY-MM-DD, UTC): every date is an offset from it. */
  today: string;
  progress: StartProgress;
  /** Rows written per table, for the summary. */
  counts: Record<string, number>;
}

/** Inserts `count` rows made by `make(index)` in batches (one multi-row INSERT each), answering their ids in order. */
async function insertRows<T extends object>(
  seeding: Seeding, entity: EntityClass<T>, label: string, count: number, make: (index: number) => RequiredEntityData<T>,
): Promise<number[]> {
  const step = seeding.progress(label, count);
  const defaults = initialValues(seeding.em, entity);
  const ids: number[] = [];
  for (let start = 0; start < count; start += BATCH) {
    const rows = Array.from({ length: Math.min(BATCH, count - start) }, (_, offset) => ({ ...defaults, ...make(start + offset) })) as EntityDictionary<T>[];
    // The driver's insert (em.insertMany answers only the first id on PostgreSQL): one statement,
    // `RETURNING id`. A sequence numbers one statement's rows in VALUES order, so sorted ids match the rows.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- MikroORM types the transaction context as any
    const result = await seeding.em.getDriver().nativeInsertMany(entity, rows, { ctx: seeding.em.getTransactionContext() });
    const batchIds = ((result.rows ?? []) as { id: number }[]).map((row) => Number(row.id)).sort((a, b) => a - b);
    if (batchIds.length !== rows.length) throw new Error(`${label}: ${rows.length} rows inserted but ${batchIds.length} ids returned`);
    ids.push(...batchIds);
    step.tick(rows.length);
  }
  // Thousands of rows more than the statistics know of: the services called next would be planned blind.
  if (count >= BATCH) await refreshStatistics(seeding, [seeding.em.getMetadata().get(entity).tableName]);
  step.finish();
  seeding.counts[label] = (seeding.counts[label] ?? 0) + count;
  return ids;
}

/**
 * The values an entity's class initializes its properties to (`owners = []`, `isActive = true`):
 * `em.create` applies them, a native insert does not, and many columns have no database default.
 */
function initialValues<T extends object>(em: EntityManager, entity: EntityClass<T>): Record<string, unknown> {
  const properties = em.getMetadata().get(entity).properties as Record<string, { persist?: boolean; primary?: boolean; generated?: unknown }>;
  return Object.fromEntries(Object.entries(new (entity as new () => T)()).filter(([name, value]) => {
    const property = properties[name];
    return value !== undefined && property && property.persist !== false && !property.primary && !property.generated;
  }));
}

/** A request context of the seed's tenant, as its back office, inside the seed's transaction. */
function serviceContext(seeding: Seeding): RequestContext {
  return jobContext(seeding.em, seeding.tenantId);
}

/**
 * Fresh planner statistics for `tables`, inside the seed's transaction (ANALYZE counts the rows the
 * transaction itself inserted). Without them the planner keeps the statistics of before the seed,
 * in which the seeded tenant has no rows: `id = ? and tenant_id = ?` then looks as cheap through
 * the tenant's index as through the primary key, and every such lookup reads all of the tenant's
 * rows (measured: 105 ms for one contact among 110,000). Autovacuum cannot help: it sees only
 * committed rows.
 */
async function refreshStatistics(seeding: Seeding, tables: readonly string[]): Promise<void> {
  await seeding.em.execute(`ANALYZE ${tables.join(', ')}`);
}

/** What the services write as the seed calls them: their statistics are refreshed as these tables grow. */
const SERVICE_TABLES = ['membership', 'invoice', 'invoice_line', 'payment', 'scheduled_billing'];
/** Service writes before the first refresh; then one each time the count has doubled (a dozen for the large seed). */
const FIRST_REFRESH = 64;

/**
 * Runs `write(item)` for each item, in order, as one progress step of `total` records counted
 * under `label` (`write` answers the records it made). The identity map is cleared after each
 * item: the services load what they need, and a map of thousands of entities would make every
 * flush slower than the last.
 */
async function throughServices<T, R>(seeding: Seeding, label: string, total: number, items: readonly T[], write: (item: T) => Promise<R[]>): Promise<R[]> {
  const step = seeding.progress(label, total);
  const made: R[] = [];
  let nextRefresh = FIRST_REFRESH;
  for (const [index, item] of items.entries()) {
    const records = await write(item);
    seeding.em.clear();
    made.push(...records);
    step.tick(records.length);
    if (index + 1 === nextRefresh) {
      await refreshStatistics(seeding, SERVICE_TABLES);
      nextRefresh *= 2;
    }
  }
  step.finish();
  seeding.counts[label] = (seeding.counts[label] ?? 0) + made.length;
  return made;
}

/** A name not made before: `make()` a few times, then the last try with a number. */
function uniqueName(seen: Set<string>, make: () => string, key: (name: string) => string = (name) => name.toLowerCase(), attempts = 3): string {
  let name = make();
  for (let attempt = 0; seen.has(key(name)) && attempt < attempts; attempt++) name = make();
  for (let suffix = 2; seen.has(key(name)); suffix++) name = `${name.replace(/ \d+$/, '')} ${suffix}`;
  seen.add(key(name));
  return name;
}

function slug(text: string): string {
  return text.normalize('NFKD').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 50) || 'x';
}

function price(faker: Faker, min: number, max: number): string {
  return toMoneyString(faker.number.int({ min: min * 100, max: max * 100 }) / 100);
}

// ---------------------------------------------------------------------------------------------
// Membership catalog: types, levels, and the saleable item each type's dues are billed as.

export interface MembershipCatalogType {
  id: number;
  name: string;
  dues: string;
  duesItemId: number;
  levelIds: number[];
  forOrganizations: boolean;
  /** Relative share among the types of its kind of contact. */
  weight: number;
}

const CATALOG = [
  { name: 'Individual', dues: '120.00', levels: ['Standard', 'Gold'], forOrganizations: false, weight: 6 },
  { name: 'Family', dues: '180.00', levels: [], forOrganizations: false, weight: 2 },
  { name: 'Student', dues: '40.00', levels: [], forOrganizations: false, weight: 1 },
  { name: 'Corporate', dues: '600.00', levels: ['Bronze', 'Silver', 'Gold'], forOrganizations: true, weight: 1 },
] as const;

/** Days after a term's end its member stays in good standing (every type of the catalog). */
const GRACE_DAYS = 30;

export async function seedMembershipCatalog(seeding: Seeding): Promise<MembershipCatalogType[]> {
  const { tenantId } = seeding;
  const itemIds = await insertRows(seeding, SaleableItem, 'saleable items', CATALOG.length, (index) => ({
    tenant: tenantId, name: `${CATALOG[index].name} membership dues`, itemType: 'membership' as const, price: CATALOG[index].dues, accountingClass: 'Dues', taxable: false,
  }));
  const ctx = serviceContext(seeding);
  const types = await throughServices(seeding, 'membership types', CATALOG.length, CATALOG.map((type, index) => ({ type, itemId: itemIds[index] })), async ({ type, itemId }) => [
    await saveMembershipType(ctx, 0, {
      Name: type.name, Description: `${type.name} membership, ${type.dues} a year`, DurationMonths: 12, GraceDays: GRACE_DAYS, Price: type.dues, SaleableItemId: itemId,
      Levels: type.levels.map((name) => ({ Name: name })),
    }),
  ]);
  seeding.counts['membership levels'] = types.reduce((sum, type) => sum + type.Levels.length, 0);
  return CATALOG.map((type, index) => ({
    id: types[index].MembershipTypeId, name: type.name, dues: type.dues, duesItemId: itemIds[index], forOrganizations: type.forOrganizations, weight: type.weight,
    levelIds: types[index].Levels.map((level) => level.MembershipLevelId),
  }));
}

// ---------------------------------------------------------------------------------------------
// Chapters: regions below the tenant's top-level organization, local chapters below the regions,
// each local chapter serving a few postal codes (its members live there).

export interface LocalChapter {
  contactId: number;
  city: string;
  state: string;
  postalCodes: string[];
}

const REGIONS = ['Northeast', 'Southeast', 'Midwest', 'Southwest', 'West', 'Northwest', 'Mountain', 'Gulf Coast', 'Mid-Atlantic', 'Great Lakes'];

export async function seedChapters(seeding: Seeding): Promise<LocalChapter[]> {
  const { em, tenantId, faker, volumes } = seeding;
  // The tenant's top level (made as the chapters area makes it, when the hierarchy is first needed).
  const [existing] = await tenantSql({ em, tenantId }).all<{ contact_id: number }>(`SELECT contact_id FROM chapter WHERE ${tenantIs()} AND is_top_level LIMIT 1`, []);
  let topLevel = existing?.contact_id;
  if (!topLevel) {
    [topLevel] = await insertRows(seeding, Contact, 'chapter contacts', 1, () => organization(seeding.tenantName, null));
    await insertRows(seeding, Chapter, 'chapters', 1, () => ({ tenant: tenantId, contact: topLevel, isTopLevel: true, name: seeding.tenantName, nameKey: foldKey(seeding.tenantName) }));
  }
  const regionCount = Math.max(1, Math.ceil(volumes.chapters / 5));
  const seen = new Set<string>();
  const usedCodes = new Set<string>();
  const plans = Array.from({ length: volumes.chapters }, (_, index) => {
    if (index < regionCount) {
      const name = uniqueName(seen, () => `${REGIONS[index % REGIONS.length]} Region`);
      return { name, city: null, state: null, postalCodes: [] as string[], region: null as number | null };
    }
    const state = faker.location.state({ abbreviated: true });
    const city = faker.location.city();
    const name = uniqueName(seen, () => `${city} Chapter`);
    const postalCodes = Array.from({ length: faker.number.int({ min: 3, max: 8 }) }, () => uniqueName(usedCodes, () => faker.location.zipCode('#####'), (code) => code, 1000));
    return { name, city, state, postalCodes, region: index % regionCount };
  });
  function organization(name: string, parent: number | null): RequiredEntityData<Contact> {
    return {
      tenant: tenantId, kind: 'organization', name, email: `office@${slug(name)}.${SEED_EMAIL_DOMAIN}`, phone: faker.phone.number({ style: 'national' }),
      addresses: null, parent,
    };
  }
  const regionContacts = await insertRows(seeding, Contact, 'chapter contacts', regionCount, (index) => organization(plans[index].name, topLevel));
  const localPlans = plans.slice(regionCount);
  const localContacts = await insertRows(seeding, Contact, 'chapter contacts', localPlans.length, (index) => ({
    ...organization(localPlans[index].name, regionContacts[localPlans[index].region!]),
    addresses: [{ kind: 'primary', line1: faker.location.streetAddress(), city: localPlans[index].city!, region: localPlans[index].state!, postalCode: localPlans[index].postalCodes[0], country: 'US' }],
  }));
  const contactIds = [...regionContacts, ...localContacts];
  await insertRows(seeding, Chapter, 'chapters', plans.length, (index) => ({
    tenant: tenantId, contact: contactIds[index], name: plans[index].name, nameKey: foldKey(plans[index].name),
    number: `CH-${String(index + 1).padStart(3, '0')}`, numberKey: foldKey(`CH-${String(index + 1).padStart(3, '0')}`),
    description: plans[index].city ? `Members in and around ${plans[index].city}, ${plans[index].state}` : `The chapters of the ${plans[index].name.replace(/ Region$/, '').toLowerCase()}`,
    postalCodes: plans[index].postalCodes,
  }));
  return localPlans.map((plan, index) => ({ contactId: localContacts[index], city: plan.city!, state: plan.state!, postalCodes: plan.postalCodes }));
}

// ---------------------------------------------------------------------------------------------
// Contacts: businesses (organizations) and people, most of whom live where a chapter is.

export interface SeededOrganization {
  id: number;
  name: string;
  domain: string;
  postalCode: string;
  latitude: number;
  longitude: number;
}

export interface SeededPerson {
  id: number;
  firstName: string;
  lastName: string;
  email: string;
  postalCode: string;
  /** Index into the local chapters, or null for someone outside every chapter's area. */
  chapter: number | null;
}

function address(faker: Faker, chapters: LocalChapter[], chapter: number | null): PostalAddress & { postalCode: string } {
  const local = chapter === null ? null : chapters[chapter];
  return {
    kind: 'primary', line1: faker.location.streetAddress(), city: local?.city ?? faker.location.city(), region: local?.state ?? faker.location.state({ abbreviated: true }),
    postalCode: local ? faker.helpers.arrayElement(local.postalCodes) : faker.location.zipCode('#####'), country: 'US',
  };
}

/** A seeded address as the contacts service takes it. */
function addressInput(address: PostalAddress): ContactAddress {
  return { Kind: address.kind, Line1: address.line1, City: address.city, State: address.region, PostalCode: address.postalCode, Country: address.country };
}

function someChapter(faker: Faker, chapters: LocalChapter[], share: number): number | null {
  return chapters.length && faker.datatype.boolean(share) ? faker.number.int(chapters.length - 1) : null;
}

export async function seedOrganizations(seeding: Seeding, chapters: LocalChapter[]): Promise<SeededOrganization[]> {
  const { faker, tenantId } = seeding;
  const seen = new Set<string>();
  const made: Omit<SeededOrganization, 'id'>[] = [];
  const ids = await insertRows(seeding, Contact, 'organizations', seeding.volumes.organizations, () => {
    const name = uniqueName(seen, () => faker.company.name());
    const domain = `${slug(name)}.${SEED_EMAIL_DOMAIN}`;
    const postal = address(faker, chapters, someChapter(faker, chapters, 0.7));
    const latitude = faker.location.latitude({ min: 25, max: 49, precision: 4 });
    made.push({ name, domain, postalCode: postal.postalCode, latitude, longitude: faker.location.longitude({ min: -124, max: -67, precision: 4 }) });
    const { organizationId: _none, ...columns } = contactColumns({
      Kind: 'organization', Name: name, Emails: [{ EmailAddress: `info@${domain}` }], Phones: [{ PhoneNumber: faker.phone.number({ style: 'national' }) }], Addresses: [addressInput(postal)],
    });
    return { tenant: tenantId, ...columns, logoShortDescription: faker.company.catchPhrase() };
  });
  return made.map((organization, index) => ({ ...organization, id: ids[index] }));
}

export async function seedPeople(seeding: Seeding, chapters: LocalChapter[], organizations: SeededOrganization[]): Promise<SeededPerson[]> {
  const { faker, tenantId } = seeding;
  const emails = new Set<string>();
  const made: Omit<SeededPerson, 'id'>[] = [];
  const ids = await insertRows(seeding, Contact, 'people', seeding.volumes.people, () => {
    const firstName = faker.person.firstName();
    const lastName = faker.person.lastName();
    const employer = organizations.length && faker.datatype.boolean(0.4) ? faker.helpers.arrayElement(organizations) : null;
    const email = uniqueName(emails, () => faker.internet.email({ firstName, lastName, provider: employer?.domain ?? `mail.${SEED_EMAIL_DOMAIN}` }));
    const chapter = someChapter(faker, chapters, 0.8);
    const postal = address(faker, chapters, chapter);
    made.push({ firstName, lastName, email, postalCode: postal.postalCode, chapter });
    const title = employer ? faker.person.jobTitle() : null;
    const phone = faker.phone.number({ style: 'national' });
    const mobilePhone = faker.datatype.boolean(0.6) ? faker.phone.number({ style: 'national' }) : null;
    const { organizationId, ...columns } = contactColumns({
      Kind: 'person', FirstName: firstName, LastName: lastName, Title: title, OrganizationId: employer?.id ?? null, Emails: [{ EmailAddress: email }],
      Phones: [{ PhoneNumber: phone, IsPrimary: true }, ...(mobilePhone ? [{ PhoneNumber: mobilePhone, Kind: 'Mobile' }] : [])], Addresses: [addressInput(postal)],
    });
    return { tenant: tenantId, ...columns, organization: organizationId };
  });
  return made.map((person, index) => ({ ...person, id: ids[index] }));
}

export async function seedChapterLinks(seeding: Seeding, chapters: LocalChapter[], people: SeededPerson[]): Promise<void> {
  const { faker, tenantId } = seeding;
  const links = people.flatMap((person) => {
    if (person.chapter === null) return [];
    const primary = { contact: person.id, chapter: chapters[person.chapter].contactId, isPrimary: true };
    if (chapters.length < 2 || !faker.datatype.boolean(0.1)) return [primary];
    const other = (person.chapter + faker.number.int({ min: 1, max: chapters.length - 1 })) % chapters.length;
    return [primary, { contact: person.id, chapter: chapters[other].contactId, isPrimary: false }];
  });
  await insertRows(seeding, ContactChapter, 'chapter links', links.length, (index) => ({ tenant: tenantId, ...links[index] }));
}

// ---------------------------------------------------------------------------------------------
// Memberships: most people and a fifth of the businesses hold one; some renewed a lapsed one.

export interface SeededMembership {
  id: number;
  contactId: number;
  type: MembershipCatalogType;
  status: MembershipStatus;
  startDate: string;
  /** Null: open-ended (no type of the catalog makes one). */
  endDate: string | null;
}

function membershipPeriod(faker: Faker, today: string, status: MembershipStatus): { startDate: string; endDate: string } {
  const yearFrom = (start: string) => ({ startDate: start, endDate: addDays(addMonths(start, 12), -1) });
  switch (status) {
    case 'active': return yearFrom(addDays(today, -faker.number.int(364)));
    case 'pending': return yearFrom(addDays(today, faker.number.int({ min: 1, max: 30 })));
    // Over, grace days included: the lapse job's rule lapses it.
    case 'lapsed': return yearFrom(addDays(addMonths(today, -12), -faker.number.int({ min: GRACE_DAYS + 1, max: 400 })));
    case 'cancelled': {
      const startDate = addDays(today, -faker.number.int({ min: 60, max: 700 }));
      return { startDate, endDate: addDays(startDate, faker.number.int({ min: 30, max: 300 })) };
    }
  }
}

interface MembershipPlan {
  contactId: number;
  type: MembershipCatalogType;
  levelId: number | null;
  status: MembershipStatus;
  startDate: string;
  /** Cancelled: the last day covered. */
  endDate: string;
  /** Active: renewed from the year before (a term now over, grace days included). */
  renewed: boolean;
}

export async function seedMemberships(seeding: Seeding, catalog: MembershipCatalogType[], people: SeededPerson[], organizations: SeededOrganization[]): Promise<SeededMembership[]> {
  const { faker, today } = seeding;
  const statuses = [{ value: 'active', weight: 70 }, { value: 'lapsed', weight: 15 }, { value: 'pending', weight: 5 }, { value: 'cancelled', weight: 10 }] as const;
  const personTypes = catalog.filter((type) => !type.forOrganizations).map((type) => ({ value: type, weight: type.weight }));
  const organizationTypes = catalog.filter((type) => type.forOrganizations).map((type) => ({ value: type, weight: type.weight }));
  const plans: MembershipPlan[] = [];
  const plan = (contactId: number, types: typeof personTypes) => {
    const type = faker.helpers.weightedArrayElement(types);
    const status: MembershipStatus = faker.helpers.weightedArrayElement(statuses);
    const period = membershipPeriod(faker, today, status);
    const levelId = type.levelIds.length ? faker.helpers.arrayElement(type.levelIds) : null;
    // The year before ends the day before this term starts; a term still in its grace days would still be active, so those are not renewals here.
    const renewed = status === 'active' && faker.datatype.boolean(0.3) && addDays(period.startDate, GRACE_DAYS - 1) < today;
    plans.push({ contactId, type, levelId, status, ...period, renewed });
  };
  for (const person of people) if (faker.datatype.boolean(0.85)) plan(person.id, personTypes);
  for (const organization of organizations) if (faker.datatype.boolean(0.2)) plan(organization.id, organizationTypes);
  const ctx = serviceContext(seeding);
  const rows = plans.length + plans.filter((planned) => planned.renewed).length;
  const terms = await throughServices(seeding, 'memberships', rows, plans, async (planned) => (await enrolPlanned(seeding, ctx, planned)).map((term) => ({
    id: term.MembershipId, contactId: term.ContactId, type: planned.type, status: term.Status as MembershipStatus, startDate: term.StartDate, endDate: term.EndDate,
  })));
  // The daily job's lapse, for this tenant and in the seed's transaction: the lapsed plans' terms and the year before each renewal, over grace days included.
  // (A term of the tenant from before the seed whose standing has run out lapses with them, as the job would lapse it.)
  const lapsed = new Set(await lapseEndedMembershipsOf(ctx, today));
  const seeded = terms.map((term) => (lapsed.has(term.id) ? { ...term, status: 'lapsed' as const } : term));
  const due = plans.filter((planned) => planned.status === 'lapsed' || planned.renewed).length;
  const taken = seeded.filter((term) => term.status === 'lapsed').length;
  if (taken !== due) throw new Error(`the lapse took ${taken} of the seed's memberships where ${due} were due`);
  return seeded;
}

/**
 * One planned membership through the memberships service, as it would have happened: enrolled and
 * billed, paid (which activates it), then renewed or cancelled; a pending one is billed and not
 * paid yet; one whose good standing has run out is left active for the lapse. Answers its terms,
 * the earlier first.
 */
async function enrolPlanned(seeding: Seeding, ctx: RequestContext, planned: MembershipPlan): Promise<MembershipView[]> {
  const enrol = (startDate: string) => saveMembership(ctx, 0, {
    ContactId: planned.contactId, MembershipTypeId: planned.type.id, MembershipLevelId: planned.levelId, StartDate: startDate, BillIt: true,
  });
  if (planned.status === 'pending') return [countInvoice(seeding, await enrol(planned.startDate))];
  if (planned.renewed) {
    const earlier = await payFor(seeding, ctx, planned.type.dues, countInvoice(seeding, await enrol(addMonths(planned.startDate, -12))));
    const renewal = await renewMembership(ctx, earlier.MembershipId, earlier.AuditId, { BillIt: true });
    return [earlier, await payFor(seeding, ctx, planned.type.dues, countInvoice(seeding, renewal))];
  }
  const term = await payFor(seeding, ctx, planned.type.dues, countInvoice(seeding, await enrol(planned.startDate)));
  if (planned.status === 'cancelled') {
    const effective = addDays(planned.endDate, 1) < seeding.today ? addDays(planned.endDate, 1) : seeding.today;
    return [await cancelMembership(ctx, term.MembershipId, term.AuditId, { EffectiveDate: effective, Reason: 'Cancelled at the member\'s request' })];
  }
  return [term];
}

function countInvoice(seeding: Seeding, term: MembershipView): MembershipView {
  if (term.InvoiceId === null) throw new Error(`membership ${term.MembershipId}: billed, but it has no invoice`);
  seeding.counts.invoices = (seeding.counts.invoices ?? 0) + 1;
  return term;
}

/** Pays a billed term's invoice (the dues: no level has a price of its own) in full on its start day; the payment activates the term. */
async function payFor(seeding: Seeding, ctx: RequestContext, dues: string, term: MembershipView): Promise<MembershipView> {
  await recordPayment(ctx, term.InvoiceId!, {
    amount: money(dues), method: 'card', reference: `seed-membership-${term.MembershipId}`, paidAt: new Date(`${term.StartDate}T12:00:00Z`),
  });
  seeding.counts.payments = (seeding.counts.payments ?? 0) + 1;
  const paid = await getMembership(ctx, term.MembershipId);
  if (paid.Status !== 'active') throw new Error(`membership ${term.MembershipId}: paid, but ${paid.Status}`);
  return paid;
}

// ---------------------------------------------------------------------------------------------
// Directories: a public business directory listing every business (radius search on), and a
// members-only hub directory of the people whose membership is active.

export async function seedDirectories(seeding: Seeding, organizations: SeededOrganization[], people: SeededPerson[], memberships: SeededMembership[]): Promise<void> {
  const { faker, tenantId } = seeding;
  const [basic, enhanced] = await insertRows(seeding, DirectoryListingType, 'directory listing types', 2, (index) => ({
    tenant: tenantId, name: index ? 'Enhanced listing' : 'Basic listing', description: index ? 'Logo, description and contact details' : 'Name and address', showContactDetails: 'true',
  }));
  const [business, members] = await insertRows(seeding, Directory, 'directories', 2, (index) => ({
    tenant: tenantId, name: index ? 'Member directory' : 'Business directory', displayName: index ? 'Find a fellow member' : 'Find a member business',
    description: index ? 'Members with an active membership (members only)' : 'Businesses in our community', listingType: index ? basic : enhanced,
    isPublic: !index, isHub: Boolean(index), sortOrder: index, searchSettings: { ...DEFAULT_SEARCH_SETTINGS, DisplayRadiusSearch: !index, ShowPostalCodeFilter: true },
  }));
  await insertRows(seeding, DirectoryListing, 'directory listings', organizations.length, (index) => {
    const organization = organizations[index];
    const isEnhanced = faker.datatype.boolean(0.2);
    return {
      tenant: tenantId, directory: business, contact: organization.id, listingType: isEnhanced ? enhanced : basic, name: organization.name,
      shortDescription: faker.company.catchPhrase(), description: isEnhanced ? faker.company.buzzPhrase() : null,
      keywords: [faker.commerce.department(), faker.company.buzzNoun()].join(', '), website: `https://www.${organization.domain}`,
      visibility: DEFAULT_VISIBILITY, postalCode: organization.postalCode, latitude: organization.latitude, longitude: organization.longitude,
    };
  });
  const activeIds = new Set(memberships.filter((membership) => membership.status === 'active').map((membership) => membership.contactId));
  const listed = people.filter((person) => activeIds.has(person.id));
  await insertRows(seeding, DirectoryListing, 'directory listings', listed.length, (index) => ({
    tenant: tenantId, directory: members, contact: listed[index].id, listingType: basic, name: `${listed[index].firstName} ${listed[index].lastName}`,
    visibility: { ...DEFAULT_VISIBILITY, Email: true }, postalCode: listed[index].postalCode,
  }));
}

// ---------------------------------------------------------------------------------------------
// Store: products (most with stock counted) and a donation item, each sold as a saleable item.

export async function seedStore(seeding: Seeding): Promise<void> {
  const { em, faker, tenantId, volumes } = seeding;
  const seen = new Set<string>();
  const items = Array.from({ length: volumes.storeItems }, (_, index) => {
    const isProduct = index % 12 !== 11;
    const name = isProduct ? uniqueName(seen, () => faker.commerce.productName()) : uniqueName(seen, () => `${faker.helpers.arrayElement(['Scholarship', 'Building', 'Education', 'Community'])} fund donation`);
    return { isProduct, name, price: isProduct ? price(faker, 5, 250) : '25.00' };
  });
  const itemIds = await insertRows(seeding, SaleableItem, 'saleable items', items.length, (index) => ({
    tenant: tenantId, name: items[index].name, itemType: items[index].isProduct ? 'store' as const : 'donation' as const, price: items[index].price,
    accountingClass: items[index].isProduct ? 'Merchandise' : 'Donations', taxable: items[index].isProduct,
  }));
  await insertRows(seeding, StoreItem, 'store items', items.length, (index) => {
    const item = items[index];
    const tracked = item.isProduct && faker.datatype.boolean(0.6);
    return {
      tenant: tenantId, variant: item.isProduct ? 0 as const : 3 as const, name: item.name, price: item.price, saleableItem: itemIds[index], displayOrder: index,
      description: item.isProduct ? faker.commerce.productDescription() : 'Every gift goes to the fund in full.', shortDescription: item.isProduct ? faker.commerce.productAdjective() : null,
      trackingMethod: tracked ? 1 : 0, remaining: tracked ? faker.number.int(200) : null, showAvailableQuantity: tracked,
      accountingClassId: item.isProduct ? 'Merchandise' : 'Donations', isActive: faker.datatype.boolean(0.9), shippingNotAvailable: !item.isProduct,
      infoMessage: item.isProduct ? null : 'Thank you for your gift!',
    };
  });
  const [settings] = await tenantSql({ em, tenantId }).all<{ id: number }>(`SELECT id FROM store_settings WHERE ${tenantIs()}`, []);
  if (!settings) {
    await insertRows(seeding, StoreSettings, 'store settings', 1, () => ({
      tenant: tenantId, storeDescription: `The ${seeding.tenantName} shop`, taxRate: '7.2500', shippingFlatRate: '5.00', shippingPerItem: '1.00',
    }));
  }
}

// ---------------------------------------------------------------------------------------------
// Events: over the past six months and the next nine, with sessions, registration types (each a
// saleable item) and registrations of people (one order each); seats taken are counted from them.

const EVENT_KINDS = ['Annual Conference', 'Networking Breakfast', 'Workshop', 'Gala Dinner', 'Webinar', 'Golf Outing', 'Leadership Summit', 'Member Mixer', 'Training Day', 'Trade Show'];
const SESSION_NAMES = ['Keynote', 'Morning session', 'Panel discussion', 'Afternoon session', 'Dinner'];

export async function seedEvents(seeding: Seeding, chapters: LocalChapter[], people: SeededPerson[]): Promise<void> {
  const { em, faker, tenantId, today, volumes } = seeding;
  const now = Date.now();
  const seen = new Set<string>();
  const events = Array.from({ length: volumes.events }, () => {
    const city = chapters.length ? faker.helpers.arrayElement(chapters).city : faker.location.city();
    const name = uniqueName(seen, () => `${city} ${faker.helpers.arrayElement(EVENT_KINDS)}`);
    const startsAt = new Date(`${addDays(today, faker.number.int({ min: -180, max: 270 }))}T${String(faker.number.int({ min: 13, max: 23 })).padStart(2, '0')}:00:00Z`);
    const endsAt = new Date(startsAt.getTime() + faker.number.int({ min: 2, max: 8 }) * 3600_000);
    const past = endsAt.getTime() < now;
    const status = past ? 'closed' as const : faker.helpers.weightedArrayElement([{ value: 'open' as const, weight: 85 }, { value: 'draft' as const, weight: 10 }, { value: 'cancelled' as const, weight: 5 }]);
    const registrations = status === 'draft' ? 0 : faker.number.int({ min: volumes.registrationsPerEvent[0], max: volumes.registrationsPerEvent[1] });
    const capacity = faker.datatype.boolean(0.8) ? Math.max(registrations, 20) + faker.number.int({ min: 0, max: 60 }) : null;
    const basePrice = price(faker, 15, 300);
    const types = [{ name: 'General admission', price: basePrice, memberOnly: false }];
    if (faker.datatype.boolean(0.7)) types.push({ name: 'Member', price: toMoneyString(money(basePrice).mul(0.75)), memberOnly: true });
    if (faker.datatype.boolean(0.3)) types.push({ name: 'Student', price: toMoneyString(money(basePrice).mul(0.5)), memberOnly: false });
    const sessions = faker.helpers.arrayElements(SESSION_NAMES, { min: 1, max: 3 });
    return { name, city, startsAt, endsAt, status, registrations, capacity, types, sessions };
  });
  const eventIds = await insertRows(seeding, Event, 'events', events.length, (index) => {
    const event = events[index];
    return {
      tenant: tenantId, name: event.name, description: `${faker.company.catchPhrase()}. Join fellow members in ${event.city}.`, startsAt: event.startsAt, endsAt: event.endsAt,
      venue: `${faker.location.streetAddress()}, ${event.city}`, status: event.status, capacity: event.capacity, requireCaptcha: false,
      registrationOpensAt: new Date(event.startsAt.getTime() - 60 * 86_400_000), registrationClosesAt: new Date(event.startsAt.getTime() - 86_400_000),
      goalAttendees: event.capacity ?? event.registrations + 20, goalAttendeeRevenue: toMoneyString(money(event.types[0].price).mul(event.capacity ?? event.registrations + 20)),
    };
  });
  const sessions = events.flatMap((event, index) => event.sessions.map((name, order) => ({ event: eventIds[index], name, startsAt: new Date(event.startsAt.getTime() + order * 3600_000) })));
  await insertRows(seeding, EventSession, 'event sessions', sessions.length, (index) => ({
    tenant: tenantId, ...sessions[index], endsAt: new Date(sessions[index].startsAt.getTime() + 3600_000),
  }));
  const types = events.flatMap((event, index) => event.types.map((type, sortOrder) => ({ ...type, sortOrder, eventIndex: index })));
  const typeItemIds = await insertRows(seeding, SaleableItem, 'saleable items', types.length, (index) => ({
    tenant: tenantId, name: `${events[types[index].eventIndex].name} – ${types[index].name}`.slice(0, 200), itemType: 'event' as const, price: types[index].price, accountingClass: 'Events',
  }));
  const typeIds = await insertRows(seeding, EventRegistrationType, 'event registration types', types.length, (index) => ({
    tenant: tenantId, event: eventIds[types[index].eventIndex], name: types[index].name, price: types[index].price, memberOnly: types[index].memberOnly,
    saleableItem: typeItemIds[index], sortOrder: types[index].sortOrder,
  }));
  // One order per registration: a person registering themselves.
  const registrations = events.flatMap((event, eventIndex) => {
    const eventTypes = types.flatMap((type, index) => (type.eventIndex === eventIndex ? [{ id: typeIds[index], price: type.price }] : []));
    return faker.helpers.arrayElements(people, Math.min(event.registrations, people.length)).map((person) => ({
      eventIndex, person, type: faker.helpers.arrayElement(eventTypes), status: faker.datatype.boolean(0.95) ? 'registered' as const : 'cancelled' as const,
      submittedAt: new Date(Math.min(now, event.startsAt.getTime() - faker.number.int({ min: 1, max: 59 }) * 86_400_000)), key: `seed-${faker.string.uuid()}`,
    }));
  });
  const orderIds = await insertRows(seeding, EventRegistrationOrder, 'event registration orders', registrations.length, (index) => ({
    tenant: tenantId, event: eventIds[registrations[index].eventIndex], billingContact: registrations[index].person.id, idempotencyKey: registrations[index].key,
    status: registrations[index].status, total: registrations[index].type.price, submittedAt: registrations[index].submittedAt,
    referralSource: faker.helpers.arrayElement(['Newsletter', 'Website', 'A colleague', 'Social media', null]),
  }));
  await insertRows(seeding, EventRegistration, 'event registrations', registrations.length, (index) => {
    const registration = registrations[index];
    return {
      tenant: tenantId, event: eventIds[registration.eventIndex], order: orderIds[index], contact: registration.person.id, registrationType: registration.type.id,
      status: registration.status, firstName: registration.person.firstName, lastName: registration.person.lastName, email: registration.person.email, amount: registration.type.price,
    };
  });
  await tenantSql({ em, tenantId }).all(
    `UPDATE event e SET seats_taken = r.taken FROM (
       SELECT event_id, count(*) AS taken FROM event_registration WHERE ${tenantIs()} AND status = 'registered' GROUP BY event_id) r
     WHERE e.id = r.event_id AND ${tenantIs('e')}`, []);
  await tenantSql({ em, tenantId }).all(
    `UPDATE event_registration_type t SET seats_taken = r.taken FROM (
       SELECT registration_type_id, count(*) AS taken FROM event_registration WHERE ${tenantIs()} AND status = 'registered' GROUP BY registration_type_id) r
     WHERE t.id = r.registration_type_id AND ${tenantIs('t')}`, []);
}

// ---------------------------------------------------------------------------------------------
// Billing schedules: the dues of every active membership, yearly (a tenth monthly), next billed
// on the membership's next anniversary.

export async function seedBillingSchedules(seeding: Seeding, memberships: SeededMembership[]): Promise<void> {
  const { faker, today } = seeding;
  const ctx = serviceContext(seeding);
  const active = memberships.filter((membership) => membership.status === 'active');
  await throughServices(seeding, 'billing schedules', active.length, active, async (membership) => {
    const monthly = faker.datatype.boolean(0.1);
    const frequencyMonths = monthly ? 1 : 12;
    let nextBillDate = addMonths(membership.startDate, frequencyMonths);
    while (nextBillDate <= today) nextBillDate = addMonths(nextBillDate, frequencyMonths);
    const amount = monthly ? toMoneyString(money(membership.type.dues).div(12)) : membership.type.dues;
    return [await saveBillingSchedule(ctx, 0, {
      ContactId: membership.contactId, MembershipId: membership.id, SaleableItemId: membership.type.duesItemId,
      Description: `${membership.type.name} membership dues${monthly ? ' (monthly)' : ''}`, Amount: Number(amount),
      FrequencyMonths: frequencyMonths, StartDate: membership.startDate, NextBillDate: nextBillDate, Status: faker.datatype.boolean(0.92) ? 'active' : 'paused',
      PaymentProfile: faker.datatype.boolean(0.6) ? `card-on-file-${faker.string.alphanumeric(8)}` : null, Tags: ['dues'],
    })];
  });
}

// ---------------------------------------------------------------------------------------------
// Vendors: the association's suppliers (the vendor benchmark's volume in `large`).

export async function seedVendors(seeding: Seeding): Promise<void> {
  const { faker, tenantId } = seeding;
  const seen = new Set<string>();
  await insertRows(seeding, Vendor, 'vendors', seeding.volumes.vendors, () => {
    const name = uniqueName(seen, () => faker.company.name(), vendorNameKey);
    return { tenant: tenantId, name, nameKey: vendorNameKey(name), websiteUrl: faker.datatype.boolean(0.8) ? `https://www.${slug(name)}.example` : null };
  });
}
