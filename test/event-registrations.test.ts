import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { jobContext } from '../src/core/runtime/job-context.js';
import { Contact } from '../src/entities/contact.js';
import { cancelRegistrationsOfContact } from '../src/services/events/registration-changes.js';
import { createTestTenant, graphql, rest, startRaceServer, type HttpResult, type TestServer, type TestTenant } from './support/harness.js';

// Staff change and cancel of registrations, the repeat of a public registration, a paid order.
// 401/403, malformed input, isolation and the fuzz of the new operations: test/sweeps.test.ts.
jest.setTimeout(120_000);
let server: TestServer;
let acme: TestTenant;

beforeAll(async () => {
  server = await startRaceServer();
  acme = await createTestTenant(server, 'registrations-acme');
});
afterAll(() => server.close());

const PUBLIC = { 'x-tenant-key': 'registrations-acme' };
const staffGql = (query: string, variables: Record<string, unknown> = {}) => graphql<any>(server, query, variables, acme.staffToken);
const staffRest = (method: string, path: string, body?: unknown) => rest(server, method, path, { token: acme.staffToken, body });
const RECORD = 'EventRegistrationId EventRegistrationOrderId EventId ContactId EventRegistrationTypeId EventRegistrationTypeName FirstName LastName EmailAddress Amount Status OrderStatus PaidAt InvoiceId InvoiceStatus AuditId';

interface Fixture { eventId: number; regular: number; vip: number; gold: number }

/** An open event without captcha: `capacity` seats, a Regular type (100.00) and a VIP type of one seat (250.00), a sponsorship. */
async function createEvent(name: string, capacity: number | null): Promise<Fixture> {
  const event = await staffGql(`mutation($input: EventInput!) { saveEvent(eventId: 0, input: $input) { EventId } }`, {
    input: { Name: name, StartDate: '2099-05-01T18:00:00Z', EndDate: '2099-05-01T22:00:00Z', Status: 'open', Capacity: capacity, RequireCaptcha: false, GoalAttendees: 10 },
  });
  expect(event.body.errors).toBeUndefined();
  const eventId = event.body.data.saveEvent.EventId as number;
  const type = async (Name: string, Price: number, Capacity: number | null) => {
    const saved = await staffGql(`mutation($input: EventRegistrationTypeInput!) { saveEventRegistrationType(eventRegistrationTypeId: 0, input: $input) { EventRegistrationTypeId } }`, {
      input: { EventId: eventId, Name, Price, Capacity },
    });
    expect(saved.body.errors).toBeUndefined();
    return saved.body.data.saveEventRegistrationType.EventRegistrationTypeId as number;
  };
  const gold = await staffGql(`mutation($input: EventOfferingInput!) { saveEventOffering(eventOfferingId: 0, input: $input) { EventOfferingId } }`, {
    input: { EventId: eventId, Kind: 'sponsorship', Name: 'Gold', Price: 500, Capacity: 2 },
  });
  return { eventId, regular: await type('Regular', 100, null), vip: await type('VIP', 250, 1), gold: gold.body.data.saveEventOffering.EventOfferingId as number };
}

const person = (first: string, typeId: number) => ({ EventRegistrationTypeId: typeId, FirstName: first, LastName: 'Guest', EmailAddress: `${first.toLowerCase()}@example.org` });
const form = (payer: string, attendees: ReturnType<typeof person>[], extra: Record<string, unknown> = {}) => ({
  BillingInfo: { FirstName: payer, LastName: 'Payer', EmailAddress: `${payer.toLowerCase()}@example.org` }, Registrations: attendees, ...extra,
});
const registerPublic = (eventId: number, body: unknown) => rest(server, 'POST', `/api/public/events/register_v2/${eventId}`, { headers: PUBLIC, body });
const cancelRest = (registrationId: number, body: Record<string, unknown> = {}) => staffRest('POST', `/api/eventregistrations/${registrationId}/cancel`, body);
const pay = async (invoiceId: number, amount: number) => {
  const paid = await staffGql(`mutation { payInvoice(invoiceId: ${invoiceId}, input: { Amount: ${amount}, Method: "card" }) { Status } }`);
  expect(paid.body.errors).toBeUndefined();
};
const invoice = async (invoiceId: number) => (await staffGql(`{ invoice(invoiceId: ${invoiceId}) { Status Total AmountPaid Lines { Description Amount } Payments { Amount Method } } }`)).body.data.invoice;

async function seats(eventId: number): Promise<{ event: number; types: number[]; registered: number }> {
  const em = server.orm.em.fork();
  const [event] = await em.execute<{ seats_taken: number }[]>('select seats_taken from event where id = ?', [eventId]);
  const types = await em.execute<{ seats_taken: number }[]>('select seats_taken from event_registration_type where event_id = ? order by id', [eventId]);
  const [registered] = await em.execute<{ count: string }[]>("select count(*) from event_registration where event_id = ? and status = 'registered'", [eventId]);
  return { event: event.seats_taken, types: types.map((type) => type.seats_taken), registered: Number(registered.count) };
}

function expectOk(response: HttpResult) {
  expect(response.status).toBe(200);
  return response.body;
}

describe('registration, sell-out, repeat, cancel and a seat back', () => {
  it('answers a repeat with what the registrant holds even when sold out, refuses a new registrant, and gives the seat back on cancel', async () => {
    const fixture = await createEvent('Sell-out', 2);
    const ann = expectOk(await registerPublic(fixture.eventId, form('Alice', [person('Ann', fixture.regular)]))).Data;
    const bob = expectOk(await registerPublic(fixture.eventId, form('Bert', [person('Bob', fixture.regular)]))).Data;
    expect((await staffGql(`{ event(eventId: ${fixture.eventId}) { RemainingCapacity } }`)).body.data.event.RemainingCapacity).toBe(0);

    // The same registrant again — other comments, name spacing and case — after the sell-out: 200, the same ids, nothing new.
    const repeat = await registerPublic(fixture.eventId, form('Alice', [{ ...person('Ann', fixture.regular), EmailAddress: 'ANN@Example.org', FirstName: ' ann ' }], { Comments: 'again' }));
    expect(repeat.status).toBe(200);
    expect(repeat.body).toMatchObject({ Status: 200, StatusMessage: 'Already registered.' });
    expect(repeat.body.Data).toMatchObject({ EventRegistrationOrderId: ann.EventRegistrationOrderId, InvoiceId: ann.InvoiceId, IsNew: false });
    const attendeeIds = (data: { Attendees: { EventRegistrationId: number }[] }) => data.Attendees.map((row) => row.EventRegistrationId);
    expect(attendeeIds(repeat.body.Data)).toEqual(attendeeIds(ann));
    // A new registrant is sold out; so is the same attendee under another payer (another registrant).
    expect((await registerPublic(fixture.eventId, form('Carol', [person('Cid', fixture.regular)]))).status).toBe(409);
    expect((await registerPublic(fixture.eventId, form('Dora', [person('Ann', fixture.regular)]))).status).toBe(409);

    // Staff cancel Bob over REST: his seat comes back, his unpaid invoice is voided, the figures follow.
    const bobId = bob.Attendees[0].EventRegistrationId as number;
    const cancelled = await cancelRest(bobId);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ EventRegistrationId: bobId, Status: 'cancelled', OrderStatus: 'cancelled', InvoiceId: bob.InvoiceId, InvoiceStatus: 'void' });
    expect(await seats(fixture.eventId)).toEqual({ event: 1, types: [1, 0], registered: 1 });
    expect((await invoice(bob.InvoiceId)).Status).toBe('void');
    const widget = await staffRest('GET', `/api/eventwidgets/${fixture.eventId}/goals/attendee`);
    expect(widget.body).toMatchObject({ Value: '1', Heading: '1 of 10 attendees' });
    const summary = await staffRest('GET', `/api/summary/eventattendeeregistrations/${fixture.eventId}`);
    const stats = Object.fromEntries(JSON.stringify(summary.body).match(/"Name":"(Registered|Cancelled|Seats left)","Value":"\d+"/g)!.map((text) => {
      const [, name, value] = /"Name":"([^"]+)","Value":"(\d+)"/.exec(text)!;
      return [name, value];
    }));
    expect(stats).toEqual({ Registered: '1', Cancelled: '1', 'Seats left': '1' });
    // Cancelling again changes nothing.
    expect((await cancelRest(bobId)).body).toMatchObject({ Status: 'cancelled' });
    expect((await seats(fixture.eventId)).event).toBe(1);

    // The new registrant now gets the seat; Bob's own form, resubmitted, is a new registration (he holds none) and finds it sold out.
    const cid = await registerPublic(fixture.eventId, form('Carol', [person('Cid', fixture.regular)]));
    expect(cid.body.Data).toMatchObject({ IsNew: true });
    expect((await registerPublic(fixture.eventId, form('Bert', [person('Bob', fixture.regular)]))).status).toBe(409);
    expect(await seats(fixture.eventId)).toEqual({ event: 2, types: [2, 0], registered: 2 });
  });

  it('answers two different forms of one registrant sent at once with one registration', async () => {
    const fixture = await createEvent('Twins', 10);
    const responses = await Promise.all(['first', 'second', 'third', 'fourth'].map((comment) => registerPublic(fixture.eventId, form('Twin', [person('Tia', fixture.regular)], { Comments: comment }))));
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(responses.map((response) => response.body.Data.EventRegistrationOrderId)).size).toBe(1);
    expect(new Set(responses.map((response) => response.body.Data.Attendees[0].EventRegistrationId)).size).toBe(1);
    expect(responses.filter((response) => response.body.Data.IsNew)).toHaveLength(1);
    expect(await seats(fixture.eventId)).toEqual({ event: 1, types: [1, 0], registered: 1 });
  });
});

describe('staff read, make and change registrations', () => {
  it('reads and makes a registration on both interfaces, moves seats with a type change, refuses full types, stale versions and cancelled ones', async () => {
    const fixture = await createEvent('Changes', 10);
    const made = await staffRest('POST', '/api/eventregistrations/0', { EventId: fixture.eventId, EventRegistrationTypeId: fixture.regular, FirstName: 'Eve', LastName: 'Early', EmailAddress: 'eve@example.org' });
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ EventId: fixture.eventId, EventRegistrationTypeId: fixture.regular, FirstName: 'Eve', Amount: 100, Status: 'registered', OrderStatus: 'registered', InvoiceStatus: 'open', PaidAt: null, AuditId: 1 });
    const eve = made.body.EventRegistrationId as number;
    expect((await staffRest('POST', '/api/eventregistrations/0', { EventId: fixture.eventId, FirstName: 'No', LastName: 'Type', EmailAddress: 'x@example.org' })).body.errors[0].field).toBe('EventRegistrationTypeId');
    const read = await staffRest('GET', `/api/eventregistrations/${eve}`);
    expect(read.body).toEqual(made.body);
    expect((await staffGql(`{ eventRegistration(eventRegistrationId: ${eve}) { ${RECORD} } }`)).body.data.eventRegistration).toEqual(made.body);
    expect((await staffRest('GET', '/api/eventregistrations/999999')).status).toBe(404);

    // To VIP (one seat): the seat moves; the name and e-mail change; the amount billed stays.
    const changed = await staffGql(`mutation($input: EventRegistrationInput!) { saveEventRegistration(eventRegistrationId: ${eve}, input: $input) { ${RECORD} } }`, {
      input: { EventRegistrationTypeId: fixture.vip, FirstName: 'Evelyn', EmailAddress: 'Evelyn@Example.org', AuditId: 1 },
    });
    expect(changed.body.data.saveEventRegistration).toMatchObject({ EventRegistrationTypeId: fixture.vip, FirstName: 'Evelyn', LastName: 'Early', EmailAddress: 'evelyn@example.org', Amount: 100, AuditId: 2 });
    expect(await seats(fixture.eventId)).toEqual({ event: 1, types: [0, 1], registered: 1 });
    const stale = await staffRest('POST', `/api/eventregistrations/${eve}`, { LastName: 'Late', AuditId: 1 });
    expect(stale.status).toBe(409);
    // VIP is full for a second attendee.
    const other = await staffGql(`mutation { saveEventRegistration(eventRegistrationId: 0, input: { EventId: ${fixture.eventId}, EventRegistrationTypeId: ${fixture.regular}, FirstName: "Finn", LastName: "F", EmailAddress: "finn@example.org" }) { EventRegistrationId } }`);
    const finn = other.body.data.saveEventRegistration.EventRegistrationId as number;
    const full = await staffRest('POST', `/api/eventregistrations/${finn}`, { EventRegistrationTypeId: fixture.vip });
    expect(full.status).toBe(409);
    expect(full.body.errors[0].field).toBe('EventRegistrationTypeId');
    expect(await seats(fixture.eventId)).toEqual({ event: 2, types: [1, 1], registered: 2 });
    expect((await staffRest('POST', `/api/eventregistrations/${finn}`, { EventRegistrationTypeId: 999999 })).status).toBe(400);
    // A cancelled registration is not changed; a cancel with a stale AuditId is refused.
    expect((await cancelRest(finn, { AuditId: 99 })).status).toBe(409);
    expect((await staffGql(`mutation { cancelEventRegistration(eventRegistrationId: ${finn}, input: { AuditId: 1 }) { Status AuditId } }`)).body.data.cancelEventRegistration).toEqual({ Status: 'cancelled', AuditId: 2 });
    expect((await staffRest('POST', `/api/eventregistrations/${finn}`, { FirstName: 'Back' })).status).toBe(409);
    expect(await seats(fixture.eventId)).toEqual({ event: 1, types: [0, 1], registered: 1 });
  });
});

describe('money follows a cancel', () => {
  it('credits an unpaid invoice for one attendee, then the order is marked paid when the rest is paid', async () => {
    const fixture = await createEvent('Credit', 10);
    const order = expectOk(await registerPublic(fixture.eventId, form('Payer', [person('Gus', fixture.regular), person('Hal', fixture.regular)]))).Data;
    expect(order.PaidAt).toBeNull();
    const [gus] = order.Attendees.map((row: { EventRegistrationId: number }) => row.EventRegistrationId) as number[];
    const cancelled = await staffGql(`mutation { cancelEventRegistration(eventRegistrationId: ${gus}, input: {}) { Status OrderStatus InvoiceStatus PaidAt } }`);
    expect(cancelled.body.data.cancelEventRegistration).toEqual({ Status: 'cancelled', OrderStatus: 'registered', InvoiceStatus: 'open', PaidAt: null });
    expect(await invoice(order.InvoiceId)).toMatchObject({ Status: 'open', Total: 100, AmountPaid: 0, Lines: [{ Amount: 100 }, { Amount: 100 }, { Description: 'Cancelled: Gus Guest', Amount: -100 }], Payments: [] });
    await pay(order.InvoiceId, 100);
    const held = expectOk(await staffRest('GET', `/api/eventregistrations/${order.Attendees[1].EventRegistrationId}`));
    expect(held).toMatchObject({ InvoiceStatus: 'paid', PaidAt: expect.any(String) });
  });

  it('refunds what was paid beyond the new total, and on a whole-order cancel refunds the rest and voids the invoice', async () => {
    const fixture = await createEvent('Refund', 10);
    const order = expectOk(await registerPublic(fixture.eventId, form('Rich', [person('Ivy', fixture.regular), person('Jon', fixture.regular)], { Sponsorships: [{ EventOfferingId: fixture.gold }] }))).Data;
    expect(order.Total).toBe(700);
    await pay(order.InvoiceId, 650);
    expect((await staffRest('GET', `/api/eventregistrations/${order.Attendees[0].EventRegistrationId}`)).body.PaidAt).toBeNull();
    // One attendee (100.00) cancelled: total 600.00, 50.00 paid beyond it refunded, the invoice paid — and so the order.
    const ivy = await cancelRest(order.Attendees[0].EventRegistrationId);
    expect(ivy.body).toMatchObject({ Status: 'cancelled', OrderStatus: 'registered', InvoiceStatus: 'paid', PaidAt: expect.any(String) });
    expect(await invoice(order.InvoiceId)).toMatchObject({ Status: 'paid', Total: 600, AmountPaid: 600, Payments: [{ Amount: 650, Method: 'card' }, { Amount: -50, Method: 'refund' }] });
    // The whole order: the rest refunded, the invoice void, the sponsorship's unit and the attendee's seat back.
    const whole = await staffGql(`mutation { cancelEventRegistration(eventRegistrationId: ${order.Attendees[1].EventRegistrationId}, input: { WholeOrder: true }) { Status OrderStatus InvoiceStatus } }`);
    expect(whole.body.data.cancelEventRegistration).toEqual({ Status: 'cancelled', OrderStatus: 'cancelled', InvoiceStatus: 'void' });
    expect(await invoice(order.InvoiceId)).toMatchObject({ Status: 'void', AmountPaid: 0, Payments: [{ Amount: 650 }, { Amount: -50 }, { Amount: -600, Method: 'refund' }] });
    expect(await seats(fixture.eventId)).toEqual({ event: 0, types: [0, 0], registered: 0 });
    const em = server.orm.em.fork();
    const [gold] = await em.execute<{ seats_taken: number }[]>('select seats_taken from event_offering where id = ?', [fixture.gold]);
    expect(gold.seats_taken).toBe(0);
    for (const kind of ['sponsor', 'sponsorrevenue', 'attendeerevenue']) expect((await staffRest('GET', `/api/eventwidgets/${fixture.eventId}/goals/${kind}`)).body.Value).toMatch(/^0(\.00)?$/);
    // The same form again registers afresh (a cancelled order holds nothing).
    const again = await registerPublic(fixture.eventId, form('Rich', [person('Ivy', fixture.regular), person('Jon', fixture.regular)], { Sponsorships: [{ EventOfferingId: fixture.gold }] }));
    expect(again.body.Data).toMatchObject({ IsNew: true, Total: 700 });
    expect(again.body.Data.EventRegistrationOrderId).not.toBe(order.EventRegistrationOrderId);
  });

  it('marks a free order paid when made', async () => {
    const fixture = await createEvent('Free', 10);
    const free = await staffGql(`mutation($input: EventRegistrationTypeInput!) { saveEventRegistrationType(eventRegistrationTypeId: 0, input: $input) { EventRegistrationTypeId } }`, {
      input: { EventId: fixture.eventId, Name: 'Free', Price: 0 },
    });
    const order = expectOk(await registerPublic(fixture.eventId, form('Zed', [person('Zoe', free.body.data.saveEventRegistrationType.EventRegistrationTypeId)]))).Data;
    expect(order).toMatchObject({ InvoiceId: null, PaidAt: expect.any(String) });
  });
});

describe('groups, invitations and a contact\'s registrations', () => {
  it('takes a cancelled attendee off its table and declines the invitation it answered; cancels a contact\'s future registrations', async () => {
    const fixture = await createEvent('Tables and invitations', 10);
    const em = server.orm.em.fork();
    const kim = em.create(Contact, { tenant: acme.id, kind: 'person', firstName: 'Kim', lastName: 'Guest', email: 'kim@example.org' });
    await em.flush();
    await staffGql(`mutation { inviteToEvent(eventId: ${fixture.eventId}, contactIds: [${kim.id}]) { Status } }`);
    const order = expectOk(await registerPublic(fixture.eventId, form('Kim', [person('Kim', fixture.regular), person('Lou', fixture.regular)]))).Data;
    const [kimId, louId] = order.Attendees.map((row: { EventRegistrationId: number }) => row.EventRegistrationId) as number[];
    const invitation = async () => (await em.fork().execute<{ status: string }[]>('select status from event_invitation where event_id = ? and contact_id = ?', [fixture.eventId, kim.id]))[0].status;
    expect(await invitation()).toBe('registered');
    const group = await staffRest('POST', '/api/eventgroups/groups/0', { EventId: fixture.eventId, Name: 'Table' });
    expect((await staffRest('POST', `/api/eventgroups/groups/${group.body.EventGroupId}/members`, { Members: [{ EventRegistrationId: kimId }, { EventRegistrationId: louId }] })).status).toBe(200);

    expect((await cancelRest(kimId)).status).toBe(200);
    expect(await invitation()).toBe('declined');
    const plan = await staffRest('GET', `/api/eventgroups/events/${fixture.eventId}`);
    expect(plan.body.Groups[0].Members.map((member: { EventRegistrationId: number }) => member.EventRegistrationId)).toEqual([louId]);

    // The contacts area's archive: Lou's registrations for events not yet ended are cancelled by the same rules.
    const [lou] = await em.fork().execute<{ contact_id: number }[]>('select contact_id from event_registration where id = ?', [louId]);
    const ctx = jobContext(server.orm.em.fork(), acme.id);
    expect(await cancelRegistrationsOfContact(ctx, lou.contact_id)).toBe(1);
    expect((await staffRest('GET', `/api/eventregistrations/${louId}`)).body).toMatchObject({ Status: 'cancelled', OrderStatus: 'cancelled', InvoiceStatus: 'void' });
    expect(await seats(fixture.eventId)).toEqual({ event: 0, types: [0, 0], registered: 0 });
    expect((await staffRest('GET', `/api/eventgroups/events/${fixture.eventId}`)).body.Groups[0].Members).toEqual([]);
  });
});

describe('races', () => {
  it('never oversells nor goes below zero when a cancel and a registration race for the last seat', async () => {
    const fixture = await createEvent('Last seat race', 1);
    let holder = expectOk(await registerPublic(fixture.eventId, form('Start', [person('Start', fixture.regular)]))).Data.Attendees[0].EventRegistrationId as number;
    for (let round = 0; round < 6; round++) {
      const [cancel, twin, newcomer] = await Promise.all([
        cancelRest(holder),
        cancelRest(holder),
        registerPublic(fixture.eventId, form(`Round${round}`, [person(`Round${round}`, fixture.regular)])),
      ]);
      expect([cancel.status, twin.status]).toEqual([200, 200]);
      expect([200, 409]).toContain(newcomer.status);
      const state = await seats(fixture.eventId);
      expect(state.event).toBe(state.registered);
      expect(state.types[0]).toBe(state.registered);
      expect(state.registered).toBeLessThanOrEqual(1);
      // Whoever holds the seat now (or a new holder) is cancelled in the next round.
      holder = newcomer.status === 200
        ? newcomer.body.Data.Attendees[0].EventRegistrationId
        : expectOk(await registerPublic(fixture.eventId, form(`Again${round}`, [person(`Again${round}`, fixture.regular)]))).Data.Attendees[0].EventRegistrationId;
    }
  });

  it('releases a seat once when the same registration is cancelled many times at once', async () => {
    const fixture = await createEvent('Cancel race', 5);
    const order = expectOk(await registerPublic(fixture.eventId, form('Many', [person('Max', fixture.regular), person('Ned', fixture.regular)]))).Data;
    const statuses = (await Promise.all(Array.from({ length: 8 }, () => cancelRest(order.Attendees[0].EventRegistrationId)))).map((response) => response.status);
    expect(statuses).toEqual(Array(8).fill(200));
    expect(await seats(fixture.eventId)).toEqual({ event: 1, types: [1, 0], registered: 1 });
    expect((await invoice(order.InvoiceId)).Lines.filter((line: { Amount: number }) => line.Amount < 0)).toEqual([{ Description: 'Cancelled: Max Guest', Amount: -100 }]);
  });
});
