/**
 * Cross-cutting checks generated from the area manifests, so that no registered operation can
 * be forgotten: every REST route and raw route, every GraphQL root field.
 * - 401 without a credential, with a garbage token and with a revoked API key (public ones excepted);
 * - 403 for a member on staff operations; public operations never a 5xx to an anonymous caller;
 * - malformed input (test/support/malformed-input.ts): typed path and query values that do not
 *   parse, query models and bodies of broken JSON, nested too deep or of the wrong JSON kind, a
 *   missing body, a wrong media type (415), each typed field of a body of the wrong type: a 400
 *   problem+json naming the field, on every operation with a body or typed arguments;
 * - tenant isolation: tenant A holds every area's demo records (with a marker in their text);
 *   tenant B's staff calls every operation with A's ids in the path, the arguments and the body,
 *   and no answer ever shows the marker, and A's rows are byte-for-byte unchanged afterwards;
 * - methods: every documented path (route table, raw routes, /graphql) called with each method it
 *   lacks answers 405 with Allow listing the methods it has; unknown paths 404; a NUL in any path
 *   parameter a 400;
 * - a seeded property-based fuzz (fast-check) of path, query and body values on every REST
 *   operation and of variables on every GraphQL field: never a 5xx; every REST 4xx a problem+json.
 *
 * FUZZ_SEED replays a run; FUZZ_RUNS sets its length (`FUZZ_RUNS=10000 npm test -- sweeps` is the
 * long run).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { GraphQLSchema } from 'graphql';
import {
  graphqlRequestArbitrary, operationFor as operationOf, plainCall, plainVariables, rawCalls as rawCallsOf, restRequestArbitrary, restSampleCall,
  rootFields as rootFieldsOf, type RestCall,
} from '../bench/fuzz-generators.js';
import { buildApiSchema, rawRoutes, routes, tenantOwnedEntities } from '../src/areas/index.js';
import { fieldAccess } from '../src/core/requests/graphql-policies.js';
import { Login, Tenant } from '../src/entities/index.js';
import { indexRoutes } from '../src/rest/gateway/route-matching.js';
import { compileRoutes } from '../src/rest/gateway/routes.js';
import type { RouteRow } from '../src/rest/route-table.js';
import { seedAreas } from '../src/services/seed/demo.js';
import { createApiKey, createLogin, revokeApiKey } from '../src/services/login/identity.js';
import { createTestTenant, graphql, rawHttp, rest, startTestServer, type HttpResult, type TestServer, type TestTenant } from './support/harness.js';
import { malformedCases, reaches } from './support/malformed-input.js';

const MARKER = 'Qz7LeakMarker';
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 400);

// The schema and the route table are known before any test runs, so that each operation gets its own generated cases.
const schema: GraphQLSchema = await buildApiSchema();
const compiled = compileRoutes(schema, routes);
const routeIndex = indexRoutes(compiled);

let server: TestServer;
let victim: TestTenant;
let attacker: TestTenant;
let revokedKey: string;
/** An API key of a partner login of tenant B (for operations only partners may call). */
let attackerPartnerKey: string;
/** Ids of tenant A's records (the smallest few of every table): what B's requests aim at. */
let victimIds: number[];

beforeAll(async () => {
  server = await startTestServer();
  victim = await createTestTenant(server, 'sweep-victim');
  const em = server.orm.em.fork();
  await seedAreas(em, await em.findOneOrFail(Tenant, { id: victim.id }), MARKER);
  attacker = await createTestTenant(server, 'sweep-attacker');
  const attackerStaff = await em.findOneOrFail(Login, { email: 'staff@sweep-attacker.example' }, { filters: false });
  const key = await createApiKey(em, attackerStaff, 'revoked in the sweep', null);
  await revokeApiKey(em, attackerStaff.tenant, key.credentialId);
  revokedKey = key.token;
  const partner = await createLogin(em, attackerStaff.tenant, { email: 'partner@sweep-attacker.example', role: 'partner' });
  attackerPartnerKey = (await createApiKey(em, partner, 'partner in the sweep', null)).token;
  victimIds = await idsOf(victim.id);
}, 60_000);
afterAll(() => server.close());

/** The ids of a tenant's rows over every tenant-owned table, smallest first (at most 8 distinct). */
async function idsOf(tenantId: number): Promise<number[]> {
  const ids = new Set<number>();
  for (const table of tenantTables()) {
    const rows = await server.orm.em.getConnection().execute<{ id: number }[]>(`SELECT id FROM "${table}" WHERE tenant_id = ? ORDER BY id LIMIT 8`, [tenantId]);
    for (const row of rows) ids.add(row.id);
  }
  return [...ids].sort((a, b) => a - b).slice(0, 8);
}

function tenantTables(): string[] {
  const owned = new Set<unknown>(tenantOwnedEntities);
  return [...server.orm.getMetadata().getAll().values()]
    .filter((meta) => owned.has(meta.class))
    .map((meta) => meta.tableName);
}

/** A fingerprint of every row tenant `tenantId` owns, table by table. */
async function snapshot(tenantId: number): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const table of tenantTables()) {
    const [row] = await server.orm.em.getConnection().execute<{ rows: string; digest: string }[]>(
      `SELECT count(*)::text AS rows, md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS digest FROM "${table}" t WHERE tenant_id = ?`, [tenantId]);
    result[table] = `${row.rows}:${row.digest}`;
  }
  return result;
}

// The generators (values, calls, documents) are shared with the long fuzz run: bench/fuzz-generators.ts.
const rawCalls = (id: number | string, encode = true) => rawCallsOf(rawRoutes.flatMap((area) => area.operations), id, encode);
const operationFor = (kind: 'query' | 'mutation', field: string) => operationOf(schema, kind, field);
const rootFields = () => rootFieldsOf(schema);

function send(call: RestCall, token?: string): Promise<HttpResult> {
  return rest(server, call.method, call.path, { token, body: call.body, headers: call.headers });
}

function expectProblem(response: HttpResult, status: number): void {
  expect({ status: response.status, type: response.headers.get('content-type') }).toEqual({ status, type: expect.stringContaining('application/problem+json') });
}

// ---------------------------------------------------------------------------------------------

const nameOf = (row: RouteRow) => `${row.method} ${row.path}`;
const routeOf = (row: RouteRow) => compiled.find((candidate) => candidate.row === row)!;
/** One generated case per row: its name (the test title) and the row. */
const casesOf = (rows: RouteRow[]) => rows.map((row) => [nameOf(row), row] as const);

/** A credential of tenant B that the operation accepts (so that what is tested is the input, not the role). */
function tokenFor(row: RouteRow): string {
  const { roles } = routeOf(row).access;
  if (roles.length === 0 || roles.includes('staff')) return attacker.staffToken;
  return roles.includes('member') ? attacker.memberToken : attackerPartnerKey;
}

describe('generated from the route table: authentication', () => {
  it('covers every registered operation', () => {
    expect(compiled.length).toBe(routes.length);
    expect(compiled.length + rawCalls(1).length).toBeGreaterThanOrEqual(63);
  });

  it.each(casesOf(routes.filter((row) => !routeOf(row).access.public)))('%s: 401 without a credential, with a garbage token and with a revoked API key', async (_name, row) => {
    const call = plainCall(routeOf(row), 1);
    for (const token of [undefined, 'garbage-token', revokedKey]) {
      const response = await send(call, token);
      expectProblem(response, 401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
    }
  });

  // A public operation may still refuse a wrong secret of its own (deleteLogin's master key): what it owes an anonymous caller is an answer.
  it.each(casesOf(routes.filter((row) => routeOf(row).access.public)))('%s: public (no @Authorized), answers an anonymous caller without a 5xx', async (_name, row) => {
    const response = await send({ ...plainCall(routeOf(row), 1), headers: { 'x-tenant-key': victim.key } });
    const problem = response.headers.get('content-type')?.includes('application/problem+json') ?? false;
    expect({ status: response.status, answered: response.status < 500, problem: response.status >= 400 ? problem : true }).toEqual({ status: response.status, answered: true, problem: true });
  });

  const memberRefused = (row: RouteRow) => routeOf(row).access.roles.length > 0 && !routeOf(row).access.roles.includes('member');
  it.each(casesOf(routes.filter(memberRefused)))('%s: 403 for a member when staff (or a partner) is needed', async (_name, row) => {
    expectProblem(await send(plainCall(routeOf(row), 1), attacker.memberToken), 403);
  });

  it('401 on every raw route that needs a bearer credential or a signature; the unauthenticated ones answer without', async () => {
    const answers: { call: string; refused: boolean; failed: boolean }[] = [];
    for (const call of rawCalls(1)) {
      const { status } = await send(call);
      answers.push({ call: `${call.method} ${call.path}`, refused: status === 401, failed: status >= 500 });
    }
    expect(answers).toEqual(rawCalls(1).map((call) => ({ call: `${call.method} ${call.path}`, refused: call.authentication !== 'none', failed: false })));
  });

  it('401 on every protected GraphQL field, 403 for a member on staff fields; public fields answer anonymous callers without a 5xx', async () => {
    for (const { kind, field } of rootFields()) {
      const access = fieldAccess(kind, field.name);
      const document = operationFor(kind, field.name);
      const variables = plainVariables(field, 1);
      const anonymous = await graphql(server, document, variables);
      const code = anonymous.body.errors?.[0]?.extensions.code;
      if (access.public) {
        const coded = anonymous.body.errors?.every((error) => error.extensions?.code) ?? true;
        expect({ field: field.name, answered: anonymous.status < 500, coded }).toEqual({ field: field.name, answered: true, coded: true });
        continue;
      }
      expect({ field: field.name, status: anonymous.status, code }).toEqual({ field: field.name, status: 401, code: 'UNAUTHENTICATED' });
      if (access.roles.includes('staff')) {
        const member = await graphql(server, document, variables, attacker.memberToken);
        expect({ field: field.name, status: member.status, code: member.body.errors?.[0]?.extensions.code })
          .toEqual({ field: field.name, status: 403, code: 'FORBIDDEN' });
      }
    }
  });
});

describe('generated from the route table: malformed input', () => {
  const withInput = routes.map((row) => ({ row, cases: malformedCases(routeOf(row), 1) })).filter(({ cases }) => cases.length > 0);

  it('finds malformed-input cases for every operation that takes a body', () => {
    const withBody = routes.filter((row) => routeOf(row).bodyArg);
    expect(withBody.length).toBeGreaterThan(0);
    expect(withBody.filter((row) => !withInput.some((entry) => entry.row === row)).map(nameOf)).toEqual([]);
  });

  it.each(withInput.map(({ row, cases }) => [nameOf(row), row, cases] as const))('%s: 400 problem+json naming the field for each malformed part', async (_name, row, cases) => {
    const wrong: string[] = [];
    for (const { what, call, status, field } of cases) {
      if (!reaches(routeIndex, call, routeOf(row))) {
        wrong.push(`${what}: ${call.method} ${call.path} does not reach this operation`);
        continue;
      }
      const response = await send(call, tokenFor(row));
      const named = (response.body?.errors ?? []).map((error: { field: string }) => error.field);
      const isProblem = response.headers.get('content-type')?.includes('application/problem+json');
      // A public operation answering PublicApiResponse wraps its refusals in that envelope too.
      const enveloped = !row.publicApiResponse || (response.body?.Status === status && response.body?.Data === null);
      if (response.status !== status || !isProblem || !enveloped || (field !== null && !named.includes(field))) wrong.push(`${what} → ${response.status} ${response.text.slice(0, 300)}`);
    }
    expect(wrong).toEqual([]);
  });
});

describe('generated from the route table: tenant isolation', () => {
  it('seeded tenant A with demo records of the areas', () => {
    expect(victimIds.length).toBeGreaterThan(2);
  });

  it("never shows tenant B tenant A's records, nor lets B change them, on either interface", async () => {
    const before = await snapshot(victim.id);
    const leaks: string[] = [];
    const fiveHundreds: string[] = [];
    const check = (what: string, response: HttpResult) => {
      if (response.text.includes(MARKER)) leaks.push(`${what} → ${response.status}`);
      if (response.status >= 500) fiveHundreds.push(`${what} → ${response.status} ${response.text.slice(0, 200)}`);
    };
    for (const id of victimIds) {
      for (const route of compiled) {
        const call = plainCall(route, id);
        check(`${call.method} ${call.path} ${JSON.stringify(call.body)}`, await send(call, attacker.staffToken));
      }
      for (const call of rawCalls(id).filter((candidate) => candidate.method === 'GET')) check(`${call.method} ${call.path}`, await send(call, attacker.staffToken));
      for (const { kind, field } of rootFields()) {
        const variables = plainVariables(field, id);
        check(`GraphQL ${field.name} ${JSON.stringify(variables)}`, await graphql(server, operationFor(kind, field.name), variables, attacker.staffToken));
      }
    }
    expect(leaks).toEqual([]);
    expect(fiveHundreds).toEqual([]);
    expect(await snapshot(victim.id)).toEqual(before);
  }, 120_000);

  it('shows the demo records to tenant A itself (the marker is visible where it should be)', async () => {
    const route = compiled.find((candidate) => candidate.row.method === 'GET' && candidate.row.path === '/api/vendors')!;
    expect((await send(plainCall(route, 1), victim.staffToken)).text).toContain(MARKER);
  });
});

describe('generated from the route table: seeded fuzz', () => {
  it(`never answers 5xx on REST, and every 4xx is problem+json (seed ${SEED}, ${RUNS} runs)`, async () => {
    await fc.assert(fc.asyncProperty(restRequestArbitrary(compiled, victimIds), async (sample) => {
      const call = restSampleCall(compiled, sample);
      const response = await send(call, attacker.staffToken);
      if (response.status >= 500) throw new Error(`${call.method} ${call.path} ${JSON.stringify(call.body)?.slice(0, 200)} → ${response.status} ${response.text.slice(0, 300)}`);
      if (response.status >= 400) expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(response.text).not.toContain(MARKER);
    }), { seed: SEED, numRuns: RUNS });
  }, 600_000);

  it(`never answers 5xx on GraphQL (seed ${SEED}, ${RUNS} runs)`, async () => {
    await fc.assert(fc.asyncProperty(graphqlRequestArbitrary(schema, victimIds), async ({ document, variables }) => {
      const response = await graphql(server, document, variables, attacker.staffToken);
      if (response.status >= 500) throw new Error(`${document} ${JSON.stringify(variables).slice(0, 300)} → ${response.status} ${response.text.slice(0, 300)}`);
      for (const error of response.body?.errors ?? []) expect(error.extensions?.code).toBeDefined();
      expect(response.text).not.toContain(MARKER);
    }), { seed: SEED, numRuns: RUNS });
  }, 600_000);

  it('never answers 5xx to hostile raw requests', async () => {
    const hostilePaths = [...['\u0000', 'x'.repeat(3000), '../..', '-1', '99999999999'].flatMap((text) => rawCalls(text)), ...rawCalls('%E0%A4%A', false), ...rawCalls('%00', false)];
    for (const call of [...rawCalls(1), ...hostilePaths]) {
      for (const body of call.method === 'GET' ? [undefined] : [undefined, '{', '\u0000', 'x'.repeat(100_000)]) {
        const response = await send({ ...call, body, headers: body === undefined ? undefined : { 'content-type': 'application/json' } }, attacker.staffToken);
        expect({ call: `${call.method} ${call.path}`, status: response.status < 500 }).toEqual({ call: `${call.method} ${call.path}`, status: true });
      }
    }
  });
});

describe('generated from the route table and the raw routes: methods', () => {
  /** Every documented operation's method and path template, GraphQL's endpoint included. */
  const documented = [...routes, ...rawRoutes.flatMap((area) => area.operations), { method: 'GET', path: '/graphql' }, { method: 'POST', path: '/graphql' }];
  const templates = [...new Set(documented.map((operation) => operation.path))];
  /** A template as a pattern of concrete paths: `{param}` any one segment (or part of one), `{param=null}` optionally. */
  const patternOf = (template: string) => new RegExp(`^${template.split('/').filter(Boolean).map((segment) => (/^\{[^}]+=null\}$/.test(segment)
    ? '(?:/[^/]+)?'
    : `/${segment.split(/(\{[^}]+\})/).map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('')}`)).join('')}$`, 'i');
  /** What the server must allow on a concrete path: the methods of every template it matches. */
  const allowedOn = (path: string) => new Set(documented.filter((operation) => patternOf(operation.path).test(path)).map((operation) => operation.method));
  const filled = (template: string, value: string) => template.replace(/\{[^}]+\}/g, value);
  const ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

  const call = async (method: string, path: string, headers: Record<string, string> = {}) => {
    const response = await rawHttp(server, method, path, headers);
    return { status: response.status, allow: response.headers.allow, type: response.headers['content-type'] };
  };

  it('covers every documented path, raw routes and /graphql included', () => {
    expect(templates.length).toBeGreaterThan(150);
    expect(templates).toEqual(expect.arrayContaining(['/api/images/image/{imageid}', '/ical/{tenantkey}/{calendarid}.ics', '/api/callback/emailprovider1', '/graphql']));
  });

  it('answers each method a documented path lacks (TRACE and OPTIONS without a preflight too) with 405 and Allow listing the methods it has', async () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const template of templates) {
      const path = filled(template, '1');
      const allowed = allowedOn(path);
      const expectedAllow = ORDER.filter((method) => allowed.has(method)).join(', ');
      const lacking = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'TRACE', 'OPTIONS', 'HEAD'].filter((method) => !allowed.has(method === 'HEAD' ? 'GET' : method));
      for (const method of lacking) {
        const response = await call(method, path);
        checked++;
        const problem = path === '/graphql' || method === 'HEAD' || response.type?.startsWith('application/problem+json');
        if (response.status !== 405 || response.allow !== expectedAllow || !problem) wrong.push(`${method} ${path} → ${response.status} Allow: ${response.allow} (${response.type}); expected 405 Allow: ${expectedAllow}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(500);
  }, 120_000);

  it('answers every method on an unknown path with 404 problem+json', async () => {
    for (const path of ['/api/nothing/here', '/nothing', '/ical/acme', '/api/images/image/1/more', '/api/setup/corsorigins/1']) {
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'TRACE', 'OPTIONS']) {
        const response = await call(method, path);
        expect({ call: `${method} ${path}`, status: response.status, type: response.type }).toEqual({ call: `${method} ${path}`, status: 404, type: expect.stringContaining('application/problem+json') });
      }
    }
  });

  it('answers a NUL in any path parameter of any documented path with 400 problem+json', async () => {
    for (const operation of documented.filter((candidate) => candidate.path.includes('{'))) {
      const response = await call(operation.method, filled(operation.path, '%00'), { authorization: `Bearer ${attacker.staffToken}` });
      expect({ call: `${operation.method} ${operation.path}`, status: response.status, type: response.type })
        .toEqual({ call: `${operation.method} ${operation.path}`, status: 400, type: expect.stringContaining('application/problem+json') });
    }
  });
});
