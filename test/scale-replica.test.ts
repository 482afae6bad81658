import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestTenant, graphql, rest, startTestServer, type TestServer, type TestTenant } from './support/harness.js';
import { startReplicatedPair, type ReplicatedPair } from './support/replication.js';

// Read replicas against a real streaming replica (a hot standby built from the embedded
// PostgreSQL binaries with the low-level backup API: test/support/replication.ts). Query
// operations read from the replica; mutations, transactions and authentication use the primary;
// `X-Read-Primary: true` reads the primary (read-your-own-writes across requests).

let pair: ReplicatedPair;
let server: TestServer;
let acme: TestTenant;
/** Every statement the service ran: its connection ('write' = primary, 'read' = the replica) and its text. */
const statements: { type: string; name: string; query: string }[] = [];

beforeAll(async () => {
  pair = await startReplicatedPair();
  server = await startTestServer({}, {
    adminUrl: pair.primaryUrl,
    replicaAdminUrls: [pair.replicaUrl],
    onQuery: ({ query, connection }) => { statements.push({ type: connection?.type ?? '?', name: connection?.name ?? '?', query: query ?? '' }); },
  });
  acme = await createTestTenant(server, 'replica-acme');
  await pair.caughtUp();
}, 120_000);

afterAll(async () => {
  await server?.close();
  await pair?.stop();
}, 60_000);

/** The statements run by `work`, by connection type. */
async function traced<T>(work: () => Promise<T>): Promise<{ result: T; reads: string[]; writes: string[] }> {
  const from = statements.length;
  const result = await work();
  const ran = statements.slice(from);
  return { result, reads: ran.filter((s) => s.type === 'read').map((s) => s.query), writes: ran.filter((s) => s.type === 'write').map((s) => s.query) };
}

const isWrite = (sql: string) => /^\s*(insert|update|delete|begin|commit|savepoint|with\b[\s\S]*\b(insert|update|delete)\b|select pg_advisory)/i.test(sql);

describe('read replicas (a real streaming replica)', () => {
  it('serves the reads of queries from the replica, and every write from the primary', async () => {
    const created = await traced(() => rest(server, 'POST', '/api/vendors', { token: acme.staffToken, body: { Name: 'Replicated Vendor' } }));
    expect(created.result.status).toBe(200);
    expect(created.reads).toEqual([]); // a mutation reads the primary too
    expect(created.writes.some((sql) => /insert into "vendor"/i.test(sql))).toBe(true);
    const id = created.result.body.VendorId as number;

    await pair.caughtUp();
    const read = await traced(() => rest(server, 'GET', `/api/vendors/${id}`, { token: acme.staffToken }));
    expect(read.result.status).toBe(200);
    expect(read.result.body).toMatchObject({ VendorId: id, Name: 'Replicated Vendor' });
    expect(read.reads.some((sql) => /from "vendor"/i.test(sql))).toBe(true);
    // Only the credential lookup (authentication) ran on the primary.
    expect(read.writes.every((sql) => /from credential/i.test(sql))).toBe(true);

    const list = await traced(() => graphql(server, '{ vendors { VendorId Name } }', {}, acme.staffToken));
    expect(list.result.body.data.vendors).toEqual(expect.arrayContaining([{ VendorId: id, Name: 'Replicated Vendor' }]));
    expect(list.reads.length).toBeGreaterThan(0);
    expect(list.reads.every((sql) => !isWrite(sql))).toBe(true);

    // Everything the service sent to the replica so far was a read.
    expect(statements.filter((s) => s.type === 'read' && isWrite(s.query))).toEqual([]);
    // The replica sees our connections (pg_stat_activity), on the test database.
    const [{ n }] = await pair.onReplica<{ n: string }>(
      "SELECT count(*) AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND datname LIKE 'test\\_%'");
    expect(Number(n)).toBeGreaterThan(0);
  });

  it('shows what the replica has replayed, the primary with X-Read-Primary, and the written record in the mutation\'s answer', async () => {
    const created = await rest(server, 'POST', '/api/vendors', { token: acme.staffToken, body: { Name: 'Before Pause' } });
    const id = created.body.VendorId as number;
    await pair.caughtUp();
    const before = (await rest(server, 'GET', `/api/vendors/${id}`, { token: acme.staffToken })).body;
    expect(before).toMatchObject({ VendorId: id, Name: 'Before Pause', AuditId: 1 });
    await pair.pauseReplay();
    try {
      // A write while the replica shows nothing new: it succeeds (the primary) and answers what it wrote.
      const saved = await rest(server, 'POST', '/api/vendors', { token: acme.staffToken, body: { ...before, Name: 'After Pause' } });
      expect(saved.status).toBe(200);
      expect(saved.body).toMatchObject({ VendorId: id, Name: 'After Pause' });
      const renamed = await graphql(server, `mutation { saveVendor(input: { VendorId: ${id}, AuditId: 2, Name: "After Pause, GraphQL" }) { VendorId Name } }`, {}, acme.staffToken);
      expect(renamed.body.errors).toBeUndefined();
      expect(renamed.body.data.saveVendor).toMatchObject({ Name: 'After Pause, GraphQL' });

      // Plain reads come from the paused replica: the old name, on both interfaces.
      expect((await rest(server, 'GET', `/api/vendors/${id}`, { token: acme.staffToken })).body).toMatchObject({ Name: 'Before Pause', AuditId: 1 });
      expect((await graphql(server, `{ vendor(vendorId: ${id}) { Name } }`, {}, acme.staffToken)).body.data.vendor).toEqual({ Name: 'Before Pause' });
      // X-Read-Primary: the caller's own write, at once.
      const primary = { 'x-read-primary': 'true' };
      expect((await rest(server, 'GET', `/api/vendors/${id}`, { token: acme.staffToken, headers: primary })).body).toMatchObject({ Name: 'After Pause, GraphQL', AuditId: 3 });
      const viaGraphql = await rest(server, 'POST', '/graphql', { token: acme.staffToken, headers: primary, body: { query: `{ vendor(vendorId: ${id}) { Name } }` } });
      expect(viaGraphql.body.data.vendor).toEqual({ Name: 'After Pause, GraphQL' });
      // A save decides on the primary's version, never the replica's: the replica's AuditId 1 is stale.
      expect((await rest(server, 'POST', '/api/vendors', { token: acme.staffToken, body: { ...before, Name: 'Stale' } })).status).toBe(409);
      // A session started just now (not on the replica yet) authenticates: credentials are read on the primary.
      const fresh = await createTestTenant(server, 'replica-fresh');
      expect((await rest(server, 'GET', '/api/vendors', { token: fresh.staffToken })).status).toBe(200);
    } finally {
      await pair.resumeReplay();
    }
    await pair.caughtUp();
    expect((await rest(server, 'GET', `/api/vendors/${id}`, { token: acme.staffToken })).body).toMatchObject({ Name: 'After Pause, GraphQL', AuditId: 3 });
  }, 60_000);

  it('refuses writes on the replica itself, so a write routed there could not pass unnoticed', async () => {
    await expect(pair.onReplica('CREATE TABLE should_fail (id int)')).rejects.toThrow(/read-only transaction/);
    const [{ standby }] = await pair.onReplica<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
    expect(standby).toBe(true);
  });
});
