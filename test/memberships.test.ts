import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { MikroORM } from '@mikro-orm/postgresql';
import { addDays, addMonths, todayUtc } from '../src/core/dates.js';
import { openOrm } from '../src/db/orm.js';
import { Contact } from '../src/entities/contact.js';
import { Membership, MembershipType } from '../src/entities/membership.js';
import { reportRunJobs } from '../src/services/reporting/report-runs.js';
import { LAPSE_QUEUE, lapseEndedMemberships, membershipLapseJob } from '../src/services/memberships/lapse.js';
import { termEnd } from '../src/services/memberships/terms.js';
import {
  createTestTenant, expectExactlyOneSucceeds, expectStatementsIndependentOfPageSize, graphql, rest, startTestServer, type TestServer, type TestTenant,
} from './support/harness.js';

// Membership types with levels and membership terms: every operation over REST and GraphQL, the
// lifecycle (enrol → bill/activate → lapse → renew → cancel) as the dashboards and the roster
// report see it, the staff override, the daily lapse job run by two instances at once, and the
// races. 401/403, malformed input and tenant isolation: test/sweeps.test.ts.

let server: TestServer;
let acme: TestTenant;
const TODAY = todayUtc();

beforeAll(async () => {
  server = await startTestServer({ DATABASE_POOL_MAX: '20' }, { jobs: [membershipLapseJob, ...reportRunJobs({ batchSize: 50, pumpEveryMs: 100, retryDelaySeconds: 1 })] });
  acme = await createTestTenant(server, 'members');
}, 60_000);
afterAll(() => server.close());

const staff = (method: string, path: string, body?: unknown) => rest(server, method, path, { token: acme.staffToken, body });
async function gql<T = any>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const response = await graphql<T>(server, query, variables, acme.staffToken);
  expect(response.body.errors).toBeUndefined();
  return response.body.data as T;
}
async function ok<T = any>(response: Promise<{ status: number; body: T; text: string }>): Promise<T> {
  const answer = await response;
  expect({ status: answer.status, text: answer.status === 200 ? '' : answer.text }).toEqual({ status: 200, text: '' });
  return answer.body;
}

async function person(firstName: string, lastName = 'Member'): Promise<number> {
  const em = server.orm.em.fork();
  const contact = em.create(Contact, { tenant: acme.id, kind: 'person', firstName, lastName, email: `${firstName.toLowerCase()}@members.example` });
  await em.flush();
  return contact.id;
}

const saveType = (id: number, body: Record<string, unknown>) => staff('POST', `/api/membershiptypes/${id}`, body);
const enrol = (body: Record<string, unknown>) => staff('POST', '/api/memberships/0', body);
const membershipOf = (id: number) => ok(staff('GET', `/api/memberships/${id}`));
const listMemberships = (filter: Record<string, unknown>) => ok(staff('POST', '/api/memberships/items', filter));
const summary = (path: string) => ok(staff('GET', `/api/summary/${path}`));
const byLabel = (chart: { data: { Label: string; Values: number[] }[] }) => Object.fromEntries(chart.data.map((item) => [item.Label, item.Values[0]]));

describe('membership types', () => {
  it('creates a type with levels, reads, lists and updates it at /api/membershiptypes, keeping level ids', async () => {
    const created = await ok(saveType(0, {
      Name: 'Individual', Description: 'People', DurationMonths: 12, GraceDays: 30, Price: '120.5',
      Levels: [{ Name: 'Gold', Price: '200.00' }, { Name: 'Silver' }],
    }));
    expect(created).toMatchObject({
      MembershipTypeId: expect.any(Number), AuditId: 1, Name: 'Individual', Description: 'People', IsActive: true, DurationMonths: 12, PeriodType: 'rolling',
      FixedStartMonth: null, FixedStartDay: null, GraceDays: 30, Price: '120.50', SaleableItemId: null, BenefitPackageId: null,
      Levels: [
        { MembershipLevelId: expect.any(Number), Name: 'Gold', SortOrder: 0, Price: '200.00', BenefitPackageId: null },
        { MembershipLevelId: expect.any(Number), Name: 'Silver', SortOrder: 1, Price: null, BenefitPackageId: null },
      ],
    });
    const id = created.MembershipTypeId as number;
    expect(await ok(staff('GET', `/api/membershiptypes/${id}`))).toEqual(created);
    const [gold] = created.Levels;

    // Gold kept (renamed, moved last), Silver removed (unused), Bronze added; the version moves on.
    const updated = await ok(saveType(id, { ...created, AuditId: 1, Levels: [{ Name: 'Bronze' }, { MembershipLevelId: gold.MembershipLevelId, Name: 'Gold+', Price: '250' }] }));
    expect(updated.AuditId).toBe(2);
    expect(updated.Levels.map((level: { Name: string; SortOrder: number }) => [level.Name, level.SortOrder])).toEqual([['Bronze', 0], ['Gold+', 1]]);
    expect(updated.Levels[1]).toMatchObject({ MembershipLevelId: gold.MembershipLevelId, Price: '250.00' });
    expect((await saveType(id, { ...created, AuditId: 1 })).status).toBe(409); // stale
    expect((await saveType(987654, { Name: 'Nowhere' })).status).toBe(404);
    expect((await staff('GET', '/api/membershiptypes/987654')).status).toBe(404);

    const listed = await ok(staff('GET', `/api/membershiptypes?options=${encodeURIComponent(JSON.stringify({ Filter: 'individ' }))}`));
    expect(listed).toMatchObject({ TotalRecordAvailable: '1', Results: [{ MembershipTypeId: id, Name: 'Individual', Price: '120.50', LevelsCount: 2, Actions: ['Edit', 'Delete'] }] });
  });

  it('refuses what it cannot keep: a fixed period without its month, a bad price, another type\'s level, unknown packages', async () => {
    const fixed = await saveType(0, { Name: 'Calendar year', PeriodType: 'fixed' });
    expect(fixed.status).toBe(400);
    expect(fixed.text).toContain('FixedStartMonth');
    expect((await saveType(0, { Name: 'Cheap', Price: '1.234' })).status).toBe(400);
    expect((await saveType(0, { Name: 'Packaged', BenefitPackageId: 987654 })).status).toBe(404);
    const other = await ok(saveType(0, { Name: 'Other', Levels: [{ Name: 'Only' }] }));
    const mine = await ok(saveType(0, { Name: 'Mine' }));
    const stolen = await saveType(mine.MembershipTypeId, { Name: 'Mine', Levels: [{ MembershipLevelId: other.Levels[0].MembershipLevelId, Name: 'Taken' }] });
    expect(stolen.status).toBe(400);
    expect(stolen.text).toContain('Levels.0.MembershipLevelId');
  });

  it('computes terms: rolling from the start, fixed to the end of the period it starts in', () => {
    const rolling = { durationMonths: 12, periodType: 'rolling' as const, fixedStartMonth: null, fixedStartDay: null };
    expect(termEnd(rolling, '2026-01-31')).toBe('2027-01-30');
    expect(termEnd({ ...rolling, durationMonths: null }, '2026-01-31')).toBeNull();
    const fiscal = { durationMonths: 12, periodType: 'fixed' as const, fixedStartMonth: 7, fixedStartDay: 1 };
    expect(termEnd(fiscal, '2026-05-10')).toBe('2026-06-30');
    expect(termEnd(fiscal, '2026-07-01')).toBe('2027-06-30');
    expect(termEnd({ ...fiscal, durationMonths: 6 }, '2026-08-15')).toBe('2026-12-31');
  });

  it('is served through GraphQL too, and a type in use is not deleted (409 naming the uses) — deactivated instead', async () => {
    const FIELDS = 'MembershipTypeId AuditId Name IsActive PeriodType FixedStartMonth FixedStartDay Levels { MembershipLevelId Name Price }';
    const saved = (await gql(`mutation($i: MembershipTypeInput!) { saveMembershipType(membershipTypeId: 0, input: $i) { ${FIELDS} } }`,
      { i: { Name: 'Fiscal year', PeriodType: 'fixed', FixedStartMonth: 7, Levels: [{ Name: 'Basic', Price: '10.00' }] } })).saveMembershipType;
    expect(saved).toMatchObject({ AuditId: 1, PeriodType: 'fixed', FixedStartMonth: 7, FixedStartDay: 1, Levels: [{ Name: 'Basic', Price: '10.00' }] });
    const id = saved.MembershipTypeId as number;
    expect((await gql(`{ membershipType(membershipTypeId: ${id}) { ${FIELDS} } }`)).membershipType).toEqual(saved);
    const list = (await gql('{ membershipTypes(options: { Filter: "fiscal" }) { TotalRecordAvailable Results { MembershipTypeId } } }')).membershipTypes;
    expect(list).toEqual({ TotalRecordAvailable: '1', Results: [{ MembershipTypeId: id }] });

    const member = await ok(enrol({ ContactId: await person('Ulla'), MembershipTypeId: id, MembershipLevelId: saved.Levels[0].MembershipLevelId }));
    const inUse = await staff('DELETE', `/api/membershiptypes/${id}/1`);
    expect(inUse.status).toBe(409);
    expect(inUse.body.detail ?? inUse.text).toContain('1 memberships');
    // Nor may its level in use be dropped.
    const dropLevel = await saveType(id, { Name: 'Fiscal year', PeriodType: 'fixed', FixedStartMonth: 7, AuditId: 1, Levels: [] });
    expect(dropLevel.status).toBe(409);
    // Deactivated, the type keeps its member and takes no new one.
    expect((await ok(saveType(id, { Name: 'Fiscal year', PeriodType: 'fixed', FixedStartMonth: 7, AuditId: 1, IsActive: false }))).IsActive).toBe(false);
    expect((await enrol({ ContactId: await person('Vera'), MembershipTypeId: id })).status).toBe(409);
    expect((await membershipOf(member.MembershipId)).Status).toBe('pending');

    // Store items and directories that name a type hold it too.
    const unusedButListed = await ok(saveType(0, { Name: 'Listed' }));
    await server.orm.em.fork().getConnection().execute(
      `insert into directory (tenant_id, name, category_list_ids, search_settings, membership_type_ids) values (?, 'Members', '[]', '{}', ?::jsonb)`, [acme.id, JSON.stringify([unusedButListed.MembershipTypeId])]);
    const listed = await staff('DELETE', `/api/membershiptypes/${unusedButListed.MembershipTypeId}/1`);
    expect(listed.status).toBe(409);
    expect(listed.text).toContain('1 directories');

    const unused = await ok(saveType(0, { Name: 'Unused' }));
    const deleted = await graphql(server, `mutation { deleteMembershipType(membershipTypeId: ${unused.MembershipTypeId}, auditId: 1) }`, {}, acme.staffToken);
    expect(deleted.body).toEqual({ data: { deleteMembershipType: unused.MembershipTypeId } });
    expect((await staff('GET', `/api/membershiptypes/${unused.MembershipTypeId}`)).status).toBe(404);
    const restUnused = await ok(saveType(0, { Name: 'Unused over REST' }));
    expect((await staff('DELETE', `/api/membershiptypes/${restUnused.MembershipTypeId}/2`)).status).toBe(409); // stale
    expect((await staff('DELETE', `/api/membershiptypes/${restUnused.MembershipTypeId}/1`)).status).toBe(200);
  });
});

describe('membership lifecycle', () => {
  it('enrols, activates, lapses, renews and cancels a member, and the dashboards and the roster report follow', async () => {
    const type = await ok(saveType(0, { Name: 'Half year', DurationMonths: 6, GraceDays: 0 }));
    const typeId = type.MembershipTypeId as number;
    const ada = await person('Ada', 'Lovelace');
    const start = addMonths(TODAY, -6);

    // Enrolled six months ago: pending, end derived from the type, join date = start.
    const enrolled = await ok(enrol({ ContactId: ada, MembershipTypeId: typeId, StartDate: start }));
    expect(enrolled).toMatchObject({
      ContactId: ada, ContactName: 'Ada Lovelace', MembershipTypeId: typeId, MembershipTypeName: 'Half year', MembershipLevelId: null, JoinDate: start, StartDate: start,
      EndDate: addDays(TODAY, -1), GoodThrough: addDays(TODAY, -1), Status: 'pending', StatusOverride: false, InGoodStanding: false, AuditId: 1, InvoiceId: null,
    });
    const id = enrolled.MembershipId as number;
    expect((await staff('POST', `/api/memberships/${id}/activate/7`)).status).toBe(409); // stale
    const active = await ok(staff('POST', `/api/memberships/${id}/activate/1`));
    expect(active).toMatchObject({ Status: 'active', AuditId: 2, InGoodStanding: false }); // ended yesterday
    expect((await staff('POST', `/api/memberships/${id}/activate/2`)).status).toBe(409); // not pending any more

    // The daily job lapses it (ended yesterday, no grace days), once.
    await server.boss!.send(LAPSE_QUEUE, {});
    for (const deadline = Date.now() + 20_000; (await membershipOf(id)).Status !== 'lapsed';) {
      if (Date.now() > deadline) throw new Error('the lapse job did not run');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await membershipOf(id)).toMatchObject({ Status: 'lapsed', AuditId: 3 });
    expect(await lapseEndedMemberships(server.orm)).toBe(0);

    // Renewed: a new term from the day after the end (today), active, the join date carried over.
    const renewal = await ok(staff('POST', `/api/memberships/${id}/renew/3`, {}));
    expect(renewal).toMatchObject({
      MembershipId: expect.any(Number), JoinDate: start, StartDate: TODAY, EndDate: addDays(addMonths(TODAY, 6), -1), Status: 'active', InGoodStanding: true, AuditId: 1,
    });
    expect((await staff('POST', `/api/memberships/${id}/renew/4`, {})).status).toBe(409); // renewed already
    const month = (day: string) => day.slice(0, 7);
    expect(byLabel(await summary(`newmemberships/${typeId}`))[month(start)]).toBe(1);
    expect(byLabel(await summary('renewedmemberships'))[month(TODAY)]).toBeGreaterThanOrEqual(1);
    expect(byLabel(await summary(`droppedmemberships/${typeId}`))[month(addDays(TODAY, -1))]).toBe(0);
    expect(byLabel(await summary(`membershipstypedistribution/${typeId}`))['(no level)']).toBe(1);
    const inGood = await listMemberships({ MembershipTypeId: typeId, InGoodStandingOn: TODAY });
    expect(inGood).toMatchObject({ TotalRecordAvailable: '1', Results: [{ MembershipId: renewal.MembershipId }] });

    // Cancelled from today: the renewal never ran (end = start − 1), so the first term was dropped.
    const cancelled = await ok(staff('POST', `/api/memberships/${renewal.MembershipId}/cancel/1`, { Reason: 'Moved away' }));
    expect(cancelled).toMatchObject({ Status: 'cancelled', EndDate: addDays(TODAY, -1), CancelReason: 'Moved away', InGoodStanding: false, AuditId: 2 });
    expect((await staff('POST', `/api/memberships/${renewal.MembershipId}/cancel/2`, {})).status).toBe(409); // cancelled already
    expect((await staff('POST', `/api/memberships/${id}/cancel/3`, { EffectiveDate: addDays(TODAY, 1) })).status).toBe(400);
    expect(byLabel(await summary(`droppedmemberships/${typeId}`))[month(addDays(TODAY, -1))]).toBe(1);
    expect(byLabel(await summary(`membershipstypedistribution/${typeId}`))['(no level)']).toBe(0);
    expect((await listMemberships({ MembershipTypeId: typeId, InGoodStandingOn: TODAY })).TotalRecordAvailable).toBe('0');

    // The roster report lists both terms as they stand.
    const roster = await runReport('Membership roster');
    expect(roster).toContain(`${id},${ada},Ada Lovelace,Half year,,lapsed,${start},${addDays(TODAY, -1)}`);
    expect(roster).toContain(`${renewal.MembershipId},${ada},Ada Lovelace,Half year,,cancelled,${TODAY},${addDays(TODAY, -1)}`);
    expect(await runReport('Active memberships')).not.toContain('Ada Lovelace');
  }, 60_000);

  it('bills a term at its level\'s price and activates it when the invoice is paid; a billed renewal likewise', async () => {
    const type = await ok(saveType(0, { Name: 'Billed', Price: '120.00', Levels: [{ Name: 'Student', Price: '40.50' }, { Name: 'Regular' }] }));
    const [student, regular] = type.Levels;
    const bo = await person('Bo');
    const term = await ok(enrol({ ContactId: bo, MembershipTypeId: type.MembershipTypeId, MembershipLevelId: student.MembershipLevelId, BillIt: true }));
    expect(term).toMatchObject({ Status: 'pending', MembershipLevelName: 'Student', InvoiceId: expect.any(Number) });
    const invoice = (await gql(`{ invoice(invoiceId: ${term.InvoiceId}) { Total Status } }`)).invoice;
    expect(invoice).toMatchObject({ Total: 40.5, Status: 'open' });
    await gql(`mutation { payInvoice(invoiceId: ${term.InvoiceId}, input: { Amount: 40.5, Method: "card" }) { Status } }`);
    expect(await membershipOf(term.MembershipId)).toMatchObject({ Status: 'active', AuditId: 2, InGoodStanding: true });

    // Renewed with a bill: pending until paid, at the level's price.
    const renewal = (await gql(`mutation { renewMembership(membershipId: ${term.MembershipId}, auditId: 2, input: { BillIt: true }) { MembershipId Status StartDate InvoiceId } }`)).renewMembership;
    expect(renewal).toMatchObject({ Status: 'pending', StartDate: addDays(addMonths(TODAY, 12), 0) });
    await gql(`mutation { payInvoice(invoiceId: ${renewal.InvoiceId}, input: { Amount: 40.5, Method: "card" }) { Status } }`);
    expect((await membershipOf(renewal.MembershipId)).Status).toBe('active');

    // A level without a price bills the type's; a type without any price cannot be billed.
    const regularTerm = await ok(enrol({ ContactId: await person('Cy'), MembershipTypeId: type.MembershipTypeId, MembershipLevelId: regular.MembershipLevelId, BillIt: true }));
    expect((await gql(`{ invoice(invoiceId: ${regularTerm.InvoiceId}) { Total } }`)).invoice.Total).toBe(120);
    const free = await ok(saveType(0, { Name: 'Free' }));
    const unbillable = await enrol({ ContactId: bo, MembershipTypeId: free.MembershipTypeId, BillIt: true });
    expect(unbillable.status).toBe(400);
    expect(unbillable.text).toContain('BillIt');
    // Cancelling a billed pending term voids its unpaid invoice.
    await ok(staff('POST', `/api/memberships/${regularTerm.MembershipId}/cancel/1`, {}));
    expect((await gql(`{ invoice(invoiceId: ${regularTerm.InvoiceId}) { Status } }`)).invoice.Status).toBe('void');
  });

  it('serves every membership operation through GraphQL', async () => {
    const type = await ok(saveType(0, { Name: 'Over GraphQL', DurationMonths: 12 }));
    const contactId = await person('Gus');
    const FIELDS = 'MembershipId AuditId ContactId Status StartDate EndDate JoinDate StatusOverride InGoodStanding';
    const saved = (await gql(`mutation($i: MembershipInput!) { saveMembership(membershipId: 0, input: $i) { ${FIELDS} } }`,
      { i: { ContactId: contactId, MembershipTypeId: type.MembershipTypeId, StartDate: '2026-01-15', JoinDate: '2020-03-01' } })).saveMembership;
    expect(saved).toMatchObject({ Status: 'pending', StartDate: '2026-01-15', EndDate: '2027-01-14', JoinDate: '2020-03-01' });
    const id = saved.MembershipId as number;
    expect((await gql(`{ membership(membershipId: ${id}) { ${FIELDS} } }`)).membership).toEqual(saved);
    const listed = (await gql(`{ memberships(filter: { ContactId: ${contactId} }) { TotalRecordAvailable Criteria { ContactId } Results { MembershipId } } }`)).memberships;
    expect(listed).toEqual({ TotalRecordAvailable: '1', Criteria: { ContactId: contactId }, Results: [{ MembershipId: id }] });
    const activated = (await gql(`mutation { activateMembership(membershipId: ${id}, auditId: 1) { Status AuditId } }`)).activateMembership;
    expect(activated).toEqual({ Status: 'active', AuditId: 2 });
    const renewed = (await gql(`mutation { renewMembership(membershipId: ${id}, auditId: 2) { MembershipId StartDate JoinDate Status } }`)).renewMembership;
    expect(renewed).toMatchObject({ StartDate: '2027-01-15', JoinDate: '2020-03-01', Status: 'active' });
    const cancelled = (await gql(`mutation { cancelMembership(membershipId: ${renewed.MembershipId}, auditId: 1, input: { Reason: "asked" }) { Status EndDate } }`)).cancelMembership;
    expect(cancelled).toEqual({ Status: 'cancelled', EndDate: '2027-01-14' });
    const stale = await graphql(server, `mutation { activateMembership(membershipId: ${id}, auditId: 1) { Status } }`, {}, acme.staffToken);
    expect(stale.body.errors?.[0].extensions.code).toBe('CONFLICT');
  });

  it('lets staff set a status by hand (StatusOverride), which the lapse job respects until the override is cleared', async () => {
    const type = await ok(saveType(0, { Name: 'Overridden', DurationMonths: 1 }));
    const contactId = await person('Olga');
    const started = addMonths(TODAY, -3);
    const term = await ok(enrol({ ContactId: contactId, MembershipTypeId: type.MembershipTypeId, StartDate: started, Status: 'active' }));
    expect(term).toMatchObject({ Status: 'active', EndDate: addDays(addMonths(started, 1), -1) });
    const base = { MembershipTypeId: type.MembershipTypeId };
    const refused = await staff('POST', `/api/memberships/${term.MembershipId}`, { ...base, AuditId: 1, Status: 'lapsed' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Status');
    // Kept active by hand although it ended: the job leaves it.
    const pinned = await ok(staff('POST', `/api/memberships/${term.MembershipId}`, { ...base, AuditId: 1, Status: 'active', StatusOverride: true }));
    expect(pinned).toMatchObject({ Status: 'active', StatusOverride: true, AuditId: 2 });
    await lapseEndedMemberships(server.orm);
    expect(await membershipOf(term.MembershipId)).toMatchObject({ Status: 'active', AuditId: 2 });
    // The override cleared, the job manages it again.
    await ok(staff('POST', `/api/memberships/${term.MembershipId}`, { ...base, AuditId: 2, StatusOverride: false }));
    expect(await lapseEndedMemberships(server.orm)).toBeGreaterThanOrEqual(1);
    expect(await membershipOf(term.MembershipId)).toMatchObject({ Status: 'lapsed', StatusOverride: false, AuditId: 4 });
    // A term keeps its type and contact.
    const other = await ok(saveType(0, { Name: 'Another' }));
    expect((await staff('POST', `/api/memberships/${term.MembershipId}`, { MembershipTypeId: other.MembershipTypeId, AuditId: 4 })).status).toBe(400);
    expect((await enrol({ MembershipTypeId: type.MembershipTypeId })).status).toBe(400); // ContactId needed
    expect((await enrol({ ContactId: 987654, MembershipTypeId: type.MembershipTypeId })).status).toBe(404);
    expect((await staff('GET', '/api/memberships/987654')).status).toBe(404);
  });

  it('lists terms by contact, type, level, status and good standing, at a cost independent of the page size', async () => {
    const type = await ok(saveType(0, { Name: 'Listed terms', Levels: [{ Name: 'Top' }] }));
    const contacts = await Promise.all(Array.from({ length: 6 }, (_, index) => person(`Lister${index}`)));
    for (const [index, contactId] of contacts.entries()) {
      await ok(enrol({ ContactId: contactId, MembershipTypeId: type.MembershipTypeId, Status: index % 2 ? 'active' : 'pending', MembershipLevelId: index === 0 ? type.Levels[0].MembershipLevelId : null }));
    }
    const typeFilter = { MembershipTypeId: type.MembershipTypeId };
    expect((await listMemberships(typeFilter)).TotalRecordAvailable).toBe('6');
    expect((await listMemberships({ ...typeFilter, Status: 'active' })).TotalRecordAvailable).toBe('3');
    expect((await listMemberships({ ...typeFilter, InGoodStandingOn: TODAY })).TotalRecordAvailable).toBe('3');
    expect((await listMemberships({ ...typeFilter, MembershipLevelId: type.Levels[0].MembershipLevelId })).TotalRecordAvailable).toBe('1');
    const page = await listMemberships({ ...typeFilter, Filter: 'lister3', Take: '1' });
    expect(page).toMatchObject({ TotalRecordAvailable: '1', Results: [{ ContactId: contacts[3] }] });
    expect((await staff('POST', '/api/memberships/items', { InGoodStandingOn: '2026-02-30' })).status).toBe(400);
    expect((await staff('POST', '/api/memberships/items', { Status: 'asleep' })).status).toBe(400);
    await expectStatementsIndependentOfPageSize(server, async (take) => {
      const listed = await listMemberships({ Take: String(take) });
      expect(listed.Results.length).toBeGreaterThan(0);
    }, 6);
  });

  it('fills in the join date of a term written without one (a billing run, an import): carried from the term it follows, else its start', async () => {
    const em = server.orm.em.fork();
    const type = em.create(MembershipType, { tenant: acme.id, name: 'Written elsewhere' });
    const contact = em.create(Contact, { tenant: acme.id, kind: 'person', firstName: 'Jo', lastName: 'Joined' });
    em.create(Membership, { tenant: acme.id, contact, membershipType: type, startDate: '2024-03-01', endDate: '2025-02-28', status: 'lapsed', joinDate: '2019-05-01' });
    await em.flush();
    const following = em.create(Membership, { tenant: acme.id, contact, membershipType: type, startDate: '2025-03-01', endDate: '2026-02-28', status: 'lapsed' });
    const afterGap = em.create(Membership, { tenant: acme.id, contact, membershipType: type, startDate: '2026-06-01', status: 'active' });
    await em.flush();
    expect((await membershipOf(following.id)).JoinDate).toBe('2019-05-01');
    expect((await membershipOf(afterGap.id)).JoinDate).toBe('2026-06-01');
  });

  it('counts only memberships in good standing as running today: a cancelled term with dates still running is not', async () => {
    const em = server.orm.em.fork();
    const type = em.create(MembershipType, { tenant: acme.id, name: 'Old rows' });
    const contact = em.create(Contact, { tenant: acme.id, kind: 'person', firstName: 'Cass', lastName: 'Cancelled' });
    em.create(Membership, { tenant: acme.id, contact, membershipType: type, startDate: addMonths(TODAY, -1), status: 'cancelled' });
    em.create(Membership, { tenant: acme.id, contact, membershipType: type, startDate: addMonths(TODAY, -1), status: 'lapsed' });
    await em.flush();
    expect(byLabel(await summary(`membershipstypedistribution/${type.id}`))['(no level)']).toBe(0);
  });
});

describe('races', () => {
  it('lets exactly one of two staff renewing the same membership at once succeed, and one of two cancelling', async () => {
    const type = await ok(saveType(0, { Name: 'Raced' }));
    for (let round = 0; round < 5; round++) {
      const term = await ok(enrol({ ContactId: await person(`Racer${round}`), MembershipTypeId: type.MembershipTypeId, Status: 'active' }));
      await expectExactlyOneSucceeds([1, 2].map(() => () => staff('POST', `/api/memberships/${term.MembershipId}/renew/1`, {})));
      expect((await listMemberships({ ContactId: term.ContactId })).TotalRecordAvailable).toBe('2');
      await expectExactlyOneSucceeds([1, 2].map(() => () => staff('POST', `/api/memberships/${term.MembershipId}/cancel/2`, { Reason: `round ${round}` })));
      expect(await membershipOf(term.MembershipId)).toMatchObject({ Status: 'cancelled', AuditId: 3 });
    }
  });
});

describe('races between a type and its members', () => {
  it('never deletes a type while a member is being enrolled in it: either the delete or the enrolment wins, nothing dangles', async () => {
    for (let round = 0; round < 5; round++) {
      const type = await ok(saveType(0, { Name: `Contested ${round}` }));
      const contactId = await person(`Contest${round}`);
      const [deleted, enrolled] = await Promise.all([
        staff('DELETE', `/api/membershiptypes/${type.MembershipTypeId}/1`), enrol({ ContactId: contactId, MembershipTypeId: type.MembershipTypeId }),
      ]);
      expect([[200, 404], [409, 200]]).toContainEqual([deleted.status, enrolled.status]);
    }
  });
});

describe('the daily lapse job', () => {
  let second: MikroORM;
  beforeAll(async () => {
    second = await openOrm({ url: server.databaseUrl, poolMax: 5 });
  });
  afterAll(() => second.close());

  it('lapses each ended term exactly once when two instances run it at the same moment', async () => {
    const db = server.orm.em.fork().getConnection();
    const [{ id: typeId }] = await db.execute<{ id: number }[]>(`insert into membership_type (tenant_id, name, grace_days) values (?, 'Bulk', 3) returning id`, [acme.id]);
    const [{ id: contactId }] = await db.execute<{ id: number }[]>(`insert into contact (tenant_id, kind, first_name) values (?, 'person', 'Bulk') returning id`, [acme.id]);
    // 2,500 ended past their grace days, 200 within it (ended 2 days ago, 3 grace days), 100 overridden.
    const insert = (count: number, end: string, override: boolean) => db.execute(
      `insert into membership (tenant_id, contact_id, membership_type_id, start_date, end_date, status, status_override)
       select ?, ?, ?, ?::date - 30, ?::date, 'active', ? from generate_series(1, ?)`, [acme.id, contactId, typeId, end, end, override, count]);
    await insert(2500, addDays(TODAY, -10), false);
    await insert(200, addDays(TODAY, -2), false);
    await insert(100, addDays(TODAY, -10), true);

    const [a, b] = await Promise.all([lapseEndedMemberships(server.orm), lapseEndedMemberships(second)]);
    expect(a + b).toBe(2500);
    const rows = await db.execute<{ status: string; audit_id: number; n: string }[]>(
      `select status, audit_id, count(*) as n from membership where membership_type_id = ? group by 1, 2 order by 1, 2`, [typeId]);
    expect(rows.map((row) => [row.status, row.audit_id, Number(row.n)])).toEqual([['active', 1, 300], ['lapsed', 2, 2500]]);
    expect(await Promise.all([lapseEndedMemberships(server.orm), lapseEndedMemberships(second)])).toEqual([0, 0]);
  }, 60_000);
});

async function runReport(name: string): Promise<string> {
  const catalog = await ok(staff('POST', '/api/reporting', { Filter: name, IsCustom: false }));
  const reportId = catalog.Results.find((row: { Name: string }) => row.Name === name).ReportId as number;
  const started = await gql('mutation($i: ReportRunInput!) { runReport(input: $i) { ReportRunId } }', { i: { ReportId: reportId } });
  const runId = started.runReport.ReportRunId as number;
  for (const deadline = Date.now() + 20_000; ;) {
    const { reportRun } = await gql('query($id: Int!) { reportRun(reportRunId: $id) { State Error } }', { id: runId });
    if (reportRun.State === 'completed') break;
    if (reportRun.State === 'failed' || Date.now() > deadline) throw new Error(`report run ${runId}: ${reportRun.State} ${reportRun.Error}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return (await rest(server, 'GET', `/api/reporting/runs/${runId}/csv`, { token: acme.staffToken })).text;
}
