/**
 * Cross-cutting checks generated from the area manifests, so that no registered operation can
 * be forgotten: every REST route and raw route, every GraphQL root field.
 * - 401 without a credential, with a garbage token and with a revoked API key (public ones excepted);
 * - 403 for a member on staff operations;
 * - tenant isolation: tenant A holds every area's demo records (with a marker in their text);
 *   tenant B's staff calls every operation with A's ids in the path, the arguments and the body,
 *   and no answer ever shows the marker, and A's rows are byte-for-byte unchanged afterwards;
 * - a seeded property-based fuzz (fast-check) of path, query and body values on every REST
 *   operation and of variables on every GraphQL field: never a 5xx; every REST 4xx a problem+json.
 *
 * FUZZ_SEED replays a run; FUZZ_RUNS sets its length (`FUZZ_RUNS=10000 npm test -- sweeps` is the
 * long run).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildOperationNodeForField } from '@graphql-tools/utils';
import fc from 'fast-check';
import {
  getNullableType, isEnumType, isInputObjectType, isListType, isNonNullType, Kind, OperationTypeNode, print,
  type GraphQLField, type GraphQLInputType, type GraphQLSchema,
} from 'graphql';
import { buildApiSchema, rawRoutes, routes, tenantOwnedEntities } from '../src/areas/index.js';
import { fieldAccess } from '../src/core/graphql-policies.js';
import { Login, Tenant } from '../src/entities/index.js';
import { documentedKey } from '../src/rest/documented-keys.js';
import { compileRoutes, type CompiledRoute } from '../src/rest/gateway.js';
import { seedAreas } from '../src/services/demo.js';
import { createApiKey, revokeApiKey } from '../src/services/identity.js';
import { createTestTenant, graphql, rest, startTestServer, type HttpResult, type TestServer, type TestTenant } from './support/harness.js';

const MARKER = 'Qz7LeakMarker';
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 400);

let server: TestServer;
let schema: GraphQLSchema;
let compiled: CompiledRoute[];
let victim: TestTenant;
let attacker: TestTenant;
let revokedKey: string;
/** Ids of tenant A's records (the smallest few of every table): what B's requests aim at. */
let victimIds: number[];

beforeAll(async () => {
  server = await startTestServer();
  schema = await buildApiSchema();
  compiled = compileRoutes(schema, routes);
  victim = await createTestTenant(server, 'sweep-victim');
  const em = server.orm.em.fork();
  await seedAreas(em, await em.findOneOrFail(Tenant, { id: victim.id }), MARKER);
  attacker = await createTestTenant(server, 'sweep-attacker');
  const attackerStaff = await em.findOneOrFail(Login, { email: 'staff@sweep-attacker.example' }, { filters: false });
  const key = await createApiKey(em, attackerStaff, 'revoked in the sweep', null);
  await revokeApiKey(em, attackerStaff.tenant, key.credentialId);
  revokedKey = key.token;
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

// ---------------------------------------------------------------------------------------------
// Values of GraphQL input types: one plain valid-looking value, and fast-check arbitraries.

/** A value of `type` that passes type checks: ints are `id`, strings 'x', required fields only. */
function plainValue(type: GraphQLInputType, id: number, documentedKeys: boolean): unknown {
  const nullable = getNullableType(type);
  if (isListType(nullable)) return [plainValue(nullable.ofType, id, documentedKeys)];
  if (isEnumType(nullable)) return nullable.getValues()[0].name;
  if (isInputObjectType(nullable)) {
    return Object.fromEntries(Object.values(nullable.getFields())
      .filter((field) => isNonNullType(field.type) || /Id$/.test(field.name))
      .map((field) => [documentedKeys ? documentedKey(field.name) : field.name, plainValue(field.type, id, documentedKeys)]));
  }
  switch (nullable.name) {
    case 'Int': return id;
    case 'Float': return id;
    case 'Boolean': return true;
    case 'FilterCount': return '5';
    case 'JSON': case 'JSONObject': return {};
    default: return 'x';
  }
}

const hostileString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('\u0000', 'a\u0000b', "'; DROP TABLE vendor; --", '\ud800', '%', '../../etc/passwd', '{"$ne":1}', 'x'.repeat(5000),
    '9999-99-99', '275760-09-14', '-1', '1e400', 'NaN', 'null', 'true', '<script>alert(1)</script>'),
);
const hostileNumber = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -1, 2147483648, Number.MAX_SAFE_INTEGER, 1e300, -0));

/** List options that once reached PostgreSQL: NUL characters and dates beyond what it can hold. */
const hostileOptions = fc.constantFrom(
  '{"Filter":"a\\u0000b"}', '{"OrderBy":"Name\\u0000"}', '{"CalendarStartDate":"275760-09-14"}', '{"CalendarEndDate":"0000-01-01"}',
  '{"CalendarStartDate":"2024-02-30"}', '{"Take":"1e9"}', '{"Skip":9007199254740993}', '{"Criteria":{"a":"\\u0000"}}',
);

/** Arbitrary values of `type`: mostly well-typed (ids aimed at tenant A), sometimes anything at all. */
function valueArbitrary(type: GraphQLInputType, documentedKeys: boolean, depth = 0): fc.Arbitrary<unknown> {
  const nullable = getNullableType(type);
  let typed: fc.Arbitrary<unknown>;
  if (isListType(nullable)) typed = fc.array(valueArbitrary(nullable.ofType, documentedKeys, depth + 1), { maxLength: 3 });
  else if (isEnumType(nullable)) typed = fc.oneof(fc.constantFrom(...nullable.getValues().map((value) => value.name)), hostileString);
  else if (isInputObjectType(nullable)) {
    const fields = Object.values(nullable.getFields());
    typed = depth > 3 ? fc.constant({}) : fc.record(
      Object.fromEntries(fields.map((field) => [documentedKeys ? documentedKey(field.name) : field.name, valueArbitrary(field.type, documentedKeys, depth + 1)])),
      { requiredKeys: fields.filter((field) => isNonNullType(field.type)).map((field) => (documentedKeys ? documentedKey(field.name) : field.name)) },
    );
  } else {
    switch (nullable.name) {
      case 'Int': typed = fc.oneof(fc.constantFrom(...victimIds), hostileNumber); break;
      case 'Float': typed = hostileNumber; break;
      case 'Boolean': typed = fc.boolean(); break;
      case 'JSON': case 'JSONObject': typed = fc.jsonValue({ maxDepth: 3 }); break;
      default: typed = hostileString;
    }
  }
  const wellTyped = isNonNullType(type) ? typed : fc.option(typed, { nil: null });
  return fc.oneof({ arbitrary: wellTyped, weight: 4 }, { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 1 });
}

// ---------------------------------------------------------------------------------------------
// Calling a route.

interface RestCall {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A REST call of a compiled route: path parameters, query arguments and body from `value(type)`. */
function restCall(route: CompiledRoute, pathValue: (argName: string) => string, query: [string, string][], body: unknown): RestCall {
  // Through a Buffer first: a lone surrogate becomes U+FFFD instead of making encodeURIComponent throw.
  const encode = (text: string) => encodeURIComponent(Buffer.from(text, 'utf8').toString('utf8'));
  const path = route.segments.map((segment) => ('literal' in segment ? segment.literal : encode(pathValue(segment.arg)))).join('/');
  const search = new URLSearchParams(query).toString();
  return { method: route.row.method, path: `/${path}${search ? `?${search}` : ''}`, body };
}

function plainCall(route: CompiledRoute, id: number): RestCall {
  const query = [...route.queryArgs.values()]
    .filter(({ arg }) => isNonNullType(arg.type) || /id$/i.test(arg.name))
    .map(({ documented, arg }): [string, string] => {
      const value = plainValue(arg.type, id, true);
      return [documented, typeof value === 'string' ? value : JSON.stringify(value)];
    });
  return restCall(route, () => String(id), query, route.bodyArg ? plainValue(route.bodyArg.type, id, true) : undefined);
}

/** Raw routes with their `{param}`s filled (with an id, or with any text, URL-encoded or not). */
function rawCalls(id: number | string, encode = true): (RestCall & { authentication: string })[] {
  return rawRoutes.flatMap((area) => area.operations).map((operation) => ({
    method: operation.method,
    path: operation.path.replace(/\{[^}]+\}/g, encode ? encodeURIComponent(Buffer.from(String(id), 'utf8').toString('utf8')) : String(id)),
    authentication: operation.authentication ?? 'bearer',
  }));
}

function send(call: RestCall, token?: string): Promise<HttpResult> {
  return rest(server, call.method, call.path, { token, body: call.body, headers: call.headers });
}

/** The GraphQL document for a root field, every output field selected (as the REST gateway runs it). */
function operationFor(kind: 'query' | 'mutation', field: string): string {
  const operation = buildOperationNodeForField({ kind: kind === 'query' ? OperationTypeNode.QUERY : OperationTypeNode.MUTATION, schema, field, circularReferenceDepth: 1 });
  return print({ kind: Kind.DOCUMENT, definitions: [operation] });
}

function rootFields(): { kind: 'query' | 'mutation'; field: GraphQLField<unknown, unknown> }[] {
  return [
    ...Object.values(schema.getQueryType()!.getFields()).map((field) => ({ kind: 'query' as const, field })),
    ...Object.values(schema.getMutationType()!.getFields()).map((field) => ({ kind: 'mutation' as const, field })),
  ];
}

function plainVariables(field: GraphQLField<unknown, unknown>, id: number): Record<string, unknown> {
  return Object.fromEntries(field.args.filter((arg) => isNonNullType(arg.type) || /id$/i.test(arg.name)).map((arg) => [arg.name, plainValue(arg.type, id, false)]));
}

function expectProblem(response: HttpResult, status: number): void {
  expect({ status: response.status, type: response.headers.get('content-type') }).toEqual({ status, type: expect.stringContaining('application/problem+json') });
}

// ---------------------------------------------------------------------------------------------

describe('generated from the route table: authentication', () => {
  it('covers every registered operation', () => {
    expect(compiled.length).toBe(routes.length);
    expect(compiled.length + rawCalls(1).length).toBeGreaterThanOrEqual(63);
  });

  it.each(routes.map((row) => [`${row.method} ${row.path}`]))('%s: 401 without a credential, with a garbage token and with a revoked API key', async (name) => {
    const route = compiled.find((candidate) => `${candidate.row.method} ${candidate.row.path}` === name)!;
    if (route.access.public) return;
    const call = plainCall(route, 1);
    for (const token of [undefined, 'garbage-token', revokedKey]) {
      const response = await send(call, token);
      expectProblem(response, 401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
    }
  });

  it.each(routes.map((row) => [`${row.method} ${row.path}`]))('%s: 403 for a member when staff is needed', async (name) => {
    const route = compiled.find((candidate) => `${candidate.row.method} ${candidate.row.path}` === name)!;
    if (!route.access.roles.includes('staff')) return;
    expectProblem(await send(plainCall(route, 1), attacker.memberToken), 403);
  });

  it('401 on every raw route that needs a bearer credential, and a refusal on signed ones', async () => {
    for (const call of rawCalls(1)) {
      const response = await send(call);
      if (call.authentication === 'none') continue;
      expect({ call: `${call.method} ${call.path}`, status: response.status }).toEqual({ call: `${call.method} ${call.path}`, status: 401 });
    }
  });

  it('401 on every protected GraphQL field, 403 for a member on staff fields', async () => {
    for (const { kind, field } of rootFields()) {
      const access = fieldAccess(kind, field.name);
      if (access.public) continue;
      const document = operationFor(kind, field.name);
      const variables = plainVariables(field, 1);
      const anonymous = await graphql(server, document, variables);
      expect({ field: field.name, status: anonymous.status, code: anonymous.body.errors?.[0]?.extensions.code })
        .toEqual({ field: field.name, status: 401, code: 'UNAUTHENTICATED' });
      if (access.roles.includes('staff')) {
        const member = await graphql(server, document, variables, attacker.memberToken);
        expect({ field: field.name, status: member.status, code: member.body.errors?.[0]?.extensions.code })
          .toEqual({ field: field.name, status: 403, code: 'FORBIDDEN' });
      }
    }
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
  const bodyArbitrary = (route: CompiledRoute): fc.Arbitrary<unknown> => fc.oneof(
    { arbitrary: route.bodyArg ? valueArbitrary(route.bodyArg.type, true) : fc.constant(undefined), weight: 6 },
    { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 2 },
    { arbitrary: fc.string().map((raw) => ({ raw, type: 'application/json' })), weight: 1 },
    { arbitrary: fc.constantFrom(
      { raw: `${'['.repeat(10_000)}${']'.repeat(10_000)}`, type: 'application/json' },
      { raw: JSON.stringify({ Name: 'x'.repeat(2_000_000) }), type: 'application/json' },
      { raw: '{"Name":"a\\u0000b"}', type: 'application/json' },
      { raw: 'Name=x&VendorId=1', type: 'application/x-www-form-urlencoded' },
      { raw: '<xml/>', type: 'text/xml' },
    ), weight: 1 },
  );

  it(`never answers 5xx on REST, and every 4xx is problem+json (seed ${SEED}, ${RUNS} runs)`, async () => {
    // Routes by index, so that a counterexample prints short.
    const requestArbitrary = fc.nat({ max: compiled.length - 1 }).chain((index) => fc.record({
      route: fc.constant(index),
      path: fc.array(fc.oneof({ arbitrary: fc.constantFrom(...victimIds.map(String)), weight: 3 }, { arbitrary: hostileString, weight: 2 }), { minLength: 3, maxLength: 3 }),
      query: fc.array(fc.tuple(
        fc.constantFrom(...[...compiled[index].queryArgs.values()].map(({ documented }) => documented), 'options', 'x'),
        fc.oneof(hostileString, fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)), hostileOptions),
      ), { maxLength: 3 }),
      body: compiled[index].row.method === 'GET' ? fc.constant(undefined) : bodyArbitrary(compiled[index]),
    }));
    await fc.assert(fc.asyncProperty(requestArbitrary, async ({ route: index, path, query, body }) => {
      const route = compiled[index];
      const params = route.segments.filter((segment) => 'arg' in segment);
      const call = restCall(route, (arg) => path[params.findIndex((segment) => 'arg' in segment && segment.arg === arg)] ?? '1', query, undefined);
      if (body && typeof body === 'object' && 'raw' in body && 'type' in body && Object.keys(body).length === 2) {
        call.body = body.raw;
        call.headers = { 'content-type': String(body.type) };
      } else {
        call.body = body;
      }
      const response = await send(call, attacker.staffToken);
      if (response.status >= 500) throw new Error(`${call.method} ${call.path} ${JSON.stringify(call.body)?.slice(0, 200)} → ${response.status} ${response.text.slice(0, 300)}`);
      if (response.status >= 400) expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(response.text).not.toContain(MARKER);
    }), { seed: SEED, numRuns: RUNS });
  }, 600_000);

  it(`never answers 5xx on GraphQL (seed ${SEED}, ${RUNS} runs)`, async () => {
    const fields = rootFields();
    const requestArbitrary = fc.nat({ max: fields.length - 1 }).chain((index) => fc.record({
      field: fc.constant(fields[index].field.name),
      document: fc.constant(operationFor(fields[index].kind, fields[index].field.name)),
      variables: fc.record(Object.fromEntries(fields[index].field.args.map((arg) => [arg.name, valueArbitrary(arg.type, false)])), { requiredKeys: [] }),
    }));
    await fc.assert(fc.asyncProperty(requestArbitrary, async ({ document, variables }) => {
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
