/**
 * Issue 34, item 9: the chain README's "Running an association" shows a newcomer, step by step
 * as written there — a dues item, a membership type, a person, an enrolment billed at the type's
 * price, the invoice paid (the member turns active, on the dashboard and in the roster report),
 * a billing schedule for the renewal, a billing run, its invoice paid (a new term: a renewal).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addDays, addMonths, todayUtc } from '../src/core/dates.js';
import { reportRunJobs } from '../src/services/reporting/report-runs.js';
import { scheduledBillingJobs } from '../src/services/billing/scheduled-billing.js';
import { createTestTenant, graphql, rest, startTestServer, type TestServer, type TestTenant } from './support/harness.js';
import { waitFor } from './support/processes.js';

let server: TestServer;
let tenant: TestTenant;

beforeAll(async () => {
  server = await startTestServer({}, { jobs: [...scheduledBillingJobs({ pollingIntervalSeconds: 0.5, retryDelaySeconds: 1 }), ...reportRunJobs({ pumpEveryMs: 100 })] });
  tenant = await createTestTenant(server, 'chain');
}, 60_000);
afterAll(() => server.close());

const api = async (method: string, path: string, body?: unknown) => {
  const response = await rest(server, method, path, { token: tenant.staffToken, body });
  expect(response.status).toBe(200);
  return response.body;
};
const gql = async (query: string) => {
  const response = await graphql(server, query, {}, tenant.staffToken);
  expect(response.body.errors).toBeUndefined();
  return response.body.data;
};

describe("README's chain: enrol, bill, pay, renew", () => {
  it('takes a member from enrolment to a paid renewal, with the dashboard and the roster report following', async () => {
    const today = todayUtc();
    // 1. What the dues are sold as, and the membership type that sells them (a year, 30 days of grace).
    const { saveSaleableItem: item } = await gql('mutation { saveSaleableItem(saleableItemId: 0, input: { Name: "Individual dues", ItemType: "membership", Price: 120 }) { SaleableItemId } }');
    const type = await api('POST', '/api/membershiptypes/0', { Name: 'Individual', DurationMonths: 12, GraceDays: 30, SaleableItemId: item.SaleableItemId });
    // 2. A person, and her enrolment billed at the type's price: pending until paid.
    const ada = await api('POST', '/api/contacts/0', { Kind: 'person', FirstName: 'Ada', LastName: 'Lovelace', Emails: [{ EmailAddress: 'ada@example.org' }] });
    const enrolled = await api('POST', '/api/memberships/0', { ContactId: ada.ContactId, MembershipTypeId: type.MembershipTypeId, BillIt: true });
    expect(enrolled).toMatchObject({ Status: 'pending', InGoodStanding: false, StartDate: today, EndDate: addDays(addMonths(today, 12), -1), InvoiceId: expect.any(Number) });
    // 3. The invoice paid: the term is active, counted on the dashboard and listed in the roster report.
    await gql(`mutation { payInvoice(invoiceId: ${enrolled.InvoiceId}, input: { Amount: 120, Method: "card" }) { Status } }`);
    expect(await api('GET', `/api/memberships/${enrolled.MembershipId}`)).toMatchObject({ Status: 'active', InGoodStanding: true });
    const distribution = await api('GET', `/api/summary/membershipstypedistribution/${type.MembershipTypeId}`);
    expect(distribution.data).toEqual([expect.objectContaining({ Label: '(no level)', Values: [1] })]);
    const reports = await api('POST', '/api/reporting', { Filter: 'Membership roster', IsCustom: false });
    const rosterId = reports.Results.find((report: { Name: string }) => report.Name === 'Membership roster').ReportId;
    const { runReport } = await gql(`mutation { runReport(input: { ReportId: ${rosterId} }) { ReportRunId } }`);
    await waitFor('the roster', async () => (await gql(`{ reportRun(reportRunId: ${runReport.ReportRunId}) { State } }`)).reportRun.State, (state) => state === 'completed', 20_000, 100);
    const roster = (await rest(server, 'GET', `/api/reporting/runs/${runReport.ReportRunId}/csv`, { token: tenant.staffToken })).text;
    expect(roster).toContain(`Ada Lovelace,Individual,,active,${today}`);

    // 4. A billing schedule for the renewal, due the day after the term ends; billing run for that day.
    const renewalDay = addMonths(today, 12);
    await api('POST', '/api/scheduledbilling/schedules/0', {
      ContactId: ada.ContactId, MembershipId: enrolled.MembershipId, SaleableItemId: item.SaleableItemId, Description: 'Individual dues',
      Amount: 120, FrequencyMonths: 12, StartDate: today, NextBillDate: renewalDay,
    });
    await api('POST', '/api/scheduledbilling/membershiptype/items/run', { CurrentAdvancedFilter: { NextBillDate: renewalDay }, MembershipTypeId: type.MembershipTypeId, ChangeCurrentMembership: true });
    const invoices = await waitFor('the renewal invoice', async () => (await gql(`{ invoices(filter: { ContactId: ${ada.ContactId}, Status: "open" }) { InvoiceId Total } }`)).invoices,
      (found: { InvoiceId: number }[]) => found.length === 1, 20_000, 200);
    // 5. Paid: a new term from the renewal day, active; the old one kept as it was.
    await gql(`mutation { payInvoice(invoiceId: ${invoices[0].InvoiceId}, input: { Amount: 120, Method: "card" }) { Status } }`);
    const terms = await api('POST', '/api/memberships/items', { ContactId: ada.ContactId, OrderBy: 'StartDate' });
    expect(terms.Results.map((term: { StartDate: string; Status: string }) => [term.StartDate, term.Status])).toEqual([[today, 'active'], [renewalDay, 'active']]);
  }, 90_000);
});
