import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { createTestTenant, graphql, rest, startTestServer, type TestServer, type TestTenant } from './support/harness.js';

// CalendarStartDate / CalendarEndDate accept any date (or date-time, with an offset) of the years
// 0001–9999. The last day's end (10000-01-01) and an offset across either end of the range fall
// outside what JavaScript dates and PostgreSQL parameters carry; such a bound selects the same
// records as the edge of the range, and never answers 500.
let server: TestServer;
let tenant: TestTenant;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await createTestTenant(server, 'list-dates');
  // An audit entry (now) that the bounds below must keep or drop.
  expect((await rest(server, 'POST', '/api/vendors', { token: tenant.staffToken, body: { Name: 'Dated Vendor' } })).status).toBe(200);
});
afterAll(() => server.close());

type Bounds = { CalendarStartDate?: string; CalendarEndDate?: string };

const auditTrail = (bounds: Bounds) => graphql<{ auditTrail: { TableName: string }[] }>(
  server, 'query($filter: AuditTrailFilterInput) { auditTrail(filter: $filter) { TableName } }', { filter: bounds }, tenant.staffToken);
const events = (bounds: Bounds) => graphql(server, 'query($options: ListOptions) { events(options: $options) { EventId } }', { options: bounds }, tenant.staffToken);
const acceptancesByQuery = (bounds: Bounds) => rest(server, 'GET', `/api/setup/termsofuse/usertermsacceptance/staff?options=${encodeURIComponent(JSON.stringify(bounds))}`, { token: tenant.staffToken });
const acceptancesByBody = (bounds: Bounds) => rest(server, 'POST', '/api/setup/termsofuse/usertermsacceptance/staff', { token: tenant.staffToken, body: bounds });

describe('list date bounds at the ends of the accepted range', () => {
  it('answers CalendarEndDate=9999-12-31 on REST (options and body), GraphQL lists and the audit trail', async () => {
    const bounds = { CalendarEndDate: '9999-12-31' };
    expect((await acceptancesByQuery(bounds)).status).toBe(200);
    expect((await acceptancesByBody(bounds)).status).toBe(200);
    expect((await events(bounds)).status).toBe(200);
    const trail = await auditTrail(bounds);
    expect(trail.status).toBe(200);
    expect(trail.body.data?.auditTrail.map((entry) => entry.TableName)).toContain('vendor');
  });

  it('selects what the edge of the range selects when an offset carries a bound past it', async () => {
    const tables = async (bounds: Bounds) => (await auditTrail(bounds)).body.data?.auditTrail.map((entry) => entry.TableName) ?? null;
    // 0001-01-01T00:00+05:00 is in the year 0: every record is after it.
    expect(await tables({ CalendarStartDate: '0001-01-01T00:00:00+05:00' })).toContain('vendor');
    // 9999-12-31T23:59:59-05:00 is in the year 10000: no record is after it, or before 0001-01-01 minus 5 hours.
    expect(await tables({ CalendarStartDate: '9999-12-31T23:59:59-05:00' })).toEqual([]);
    expect(await tables({ CalendarEndDate: '0001-01-01T00:00:00+05:00' })).toEqual([]);
    expect(await tables({ CalendarEndDate: '9999-12-31T23:59:59-05:00' })).toContain('vendor');
  });

  it('never answers 5xx for any accepted date, date-time or offset near either end (property)', async () => {
    const pad = (value: number, length: number) => String(value).padStart(length, '0');
    const isLeap = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
    const daysIn = (year: number, month: number) => (month === 2 ? (isLeap(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31);
    // Mostly the days at either end of the range, where a day's end or an offset crosses it.
    const anyDay = fc.record({ year: fc.integer({ min: 1, max: 9999 }), month: fc.integer({ min: 1, max: 12 }), day: fc.integer({ min: 1, max: 31 }) })
      .map(({ year, month, day }) => `${pad(year, 4)}-${pad(month, 2)}-${pad(Math.min(day, daysIn(year, month)), 2)}`);
    const day = fc.oneof({ arbitrary: fc.constantFrom('0001-01-01', '0001-01-02', '9999-12-30', '9999-12-31'), weight: 3 }, { arbitrary: anyDay, weight: 1 });
    const offset = fc.oneof(fc.constantFrom('Z', '+14:00', '-14:00', '+00:01', '-00:01'), fc.integer({ min: -14 * 60, max: 14 * 60 })
      .map((minutes) => `${minutes < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(minutes) / 60), 2)}:${pad(Math.abs(minutes) % 60, 2)}`));
    const clock = fc.record({ hour: fc.constantFrom(0, 12, 23), minute: fc.integer({ min: 0, max: 59 }), offset })
      .map(({ hour, minute, offset: zone }) => `T${pad(hour, 2)}:${pad(minute, 2)}:59.999${zone}`);
    const time = fc.option(clock, { nil: '' });
    const date = fc.tuple(day, time).map(([text, at]) => `${text}${at}`);
    const bounds = fc.record({ CalendarStartDate: date, CalendarEndDate: date }, { requiredKeys: [] });
    const lists = [acceptancesByQuery, acceptancesByBody, events, auditTrail];
    await fc.assert(fc.asyncProperty(bounds, fc.nat({ max: lists.length - 1 }), async (given, list) => {
      const response = await lists[list](given);
      expect({ given, status: response.status }).toEqual({ given, status: 200 });
    }), { seed: 20261126, numRuns: 150 });
  });
});
