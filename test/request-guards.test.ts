import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Vendor } from '../src/entities/vendor.js';
import { createTestTenant, rest, startTestServer, type TestServer, type TestTenant } from './support/harness.js';

// Idempotency keys on REST writes and the per-address limit on public operations, both shared through PostgreSQL.
let server: TestServer;
let acme: TestTenant;

beforeAll(async () => {
  server = await startTestServer({ DATABASE_POOL_MAX: '20', PUBLIC_RATE_LIMIT_PER_MINUTE: '5' });
  acme = await createTestTenant(server, 'guards');
});
afterAll(() => server.close());

const createVendor = (name: string, key: string, token = acme.staffToken) =>
  rest(server, 'POST', '/api/vendors', { token, body: { Name: name }, headers: { 'idempotency-key': key } });

async function vendorsNamed(name: string): Promise<number> {
  return server.orm.em.fork().count(Vendor, { name }, { filters: false });
}

describe('Idempotency-Key on REST writes', () => {
  it('executes a write once and replays its response for a repeat', async () => {
    const first = await createVendor('Once Supplies', 'create-once-1');
    const repeat = await createVendor('Once Supplies', 'create-once-1');
    expect(first.status).toBe(200);
    expect(repeat.status).toBe(200);
    expect(repeat.body).toEqual(first.body);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await vendorsNamed('Once Supplies')).toBe(1);
  });

  it('refuses the same key with a different request (422) and keeps keys per credential', async () => {
    await createVendor('Keyed One', 'shared-key');
    const other = await createVendor('Keyed Two', 'shared-key');
    expect(other.status).toBe(422);
    expect(other.headers.get('content-type')).toContain('application/problem+json');
    expect(other.body.errors[0].field).toBe('Idempotency-Key');
    expect(await vendorsNamed('Keyed Two')).toBe(0);
    const otherTenant = await createTestTenant(server, 'guards-other');
    expect((await createVendor('Keyed Two', 'shared-key', otherTenant.staffToken)).status).toBe(200);
  });

  it('executes twenty concurrent repeats of one key once', async () => {
    const responses = await Promise.all(Array.from({ length: 20 }, () => createVendor('Raced Supplies', 'raced-key')));
    const statuses = responses.map((response) => response.status);
    for (const status of statuses) expect([200, 409]).toContain(status);
    expect(new Set(responses.filter((response) => response.status === 200).map((response) => response.body.VendorId)).size).toBe(1);
    expect(await vendorsNamed('Raced Supplies')).toBe(1);
    for (const busy of responses.filter((response) => response.status === 409)) expect(busy.headers.get('retry-after')).toBe('1');
  });

  it('replays a delete and a refusal instead of running them again', async () => {
    const created = await createVendor('Deleted Once', 'delete-setup');
    const remove = () => rest(server, 'DELETE', `/api/vendors/${created.body.VendorId}`, { token: acme.staffToken, headers: { 'idempotency-key': 'delete-once' } });
    expect((await remove()).status).toBe(200);
    expect((await remove()).status).toBe(200); // a plain repeat would be a 404
    const refused = () => rest(server, 'POST', '/api/vendors', { token: acme.staffToken, body: { Name: '' }, headers: { 'idempotency-key': 'refused-once' } });
    const [first, again] = [await refused(), await refused()];
    expect(first.status).toBe(400);
    expect(again.status).toBe(400);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('refuses a malformed key with a 400 naming the header', async () => {
    const response = await createVendor('Bad Key', 'x'.repeat(256));
    expect(response.status).toBe(400);
    expect(response.body.errors[0].field).toBe('Idempotency-Key');
  });
});

describe('rate limit of anonymous callers of public operations', () => {
  it('answers 429 with Retry-After past the limit per address, on REST and GraphQL alike, and never limits a signed-in caller', async () => {
    // Eleven requests span at most two one-minute windows of five each: at least one is refused.
    const responses = [];
    for (let attempt = 0; attempt < 11; attempt++) responses.push(await rest(server, 'GET', '/api/login/securityquestions/lookup'));
    expect(responses.filter((response) => response.status === 200).length).toBeLessThanOrEqual(10);
    const limited = responses.find((response) => response.status === 429)!;
    expect(limited).toBeDefined();
    expect(limited.headers.get('content-type')).toContain('application/problem+json');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const graphqlLimited = [];
    for (let attempt = 0; attempt < 11; attempt++) graphqlLimited.push((await rest(server, 'POST', '/graphql', { body: { query: '{ securityQuestions { Id } }' } })).status);
    expect(graphqlLimited).toContain(429);
    expect((await rest(server, 'GET', '/api/login/securityquestions/lookup', { token: acme.memberToken })).status).toBe(200);
  });
});
