import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Decimal } from 'decimal.js';
import { dashboardWidgetPaths, seedDashboardVolume } from '../bench/dashboard-volume.js';
import { monthStart, todayUtc } from '../src/core/dates.js';
import { Contact } from '../src/entities/contact.js';
import { Invoice, Payment } from '../src/entities/commerce.js';
import { DashboardProject, DashboardSalesOpportunity } from '../src/entities/dashboards.js';
import { FileContent, StoredFile } from '../src/entities/file.js';
import { StoredImage } from '../src/entities/image.js';
import { Event, EventRegistration, EventRegistrationOrder, EventRegistrationType } from '../src/entities/event.js';
import { Login } from '../src/entities/login.js';
import { Membership, MembershipLevel, MembershipType } from '../src/entities/membership.js';
import { seedAreas } from '../src/services/seed/demo.js';
import { Tenant } from '../src/entities/tenant.js';
import {
  createTestTenant, expectExactlyOneSucceeds, expectStatementsIndependentOfPageSize, graphql, rest, startRaceServer, type TestServer, type TestTenant,
} from './support/harness.js';

// Every dashboard figure against a fixture whose answers are worked out by hand below; the
// figures of one tenant never move with another tenant's records; statements per widget fixed.
// 401/403 and the generic isolation sweep: test/sweeps.test.ts. Answer times on a tenant with
// 10,000 contacts: `node dist/bench/dashboards.js` (a figure in BENCHMARKS.md, not a test).

let server: TestServer;
let acme: TestTenant;
let fixture: Fixture;

const TODAY = todayUtc();
const YEAR_START = `${TODAY.slice(0, 4)}-01-01`;
/** Day `day` of the month `offset` months from this one (days up to 28 exist in every month). */
const d = (offset: number, day: number) => `${monthStart(TODAY, offset).slice(0, 8)}${String(day).padStart(2, '0')}`;
/** The labels of the last 12 months, this one last. */
const MONTHS = Array.from({ length: 12 }, (_, index) => monthStart(TODAY, index - 11).slice(0, 7));
const inThisYear = (day: string) => day >= YEAR_START && day <= TODAY;
const daysBetween = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / 86_400_000;

interface Fixture {
  gold: number; basic: number; platinum: number; silver: number; org: number; sam: number; mia: number; event: number;
}

/**
 * The fixture (k: the month k months from this one):
 * memberships  m1 p1 Gold/Platinum  d(-14,10)..d(-2,9) lapsed   → followed by m2: neither new in window nor dropped
 *              m2 p1 Gold/Platinum  d(-2,10)..         active   → renewed in -2
 *              m3 p2 Gold           d(-5,1)..d(-1,15)  lapsed   → new in -5, dropped in -1
 *              m4 p3 Basic          d(-3,20)..         active   → new in -3
 *              m5 p4 Basic          d(0,1)..           active   → new in 0
 *              m6 p5 Gold/Silver    d(0,1)             pending  → only "pending"
 *              m7 p6 (deleted) Basic d(-4,1)..         active   → never counts
 *              m8 org Basic         d(-13,5)..         active   → running every month
 *              m9 p2 Basic          d(-6,5)..d(-6,25)  cancelled → new and dropped in -6, never running at a month end
 */
async function seedFixture(tenantId: number, key: string): Promise<Fixture> {
  const em = server.orm.em.fork();
  const tenant = tenantId;
  const gold = em.create(MembershipType, { tenant, name: 'Gold' });
  const basic = em.create(MembershipType, { tenant, name: 'Basic' });
  const platinum = em.create(MembershipLevel, { tenant, membershipType: gold, name: 'Platinum', sortOrder: 1 });
  const silver = em.create(MembershipLevel, { tenant, membershipType: gold, name: 'Silver', sortOrder: 2 });
  const org = em.create(Contact, { tenant, kind: 'organization', name: 'Org One' });
  em.create(Contact, { tenant, kind: 'organization', name: 'Chapter of Org One', parent: org });
  const person = (firstName: string, extra: Partial<Contact> = {}) => em.create(Contact, { tenant, kind: 'person', firstName, lastName: 'Fixture', ...extra });
  const [p1, p2, p3, p4, p5] = [person('P1'), person('P2'), person('P3', { organization: org }), person('P4', { organization: org }), person('P5')];
  const p6 = person('P6', { deletedAt: new Date() });
  const member = (contact: Contact, type: MembershipType, startDate: string, endDate: string | null, status: Membership['status'], level: MembershipLevel | null = null) =>
    em.create(Membership, { tenant, contact, membershipType: type, membershipLevel: level, startDate, endDate, status });
  member(p1, gold, d(-14, 10), d(-2, 9), 'lapsed', platinum);
  member(p1, gold, d(-2, 10), null, 'active', platinum);
  member(p2, gold, d(-5, 1), d(-1, 15), 'lapsed');
  member(p3, basic, d(-3, 20), null, 'active');
  member(p4, basic, d(0, 1), null, 'active');
  member(p5, gold, d(0, 1), null, 'pending', silver);
  member(p6, basic, d(-4, 1), null, 'active');
  member(org, basic, d(-13, 5), null, 'active');
  member(p2, basic, d(-6, 5), d(-6, 25), 'cancelled');

  // Invoices: open 100.00 (30.00 paid, overdue) to the organization, open 50.50 to P1, paid 20.00 to P2.
  const invoice = (number: number, contact: Contact, invoiceDate: string, dueDate: string, status: Invoice['status'], total: string, amountPaid: string) =>
    em.create(Invoice, { tenant, number, contact, invoiceDate, dueDate, status, total, amountPaid, source: 'test' });
  const overdue = invoice(101, org, d(-1, 1), d(-1, 2), 'open', '100.00', '30.00');
  invoice(102, p1, TODAY, '9999-12-31', 'open', '50.50', '0.00');
  const paid = invoice(103, p2, d(0, 1), d(0, 1), 'paid', '20.00', '20.00');
  em.create(Payment, { tenant, invoice: overdue, amount: '30.00', paidAt: new Date(), method: 'card' });
  em.create(Payment, { tenant, invoice: paid, amount: '20.00', paidAt: new Date(), method: 'card' });

  // Images: one waiting to be placed (SourceId 0), one placed on a contact.
  const content = em.create(FileContent, { tenant, sha256: 'a'.repeat(64), size: 1, storage: 'database', bytes: Buffer.from('x') });
  const file = em.create(StoredFile, { tenant, name: 'x.png', mediaType: 'image/png', size: 1, sha256: 'a'.repeat(64), purpose: 'images', content });
  em.create(StoredImage, { tenant, file, name: 'waiting.png', width: 1, height: 1, sourceType: 'Contact', sourceId: 0 });
  em.create(StoredImage, { tenant, file, name: 'placed.png', width: 1, height: 1, sourceType: 'Contact', sourceId: 42 });

  // Projects.
  const project = (name: string, status: DashboardProject['status'], startDate: string, dueDate: string | null, completedDate: string | null) =>
    em.create(DashboardProject, { tenant, name, status, startDate, dueDate, completedDate });
  project('pr1', 'active', d(0, 1), monthStart(TODAY, 2), null);
  project('pr2', 'completed', d(-1, 5), null, TODAY);
  project('pr3', 'planned', TODAY, null, null);
  project('pr4', 'active', d(-2, 1), d(-1, 1), null); // overdue
  project('pr5', 'completed', d(-14, 1), null, d(-13, 1));

  // Sales opportunities: Sam is the staff login, Mia the member login.
  const sam = await em.findOneOrFail(Login, { email: `staff@${key}.example` }, { filters: false });
  const mia = await em.findOneOrFail(Login, { email: `member@${key}.example` }, { filters: false });
  const opportunity = (name: string, stage: DashboardSalesOpportunity['stage'], salesPerson: Login | null, amount: string, openedDate: string, closedDate: string | null) =>
    em.create(DashboardSalesOpportunity, { tenant, name, stage, salesPerson, amount, openedDate, closedDate });
  opportunity('o1', 'won', sam, '1000.10', d(-3, 1), d(-2, 1));
  opportunity('o2', 'won', sam, '499.95', d(0, 1), TODAY);
  opportunity('o3', 'won', mia, '300.25', d(-1, 1), d(-1, 11));
  opportunity('o4', 'lost', sam, '200.00', d(-1, 1), d(-1, 2));
  opportunity('o5', 'lead', sam, '5000.00', d(0, 1), null);
  opportunity('o6', 'proposal', null, '750.25', d(-1, 3), null);
  opportunity('o7', 'won', null, '100.00', d(-13, 1), d(-12, 1)); // before the 12-month window

  // Events: e1 open and coming (capacity 10; Member 50.00, Guest 75.00), e2 a coming draft, e3 held already, e4 cancelled.
  const inDays = (days: number) => new Date(Date.now() + days * 86_400_000);
  const event = (name: string, status: Event['status'], startsAt: Date, capacity: number | null = null) =>
    em.create(Event, { tenant, name, status, startsAt, endsAt: new Date(startsAt.getTime() + 3_600_000), capacity });
  const e1 = event('e1', 'open', inDays(30), 10);
  event('e2', 'draft', inDays(60));
  const e3 = event('e3', 'open', inDays(-10));
  event('e4', 'cancelled', inDays(20));
  const memberType = em.create(EventRegistrationType, { tenant, event: e1, name: 'Member', price: '50.00', sortOrder: 1 });
  const guestType = em.create(EventRegistrationType, { tenant, event: e1, name: 'Guest', price: '75.00', sortOrder: 2 });
  const standard = em.create(EventRegistrationType, { tenant, event: e3, name: 'Standard', price: '20.00' });
  const order1 = em.create(EventRegistrationOrder, { tenant, event: e1, billingContact: p1, idempotencyKey: 'order-1', total: '250.00' });
  const order3 = em.create(EventRegistrationOrder, { tenant, event: e3, billingContact: p2, idempotencyKey: 'order-3', total: '20.00' });
  const registration = (order: EventRegistrationOrder, type: EventRegistrationType, contact: Contact, amount: string, status: EventRegistration['status'], createdAt = new Date()) =>
    em.create(EventRegistration, { tenant, event: order.event, order, registrationType: type, contact, amount, status, createdAt });
  registration(order1, memberType, p1, '50.00', 'registered');
  registration(order1, memberType, p2, '50.00', 'registered');
  registration(order1, guestType, p3, '75.00', 'registered');
  registration(order1, guestType, p4, '75.00', 'cancelled');
  registration(order3, standard, p2, '20.00', 'registered', new Date(`${d(-2, 10)}T12:00:00Z`));
  await em.flush();
  return { gold: gold.id, basic: basic.id, platinum: platinum.id, silver: silver.id, org: org.id, sam: sam.id, mia: mia.id, event: e1.id };
}

beforeAll(async () => {
  server = await startRaceServer();
  acme = await createTestTenant(server, 'dash');
  fixture = await seedFixture(acme.id, 'dash');
});
afterAll(() => server.close());

const get = (path: string, token = acme.staffToken) => rest(server, 'GET', `/api/summary/${path}`, { token });
async function body(path: string, token = acme.staffToken) {
  const response = await get(path, token);
  expect({ path, status: response.status }).toEqual({ path, status: 200 });
  return response.body;
}
/** A chart's values of its first series, by label. */
const byLabel = (chart: { data: { Label: string; Values: number[] }[] }) => Object.fromEntries(chart.data.map((item) => [item.Label, item.Values]));
const monthly = (values: Record<number, number>) => Object.fromEntries(MONTHS.map((month, index) => [month, [values[index - 11] ?? 0]]));
const stats = (rows: { Name: string; Value: string | null }[]) => Object.fromEntries(rows.map((row) => [row.Name, row.Value]));

describe('membership widgets', () => {
  it('counts new, renewed, dropped and total memberships per month, of every type and of one type', async () => {
    const newAll = await body('newmemberships/0');
    expect(newAll.series).toEqual(['New memberships']);
    expect(newAll.data.map((item: { Label: string }) => item.Label)).toEqual(MONTHS);
    expect(byLabel(newAll)).toEqual(monthly({ [-6]: 1, [-5]: 1, [-3]: 1, 0: 1 }));
    expect(newAll.extraStats).toEqual([{ Name: 'Total', Value: '4', Hint: expect.any(String) }]);
    expect(byLabel(await body(`newmemberships/${fixture.gold}`))).toEqual(monthly({ [-5]: 1 }));
    expect(byLabel(await body(`newmemberships/${fixture.basic}`))).toEqual(monthly({ [-6]: 1, [-3]: 1, 0: 1 }));

    expect(byLabel(await body('renewedmemberships'))).toEqual(monthly({ [-2]: 1 }));

    expect(byLabel(await body('droppedmemberships/all'))).toEqual(monthly({ [-6]: 1, [-1]: 1 }));
    expect(byLabel(await body(`droppedmemberships/${fixture.gold}`))).toEqual(monthly({ [-1]: 1 }));

    const total = await body('totalmemberships/0');
    expect(byLabel(total)).toEqual(monthly({ [-11]: 2, [-10]: 2, [-9]: 2, [-8]: 2, [-7]: 2, [-6]: 2, [-5]: 3, [-4]: 3, [-3]: 4, [-2]: 4, [-1]: 3, 0: 4 }));
    expect(total.extraStats[0]).toMatchObject({ Name: 'Now', Value: '4' });
    expect(byLabel(await body(`totalmemberships/${fixture.gold}`))).toEqual(monthly({ [-11]: 1, [-10]: 1, [-9]: 1, [-8]: 1, [-7]: 1, [-6]: 1, [-5]: 2, [-4]: 2, [-3]: 2, [-2]: 2, [-1]: 1, 0: 1 }));
    expect(byLabel(await body(`totalmemberships/${fixture.basic}`))).toEqual(monthly({ [-11]: 1, [-10]: 1, [-9]: 1, [-8]: 1, [-7]: 1, [-6]: 1, [-5]: 1, [-4]: 1, [-3]: 2, [-2]: 2, [-1]: 2, 0: 3 }));
  });

  it('answers the same through GraphQL, and 404 for an {id} that is not one of the tenant\'s types', async () => {
    const response = await graphql(server, `{ dashboardNewMemberships(id: "${fixture.basic}") { series data { Label Values } extraStats { Name Value } } }`, {}, acme.staffToken);
    expect(response.body.errors).toBeUndefined();
    expect(byLabel(response.body.data.dashboardNewMemberships)).toEqual(monthly({ [-6]: 1, [-3]: 1, 0: 1 }));
    expect((await get('newmemberships/987654')).status).toBe(404);
    expect((await get('totalmemberships/abc')).status).toBe(404);
    expect((await get(`newmemberships/${'9'.repeat(5000)}`)).status).toBe(404);
    expect((await get('overallorgstats/-1')).status).toBe(404);
    expect((await get('droppedmemberships/a%00b')).status).toBe(400);
    expect((await graphql(server, '{ dashboardDroppedMemberships(id: "987654") { series } }', {}, acme.staffToken)).status).toBe(404);
  });

  it('distributes today\'s memberships by type, by level within a type, and by category (level)', async () => {
    const types = await body('membershipstypedistribution/0');
    expect(types.data).toEqual([{ Label: 'Basic', Id: fixture.basic, Values: [3] }, { Label: 'Gold', Id: fixture.gold, Values: [1] }]);
    expect(types.extraStats[0]).toMatchObject({ Value: '4' });
    const levels = await body(`membershipstypedistribution/${fixture.gold}`);
    expect(levels.data).toEqual([
      { Label: 'Platinum', Id: fixture.platinum, Values: [1] }, { Label: 'Silver', Id: fixture.silver, Values: [0] }, { Label: '(no level)', Id: null, Values: [0] },
    ]);
    const categories = await body('membershipcategories');
    expect(categories.data).toEqual([{ Label: 'Basic / (no level)', Id: null, Values: [3] }, { Label: 'Gold / Platinum', Id: fixture.platinum, Values: [1] }]);
  });

  it('answers the monthly membership summary (DashboardMembership) with the same figures', async () => {
    const summary = await body('membershipmonthly');
    const months = (values: Record<number, number>) => MONTHS.map((month, index) => ({ Month: month, Count: values[index - 11] ?? 0 }));
    expect(summary).toEqual({
      NewMemberships: months({ [-6]: 1, [-5]: 1, [-3]: 1, 0: 1 }),
      RenewedMemberships: months({ [-2]: 1 }),
      DroppedMemberships: months({ [-6]: 1, [-1]: 1 }),
      TotalMemberships: months({ [-11]: 2, [-10]: 2, [-9]: 2, [-8]: 2, [-7]: 2, [-6]: 2, [-5]: 3, [-4]: 3, [-3]: 4, [-2]: 4, [-1]: 3, 0: 4 }),
      MembershipTypes: [{ MembershipTypeId: fixture.basic, Name: 'Basic', Count: 3 }, { MembershipTypeId: fixture.gold, Name: 'Gold', Count: 1 }],
    });
  });

  it('keeps this year\'s membership scoreboard', async () => {
    const news = [d(-6, 5), d(-5, 1), d(-3, 20), d(0, 1)].filter(inThisYear).length;
    const renewed = [d(-2, 10)].filter(inThisYear).length;
    const dropped = [d(-6, 25), d(-1, 15)].filter(inThisYear).length;
    expect(stats(await body('overallmembershipstats/0'))).toEqual({
      Members: '4', New: String(news), Renewed: String(renewed), Dropped: String(dropped),
      Retention: renewed + dropped === 0 ? null : new Decimal(renewed).times(100).dividedBy(renewed + dropped).toFixed(1), Pending: '1',
    });
    expect(stats(await body(`overallmembershipstats/${fixture.gold}`))).toMatchObject({ Members: '1', Pending: '1' });
    expect(stats(await body(`overallmembershipstats/${fixture.basic}`))).toMatchObject({ Members: '3', Pending: '0' });
  });

  it('keeps the organization scoreboard, for the tenant and for one organization', async () => {
    expect(stats(await body('overallorgstats/0'))).toEqual({ Organizations: '2', 'Member organizations': '1', Chapters: '1', 'Affiliated people': '2' });
    expect(stats(await body(`overallorgstats/${fixture.org}`))).toEqual({ 'Affiliated people': '2', Chapters: '1', Memberships: '3', 'Open balance': '70.00' });
    expect((await get('overallorgstats/987654')).status).toBe(404);
  });
});

describe('quick looks', () => {
  it('counts open invoices with what they owe, pending applications and images waiting to be placed', async () => {
    expect(await body('openinvoicesqlwidget')).toEqual({ Value: '2', Heading: 'Open invoices', SubHeading: '120.50 outstanding, 1 overdue', Action: expect.any(String) });
    expect(await body('pendingapplicationsql')).toMatchObject({ Value: '1', Heading: 'Pending applications', SubHeading: `Memberships waiting since ${TODAY}` });
    expect(await body('pendingwebcontentql')).toMatchObject({ Value: '1', Heading: 'Pending web content' });
  });
});

describe('event widgets', () => {
  it('counts pending events and charts attendee registrations, of every event and of one', async () => {
    expect(await body('eventspendingql')).toMatchObject({ Value: '2', Heading: 'Pending events', SubHeading: '1 not yet open, 3 registered attendees' });
    const all = await body('eventattendeeregistrations/0');
    expect(all.series).toEqual(['Registrations', 'Amount']);
    expect(byLabel(all)).toEqual(Object.fromEntries(MONTHS.map((month, index) => [month, ({ 9: [1, 20], 11: [3, 175] } as Record<number, number[]>)[index] ?? [0, 0]])));
    expect(stats(all.extraStats)).toEqual({ Total: '4' });
    const one = await body(`eventattendeeregistrations/${fixture.event}`);
    expect(one.data.map((item: { Label: string; Values: number[] }) => [item.Label, item.Values])).toEqual([['Member', [2, 100]], ['Guest', [1, 75]]]);
    expect(stats(one.extraStats)).toEqual({ Registered: '3', Cancelled: '1', Capacity: '10', 'Seats left': '7' });
    expect((await get('eventattendeeregistrations/987654')).status).toBe(404);
    const viaGraphql = await graphql(server, `{ dashboardEventAttendeeRegistrations(id: "${fixture.event}") { extraStats { Name Value } } }`, {}, acme.staffToken);
    expect(stats(viaGraphql.body.data.dashboardEventAttendeeRegistrations.extraStats)).toMatchObject({ Registered: '3' });
  });
});

describe('project widgets', () => {
  it('charts projects started and completed this month and this year, and keeps the project scoreboard', async () => {
    const started = await body('newprojectsthismonth');
    const days = new Date(Date.UTC(Number(TODAY.slice(0, 4)), Number(TODAY.slice(5, 7)), 0)).getUTCDate();
    expect(started.data).toHaveLength(days);
    const expectedStarts: Record<string, number> = { [d(0, 1)]: 1 };
    expectedStarts[TODAY] = (expectedStarts[TODAY] ?? 0) + 1;
    const nonZero = (started.data as { Label: string; Values: number[] }[]).filter((item) => item.Values[0] > 0);
    expect(Object.fromEntries(nonZero.map((item) => [item.Label, item.Values[0]]))).toEqual(expectedStarts);
    expect(started.extraStats[0]).toMatchObject({ Value: '2' });

    const completed = await body('projectscompletedthismonth');
    expect(completed.data.filter((item: { Values: number[] }) => item.Values[0] > 0)).toEqual([{ Label: TODAY, Id: null, Values: [1] }]);

    const year = await body('newprojectsthisyear');
    expect(year.data.map((item: { Label: string }) => item.Label)).toEqual(Array.from({ length: 12 }, (_, index) => `${TODAY.slice(0, 4)}-${String(index + 1).padStart(2, '0')}`));
    const startsThisYear = [d(0, 1), d(-1, 5), TODAY, d(-2, 1), d(-14, 1)].filter(inThisYear);
    expect(year.extraStats[0]).toMatchObject({ Value: String(startsThisYear.length) });
    for (const item of year.data as { Label: string; Values: number[] }[]) {
      expect([item.Label, item.Values[0]]).toEqual([item.Label, startsThisYear.filter((day) => day.startsWith(item.Label)).length]);
    }
    const completedYear = await body('projectscompletedthisyear');
    expect(completedYear.extraStats[0]).toMatchObject({ Value: '1' }); // pr2 today; pr5 finished over a year ago

    expect(stats(await body('projectsactivecurrentmonth'))).toEqual({ Active: '2', Planned: '1', 'Started this month': '2', 'Completed this month': '1', Overdue: '1' });
  });
});

describe('sales widgets', () => {
  it('charts wins by month and by sales person', async () => {
    const wins = await body('saleswinsbymonth');
    expect(wins.series).toEqual(['Wins', 'Won amount']);
    expect(byLabel(wins)).toEqual(Object.fromEntries(MONTHS.map((month, index) => [month, ({ 9: [1, 1000.1], 10: [1, 300.25], 11: [1, 499.95] } as Record<number, number[]>)[index] ?? [0, 0]])));
    expect(stats(wins.extraStats)).toEqual({ Wins: '3', 'Won amount': '1800.30' });

    // Over %20: the documented path really has spaces.
    const people = await body('wins%20by%20sales%20person');
    const samWins = [[d(-2, 1), '1000.10'], [TODAY, '499.95']].filter(([day]) => inThisYear(day));
    const miaWins = [[d(-1, 11), '300.25']].filter(([day]) => inThisYear(day));
    const expected = [
      { Label: 'Sam Staff', Id: fixture.sam, Values: [samWins.length, new Decimal(0).plus(samWins.reduce((sum, [, amount]) => sum.plus(amount), new Decimal(0))).toNumber()] },
      ...(miaWins.length ? [{ Label: 'Mia Member', Id: fixture.mia, Values: [1, 300.25] }] : []),
    ].sort((a, b) => b.Values[1] - a.Values[1]);
    expect(people.data).toEqual(expected);
  });

  it('measures sales velocity for everyone and for one sales person, and 404 for a login of no one', async () => {
    const velocity = await body('salesvelocity/all');
    expect(velocity.series).toEqual(['Won amount', 'Wins', 'Average days to win']);
    const days = [daysBetween(d(-3, 1), d(-2, 1)), daysBetween(d(0, 1), TODAY), 10];
    const averageDays = new Decimal(days.reduce((sum, day) => sum + day, 0)).dividedBy(3);
    const averageAmount = new Decimal('1800.30').dividedBy(3); // 600.10
    // open 2 (o5, o6) × win rate 3/4 × 600.10 ÷ average days
    const expectedVelocity = averageAmount.times(2).times(3).dividedBy(4).dividedBy(averageDays.greaterThan(1) ? averageDays : 1).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2);
    expect(stats(velocity.extraStats)).toEqual({
      Velocity: expectedVelocity, 'Open opportunities': '2', 'Win rate': '75.0', 'Average won amount': '600.10', 'Average days to win': averageDays.toFixed(1),
    });
    expect(byLabel(velocity)[MONTHS[10]]).toEqual([300.25, 1, 10]);

    const mia = await body(`salesvelocity/${fixture.mia}`);
    expect(stats(mia.extraStats)).toEqual({ Velocity: '0.00', 'Open opportunities': '0', 'Win rate': '100.0', 'Average won amount': '300.25', 'Average days to win': '10.0' });
    expect((await get('salesvelocity/987654')).status).toBe(404);
  });

  it('keeps this year\'s sales funnel', async () => {
    const opened: [string, string][] = [['won', d(-3, 1)], ['won', d(0, 1)], ['won', d(-1, 1)], ['lost', d(-1, 1)], ['lead', d(0, 1)], ['proposal', d(-1, 3)], ['won', d(-13, 1)]];
    const thisYear = opened.filter(([, day]) => inThisYear(day));
    const countOf = (stage: string) => String(thisYear.filter(([candidate]) => candidate === stage).length);
    const won = Number(countOf('won'));
    const lost = Number(countOf('lost'));
    expect(stats(await body('salesfunnelstatscurrentyear'))).toEqual({
      Lead: countOf('lead'), Qualified: '0', Proposal: countOf('proposal'), Negotiation: '0', Won: countOf('won'), Lost: countOf('lost'),
      'Win rate': won + lost === 0 ? null : new Decimal(won).times(100).dividedBy(won + lost).toFixed(1),
    });
  });
});

describe('TaskDynamic answers', () => {
  it('answers overallstats and tenantdashboardstats as completed tasks with the statistics in Result', async () => {
    const overall = await body('overallstats');
    expect(overall).toMatchObject({
      Status: 'RanToCompletion', IsCompleted: true, IsFaulted: false, IsCanceled: false, Exception: null, 'System.IAsyncResult.CompletedSynchronously': true,
    });
    expect(Object.keys(overall)).toEqual(expect.arrayContaining(['System.IAsyncResult.AsyncWaitHandle', 'ShouldNotifyDebuggerOfWaitCompletion', 'Id', 'CurrentId', 'Factory']));
    // People: P1-P5 and the two logins' contacts (P6 is deleted).
    expect(stats(overall.Result)).toEqual({
      People: '7', Organizations: '2', Members: '4', 'Membership types': '2', 'Open invoices': '2', 'Open balance': '120.50',
      'Received this year': '50.00', 'Upcoming events': '2', 'Active projects': '2', 'Open opportunities': '2', Pipeline: '5750.25',
    });
    const month = await body('tenantdashboardstats');
    expect(month.Status).toBe('RanToCompletion');
    const invoicedThisMonth = [d(-1, 1), TODAY, d(0, 1)].filter((day) => day >= d(0, 1)).length;
    expect(stats(month.Result)).toEqual({
      'New members': '1', Renewals: '0', Dropped: '0', Members: '4', 'Pending applications': '1', 'Invoices raised': String(invoicedThisMonth),
      Received: '50.00', 'Projects completed': '1', Wins: '1', 'Event registrations': '3',
    });
    const viaGraphql = await graphql(server, '{ dashboardOverallStats { Status System_IAsyncResult_CompletedSynchronously Result { Name Value } } }', {}, acme.staffToken);
    expect(viaGraphql.body.data.dashboardOverallStats).toMatchObject({ Status: 'RanToCompletion', System_IAsyncResult_CompletedSynchronously: true });
  });
});

describe('projects and sales opportunities (GraphQL only)', () => {
  let crud: TestTenant;
  const PROJECT = 'ProjectId Name Description Status StartDate DueDate CompletedDate ManagerLoginId AuditId';
  const OPPORTUNITY = 'SalesOpportunityId Name ContactId SalesPersonLoginId Stage Amount OpenedDate ClosedDate AuditId';
  beforeAll(async () => { crud = await createTestTenant(server, 'dash-crud'); });
  const saveProject = (projectId: number, input: Record<string, unknown>, token = crud.staffToken) =>
    graphql(server, `mutation($id: Int!, $input: ProjectInput!) { saveProject(projectId: $id, input: $input) { ${PROJECT} } }`, { id: projectId, input }, token);
  const saveOpportunity = (id: number, input: Record<string, unknown>, token = crud.staffToken) =>
    graphql(server, `mutation($id: Int!, $input: SalesOpportunityInput!) { saveSalesOpportunity(salesOpportunityId: $id, input: $input) { ${OPPORTUNITY} } }`, { id, input }, token);

  it('creates, reads, lists, updates (AuditId checked) and deletes a project', async () => {
    const created = await saveProject(0, { Name: ' Website ', StartDate: '2026-01-05', DueDate: '2026-03-01' });
    expect(created.body.errors).toBeUndefined();
    const project = created.body.data.saveProject;
    expect(project).toEqual({
      ProjectId: expect.any(Number), Name: 'Website', Description: null, Status: 'planned', StartDate: '2026-01-05', DueDate: '2026-03-01',
      CompletedDate: null, ManagerLoginId: null, AuditId: 1,
    });
    const completed = await saveProject(project.ProjectId, { Name: 'Website', StartDate: '2026-01-05', Status: 'completed', AuditId: 1 });
    expect(completed.body.data.saveProject).toMatchObject({ Status: 'completed', CompletedDate: TODAY, AuditId: 2 });
    expect((await saveProject(project.ProjectId, { Name: 'Stale', AuditId: 1 })).status).toBe(409);
    const read = await graphql(server, `{ project(projectId: ${project.ProjectId}) { ${PROJECT} } }`, {}, crud.staffToken);
    expect(read.body.data.project.Name).toBe('Website');
    const listed = await graphql(server, `{ projects(options: { Filter: "web" }) { ${PROJECT} } }`, {}, crud.staffToken);
    expect(listed.body.data.projects.map((row: { ProjectId: number }) => row.ProjectId)).toEqual([project.ProjectId]);
    expect((await graphql(server, `mutation { deleteProject(projectId: ${project.ProjectId}, auditId: 1) }`, {}, crud.staffToken)).status).toBe(409);
    expect((await graphql(server, `mutation { deleteProject(projectId: ${project.ProjectId}, auditId: 2) }`, {}, crud.staffToken)).body.data.deleteProject).toBe(project.ProjectId);
    expect((await graphql(server, `{ project(projectId: ${project.ProjectId}) { ProjectId } }`, {}, crud.staffToken)).status).toBe(404);
  });

  it.each([
    [{ Name: '' }, 'Name'],
    [{ Name: 'x', Status: 'sleeping' }, 'Status'],
    [{ Name: 'x', StartDate: '2026-02-30' }, 'StartDate'],
    [{ Name: 'x', StartDate: '2026-02-01', DueDate: '2026-01-01' }, 'DueDate'],
    [{ Name: 'x', CompletedDate: '2026-02-01' }, 'CompletedDate'],
    [{ Name: 'x', Status: 'completed', StartDate: '2026-02-01', CompletedDate: '2026-01-01' }, 'CompletedDate'],
    [{ Name: 'x'.repeat(201) }, 'Name'],
  ])('refuses the project %j naming %s', async (input, field) => {
    const response = await saveProject(0, input);
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body.errors)).toContain(field);
  });

  it('keeps sales opportunities: exact amounts, closing dates with won or lost, the tenant\'s own contacts and logins only', async () => {
    const created = await saveOpportunity(0, { Name: 'Gala sponsor', Amount: 1250.1, Stage: 'won', OpenedDate: '2026-01-01' });
    expect(created.body.data.saveSalesOpportunity).toMatchObject({ Amount: 1250.1, Stage: 'won', ClosedDate: TODAY, AuditId: 1 });
    const id = created.body.data.saveSalesOpportunity.SalesOpportunityId;
    for (const [input, field] of [
      [{ Name: 'x', Amount: 1.005 }, 'Amount'], [{ Name: 'x', Amount: -1 }, 'Amount'], [{ Name: 'x', Amount: 1, Stage: 'lead', ClosedDate: '2026-01-01' }, 'ClosedDate'],
      [{ Name: 'x', Amount: 1, Stage: 'maybe' }, 'Stage'],
    ] as const) {
      const response = await saveOpportunity(0, input);
      expect({ input, status: response.status, named: JSON.stringify(response.body.errors).includes(field) }).toEqual({ input, status: 400, named: true });
    }
    // Another tenant's contact and login are not found; another tenant cannot see or change the record.
    expect((await saveOpportunity(0, { Name: 'x', Amount: 1, ContactId: 1 })).status).toBe(404);
    expect((await saveOpportunity(0, { Name: 'x', Amount: 1, SalesPersonLoginId: fixture.sam })).status).toBe(404);
    expect((await graphql(server, `{ salesOpportunity(salesOpportunityId: ${id}) { Name } }`, {}, acme.staffToken)).status).toBe(404);
    expect((await saveOpportunity(id, { Name: 'Taken', Amount: 1 }, acme.staffToken)).status).toBe(404);
    expect((await graphql(server, `{ salesOpportunities { Name } }`, {}, crud.memberToken)).status).toBe(403);
  });

  it('lets exactly one of concurrent saves of one version and of concurrent deletes succeed', async () => {
    const created = await saveOpportunity(0, { Name: 'Booth', Amount: 300 });
    const id = created.body.data.saveSalesOpportunity.SalesOpportunityId;
    await expectExactlyOneSucceeds(Array.from({ length: 10 }, (_, index) => () => saveOpportunity(id, { Name: `Booth ${index}`, Amount: 300 + index, AuditId: 1 })), [409]);
    await expectExactlyOneSucceeds(Array.from({ length: 10 }, () => () => graphql(server, `mutation { deleteSalesOpportunity(salesOpportunityId: ${id}) }`, {}, crud.staffToken)), [404]);
  });

  it('lists with statements independent of the page size', async () => {
    for (let index = 0; index < 60; index++) {
      await saveProject(0, { Name: `Project ${index}` });
      await saveOpportunity(0, { Name: `Opportunity ${index}`, Amount: index });
    }
    await expectStatementsIndependentOfPageSize(server, async (take) => {
      const response = await graphql(server, `{ projects(options: { Take: ${take} }) { ProjectId } }`, {}, crud.staffToken);
      expect(response.body.data.projects).toHaveLength(take);
    }, 2);
    await expectStatementsIndependentOfPageSize(server, async (take) => {
      const response = await graphql(server, `{ salesOpportunities(options: { Take: ${take}, OrderBy: "Amount desc" }) { Amount } }`, {}, crud.staffToken);
      expect(response.body.data.salesOpportunities).toHaveLength(take);
    }, 2);
  });
});

/** The answers of every widget, without the one part that changes per call (the task Id). */
async function snapshot(tenant: TestTenant, own: Fixture): Promise<Record<string, unknown>> {
  const answers: Record<string, unknown> = {};
  for (const path of dashboardWidgetPaths(own)) {
    const answer = await body(path, tenant.staffToken);
    if (answer && typeof answer === 'object' && 'Id' in answer && 'Result' in answer) delete answer.Id;
    answers[path] = answer;
  }
  return answers;
}

describe('tenant isolation of every figure', () => {
  it('never moves one tenant\'s figures with another tenant\'s records, and never reaches the other tenant\'s {id}s', async () => {
    const before = await snapshot(acme, fixture);
    const other = await createTestTenant(server, 'dash-other');
    const theirs = await seedFixture(other.id, 'dash-other');
    const em = server.orm.em.fork();
    await seedAreas(em, await em.findOneOrFail(Tenant, { id: other.id }), 'OTHER');
    expect(await snapshot(acme, fixture)).toEqual(before);
    // The other tenant sees its own copy of the fixture plus its demo records, not ours.
    expect((await body('overallstats', other.staffToken)).Result).not.toEqual(before.overallstats);
    for (const path of [`eventattendeeregistrations/${fixture.event}`, `newmemberships/${fixture.gold}`, `membershipstypedistribution/${fixture.basic}`, `overallorgstats/${fixture.org}`, `salesvelocity/${fixture.sam}`]) {
      expect({ path, status: (await get(path, other.staffToken)).status }).toEqual({ path, status: 404 });
    }
    expect(theirs.gold).not.toBe(fixture.gold);
  });
});

describe('statements per widget', () => {
  it('runs a fixed number of statements per widget, however many records there are', async () => {
    const cost = async (path: string) => {
      const before = server.statements();
      await body(path);
      return server.statements() - before;
    };
    const first: Record<string, number> = {};
    await body('overallstats'); // the caller's credential known to the instance (cached) from here on
    for (const path of dashboardWidgetPaths(fixture)) first[path] = await cost(path);
    // The widget's one statement; + one where {id} names a record to check; two for the monthly summary and the month's TaskDynamic.
    const withId = (path: string) => /\/[1-9]\d*$/.test(path) && !path.startsWith('overallorgstats') && !path.startsWith('eventattendeeregistrations');
    for (const [path, statements] of Object.entries(first)) {
      const expected = 1 + (withId(path) ? 1 : 0) + (path === 'membershipmonthly' || path === 'tenantdashboardstats' ? 1 : 0);
      expect({ path, statements }).toEqual({ path, statements: expected });
    }
    // Many more records: the same statements.
    await seedDashboardVolume(server.orm, acme.id, 500);
    for (const path of dashboardWidgetPaths(fixture)) expect({ path, statements: await cost(path) }).toEqual({ path, statements: first[path] });
  });
});
