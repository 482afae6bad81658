import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import ical from 'node-ical';
import { Calendar, Contact, Tenant } from '../src/entities/index.js';
import { createTestTenant, expectExactlyOneSucceeds, graphql, rest, startRaceServer, startTestServer, type TestServer, type TestTenant } from './support/harness.js';
import { saveWhileDeleted } from './support/races.js';

let server: TestServer;
let acme: TestTenant;
let other: TestTenant;
let north: number; // a chapter of acme
let south: number; // another chapter of acme
let acmeOrg: number; // acme's top organization (no parent: not a chapter)
let acmePerson: number;
let otherChapter: number; // a chapter of the other tenant

beforeAll(async () => {
  server = await startTestServer();
  acme = await createTestTenant(server, 'acme');
  other = await createTestTenant(server, 'other');
  const em = server.orm.em.fork();
  await em.nativeUpdate(Tenant, { id: acme.id }, { domain: 'members.acme.example' });
  acmeOrg = await organization(acme, 'Acme Association');
  north = await organization(acme, 'North Chapter', acmeOrg);
  south = await organization(acme, 'South Chapter', acmeOrg);
  const person = em.create(Contact, { tenant: acme.id, kind: 'person', firstName: 'Pat', lastName: 'Person' });
  await em.persist(person).flush();
  acmePerson = person.id;
  otherChapter = await organization(other, 'Other Chapter', await organization(other, 'Other Association'));
});
afterAll(() => server.close());

async function organization(tenant: TestTenant, name: string, parent?: number): Promise<number> {
  const em = server.orm.em.fork();
  const contact = em.create(Contact, { tenant: tenant.id, kind: 'organization', name, parent: parent ?? null });
  await em.persist(contact).flush();
  return contact.id;
}

interface Item { CalendarId: number; AuditId: number; Name: string; Description: string | null; GroupName: string | null; IsActive: boolean; Actions: string[] }

async function createCalendar(body: Record<string, unknown>, tenant = acme): Promise<Item> {
  const response = await rest(server, 'POST', '/api/calendars/0', { token: tenant.staffToken, body });
  expect(response.status).toBe(200);
  return response.body as Item;
}

/** The feed's path on the test server (EntireUrl is absolute on the configured public base URL). */
function feedPath(entireUrl: string): string {
  expect(entireUrl.startsWith(`${server.app.deps.publicBaseUrl}/ical/`)).toBe(true);
  return new URL(entireUrl).pathname;
}

describe('calendars over REST', () => {
  it('creates, reads, lists, updates and deletes a calendar at the documented paths', async () => {
    const created = await rest(server, 'POST', '/api/calendars/0', {
      token: acme.staffToken,
      body: {
        CalendarId: 0, Name: 'Board Meetings', Description: 'Monthly board meetings', IsActive: true, IsPublicViewable: false,
        IsMemberViewable: true, AllowPublicSubmission: false, AllowMemberSubmission: true, IsICalPublishingEnabled: false,
        AddCalendarICalMessage: 'Subscribe to stay informed', GroupId: String(north),
      },
    });
    expect(created.status).toBe(200);
    const id = created.body.CalendarId;
    expect(created.body).toEqual({
      CalendarId: expect.any(Number), AuditId: 1, Name: 'Board Meetings', Description: 'Monthly board meetings',
      GroupName: 'North Chapter', IsActive: true, Actions: ['Edit', 'Delete'],
    });

    const read = await rest(server, 'GET', `/api/calendars/${id}`, { token: acme.staffToken });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      CalendarId: id, AuditId: 1, Name: 'Board Meetings', Description: 'Monthly board meetings', IsActive: true,
      IsPublicViewable: false, IsMemberViewable: true, AllowPublicSubmission: false, AllowMemberSubmission: true,
      IsICalPublishingEnabled: false, PrimaryDomain: 'members.acme.example', EntireUrl: null,
      AddCalendarICalMessage: 'Subscribe to stay informed', GroupId: String(north),
    });

    const list = await rest(server, 'GET', '/api/calendars/items', { token: acme.staffToken });
    expect(list.status).toBe(200);
    expect(list.body).toContainEqual(created.body);

    const updated = await rest(server, 'POST', `/api/calendars/${id}`, {
      token: acme.staffToken, body: { CalendarId: id, AuditId: 1, Name: 'Board Meetings 2027', GroupId: String(south) },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ CalendarId: id, AuditId: 2, Name: 'Board Meetings 2027', GroupName: 'South Chapter' });
    const reread = (await rest(server, 'GET', `/api/calendars/${id}`, { token: acme.staffToken })).body;
    // Left-out fields keep their values.
    expect(reread).toMatchObject({ AuditId: 2, Description: 'Monthly board meetings', IsMemberViewable: true, AllowMemberSubmission: true, AddCalendarICalMessage: 'Subscribe to stay informed' });

    const deleted = await rest(server, 'DELETE', `/api/calendars/${id}/2`, { token: acme.staffToken });
    expect(deleted.status).toBe(200);
    expect(deleted.text).toBe('');
    expect((await rest(server, 'GET', `/api/calendars/${id}`, { token: acme.staffToken })).status).toBe(404);
    expect((await rest(server, 'DELETE', `/api/calendars/${id}/2`, { token: acme.staffToken })).status).toBe(404);
  });

  it('defaults a new calendar to active with every other flag off, and clears fields sent as null or ""', async () => {
    const calendar = await createCalendar({ Name: 'Defaults', Description: 'Has text', GroupId: String(north) });
    const read = (await rest(server, 'GET', `/api/calendars/${calendar.CalendarId}`, { token: acme.staffToken })).body;
    expect(read).toMatchObject({
      IsActive: true, IsPublicViewable: false, IsMemberViewable: false, AllowPublicSubmission: false, AllowMemberSubmission: false,
      IsICalPublishingEnabled: false, AddCalendarICalMessage: null,
    });
    const cleared = await rest(server, 'POST', `/api/calendars/${calendar.CalendarId}`, { token: acme.staffToken, body: { Name: 'Defaults', Description: null, GroupId: '' } });
    expect(cleared.body).toMatchObject({ Description: null, GroupName: null });
    expect((await rest(server, 'GET', `/api/calendars/${calendar.CalendarId}`, { token: acme.staffToken })).body.GroupId).toBeNull();
  });

  it('lets the path id win over the body id, and answers 404 for an unknown id', async () => {
    const calendar = await createCalendar({ Name: 'Path Wins' });
    const decoy = await createCalendar({ Name: 'Decoy' });
    const saved = await rest(server, 'POST', `/api/calendars/${calendar.CalendarId}`, { token: acme.staffToken, body: { CalendarId: decoy.CalendarId, Name: 'Path Won' } });
    expect(saved.body.CalendarId).toBe(calendar.CalendarId);
    expect((await rest(server, 'GET', `/api/calendars/${decoy.CalendarId}`, { token: acme.staffToken })).body.Name).toBe('Decoy');
    const unknown = await rest(server, 'POST', '/api/calendars/999999', { token: acme.staffToken, body: { Name: 'Nowhere' } });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toContain('application/problem+json');
    const negative = await rest(server, 'POST', '/api/calendars/-1', { token: acme.staffToken, body: { Name: 'Negative' } });
    expect(negative.status).toBe(400);
    expect(negative.body.errors[0].field).toBe('calendarid');
  });

  it('pages, orders and filters the items through options, and matches paths case-insensitively', async () => {
    for (const name of ['Paging A', 'Paging B', 'Paging C']) await createCalendar({ Name: name });
    const options = encodeURIComponent(JSON.stringify({ Filter: 'paging', OrderBy: 'Name desc', Skip: 1, Take: 1 }));
    const page = await rest(server, 'GET', `/api/calendars/items?options=${options}`, { token: acme.staffToken });
    expect(page.body.map((row: Item) => row.Name)).toEqual(['Paging B']);
    const upper = await rest(server, 'GET', `/API/Calendars/Items/?options=${encodeURIComponent('{"Filter":"PAGING"}')}`, { token: acme.staffToken });
    expect(upper.body).toHaveLength(3);
  });

  it('ignores unknown and server-owned fields in a body', async () => {
    const created = await rest(server, 'POST', '/api/calendars/0', {
      token: acme.staffToken, body: { Name: 'Owned Fields', TenantId: other.id, PrimaryDomain: 'evil.example', EntireUrl: 'https://evil.example/x.ics', Unknown: 1 },
    });
    expect(created.status).toBe(200);
    const stored = await server.orm.em.fork().findOneOrFail(Calendar, { id: created.body.CalendarId }, { filters: false });
    expect(stored.tenant.id).toBe(acme.id);
    const read = (await rest(server, 'GET', `/api/calendars/${created.body.CalendarId}`, { token: acme.staffToken })).body;
    expect(read).toMatchObject({ PrimaryDomain: 'members.acme.example', EntireUrl: null });
  });
});

describe('calendar lookups', () => {
  let board: Item;
  let memberOnly: Item;
  let publicOne: Item;
  let staffOnly: Item;
  let inactive: Item;
  let chapter: number;

  beforeAll(async () => {
    chapter = await organization(acme, 'Lookup Chapter', acmeOrg);
    board = await createCalendar({ Name: 'Lookup Board', Description: 'Board', GroupId: String(chapter), IsMemberViewable: true });
    memberOnly = await createCalendar({ Name: 'Lookup Members', Description: 'For members', IsMemberViewable: true });
    publicOne = await createCalendar({ Name: 'Lookup Public', Description: 'For all', GroupId: String(chapter), IsPublicViewable: true });
    staffOnly = await createCalendar({ Name: 'Lookup Staff', GroupId: String(chapter) });
    inactive = await createCalendar({ Name: 'Lookup Inactive', GroupId: String(chapter), IsActive: false, IsMemberViewable: true });
  });

  it('lists the active calendars as LookupChoiceInt for staff, by name', async () => {
    const response = await rest(server, 'GET', '/api/calendars/lookup', { token: acme.staffToken });
    expect(response.status).toBe(200);
    const ours = response.body.filter((choice: { Name: string }) => choice.Name.startsWith('Lookup '));
    expect(ours.map((choice: { Id: number }) => choice.Id)).toEqual([board.CalendarId, memberOnly.CalendarId, publicOne.CalendarId, staffOnly.CalendarId]);
    expect(ours[0]).toEqual({ Id: board.CalendarId, Name: 'Lookup Board', ExtraData: null, CssColor: null, IsSelected: false, IsDeleted: false, Order: expect.any(Number) });
    const orders = response.body.map((choice: { Order: number }) => choice.Order);
    expect(orders).toEqual([...orders].sort((a, b) => a - b));
    expect(response.body.map((choice: { Id: number }) => choice.Id)).not.toContain(inactive.CalendarId);
  });

  it('shows members only the member- or public-viewable active calendars', async () => {
    const response = await rest(server, 'GET', '/api/calendars/lookup', { token: acme.memberToken });
    expect(response.status).toBe(200);
    const ids = response.body.map((choice: { Id: number }) => choice.Id);
    expect(ids).toEqual(expect.arrayContaining([board.CalendarId, memberOnly.CalendarId, publicOne.CalendarId]));
    expect(ids).not.toContain(staffOnly.CalendarId);
    expect(ids).not.toContain(inactive.CalendarId);
  });

  it("lists a chapter's calendars as CalendarChoiceItem", async () => {
    const staff = await rest(server, 'GET', `/api/calendars/lookup/chapters/${chapter}`, { token: acme.staffToken });
    expect(staff.status).toBe(200);
    expect(staff.body).toEqual([
      { Id: board.CalendarId, Name: 'Lookup Board', CalendarDescription: 'Board' },
      { Id: publicOne.CalendarId, Name: 'Lookup Public', CalendarDescription: 'For all' },
      { Id: staffOnly.CalendarId, Name: 'Lookup Staff', CalendarDescription: null },
    ]);
    const member = await rest(server, 'GET', `/api/calendars/lookup/chapters/${chapter}`, { token: acme.memberToken });
    expect(member.body.map((choice: { Id: number }) => choice.Id)).toEqual([board.CalendarId, publicOne.CalendarId]);
    const empty = await rest(server, 'GET', `/api/calendars/lookup/chapters/${south}`, { token: acme.staffToken });
    expect(empty.status).toBe(200);
    expect(empty.body.filter((choice: { Name: string }) => choice.Name.startsWith('Lookup '))).toEqual([]);
  });

  it('answers 404 for an id that is not one of the tenant\'s chapters', async () => {
    for (const id of [999999, acmeOrg, acmePerson, otherChapter]) {
      const response = await rest(server, 'GET', `/api/calendars/lookup/chapters/${id}`, { token: acme.staffToken });
      expect(response.status).toBe(404);
    }
  });

  it("keeps other tenants' calendars out of the lookups", async () => {
    const response = await rest(server, 'GET', '/api/calendars/lookup', { token: other.staffToken });
    expect(response.body.map((choice: { Name: string }) => choice.Name)).not.toContain('Lookup Board');
  });
});

describe('chapter link (GroupId)', () => {
  it.each([
    ['an id that is no contact', () => '999999'],
    ['an organization without a parent', () => String(acmeOrg)],
    ['a person', () => String(acmePerson)],
    ["another tenant's chapter", () => String(otherChapter)],
    ['text that is not an id', () => 'north'],
    ['a number beyond the integer range', () => '99999999999'],
  ])('refuses %s with a 400 naming GroupId', async (_label, groupId) => {
    const response = await rest(server, 'POST', '/api/calendars/0', { token: acme.staffToken, body: { Name: 'Bad Group', GroupId: groupId() } });
    expect(response.status).toBe(400);
    expect(response.body.errors.map((error: { field: string }) => error.field)).toContain('GroupId');
  });

  it('shows no GroupName once the chapter is deleted', async () => {
    const chapter = await organization(acme, 'Fading Chapter', acmeOrg);
    const calendar = await createCalendar({ Name: 'Orphan To Be', GroupId: String(chapter) });
    expect(calendar.GroupName).toBe('Fading Chapter');
    await server.orm.em.fork().nativeUpdate(Contact, { id: chapter }, { deletedAt: new Date() }, { filters: false });
    const list = await rest(server, 'GET', `/api/calendars/items?options=${encodeURIComponent('{"Filter":"Orphan To Be"}')}`, { token: acme.staffToken });
    expect(list.body[0].GroupName).toBeNull();
    expect((await rest(server, 'GET', `/api/calendars/lookup/chapters/${chapter}`, { token: acme.staffToken })).status).toBe(404);
  });
});

describe('iCalendar feed', () => {
  it('publishes an active, public calendar with iCal publishing at EntireUrl, without a credential', async () => {
    const description = 'Meetings; minutes, agendas \\ notes\nSecond line\nBEGIN:VEVENT\nUID:injected\nEND:VEVENT';
    const calendar = await createCalendar({ Name: 'Public Events, 2027', Description: description, IsPublicViewable: true, IsICalPublishingEnabled: true });
    const read = (await rest(server, 'GET', `/api/calendars/${calendar.CalendarId}`, { token: acme.staffToken })).body;
    expect(read.EntireUrl).toBe(`${server.app.deps.publicBaseUrl}/ical/acme/${calendar.CalendarId}.ics`);

    const feed = await rest(server, 'GET', feedPath(read.EntireUrl));
    expect(feed.status).toBe(200);
    expect(feed.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(feed.headers.get('content-disposition')).toBe(`inline; filename="calendar-${calendar.CalendarId}.ics"`);
    expect(feed.text.startsWith('BEGIN:VCALENDAR\r\n')).toBe(true);
    expect(feed.text.endsWith('END:VCALENDAR\r\n')).toBe(true);
    for (const line of feed.text.split('\r\n')) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
    expect(feed.text).not.toMatch(/\n(?<!\r\n)/); // only CRLF line ends

    const parsed = ical.sync.parseICS(feed.text);
    expect(parsed.vcalendar).toMatchObject({
      type: 'VCALENDAR', version: '2.0', 'WR-CALNAME': 'Public Events, 2027', 'WR-CALDESC': description, url: read.EntireUrl,
    });
    const components = Object.values(parsed).filter((component) => component && typeof component === 'object' && 'type' in component);
    expect(components.map((component) => (component as { type: string }).type)).toEqual(['VCALENDAR']);

    const head = await fetch(`${server.baseUrl}${feedPath(read.EntireUrl)}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('answers 404, and shows no EntireUrl, unless publishing is on and the calendar is public and active', async () => {
    const published = await createCalendar({ Name: 'Feed Toggle', IsPublicViewable: true, IsICalPublishingEnabled: true });
    const id = published.CalendarId;
    const path = `/ical/acme/${id}.ics`;
    expect((await rest(server, 'GET', path)).status).toBe(200);
    for (const change of [{ IsICalPublishingEnabled: false }, { IsPublicViewable: false }, { IsActive: false }]) {
      await rest(server, 'POST', `/api/calendars/${id}`, { token: acme.staffToken, body: { Name: 'Feed Toggle', IsPublicViewable: true, IsICalPublishingEnabled: true, IsActive: true, ...change } });
      const hidden = await rest(server, 'GET', path, { token: acme.staffToken });
      expect(hidden.status).toBe(404);
      expect(hidden.headers.get('content-type')).toContain('application/problem+json');
      expect((await rest(server, 'GET', `/api/calendars/${id}`, { token: acme.staffToken })).body.EntireUrl).toBeNull();
    }
  });

  it('answers 404 for another tenant key, an unknown tenant or a malformed file name', async () => {
    const calendar = await createCalendar({ Name: 'Acme Feed', IsPublicViewable: true, IsICalPublishingEnabled: true });
    expect((await rest(server, 'GET', `/ical/other/${calendar.CalendarId}.ics`)).status).toBe(404);
    expect((await rest(server, 'GET', `/ical/nobody/${calendar.CalendarId}.ics`)).status).toBe(404);
    for (const file of [`${calendar.CalendarId}`, `${calendar.CalendarId}.ical`, 'abc.ics', '99999999999.ics', '-1.ics']) {
      expect((await rest(server, 'GET', `/ical/acme/${file}`)).status).toBe(404);
    }
    expect((await rest(server, 'GET', `/ical/${'x'.repeat(80)}/${calendar.CalendarId}.ics`)).status).toBe(404);
    // A key that is no tenant key (a dot, a space, an underscore) is not looked up at all.
    for (const key of ['ac.me', 'ac%20me', 'ac_me']) expect((await rest(server, 'GET', `/ical/${key}/${calendar.CalendarId}.ics`)).status).toBe(404);
  });

  it('answers a NUL anywhere in the path with 400 problem+json, and other methods with 405 Allow: GET', async () => {
    const calendar = await createCalendar({ Name: 'Acme NUL Feed', IsPublicViewable: true, IsICalPublishingEnabled: true });
    for (const path of [`/ical/%00/${calendar.CalendarId}.ics`, `/ical/acme/%00${calendar.CalendarId}.ics`, `/ical/ac%00me/${calendar.CalendarId}.ics`]) {
      const response = await rest(server, 'GET', path);
      expect({ path, status: response.status, type: response.headers.get('content-type'), field: response.body?.errors?.[0]?.field })
        .toEqual({ path, status: 400, type: expect.stringContaining('application/problem+json'), field: 'path' });
    }
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const response = await rest(server, method, `/ical/acme/${calendar.CalendarId}.ics`);
      expect({ method, status: response.status, allow: response.headers.get('allow') }).toEqual({ method, status: 405, allow: 'GET' });
    }
  });
});

describe('calendars over GraphQL', () => {
  it('runs the same operations', async () => {
    const saved = await graphql(server, 'mutation($input: CalendarAddEditInput!) { saveCalendar(calendarId: 0, input: $input) { CalendarId AuditId Name GroupName IsActive Actions } }',
      { input: { Name: 'GraphQL Calendar', GroupId: String(north), IsMemberViewable: true, IsPublicViewable: true, IsICalPublishingEnabled: true } }, acme.staffToken);
    expect(saved.status).toBe(200);
    const id = saved.body.data.saveCalendar.CalendarId;
    expect(saved.body.data.saveCalendar).toEqual({ CalendarId: id, AuditId: 1, Name: 'GraphQL Calendar', GroupName: 'North Chapter', IsActive: true, Actions: ['Edit', 'Delete'] });

    const read = await graphql(server, `query($id: Int!, $chapter: Int!) {
      calendar(calendarId: $id) { CalendarId AuditId GroupId PrimaryDomain EntireUrl }
      calendars(options: { Filter: "graphql calendar" }) { CalendarId GroupName }
      calendarLookup { Id Name }
      calendarChapterLookup(chapterId: $chapter) { Id Name CalendarDescription }
    }`, { id, chapter: north }, acme.staffToken);
    expect(read.status).toBe(200);
    expect(read.body.data.calendar).toEqual({ CalendarId: id, AuditId: 1, GroupId: String(north), PrimaryDomain: 'members.acme.example', EntireUrl: `${server.app.deps.publicBaseUrl}/ical/acme/${id}.ics` });
    expect(read.body.data.calendars).toEqual([{ CalendarId: id, GroupName: 'North Chapter' }]);
    expect(read.body.data.calendarLookup).toContainEqual({ Id: id, Name: 'GraphQL Calendar' });
    expect(read.body.data.calendarChapterLookup).toContainEqual({ Id: id, Name: 'GraphQL Calendar', CalendarDescription: null });

    const updated = await graphql(server, 'mutation($id: Int!) { saveCalendar(calendarId: $id, input: { Name: "GraphQL Calendar 2", AuditId: 1 }) { AuditId Name } }', { id }, acme.staffToken);
    expect(updated.body.data.saveCalendar).toEqual({ AuditId: 2, Name: 'GraphQL Calendar 2' });
    // Without the argument, input.CalendarId names the calendar.
    const byBody = await graphql(server, 'mutation($id: Int!) { saveCalendar(input: { CalendarId: $id, Name: "GraphQL Calendar 3" }) { CalendarId AuditId } }', { id }, acme.staffToken);
    expect(byBody.body.data.saveCalendar).toEqual({ CalendarId: id, AuditId: 3 });

    const stale = await graphql(server, 'mutation($id: Int!) { deleteCalendar(calendarId: $id, auditId: 1) }', { id }, acme.staffToken);
    expect(stale.status).toBe(409);
    expect(stale.body.errors?.[0]?.extensions.code).toBe('CONFLICT');
    const deleted = await graphql(server, 'mutation($id: Int!) { deleteCalendar(calendarId: $id, auditId: 3) }', { id }, acme.staffToken);
    expect(deleted.body.data.deleteCalendar).toBe(id);
    const gone = await graphql(server, 'query($id: Int!) { calendar(calendarId: $id) { CalendarId } }', { id }, acme.staffToken);
    expect(gone.status).toBe(404);
    expect(gone.body.errors?.[0]?.extensions.code).toBe('NOT_FOUND');
  });
});

describe('calendar access', () => {
  // 401 without a credential on every operation, and 403 for a member on the staff-only management: test/sweeps.test.ts.
  it('lets members use the lookups', async () => {
    const calendar = await createCalendar({ Name: 'Staff Managed', GroupId: String(north), IsMemberViewable: true });
    const lookup = await rest(server, 'GET', '/api/calendars/lookup', { token: acme.memberToken });
    expect(lookup.status).toBe(200);
    expect(lookup.body.map((choice: { Id: number }) => choice.Id)).toContain(calendar.CalendarId);
    const chapter = await rest(server, 'GET', `/api/calendars/lookup/chapters/${north}`, { token: acme.memberToken });
    expect(chapter.status).toBe(200);
    expect(chapter.body.map((choice: { Id: number }) => choice.Id)).toContain(calendar.CalendarId);
  });

  it("keeps another tenant's calendars invisible and untouchable (404)", async () => {
    const calendar = await createCalendar({ Name: 'Private To Acme', IsMemberViewable: true });
    const id = calendar.CalendarId;
    expect((await rest(server, 'GET', `/api/calendars/${id}`, { token: other.staffToken })).status).toBe(404);
    const save = await rest(server, 'POST', `/api/calendars/${id}`, { token: other.staffToken, body: { Name: 'Hijacked', GroupId: String(otherChapter) } });
    expect(save.status).toBe(404);
    expect((await rest(server, 'DELETE', `/api/calendars/${id}/1`, { token: other.staffToken })).status).toBe(404);
    const list = await rest(server, 'GET', '/api/calendars/items', { token: other.staffToken });
    expect(list.body.map((row: Item) => row.CalendarId)).not.toContain(id);
    const gql = await graphql(server, 'query($id: Int!) { calendar(calendarId: $id) { Name } }', { id }, other.staffToken);
    expect(gql.status).toBe(404);
    expect((await rest(server, 'GET', `/api/calendars/${id}`, { token: acme.staffToken })).body).toMatchObject({ Name: 'Private To Acme', AuditId: 1 });
  });
});

// Broken JSON, a missing body, another media type, ids that are not integers and fields of the
// wrong type: the generated malformed-input sweep (test/sweeps.test.ts). Here: the calendar's own rules.
describe('calendar input validation', () => {
  const badBodies: [string, unknown, string][] = [
    ['a missing Name', { Description: 'x' }, 'Name'],
    ['a blank Name', { Name: '   ' }, 'Name'],
    ['an over-long Name', { Name: 'x'.repeat(201) }, 'Name'],
    ['an over-long Description', { Name: 'Ok', Description: 'x'.repeat(4001) }, 'Description'],
    ['an over-long AddCalendarICalMessage', { Name: 'Ok', AddCalendarICalMessage: 'x'.repeat(2001) }, 'AddCalendarICalMessage'],
    ['a negative AuditId', { Name: 'Ok', AuditId: -1 }, 'AuditId'],
  ];

  it.each(badBodies)('rejects %s with a 400 naming the field', async (_label, body, field) => {
    const response = await rest(server, 'POST', '/api/calendars/0', { token: acme.staffToken, body });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
  });

  it('names the field on GraphQL too', async () => {
    const response = await graphql(server, 'mutation($input: CalendarAddEditInput!) { saveCalendar(calendarId: 0, input: $input) { CalendarId } }', { input: { Name: 'x'.repeat(201) } }, acme.staffToken);
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    expect(response.body.errors?.[0]?.extensions.errors?.[0]?.field).toBe('Name');
  });

  it.each([
    ['GET', `/api/calendars/items?options=${encodeURIComponent('{"Take":0}')}`, 'options.Take'],
    ['GET', `/api/calendars/items?options=${encodeURIComponent('{"OrderBy":"GroupName"}')}`, 'options.OrderBy'],
  ])('%s %s is a 400 naming %s', async (method, path, field) => {
    const response = await rest(server, method, path, { token: acme.staffToken });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].field).toBe(field);
  });
});

describe('calendar concurrency', () => {
  it('refuses a save with a stale AuditId (409) and changes nothing', async () => {
    const calendar = await createCalendar({ Name: 'Versioned Calendar' });
    const first = await rest(server, 'POST', `/api/calendars/${calendar.CalendarId}`, { token: acme.staffToken, body: { Name: 'First Edit', AuditId: 1 } });
    expect(first.status).toBe(200);
    const stale = await rest(server, 'POST', `/api/calendars/${calendar.CalendarId}`, { token: acme.staffToken, body: { Name: 'Lost Update', Description: 'lost', AuditId: 1 } });
    expect(stale.status).toBe(409);
    expect(stale.headers.get('content-type')).toContain('application/problem+json');
    expect(stale.body.errors[0].field).toBe('AuditId');
    const current = await rest(server, 'GET', `/api/calendars/${calendar.CalendarId}`, { token: acme.staffToken });
    expect(current.body).toMatchObject({ Name: 'First Edit', Description: null, AuditId: 2 });
  });

  it('refuses a delete with a stale auditid (409) and deletes nothing', async () => {
    const calendar = await createCalendar({ Name: 'Delete Guarded' });
    await rest(server, 'POST', `/api/calendars/${calendar.CalendarId}`, { token: acme.staffToken, body: { Name: 'Delete Guarded 2' } });
    const stale = await rest(server, 'DELETE', `/api/calendars/${calendar.CalendarId}/1`, { token: acme.staffToken });
    expect(stale.status).toBe(409);
    expect(stale.body.errors[0].field).toBe('AuditId');
    expect((await rest(server, 'GET', `/api/calendars/${calendar.CalendarId}`, { token: acme.staffToken })).body).toMatchObject({ Name: 'Delete Guarded 2', AuditId: 2 });
    expect(await server.orm.em.fork().count(Calendar, { id: calendar.CalendarId }, { filters: false })).toBe(1);
    const current = await rest(server, 'DELETE', `/api/calendars/${calendar.CalendarId}/2`, { token: acme.staffToken });
    expect(current.status).toBe(200);
    expect(await server.orm.em.fork().count(Calendar, { id: calendar.CalendarId }, { filters: false })).toBe(0);
  });

  it('lets only one of two concurrent saves of the same version win', async () => {
    const calendar = await createCalendar({ Name: 'Raced Calendar' });
    const results = await Promise.all(['Racer A', 'Racer B'].map((Name) =>
      rest(server, 'POST', `/api/calendars/${calendar.CalendarId}`, { token: acme.staffToken, body: { Name, AuditId: 1 } })));
    expect(results.map((result) => result.status).sort()).toEqual([200, 409]);
    expect((await rest(server, 'GET', `/api/calendars/${calendar.CalendarId}`, { token: acme.staffToken })).body.AuditId).toBe(2);
  });
});

describe('calendar list cost', () => {
  let tenant: TestTenant;
  let chapters: number[];

  beforeAll(async () => {
    tenant = await createTestTenant(server, 'bulk');
    const parent = await organization(tenant, 'Bulk Association');
    chapters = [];
    for (let index = 0; index < 10; index++) chapters.push(await organization(tenant, `Bulk Chapter ${index}`, parent));
    const em = server.orm.em.fork();
    for (let index = 0; index < 50; index++) {
      // Every row has a chapter (25 the first, the others spread over nine more), so GroupName is looked up for each.
      em.create(Calendar, {
        tenant: tenant.id, name: `Bulk ${String(index).padStart(2, '0')}`, isMemberViewable: true,
        chapter: em.getReference(Contact, index < 25 ? chapters[0] : chapters[1 + (index % 9)]),
      });
    }
    await em.flush();
    // One request first, so once-in-a-while work (the credential's last-use stamp) is not counted.
    await rest(server, 'GET', '/api/login/logincheck', { token: tenant.staffToken });
    await rest(server, 'GET', '/api/login/logincheck', { token: tenant.memberToken });
  });

  async function statements(path: string, token: string, rows: number): Promise<number> {
    const before = server.statements();
    const response = await rest(server, 'GET', path, { token });
    expect(response.status).toBe(200);
    expect(response.body).toHaveLength(rows);
    return server.statements() - before;
  }

  it('runs the same number of SQL statements for 5 items as for 50', async () => {
    const items = (take: number) => `/api/calendars/items?options=${encodeURIComponent(JSON.stringify({ Take: take, OrderBy: 'Name desc' }))}`;
    const five = await statements(items(5), tenant.staffToken, 5);
    const fifty = await statements(items(50), tenant.staffToken, 50);
    expect(fifty).toBe(five);
    expect(five).toBeLessThanOrEqual(3);
    const names = (await rest(server, 'GET', items(50), { token: tenant.staffToken })).body.map((row: Item) => row.GroupName);
    expect(new Set(names).size).toBe(10);
  });

  it('runs the same number of SQL statements for the lookups at any length', async () => {
    const em = server.orm.em.fork();
    const lookup = await statements('/api/calendars/lookup', tenant.memberToken, 50);
    const chapter = await statements(`/api/calendars/lookup/chapters/${chapters[0]}`, tenant.memberToken, 25);
    const fewer = await statements(`/api/calendars/lookup/chapters/${chapters[1]}`, tenant.memberToken, 3);
    expect(chapter).toBe(fewer);
    // Trim the tenant to 5 calendars: the lookup costs the same.
    const keep = (await em.find(Calendar, { tenant: tenant.id }, { filters: false, orderBy: { id: 'asc' }, limit: 5 })).map((row) => row.id);
    await em.nativeDelete(Calendar, { tenant: tenant.id, id: { $nin: keep } }, { filters: false });
    expect(await statements('/api/calendars/lookup', tenant.memberToken, 5)).toBe(lookup);
  });
});

describe('calendar routes', () => {
  it('routes all six documented calendar operations', async () => {
    const { routeCoverage } = await import('../src/rest/coverage.js');
    expect(routeCoverage().byArea.get('Calendars')).toEqual({ routed: 6, total: 6 });
  });
});

describe('calendar races against the real database', () => {
  let wide: TestServer;
  let tenant: TestTenant;
  beforeAll(async () => {
    wide = await startRaceServer();
    tenant = await createTestTenant(wide, 'calendar-race');
  });
  afterAll(() => wide.close());

  const create = async (Name: string) => (await rest(wide, 'POST', '/api/calendars/0', { token: tenant.staffToken, body: { Name } })).body.CalendarId as number;

  it('lets exactly one of 20 concurrent deletes of one calendar succeed', async () => {
    const id = await create('Deleted Twenty Times');
    await expectExactlyOneSucceeds(Array.from({ length: 20 }, () => () => rest(wide, 'DELETE', `/api/calendars/${id}/1`, { token: tenant.staffToken })));
    expect((await rest(wide, 'GET', `/api/calendars/${id}`, { token: tenant.staffToken })).status).toBe(404);
  });

  it('never acknowledges a save whose calendar a delete removed after the save read it', async () => {
    const id = await create('Deleted Under A Save');
    const save = await saveWhileDeleted(wide, 'calendar', id, () =>
      rest(wide, 'POST', `/api/calendars/${id}`, { token: tenant.staffToken, body: { Name: 'Saved Too Late', AuditId: 1 } }));
    expect([404, 409]).toContain(save.status);
    expect((await rest(wide, 'GET', `/api/calendars/${id}`, { token: tenant.staffToken })).status).toBe(404);
  });

  it('never loses a save acknowledged while a delete of the version it replaced races it', async () => {
    for (let round = 0; round < 10; round++) {
      const id = await create(`Raced ${round}`);
      const [save, remove] = await Promise.all([
        rest(wide, 'POST', `/api/calendars/${id}`, { token: tenant.staffToken, body: { Name: `Saved ${round}`, AuditId: 1 } }),
        rest(wide, 'DELETE', `/api/calendars/${id}/1`, { token: tenant.staffToken }),
      ]);
      expect([save.status, remove.status].filter((status) => status === 200)).toHaveLength(1);
      const after = await rest(wide, 'GET', `/api/calendars/${id}`, { token: tenant.staffToken });
      if (save.status === 200) expect(after.body).toMatchObject({ Name: `Saved ${round}`, AuditId: 2 });
      else expect(after.status).toBe(404);
    }
  });
});
