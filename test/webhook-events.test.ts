/**
 * Issue 36: the changes partners care about are written to the webhook outbox in their own
 * transaction — contacts and organizations (created, updated, restored, archived), memberships
 * (enrolled, renewed, cancelled, lapsed by the daily job) and registrations cancelled — with the
 * payloads ARCHITECTURE.md states. Delivery itself: test/webhooks.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addDays, addMonths, todayUtc } from '../src/core/dates.js';
import { lapseEndedMemberships } from '../src/services/memberships/lapse.js';
import { createTestTenant, rest, startTestServer, type TestServer, type TestTenant } from './support/harness.js';

let server: TestServer;
let tenant: TestTenant;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await createTestTenant(server, 'hook-events');
  const subscribed = await rest(server, 'POST', '/api/setup/webhooks', {
    token: tenant.staffToken,
    body: { WebhookId: 0, Url: 'https://partner.example/hooks', EventTypes: ['contact.created', 'contact.updated', 'contact.deleted', 'organization.created', 'membership.created', 'membership.renewed', 'membership.cancelled', 'membership.lapsed'] },
  });
  expect(subscribed.status).toBe(200);
});
afterAll(() => server.close());

const api = async (method: string, path: string, body?: unknown) => {
  const response = await rest(server, method, path, { token: tenant.staffToken, body });
  expect(response.status).toBe(200);
  return response.body;
};

/** The events written since `after` (an event id), oldest first, as type and data. */
async function eventsAfter(after: number): Promise<{ id: number; type: string; data: Record<string, unknown> }[]> {
  const rows = await server.orm.em.fork().getConnection().execute<{ id: number; type: string; body: string }[]>(
    'select id, type, body from webhook_event where tenant_id = ? and id > ? order by id', [tenant.id, after]);
  return rows.map((row) => ({ id: row.id, type: row.type, data: (JSON.parse(row.body) as { data: Record<string, unknown> }).data }));
}
const lastEventId = async () => (await eventsAfter(0)).at(-1)?.id ?? 0;

describe('domain changes emit webhook events', () => {
  it('tells a contact and an organization created, updated, archived and restored', async () => {
    const before = await lastEventId();
    const ada = await api('POST', '/api/contacts/0', { Kind: 'person', FirstName: 'Ada', LastName: 'Hook' });
    const guild = await api('POST', '/api/contacts/0', { Kind: 'organization', Name: 'Hook Guild' });
    const edited = await api('POST', `/api/contacts/${ada.ContactId}`, { Kind: 'person', FirstName: 'Ada', LastName: 'Hooked', AuditId: ada.AuditId });
    await api('DELETE', `/api/contacts/${ada.ContactId}/${edited.AuditId}`);
    await api('POST', `/api/contacts/${ada.ContactId}/restore`);
    expect((await eventsAfter(before)).map(({ type, data }) => [type, data])).toEqual([
      ['contact.created', { ContactId: ada.ContactId, Kind: 'person' }],
      ['organization.created', { ContactId: guild.ContactId, Kind: 'organization' }],
      ['contact.updated', { ContactId: ada.ContactId, Kind: 'person' }],
      ['contact.deleted', { ContactId: ada.ContactId, Kind: 'person' }],
      ['contact.updated', { ContactId: ada.ContactId, Kind: 'person' }],
    ]);
  });

  it('tells a membership enrolled, renewed, cancelled, and lapsed by the daily job', async () => {
    const today = todayUtc();
    const type = await api('POST', '/api/membershiptypes/0', { Name: 'Hooked', DurationMonths: 12 });
    const member = await api('POST', '/api/contacts/0', { Kind: 'person', FirstName: 'Max', LastName: 'Member' });
    const before = await lastEventId();
    const start = addDays(addMonths(today, -12), -1);
    const term = await api('POST', '/api/memberships/0', { ContactId: member.ContactId, MembershipTypeId: type.MembershipTypeId, StartDate: start, Status: 'active' });
    const renewal = await api('POST', `/api/memberships/${term.MembershipId}/renew/${term.AuditId}`, {});
    await api('POST', `/api/memberships/${renewal.MembershipId}/cancel/${renewal.AuditId}`, {});
    expect(await lapseEndedMemberships(server.orm)).toBe(1); // the first term ended yesterday
    const facts = { ContactId: member.ContactId, MembershipTypeId: type.MembershipTypeId };
    expect((await eventsAfter(before)).map(({ type: kind, data }) => [kind, data])).toEqual([
      ['membership.created', { ...facts, MembershipId: term.MembershipId, StartDate: start, EndDate: addDays(today, -2), Status: 'active' }],
      ['membership.renewed', { ...facts, MembershipId: renewal.MembershipId, StartDate: addDays(today, -1), EndDate: expect.any(String), Status: 'active', RenewedMembershipId: term.MembershipId }],
      ['membership.cancelled', { ...facts, MembershipId: renewal.MembershipId, StartDate: addDays(today, -1), EndDate: addDays(today, -1), Status: 'cancelled' }],
      ['membership.lapsed', { ...facts, MembershipId: term.MembershipId, StartDate: start, EndDate: addDays(today, -2), Status: 'lapsed' }],
    ]);
  });
});
