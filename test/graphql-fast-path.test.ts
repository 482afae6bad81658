import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestTenant, metricSamples, rest, startTestServer, type HttpResult, type TestServer, type TestTenant } from './support/harness.js';

// GraphQL's fast path (http/graphql-fast-path.ts): a document is executed by graphql-js the first
// time, compiled and run by Apollo's executor the second, and answered without Apollo's pipeline
// from the third. Every answer must be the one Apollo gives: status, content type and bytes —
// successes, errors handed back to Apollo, refusals — and our hooks must run once per request.
const METRICS_TOKEN = 'metrics-token-0123456789';
let server: TestServer;
let acme: TestTenant;

beforeAll(async () => {
  server = await startTestServer({ METRICS_TOKEN });
  acme = await createTestTenant(server, 'fastpath');
  for (const name of ['Fast One', 'Fast Two', 'Fast Three']) {
    expect((await rest(server, 'POST', '/api/vendors', { token: acme.staffToken, body: { VendorId: 0, Name: name } })).status).toBe(200);
  }
});
afterAll(() => server.close());

type Answer = { status: number; contentType: string | null; text: string };
const answerOf = (response: HttpResult): Answer => ({ status: response.status, contentType: response.headers.get('content-type'), text: response.text });

/** Sends the same request three times (graphql-js, compiled through Apollo, fast path): the three answers. */
async function threeTimes(body: unknown, options: { token?: string; headers?: Record<string, string> } = {}): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let run = 0; run < 3; run++) answers.push(answerOf(await rest(server, 'POST', '/graphql', { token: options.token ?? acme.staffToken, body, headers: options.headers })));
  return answers;
}

/** Expects the compiled runs (Apollo's and the fast path's) to answer alike, and returns that answer. */
function alike([, throughApollo, fast]: Answer[]): Answer {
  expect(fast).toEqual(throughApollo);
  return fast;
}

const PAGE = 'query Page($take: FilterCount) { vendors(options: { Take: $take, OrderBy: "Name" }) { VendorId Name } } query Other { __typename }';

describe('the GraphQL fast path answers as Apollo does', () => {
  it('a query with variables and an operation name among several, byte for byte', async () => {
    const answers = await threeTimes({ query: PAGE, operationName: 'Page', variables: { take: 2 } });
    expect(answers[0]).toEqual(answers[1]);
    const answer = alike(answers);
    expect(answer.status).toBe(200);
    expect(answer.contentType).toBe('application/json; charset=utf-8');
    expect(JSON.parse(answer.text).data.vendors.map((vendor: { Name: string }) => vendor.Name)).toEqual(['Fast One', 'Fast Three']);
    // The other operation of the same document, and other variables, answer for themselves.
    const other = alike(await threeTimes({ query: PAGE, operationName: 'Other' }));
    expect(other.text).toBe('{"data":{"__typename":"Query"}}\n');
    const three = alike(await threeTimes({ query: PAGE, operationName: 'Page', variables: { take: 3 } }));
    expect(JSON.parse(three.text).data.vendors).toHaveLength(3);
  });

  it('lists within lists (each row’s Actions) byte for byte: graphql-jit as patched (patches/graphql-jit+0.8.9.patch) answers as graphql-js', async () => {
    const answers = await threeTimes({ query: '{ vendors(options: { Take: 3, OrderBy: "Name" }) { VendorId Name Actions } }' });
    expect(answers[0]).toEqual(answers[1]);
    const answer = alike(answers);
    expect(JSON.parse(answer.text).data.vendors.map((vendor: { Name: string; Actions: string[] }) => [vendor.Name, vendor.Actions])).toEqual([
      ['Fast One', ['Edit', 'Delete']], ['Fast Three', ['Edit', 'Delete']], ['Fast Two', ['Edit', 'Delete']],
    ]);
  });

  it('the content type each Accept header negotiates, and a 406 for one it cannot serve', async () => {
    const query = '{ vendors(options: { Take: 1 }) { VendorId } }';
    for (const accept of ['application/json', 'application/graphql-response+json', 'application/graphql-response+json, application/json;q=0.9', 'text/html;q=0.5, application/json']) {
      const answer = alike(await threeTimes({ query }, { headers: { accept } }));
      expect({ accept, status: answer.status }).toEqual({ accept, status: 200 });
    }
    expect(alike(await threeTimes({ query }, { headers: { accept: 'application/xml' } })).status).toBe(406);
  });

  it('errors of a compiled run: masked and formatted by Apollo, with its status, and the run not repeated', async () => {
    const missingBody = { query: 'query One($id: Int!) { vendor(vendorId: $id) { VendorId } }', variables: { id: 987654 } };
    const missing = alike(await threeTimes(missingBody));
    expect(missing.status).toBe(404);
    // Handed to Apollo with its outcome: not executed again (as many statements as a compiled run through Apollo).
    const statementsOf = async (body: unknown) => {
      const before = server.statements();
      expect((await rest(server, 'POST', '/graphql', { token: acme.staffToken, body })).status).toBe(404);
      return server.statements() - before;
    };
    const otherDocument = { query: 'query Two($id: Int!) { vendor(vendorId: $id) { VendorId } }', variables: { id: 987654 } };
    await statementsOf(otherDocument);
    expect(await statementsOf(missingBody)).toBe(await statementsOf(otherDocument));
    expect(JSON.parse(missing.text).errors[0].extensions.code).toBe('NOT_FOUND');
    // Variables graphql-jit refuses while coercing them.
    const badVariable = alike(await threeTimes({ query: 'query One($id: Int!) { vendor(vendorId: $id) { VendorId } }', variables: { id: 'seven' } }));
    expect(badVariable.status).toBe(400);
    // Refused by the caller's role: same answer, same status.
    const forbidden = alike(await threeTimes({ query: 'mutation Drop($id: Int!) { deleteVendor(vendorId: $id) }', variables: { id: 987654 } }, { token: acme.memberToken }));
    expect(forbidden.status).toBe(403);
    // Without a credential.
    const anonymous = alike(await threeTimes({ query: '{ vendors { VendorId } }' }, { token: '' }));
    expect(anonymous.status).toBe(401);
  });

  it('bodies Apollo refuses or treats apart: a batch, a variables string, persisted-query extensions', async () => {
    const query = '{ vendors(options: { Take: 1 }) { Name } }';
    await threeTimes({ query });
    expect(alike(await threeTimes([{ query }])).status).toBe(400);
    expect(alike(await threeTimes({ query, variables: '{}' })).status).toBe(400);
    expect(alike(await threeTimes({ query, extensions: { persistedQuery: { version: 1, sha256Hash: 'nope' } } })).status).toBe(400);
  });

  it('runs our hooks once per request: the operations metric and the audit trail’s operation name', async () => {
    const counted = async () => {
      const scrape = (await rest(server, 'GET', '/metrics', { token: METRICS_TOKEN })).text;
      const sample = (outcome: string) => metricSamples(scrape, 'graphql_operations_total')
        .find((candidate) => candidate.labels.operation === 'saveVendor' && candidate.labels.outcome === outcome)?.value ?? 0;
      return { ok: sample('ok'), error: sample('error') };
    };
    const before = await counted();
    const save = 'mutation Save($input: VendorAddEditInput!) { saveVendor(input: $input) { VendorId } }';
    const ids: number[] = [];
    for (const name of ['Audited One', 'Audited Two', 'Audited Three']) {
      const saved = await rest(server, 'POST', '/graphql', { token: acme.staffToken, body: { query: save, variables: { input: { Name: name } } } });
      expect(saved.status).toBe(200);
      ids.push(saved.body.data.saveVendor.VendorId);
    }
    // A save the validation refuses (a name too long), on the fast path by now: counted as an error.
    const refused = await rest(server, 'POST', '/graphql', { token: acme.staffToken, body: { query: save, variables: { input: { Name: 'x'.repeat(201) } } } });
    expect(refused.status).toBe(400);
    expect(await counted()).toEqual({ ok: before.ok + 3, error: before.error + 1 });
    const operations = await server.orm.em.fork().getConnection().execute<{ operation: string }[]>(
      `SELECT operation FROM audit_entry WHERE table_name = 'vendor' AND record_id IN (${ids.join(',')}) ORDER BY id`);
    expect(operations.map((entry) => entry.operation)).toEqual(['saveVendor', 'saveVendor', 'saveVendor']);
  });
});

describe('a context that cannot be made', () => {
  it('is answered by Apollo as for any document: the per-credential limit’s 429', async () => {
    const limited = await startTestServer({ CREDENTIAL_RATE_LIMIT_PER_MINUTE: '5' });
    try {
      const tenant = await createTestTenant(limited, 'fastlimit');
      const send = async (query: string) => rest(limited, 'POST', '/graphql', { token: tenant.staffToken, body: { query } });
      // Compiled on its second run, on the fast path from its third, until the limit refuses the context.
      const compiled = '{ vendors(options: { Take: 1 }) { VendorId } }';
      let fast = await send(compiled);
      for (let attempt = 0; attempt < 200 && fast.status !== 429; attempt++) fast = await send(compiled);
      const throughApollo = await send('{ neverSentBefore: __typename }');
      expect(fast.status).toBe(429);
      expect({ ...answerOf(fast), retryAfter: fast.headers.get('retry-after') }).toEqual({ ...answerOf(throughApollo), retryAfter: throughApollo.headers.get('retry-after') });
    } finally {
      await limited.close();
    }
  });
});
