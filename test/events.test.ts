import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Contact } from '../src/entities/contact.js';
import {
  createTestTenant, expectStatementsIndependentOfPageSize, graphql, rest, startRaceServer, type HttpResult, type TestServer, type TestTenant,
} from './support/harness.js';

// 401/403 on every operation, tenant isolation and the fuzz: test/sweeps.test.ts. Here: the area's own rules.
// Races and many registrations per test: more time than the default on a loaded machine.
jest.setTimeout(120_000);
let server: TestServer;
let acme: TestTenant;
let verifier: Server;
let verifierCalls: { secret: string | null; response: string | null }[] = [];
const GOOD_TOKEN = 'good-token';
const SECRET = 'test-captcha-secret';

/** A local stand-in for Turnstile's siteverify: success only for GOOD_TOKEN with the tenant's secret. */
async function startFakeVerifier(): Promise<string> {
  verifier = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => { body += chunk.toString('utf8'); });
    request.on('end', () => {
      const form = new URLSearchParams(body);
      verifierCalls.push({ secret: form.get('secret'), response: form.get('response') });
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ success: form.get('secret') === SECRET && form.get('response') === GOOD_TOKEN }));
    });
  });
  await new Promise<void>((resolve) => verifier.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(verifier.address() as AddressInfo).port}/siteverify`;
}

beforeAll(async () => {
  // The fake verifier listens on 127.0.0.1 over http: allowed by the development setting and the host list.
  server = await startRaceServer({ OUTBOUND_ALLOW_PRIVATE: 'true', CAPTCHA_VERIFY_HOSTS: '127.0.0.1' });
  acme = await createTestTenant(server, 'events-acme');
  const verifyUrl = await startFakeVerifier();
  const saved = await staffGql(`mutation($input: EventCaptchaSettingInput!) { saveEventCaptchaSetting(input: $input) { Provider SiteKey VerifyUrl HasSecret } }`, {
    input: { Provider: 'turnstile', SiteKey: 'site-key-1', Secret: SECRET, VerifyUrl: verifyUrl },
  });
  expect(saved.body.data.saveEventCaptchaSetting).toEqual({ Provider: 'turnstile', SiteKey: 'site-key-1', VerifyUrl: verifyUrl, HasSecret: true });
});
afterAll(async () => {
  await server.close();
  await new Promise((resolve) => verifier.close(resolve));
});

const PUBLIC = { 'x-tenant-key': 'events-acme' };
const publicRest = (method: string, path: string, body?: unknown, token?: string) => rest(server, method, path, { body, token, headers: token ? {} : PUBLIC });
const staffGql = (query: string, variables: Record<string, unknown> = {}) => graphql<any>(server, query, variables, acme.staffToken);
/** GraphQL without a credential, naming the tenant as a public page does. */
const publicGql = (query: string, variables: Record<string, unknown> = {}) => rest(server, 'POST', '/graphql', { headers: PUBLIC, body: { query, variables } });

const EVENT_FIELDS = 'EventId Name Status Capacity RemainingCapacity IsRegistrationOpen AuditId';
const RESULT = 'EventRegistrationOrderId EventId Status Total InvoiceId InvoiceNumber IsNew Attendees { EventRegistrationId ContactId FirstName LastName EventRegistrationTypeId Amount } Purchases { Kind Quantity UnitPrice Amount }';

interface Fixture { eventId: number; regular: number; student: number; members: number; gold: number; booth: number; donation: number }

async function createEvent(name: string, extra: Record<string, unknown> = {}): Promise<Fixture> {
  const event = await staffGql(`mutation($input: EventInput!) { saveEvent(eventId: 0, input: $input) { ${EVENT_FIELDS} } }`, {
    input: {
      Name: name, StartDate: '2099-05-01T18:00:00Z', EndDate: '2099-05-01T22:00:00Z', Venue: 'Main hall', Status: 'open',
      GoalAttendees: 10, GoalAttendeeRevenue: 1000, GoalSponsors: 4, GoalSponsorRevenue: 2000, GoalExhibitors: 2, GoalExhibitorRevenue: 600, ...extra,
    },
  });
  expect(event.body.errors).toBeUndefined();
  const eventId = event.body.data.saveEvent.EventId as number;
  const type = async (Name: string, Price: number, more: Record<string, unknown> = {}) => {
    const saved = await staffGql(`mutation($input: EventRegistrationTypeInput!) { saveEventRegistrationType(eventRegistrationTypeId: 0, input: $input) { EventRegistrationTypeId } }`, {
      input: { EventId: eventId, Name, Price, ...more },
    });
    expect(saved.body.errors).toBeUndefined();
    return saved.body.data.saveEventRegistrationType.EventRegistrationTypeId as number;
  };
  const offering = async (Kind: string, Name: string, Price: number) => {
    const saved = await staffGql(`mutation($input: EventOfferingInput!) { saveEventOffering(eventOfferingId: 0, input: $input) { EventOfferingId } }`, {
      input: { EventId: eventId, Kind, Name, Price },
    });
    expect(saved.body.errors).toBeUndefined();
    return saved.body.data.saveEventOffering.EventOfferingId as number;
  };
  return {
    eventId,
    regular: await type('Regular', 100),
    student: await type('Student', 40.5),
    members: await type('Members', 75, { MemberOnly: true }),
    gold: await offering('sponsorship', 'Gold sponsor', 500),
    booth: await offering('exhibitor', 'Booth', 300),
    donation: await offering('donation', 'Scholarship fund', 25),
  };
}

const billing = (email: string) => ({ FirstName: 'Bill', LastName: 'Payer', EmailAddress: email });
const attendee = (typeId: number, first: string, email = `${first.toLowerCase()}@example.org`) => ({ EventRegistrationTypeId: typeId, FirstName: first, LastName: 'Guest', EmailAddress: email });

function expectPublicError(response: HttpResult, status: number, field?: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toContain('application/problem+json');
  expect(response.body).toMatchObject({ Status: status, Data: null, status });
  expect(typeof response.body.StatusMessage).toBe('string');
  if (field) expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
}

describe('event management (GraphQL only)', () => {
  it('creates and updates events with goals, refuses bad dates and a stale AuditId', async () => {
    const fixture = await createEvent('Managed');
    const read = await staffGql(`{ event(eventId: ${fixture.eventId}) { ${EVENT_FIELDS} GoalAttendeeRevenue } }`);
    expect(read.body.data.event).toMatchObject({ Name: 'Managed', Status: 'open', Capacity: null, IsRegistrationOpen: true, GoalAttendeeRevenue: 1000, AuditId: 1 });
    const update = (AuditId: number) => staffGql(`mutation($input: EventInput!) { saveEvent(eventId: ${fixture.eventId}, input: $input) { ${EVENT_FIELDS} } }`, {
      input: { Name: 'Managed 2', StartDate: '2099-05-01T18:00:00Z', EndDate: '2099-05-01T22:00:00Z', Status: 'open', Capacity: 50, AuditId },
    });
    expect((await update(1)).body.data.saveEvent).toMatchObject({ Name: 'Managed 2', Capacity: 50, RemainingCapacity: 50, AuditId: 2 });
    expect((await update(1)).body.errors![0].extensions.code).toBe('CONFLICT');
    const badDates = await staffGql(`mutation { saveEvent(eventId: 0, input: { Name: "X", StartDate: "2099-05-02T00:00:00Z", EndDate: "2099-05-01T00:00:00Z" }) { EventId } }`);
    expect(badDates.body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', errors: [{ field: 'EndDate' }] });
    const badPrice = await staffGql(`mutation { saveEventRegistrationType(eventRegistrationTypeId: 0, input: { EventId: ${fixture.eventId}, Name: "X", Price: 1.005 }) { EventRegistrationTypeId } }`);
    expect(badPrice.body.errors![0].extensions.errors![0].field).toBe('Price');
    const list = await staffGql(`{ events(options: { Filter: "Managed 2" }) { EventId } }`);
    expect(list.body.data.events).toEqual([{ EventId: fixture.eventId }]);
  });

  it('lists events and attendees in statements independent of the page size', async () => {
    await expectStatementsIndependentOfPageSize(server, async (take) => {
      const response = await staffGql(`{ events(options: { Take: "${take}" }) { ${EVENT_FIELDS} } }`);
      expect(response.body.errors).toBeUndefined();
    }, 6);
    const fixture = await createEvent('Listed');
    for (let index = 0; index < 6; index++) {
      await staffGql(`mutation($input: SaveEventRegisterV2Input!) { registerForEvent(id: ${fixture.eventId}, input: $input) { Status } }`, {
        input: { DisableCaptchaCheck: true, BillingInfo: billing(`list${index}@example.org`), Registrations: [attendee(fixture.regular, `Lister${index}`)] },
      });
    }
    await expectStatementsIndependentOfPageSize(server, async (take) => {
      const response = await staffGql(`{ eventAttendees(eventId: ${fixture.eventId}, options: { Take: "${take}" }) { EventRegistrationId FirstName EventRegistrationTypeName } }`);
      expect(response.body.data.eventAttendees.length).toBe(Math.min(take, 6));
    }, 8);
  });
});

describe('public registration', () => {
  let fixture: Fixture;
  beforeAll(async () => { fixture = await createEvent('Gala', { Capacity: 100 }); });

  it('answers the registration environment without a credential, as a PublicApiResponse, on both interfaces', async () => {
    const response = await publicRest('GET', `/api/public/events/getenv/${fixture.eventId}`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ Status: 200, StatusMessage: 'OK' });
    const data = response.body.Data;
    expect(data.Event).toMatchObject({ EventId: fixture.eventId, Name: 'Gala', RemainingCapacity: 100, IsRegistrationOpen: true });
    expect(data.RegistrationTypes.map((type: { Name: string; Price: number; IsAvailable: boolean }) => [type.Name, type.Price, type.IsAvailable]))
      .toEqual([['Regular', 100, true], ['Student', 40.5, true], ['Members', 75, false]]);
    expect(data.Sponsorships.map((offering: { Name: string }) => offering.Name)).toEqual(['Gold sponsor']);
    expect(data).toMatchObject({ CaptchaRequired: true, CaptchaProvider: 'turnstile', CaptchaSiteKey: 'site-key-1', Contact: null, Registration: null });
    expect(response.text).not.toContain(SECRET);
    // The optional segments, as `null`, or as query parameters.
    expect((await publicRest('GET', `/api/public/events/getenv/${fixture.eventId}/null/null`)).status).toBe(200);
    expect((await publicRest('GET', `/api/public/events/getenv/${fixture.eventId}?contactid=1&regid=2`)).body.Data.Contact).toBeNull();
    const viaGraphql = await publicGql(`{ eventRegistrationEnvironment(id: ${fixture.eventId}) { Status Data { Event { Name } RegistrationTypes { Name Price } } } }`);
    expect(viaGraphql.body.data.eventRegistrationEnvironment).toMatchObject({ Status: 200, Data: { Event: { Name: 'Gala' } } });
  });

  it('hides drafts and unknown tenants from the public', async () => {
    const draft = await createEvent('Draft', { Status: 'draft' });
    expectPublicError(await publicRest('GET', `/api/public/events/getenv/${draft.eventId}`), 404);
    expect((await rest(server, 'GET', `/api/public/events/getenv/${draft.eventId}`, { token: acme.staffToken })).status).toBe(200);
    expect((await rest(server, 'GET', `/api/public/events/getenv/${fixture.eventId}`, { headers: { 'x-tenant-key': 'no-such-tenant' } })).status).toBe(404);
  });

  it('registers with a captcha, prices every line on the server (a sent price is ignored) and bills it once', async () => {
    const body = {
      CaptchaResponse: GOOD_TOKEN, BillingInfo: billing('payer@example.org'),
      Registrations: [{ ...attendee(fixture.regular, 'Ann'), Price: 0.01 }, { ...attendee(fixture.student, 'Ben'), Price: 0 }],
      Sponsorships: [{ EventOfferingId: fixture.gold, Quantity: 1, Price: 1 }],
      DonationItems: [{ EventOfferingId: fixture.donation, Amount: 10.1 }],
    };
    verifierCalls = [];
    const response = await publicRest('POST', `/api/public/events/register_v2/${fixture.eventId}`, body);
    expect(response.status).toBe(200);
    expect(response.body.Status).toBe(200);
    const data = response.body.Data;
    expect(data).toMatchObject({ Total: 650.6, IsNew: true, Status: 'registered' });
    expect(data.Attendees.map((row: { FirstName: string; Amount: number; ContactId: number | null }) => [row.FirstName, row.Amount, row.ContactId])).toEqual([['Ann', 100, null], ['Ben', 40.5, null]]);
    expect(verifierCalls).toEqual([{ secret: SECRET, response: GOOD_TOKEN }]);
    const invoice = await staffGql(`{ invoice(invoiceId: ${data.InvoiceId}) { Total Status Lines { Description Quantity UnitPrice Amount } } }`);
    expect(invoice.body.data.invoice).toMatchObject({
      Total: 650.6, Status: 'open',
      Lines: [
        { Description: 'Regular: Ann Guest', UnitPrice: 100, Amount: 100 }, { Description: 'Student: Ben Guest', UnitPrice: 40.5, Amount: 40.5 },
        { Description: 'Gold sponsor', Quantity: 1, Amount: 500 }, { Description: 'Scholarship fund', Amount: 10.1 },
      ],
    });
    // The same form again (a new captcha token) registers nothing new and answers the same registration.
    const again = await publicRest('POST', `/api/public/events/register_v2/${fixture.eventId}`, { ...body, CaptchaResponse: 'another-token' });
    expect(again.body.Data).toMatchObject({ EventRegistrationOrderId: data.EventRegistrationOrderId, InvoiceId: data.InvoiceId, IsNew: false });
    const env = await publicRest('GET', `/api/public/events/getenv/${fixture.eventId}`);
    expect(env.body.Data.Event.RemainingCapacity).toBe(98);
  });

  it('refuses a missing or rejected captcha, and the bypass to anyone but staff', async () => {
    const body = { BillingInfo: billing('bot@example.org'), Registrations: [attendee(fixture.regular, 'Bot')] };
    expectPublicError(await publicRest('POST', `/api/public/events/register_v2/${fixture.eventId}`, body), 400, 'CaptchaResponse');
    expectPublicError(await publicRest('POST', `/api/public/events/register_v2/${fixture.eventId}`, { ...body, DisableCaptchaCheck: true }), 400, 'CaptchaResponse');
    expectPublicError(await publicRest('POST', `/api/public/events/register_v2/${fixture.eventId}`, { ...body, CaptchaResponse: 'forged' }), 400, 'CaptchaResponse');
    const member = await rest(server, 'POST', `/api/public/events/register_v2/${fixture.eventId}`, { token: acme.memberToken, body: { ...body, DisableCaptchaCheck: true } });
    expectPublicError(member, 400, 'CaptchaResponse');
    const staff = await rest(server, 'POST', `/api/public/events/register_v2/${fixture.eventId}`, { token: acme.staffToken, body: { ...body, DisableCaptchaCheck: true } });
    expect(staff.body).toMatchObject({ Status: 200, Data: { IsNew: true } });
    expect(staff.body.Data.Attendees[0].ContactId).toEqual(expect.any(Number));
  });

  it('answers validation failures as a PublicApiResponse with Status 400 naming the field', async () => {
    expectPublicError(await publicRest('POST', `/api/public/events/register_v2/${fixture.eventId}`, { CaptchaResponse: GOOD_TOKEN, BillingInfo: { ...billing('x@example.org'), EmailAddress: 'nope' }, Registrations: [] }), 400, 'BillingInfo.EmailAddress');
    expectPublicError(await publicRest('POST', `/api/public/events/validate/${fixture.eventId}`, { BillingInfo: billing('x@example.org'), Registrations: [attendee(999999, 'Nobody')] }), 400, 'Registrations[0].EventRegistrationTypeId');
    expectPublicError(await publicRest('POST', `/api/public/events/validate/${fixture.eventId}`, { BillingInfo: billing('x@example.org'), Registrations: [attendee(fixture.members, 'Sneaky')] }), 400, 'Registrations[0].EventRegistrationTypeId');
    expectPublicError(await publicRest('POST', `/api/public/events/validate/${fixture.eventId}`, { BillingInfo: billing('x@example.org'), Sponsorships: [{ EventOfferingId: fixture.booth }] }), 400, 'Sponsorships[0].EventOfferingId');
    expectPublicError(await publicRest('POST', `/api/public/events/validate/${fixture.eventId}`, { BillingInfo: billing('x@example.org'), DonationItems: [{ EventOfferingId: fixture.donation, Amount: 1.001 }] }), 400, 'DonationItems[0].Amount');
    expectPublicError(await publicRest('POST', `/api/public/events/validate/${fixture.eventId}`, { BillingInfo: billing('x@example.org') }), 400, 'Registrations');
    const viaGraphql = await publicGql(`mutation($input: SaveEventRegisterV2Input!) { validateEventRegistration(id: ${fixture.eventId}, input: $input) { Status } }`, {
      input: { BillingInfo: billing('x@example.org'), Registrations: [attendee(999999, 'Nobody')] },
    });
    expect(viaGraphql.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', errors: [{ field: 'Registrations[0].EventRegistrationTypeId' }] });
  });

  it('validates and prices without saving (validate), and shows the splits with what is paid (splits)', async () => {
    const body = { BillingInfo: billing('split@example.org'), Registrations: [attendee(fixture.regular, 'Sam', 'sam.split@example.org')], Exhibitors: [{ EventOfferingId: fixture.booth, Quantity: 2 }] };
    const before = (await publicRest('GET', `/api/public/events/getenv/${fixture.eventId}`)).body.Data.Event.RemainingCapacity;
    const validated = await publicRest('POST', `/api/public/events/validate/${fixture.eventId}`, body);
    expect(validated.body).toMatchObject({ Status: 200, Data: { Total: 700, Lines: [{ Kind: 'registration', Amount: 100 }, { Kind: 'exhibitor', Quantity: 2, UnitPrice: 300, Amount: 600 }] } });
    expect((await publicRest('GET', `/api/public/events/getenv/${fixture.eventId}`)).body.Data.Event.RemainingCapacity).toBe(before);
    const registered = await rest(server, 'POST', `/api/public/events/register_v2/${fixture.eventId}`, { token: acme.staffToken, body: { ...body, DisableCaptchaCheck: true } });
    await staffGql(`mutation { payInvoice(invoiceId: ${registered.body.Data.InvoiceId}, input: { Amount: 250, Method: "card" }) { Status } }`);
    const splits = await publicRest('POST', `/api/public/events/splits/${fixture.eventId}`, body);
    expect(splits.body.Data).toMatchObject({ Total: 700, AmountPaid: 250, Lines: [{ Amount: 100, AmountPaid: 100 }, { Amount: 600, AmountPaid: 150 }] });
    const viaGraphql = await publicGql(`mutation($input: SaveEventRegisterV2Input!) { eventRegistrationSplits(id: ${fixture.eventId}, input: $input) { Data { AmountPaid } } }`, { input: body });
    expect(viaGraphql.body.data.eventRegistrationSplits.Data.AmountPaid).toBe(250);
  });

  it('registers through the first form (register, SaveRegisterAttendees) and submit, on both interfaces', async () => {
    const first = { CaptchaResponse: GOOD_TOKEN, BillingInfo: billing('v1@example.org'), Models: [attendee(fixture.regular, 'Vera')], IsStaff: true, IsMember: true };
    const checked = await publicRest('POST', `/api/public/events/register/${fixture.eventId}`, { ...first, IsFirstStep: true });
    expect(checked.body).toMatchObject({ Status: 200, Data: null });
    const saved = await publicRest('POST', `/api/public/events/register/${fixture.eventId}`, first);
    expect(saved.body.Data).toMatchObject({ Total: 100, IsNew: true, Attendees: [{ FirstName: 'Vera' }] });
    expectPublicError(await publicRest('POST', `/api/public/events/register/${fixture.eventId}`, { ...first, Models: [attendee(fixture.members, 'Vera')] }), 400, 'Models[0].EventRegistrationTypeId');
    const viaGraphql = await publicGql(`mutation($input: SaveRegisterAttendeesInput!) { registerEventAttendees(id: ${fixture.eventId}, input: $input) { Status Data { ${RESULT} } } }`, {
      input: { ...first, CaptchaResponse: GOOD_TOKEN, Models: [attendee(fixture.student, 'Walt')] },
    });
    expect(viaGraphql.body.data.registerEventAttendees.Data).toMatchObject({ Total: 40.5, IsNew: true });
    const submit = { CaptchaResponse: GOOD_TOKEN, BillingInfo: billing('submit@example.org'), Registrations: [attendee(fixture.regular, 'Sue')] };
    const submitted = await publicRest('POST', `/api/public/events/submit/${fixture.eventId}`, submit);
    expect(submitted.body.Data).toMatchObject({ IsNew: true });
    const resubmitted = await publicGql(`mutation($input: SaveEventRegisterV2Input!) { submitEventRegistration(id: ${fixture.eventId}, input: $input) { Status Data { EventRegistrationOrderId IsNew } } }`, { input: submit });
    expect(resubmitted.body.data.submitEventRegistration.Data).toEqual({ EventRegistrationOrderId: submitted.body.Data.EventRegistrationOrderId, IsNew: false });
  });

  it('matches the billing contact without showing another contact\'s data to an anonymous caller', async () => {
    const em = server.orm.em.fork();
    em.create(Contact, { tenant: acme.id, kind: 'person', firstName: 'Secret', lastName: 'Person', email: 'known@example.org', phone: '555-0100', title: 'CEO' });
    await em.flush();
    const sent = { EmailAddress: 'KNOWN@example.org', FirstName: 'Guess', LastName: 'Who', IsMember: true, MembershipIds: '1,2' };
    const anonymous = await publicRest('POST', '/api/public/events/determinebillingcontact', sent);
    expect(anonymous.status).toBe(200);
    expect(anonymous.body).toMatchObject({ ContactId: null, FirstName: 'Guess', LastName: 'Who', EmailAddress: 'KNOWN@example.org', Phone: null, Title: null, IsMember: false, MembershipIds: [] });
    expect(anonymous.text).not.toContain('Secret');
    expect(anonymous.text).not.toContain('555-0100');
    const staff = await rest(server, 'POST', '/api/public/events/determinebillingcontact', { token: acme.staffToken, body: sent });
    expect(staff.body).toMatchObject({ ContactId: expect.any(String), FirstName: 'Secret', Phone: '555-0100' });
    const viaGraphql = await publicGql('mutation($input: BillingContactInfoInput!) { determineBillingContact(input: $input) { ContactId FirstName Phone } }', { input: sent });
    expect(viaGraphql.body.data.determineBillingContact).toEqual({ ContactId: null, FirstName: 'Guess', Phone: null });
    const bad = await publicRest('POST', '/api/public/events/determinebillingcontact', { EmailAddress: 'not-an-email' });
    expect(bad.status).toBe(400);
  });

  it('lets an invitee decline, once, on both interfaces', async () => {
    const em = server.orm.em.fork();
    const invitee = em.create(Contact, { tenant: acme.id, kind: 'person', firstName: 'In', lastName: 'Vitee' });
    const other = em.create(Contact, { tenant: acme.id, kind: 'person', firstName: 'Other', lastName: 'Vitee' });
    await em.flush();
    const invited = await staffGql(`mutation { inviteToEvent(eventId: ${fixture.eventId}, contactIds: [${invitee.id}, ${other.id}]) { ContactId Status } }`);
    expect(invited.body.data.inviteToEvent).toEqual([{ ContactId: invitee.id, Status: 'invited' }, { ContactId: other.id, Status: 'invited' }]);
    const declined = await publicRest('POST', `/api/public/events/decline/invitation/${fixture.eventId}/${invitee.id}`);
    expect(declined.body).toEqual({ Status: 200, StatusMessage: 'The invitation was declined.', Data: true });
    expect((await publicRest('POST', `/api/public/events/decline/invitation/${fixture.eventId}/${invitee.id}`)).body.Data).toBe(true);
    expectPublicError(await publicRest('POST', `/api/public/events/decline/invitation/${fixture.eventId}/999999`), 404);
    expectPublicError(await publicRest('POST', `/api/public/events/decline/invitation/${fixture.eventId}/abc`), 404);
    const viaGraphql = await publicGql(`mutation { declineEventInvitation(id: ${fixture.eventId}, contactId: "${other.id}") { Status Data } }`);
    expect(viaGraphql.body.data.declineEventInvitation).toEqual({ Status: 200, Data: true });
  });
});

describe('capacity and repeated submissions under concurrency', () => {
  it('never sells more seats than there are when many register for the last ones at once', async () => {
    const fixture = await createEvent('Last seats', { Capacity: 5 });
    const attempts = Array.from({ length: 20 }, (_, index) => rest(server, 'POST', `/api/public/events/register_v2/${fixture.eventId}`, {
      token: acme.staffToken, body: { DisableCaptchaCheck: true, BillingInfo: billing(`racer${index}@example.org`), Registrations: [attendee(fixture.regular, `Racer${index}`)] },
    }));
    const statuses = (await Promise.all(attempts)).map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(5);
    expect(statuses.filter((status) => status !== 200).every((status) => status === 409)).toBe(true);
    const attendees = await staffGql(`{ eventAttendees(eventId: ${fixture.eventId}) { EventRegistrationId } }`);
    expect(attendees.body.data.eventAttendees).toHaveLength(5);
    const event = await staffGql(`{ event(eventId: ${fixture.eventId}) { RemainingCapacity } }`);
    expect(event.body.data.event.RemainingCapacity).toBe(0);
    const invoices = await server.orm.em.fork().execute<{ count: string }[]>("select count(*) from invoice where tenant_id = ? and source = 'events' and memo = 'Last seats'", [acme.id]);
    expect(Number(invoices[0].count)).toBe(5);
  });

  it('registers a submission sent ten times at once exactly once', async () => {
    const fixture = await createEvent('Double click');
    const body = { CaptchaResponse: GOOD_TOKEN, BillingInfo: billing('clicker@example.org'), Registrations: [attendee(fixture.regular, 'Clicker')] };
    const responses = await Promise.all(Array.from({ length: 10 }, () => publicRest('POST', `/api/public/events/register_v2/${fixture.eventId}`, body)));
    expect(responses.map((response) => response.status)).toEqual(Array(10).fill(200));
    expect(new Set(responses.map((response) => response.body.Data.EventRegistrationOrderId)).size).toBe(1);
    expect(responses.filter((response) => response.body.Data.IsNew)).toHaveLength(1);
    const attendees = await staffGql(`{ eventAttendees(eventId: ${fixture.eventId}) { EventRegistrationId } }`);
    expect(attendees.body.data.eventAttendees).toHaveLength(1);
  });
});

describe('event groups', () => {
  it('manages tables: MaxToAssign, candidates, one table per attendee, deletable only when empty', async () => {
    const fixture = await createEvent('Tables');
    const registered = await rest(server, 'POST', `/api/public/events/register_v2/${fixture.eventId}`, {
      token: acme.staffToken,
      body: { DisableCaptchaCheck: true, BillingInfo: billing('tables@example.org'), Registrations: ['Amy', 'Bob', 'Cat'].map((name) => attendee(fixture.regular, name)) },
    });
    const [amy, bob, cat] = registered.body.Data.Attendees.map((row: { EventRegistrationId: number }) => row.EventRegistrationId) as number[];
    const created = await rest(server, 'POST', '/api/eventgroups/groups/0', { token: acme.staffToken, body: { EventId: fixture.eventId, Name: 'Table 1', MaxToAssign: '2' } });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ EventId: fixture.eventId, Name: 'Table 1', MaxToAssign: '2', GroupNumber: 1, Members: [], IsDeleted: false, IsDeletable: true });
    const groupId = created.body.EventGroupId as number;
    const members = (ids: number[]) => rest(server, 'POST', `/api/eventgroups/groups/${groupId}/members`, { token: acme.staffToken, body: { Members: ids.map((id) => ({ EventRegistrationId: id })) } });
    const tooMany = await members([amy, bob, cat]);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors[0].field).toBe('Members');
    const assigned = await members([amy, bob]);
    expect(assigned.status).toBe(200);
    expect(assigned.text).toBe('');
    const plan = await rest(server, 'GET', `/api/eventgroups/events/${fixture.eventId}`, { token: acme.staffToken });
    expect(plan.body.Groups[0]).toMatchObject({ Name: 'Table 1', IsDeletable: false, Members: [{ Name: 'Amy Guest' }, { Name: 'Bob Guest' }] });
    expect(plan.body.Candidates.map((candidate: { EventRegistrationId: number }) => candidate.EventRegistrationId)).toEqual([cat]);
    // A second table cannot seat Amy again.
    const second = await rest(server, 'POST', '/api/eventgroups/groups/0', { token: acme.staffToken, body: { EventId: fixture.eventId, Name: 'Table 2' } });
    const secondId = second.body.EventGroupId as number;
    const twice = await rest(server, 'POST', `/api/eventgroups/groups/${secondId}/members`, { token: acme.staffToken, body: { Members: [{ EventRegistrationId: amy }] } });
    expect(twice.status).toBe(409);
    // Not deletable while seated; MaxToAssign not below its members; stale AuditId.
    expect((await rest(server, 'DELETE', `/api/eventgroups/groups/${groupId}`, { token: acme.staffToken })).status).toBe(409);
    expect((await rest(server, 'POST', `/api/eventgroups/groups/${groupId}`, { token: acme.staffToken, body: { Name: 'Table 1', MaxToAssign: '1' } })).status).toBe(409);
    const renamed = await rest(server, 'POST', `/api/eventgroups/groups/${groupId}`, { token: acme.staffToken, body: { Name: 'Head table', AuditId: 1 } });
    expect(renamed.body).toMatchObject({ Name: 'Head table', AuditId: 2 });
    expect((await rest(server, 'POST', `/api/eventgroups/groups/${groupId}`, { token: acme.staffToken, body: { Name: 'Stale', AuditId: 1 } })).status).toBe(409);
    const one = await rest(server, 'GET', `/api/eventgroups/groups/${fixture.eventId}/${groupId}`, { token: acme.staffToken });
    expect(one.body).toMatchObject({ EventGroupId: groupId, Name: 'Head table', Members: [{ EventRegistrationId: amy }, { EventRegistrationId: bob }] });
    expect((await rest(server, 'GET', `/api/eventgroups/groups/${fixture.eventId}/abc`, { token: acme.staffToken })).status).toBe(404);
    // Emptied, it can go.
    expect((await members([])).status).toBe(200);
    const deleted = await rest(server, 'DELETE', `/api/eventgroups/groups/${groupId}`, { token: acme.staffToken });
    expect(deleted.body).toMatchObject({ EventGroupId: groupId, IsDeleted: true });
    expect((await rest(server, 'DELETE', `/api/eventgroups/groups/${groupId}`, { token: acme.staffToken })).status).toBe(404);
    const viaGraphql = await staffGql(`{ eventTableManagement(eventId: ${fixture.eventId}) { Groups { Name } Candidates { EventRegistrationId } } }`);
    expect(viaGraphql.body.data.eventTableManagement).toEqual({ Groups: [{ Name: 'Table 2' }], Candidates: [amy, bob, cat].map((id) => ({ EventRegistrationId: id })) });
    const gqlSave = await staffGql(`mutation { saveEventGroup(eventGroupId: 0, input: { EventId: ${fixture.eventId}, Name: "Table 3", MaxToAssign: "1" }) { EventGroupId GroupNumber } }`);
    const thirdId = gqlSave.body.data.saveEventGroup.EventGroupId;
    expect((await staffGql(`mutation { setEventGroupMembers(eventGroupId: ${thirdId}, input: { Members: [{ EventRegistrationId: ${cat} }] }) }`)).body.data.setEventGroupMembers).toBe(true);
    expect((await staffGql(`{ eventGroup(eventId: "${fixture.eventId}", eventGroupId: "${thirdId}") { Members { EventRegistrationId } } }`)).body.data.eventGroup.Members).toEqual([{ EventRegistrationId: cat }]);
    expect((await staffGql(`mutation { deleteEventGroup(eventGroupId: ${secondId}) { IsDeleted } }`)).body.data.deleteEventGroup.IsDeleted).toBe(true);
  });

  it('never overfills a table when assignments race', async () => {
    const fixture = await createEvent('Racing tables');
    const registered = await rest(server, 'POST', `/api/public/events/register_v2/${fixture.eventId}`, {
      token: acme.staffToken,
      body: { DisableCaptchaCheck: true, BillingInfo: billing('race-tables@example.org'), Registrations: Array.from({ length: 6 }, (_, index) => attendee(fixture.regular, `Seat${index}`)) },
    });
    const ids = registered.body.Data.Attendees.map((row: { EventRegistrationId: number }) => row.EventRegistrationId) as number[];
    const groups = await Promise.all([1, 2].map((number) => rest(server, 'POST', '/api/eventgroups/groups/0', { token: acme.staffToken, body: { EventId: fixture.eventId, Name: `T${number}`, MaxToAssign: '3' } })));
    // Both tables try to seat overlapping attendees at once: each attendee ends at one table at most.
    const results = await Promise.all(groups.flatMap((group, index) => [ids.slice(index * 2, index * 2 + 3), ids.slice(3)].map((members) => rest(server, 'POST', `/api/eventgroups/groups/${group.body.EventGroupId}/members`, {
      token: acme.staffToken, body: { Members: members.map((id) => ({ EventRegistrationId: id })) },
    }))));
    expect(results.every((response) => [200, 409].includes(response.status))).toBe(true);
    const plan = await rest(server, 'GET', `/api/eventgroups/events/${fixture.eventId}`, { token: acme.staffToken });
    const seated = plan.body.Groups.flatMap((group: { Members: { EventRegistrationId: number }[] }) => group.Members.map((member) => member.EventRegistrationId));
    expect(new Set(seated).size).toBe(seated.length);
    for (const group of plan.body.Groups) expect(group.Members.length).toBeLessThanOrEqual(3);
  });
});

describe('goal widgets', () => {
  it('computes each widget from registrations and payments, matching a hand-computed fixture', async () => {
    const fixture = await createEvent('Widgets');
    const register = async (email: string, body: Record<string, unknown>) => {
      const response = await rest(server, 'POST', `/api/public/events/register_v2/${fixture.eventId}`, { token: acme.staffToken, body: { DisableCaptchaCheck: true, BillingInfo: billing(email), ...body } });
      expect(response.status).toBe(200);
      return response.body.Data.InvoiceId as number;
    };
    const pay = (invoiceId: number, amount: number) => staffGql(`mutation { payInvoice(invoiceId: ${invoiceId}, input: { Amount: ${amount}, Method: "card" }) { Status } }`);
    // Order 1: 2 Regular (200.00) + 1 Gold (500.00) = 700.00, paid 250.00 → 200.00 to registrations, 50.00 to the sponsorship.
    await pay(await register('w1@example.org', { Registrations: [attendee(fixture.regular, 'W1a'), attendee(fixture.regular, 'W1b')], Sponsorships: [{ EventOfferingId: fixture.gold }] }), 250);
    // Order 2: 1 Student (40.50) + 1 Booth (300.00) = 340.50, paid in full.
    await pay(await register('w2@example.org', { Registrations: [attendee(fixture.student, 'W2')], Exhibitors: [{ EventOfferingId: fixture.booth }] }), 340.5);
    // Order 3: 1 Regular (100.00) + 2 Gold (1000.00) + 1 Booth (300.00) = 1400.00, unpaid.
    await register('w3@example.org', { Registrations: [attendee(fixture.regular, 'W3')], Sponsorships: [{ EventOfferingId: fixture.gold, Quantity: 2 }], Exhibitors: [{ EventOfferingId: fixture.booth }] });

    const widget = async (path: string) => {
      const response = await rest(server, 'GET', `/api/eventwidgets/${fixture.eventId}/goals/${path}`, { token: acme.staffToken });
      expect(response.status).toBe(200);
      return response.body;
    };
    expect(await widget('attendee')).toMatchObject({ Name: 'Attendees', WidgetId: 'event-goal-attendee', Value: '4', Heading: '4 of 10 attendees', SubHeading: '40% of goal' });
    expect(await widget('attendeerevenue')).toMatchObject({ Value: '340.50', Heading: '340.50 of 1000.00 attendee revenue', SubHeading: '34% of goal; 240.50 paid' });
    expect(await widget('sponsor')).toMatchObject({ Value: '3', Heading: '3 of 4 sponsors', SubHeading: '75% of goal' });
    expect(await widget('sponsorrevenue')).toMatchObject({ Value: '1500.00', Heading: '1500.00 of 2000.00 sponsor revenue', SubHeading: '75% of goal; 50.00 paid' });
    expect(await widget('exhibitor')).toMatchObject({ Value: '2', Heading: '2 of 2 exhibitors', SubHeading: '100% of goal' });
    expect(await widget('exhibitorrevenue')).toMatchObject({ Value: '600.00', Heading: '600.00 of 600.00 exhibitor revenue', SubHeading: '100% of goal; 300.00 paid' });
    expect(JSON.parse((await widget('sponsorrevenue')).DisplayInfo)).toEqual({ Goal: '2000.00', Percent: 75, Paid: '50.00' });

    const before = server.statements();
    const viaGraphql = await staffGql(`{ eventSponsorRevenueGoalWidget(eventId: ${fixture.eventId}) { Value SubHeading } }`);
    expect(server.statements() - before).toBeLessThanOrEqual(2); // the widget's one statement (and the caller's)
    expect(viaGraphql.body.data.eventSponsorRevenueGoalWidget).toEqual({ Value: '1500.00', SubHeading: '75% of goal; 50.00 paid' });
    const queries = ['eventAttendeeGoalWidget', 'eventAttendeeRevenueGoalWidget', 'eventSponsorGoalWidget', 'eventExhibitorGoalWidget', 'eventExhibitorRevenueGoalWidget'];
    for (const field of queries) expect((await staffGql(`{ ${field}(eventId: ${fixture.eventId}) { Value } }`)).body.data[field].Value).toEqual(expect.any(String));
    expect((await rest(server, 'GET', '/api/eventwidgets/999999/goals/attendee', { token: acme.staffToken })).status).toBe(404);
  });
});
