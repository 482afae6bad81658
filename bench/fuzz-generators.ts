/**
 * The property-based generators of malformed requests, shared by the generated sweeps
 * (`test/sweeps.test.ts`, a seeded sample in CI) and the long fuzz run (`npm run fuzz`,
 * bench/fuzz.ts, against the server in its own process). Everything is derived from the route
 * table and the GraphQL schema, so a new operation is fuzzed without being named here.
 */
import { buildOperationNodeForField } from '@graphql-tools/utils';
import fc from 'fast-check';
import {
  getNamedType, getNullableType, isEnumType, isInputObjectType, isListType, isNonNullType, Kind, OperationTypeNode, print,
  type GraphQLField, type GraphQLInputType, type GraphQLSchema,
} from 'graphql';
import type { AreaRoutes } from '../src/http/area-routes.js';
import { documentedKey } from '../src/rest/documented-keys.js';
import type { CompiledRoute } from '../src/rest/gateway/routes.js';

/** A documented operation served by a raw route. */
export type AreaRouteOperation = AreaRoutes['operations'][number];

// ---------------------------------------------------------------------------------------------
// Values of GraphQL input types: one plain valid-looking value, and fast-check arbitraries.

/** A value of `type` that passes type checks: ints are `id`, strings 'x', required fields only. */
export function plainValue(type: GraphQLInputType, id: number, documentedKeys: boolean): unknown {
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

/** Strings that have broken something somewhere: NUL, lone surrogates, injections, huge, dates and numbers as text. */
export const hostileString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('\u0000', 'a\u0000b', "'; DROP TABLE vendor; --", '\ud800', '%', '../../etc/passwd', '{"$ne":1}', 'x'.repeat(5000),
    '9999-99-99', '275760-09-14', '-1', '1e400', 'NaN', 'null', 'true', '<script>alert(1)</script>'),
);

/** Numbers beyond what a column or an Int holds, fractions where integers go, negative zero. */
export const hostileNumber = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -1, 2147483648, Number.MAX_SAFE_INTEGER, 1e300, -0));

/** List options that once reached PostgreSQL: NUL characters and dates beyond what it can hold. */
export const hostileOptions = fc.constantFrom(
  '{"Filter":"a\\u0000b"}', '{"OrderBy":"Name\\u0000"}', '{"CalendarStartDate":"275760-09-14"}', '{"CalendarEndDate":"0000-01-01"}',
  '{"CalendarStartDate":"2024-02-30"}', '{"Take":"1e9"}', '{"Skip":9007199254740993}', '{"Criteria":{"a":"\\u0000"}}',
);

/** Arbitrary values of `type`: mostly well-typed (ints among `ids`, records of another tenant), sometimes anything at all. */
export function valueArbitrary(type: GraphQLInputType, documentedKeys: boolean, ids: number[], depth = 0): fc.Arbitrary<unknown> {
  const nullable = getNullableType(type);
  let typed: fc.Arbitrary<unknown>;
  if (isListType(nullable)) typed = fc.array(valueArbitrary(nullable.ofType, documentedKeys, ids, depth + 1), { maxLength: 3 });
  else if (isEnumType(nullable)) typed = fc.oneof(fc.constantFrom(...nullable.getValues().map((value) => value.name)), hostileString);
  else if (isInputObjectType(nullable)) {
    const fields = Object.values(nullable.getFields());
    typed = depth > 3 ? fc.constant({}) : fc.record(
      Object.fromEntries(fields.map((field) => [documentedKeys ? documentedKey(field.name) : field.name, valueArbitrary(field.type, documentedKeys, ids, depth + 1)])),
      { requiredKeys: fields.filter((field) => isNonNullType(field.type)).map((field) => (documentedKeys ? documentedKey(field.name) : field.name)) },
    );
  } else {
    switch (nullable.name) {
      case 'Int': typed = fc.oneof(fc.constantFrom(...ids), hostileNumber); break;
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
// REST calls.

export interface RestCall {
  method: string;
  path: string;
  /** Sent as JSON unless it is a string. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** Through a Buffer first: a lone surrogate becomes U+FFFD instead of making encodeURIComponent throw. */
const encodeSegment = (text: string) => encodeURIComponent(Buffer.from(text, 'utf8').toString('utf8'));

/** A REST call of a compiled route: path parameters, query arguments and body from `value(type)`. */
export function restCall(route: CompiledRoute, pathValue: (argName: string) => string, query: [string, string][], body: unknown): RestCall {
  const path = route.segments.map((segment) => ('literal' in segment ? segment.literal : encodeSegment(pathValue(segment.arg)))).join('/');
  const search = new URLSearchParams(query).toString();
  return { method: route.row.method, path: `/${path}${search ? `?${search}` : ''}`, body };
}

/** A path parameter's plain value: `id`, or `true` for a Boolean one (`{forcesave}`). */
export function plainPathValue(route: CompiledRoute, argName: string, id: number): string {
  const arg = route.field.args.find((candidate) => candidate.name === argName);
  return arg && getNamedType(arg.type).name === 'Boolean' ? 'true' : String(id);
}

/** The call of a route with plain values: every id `id`, required fields only. */
export function plainCall(route: CompiledRoute, id: number): RestCall {
  const query = [...route.queryArgs.values()]
    .filter(({ arg }) => isNonNullType(arg.type) || /id$/i.test(arg.name))
    .map(({ documented, arg }): [string, string] => {
      const value = plainValue(arg.type, id, true);
      return [documented, typeof value === 'string' ? value : JSON.stringify(value)];
    });
  return restCall(route, (argName) => plainPathValue(route, argName, id), query, route.bodyArg ? plainValue(route.bodyArg.type, id, true) : undefined);
}

/** A raw body with its content type (as opposed to a value sent as JSON). */
interface RawBody { raw: string; type: string }

const isRawBody = (body: unknown): body is RawBody =>
  Boolean(body) && typeof body === 'object' && 'raw' in (body as object) && 'type' in (body as object) && Object.keys(body as object).length === 2;

/** Bodies for a route: its documented model with hostile values, any JSON, broken JSON, deep nesting, huge, NUL, a form, a wrong media type. */
export function bodyArbitrary(route: CompiledRoute, ids: number[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    { arbitrary: route.bodyArg ? valueArbitrary(route.bodyArg.type, true, ids) : fc.constant(undefined), weight: 6 },
    { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 2 },
    { arbitrary: fc.string().map((raw): RawBody => ({ raw, type: 'application/json' })), weight: 1 },
    { arbitrary: fc.constantFrom<RawBody>(
      { raw: `${'['.repeat(10_000)}${']'.repeat(10_000)}`, type: 'application/json' },
      { raw: JSON.stringify({ Name: 'x'.repeat(2_000_000) }), type: 'application/json' },
      { raw: '{"Name":"a\\u0000b"}', type: 'application/json' },
      { raw: 'Name=x&VendorId=1', type: 'application/x-www-form-urlencoded' },
      { raw: '<xml/>', type: 'text/xml' },
    ), weight: 1 },
  );
}

/** One fuzzed REST request, the route by index (so that a counterexample prints short). */
export interface RestSample {
  route: number;
  path: string[];
  query: [string, string][];
  body: unknown;
}

/** Requests over every route of `compiled`: ids of `ids` or hostile text in the path, hostile query values and options, hostile bodies. */
export function restRequestArbitrary(compiled: CompiledRoute[], ids: number[]): fc.Arbitrary<RestSample> {
  return fc.nat({ max: compiled.length - 1 }).chain((index) => fc.record({
    route: fc.constant(index),
    path: fc.array(fc.oneof({ arbitrary: fc.constantFrom(...ids.map(String)), weight: 3 }, { arbitrary: hostileString, weight: 2 }), { minLength: 3, maxLength: 3 }),
    query: fc.array(fc.tuple(
      fc.constantFrom(...[...compiled[index].queryArgs.values()].map(({ documented }) => documented), 'options', 'x'),
      fc.oneof(hostileString, fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)), hostileOptions),
    ), { maxLength: 3 }),
    body: compiled[index].row.method === 'GET' ? fc.constant(undefined) : bodyArbitrary(compiled[index], ids),
  }));
}

/** The HTTP call of a fuzzed REST sample. */
export function restSampleCall(compiled: CompiledRoute[], sample: RestSample): RestCall {
  const route = compiled[sample.route];
  const params = route.segments.filter((segment) => 'arg' in segment);
  const call = restCall(route, (arg) => sample.path[params.findIndex((segment) => 'arg' in segment && segment.arg === arg)] ?? '1', sample.query, undefined);
  if (isRawBody(sample.body)) {
    call.body = sample.body.raw;
    call.headers = { 'content-type': sample.body.type };
  } else {
    call.body = sample.body;
  }
  return call;
}

/** Raw routes (uploads, downloads, feeds, callbacks) with their `{param}`s filled (with an id, or any text, URL-encoded or not). */
export function rawCalls(operations: AreaRouteOperation[], id: number | string, encode = true): (RestCall & { authentication: string })[] {
  return operations.map((operation) => ({
    method: operation.method,
    path: operation.path.replace(/\{[^}]+\}/g, encode ? encodeSegment(String(id)) : String(id)),
    authentication: operation.authentication ?? 'bearer',
  }));
}

/** Multipart bodies an upload route may meet: none, broken, two files, empty file, a non-image, the wrong media type. */
const hostileUpload = fc.constantFrom<RawBody | undefined>(
  undefined,
  { raw: '{', type: 'application/json' },
  { raw: '\u0000', type: 'application/json' },
  { raw: 'x'.repeat(100_000), type: 'application/json' },
  { raw: '--b\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\nnot a png\r\n--b--\r\n', type: 'multipart/form-data; boundary=b' },
  { raw: '--b\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\n\r\n--b--\r\n', type: 'multipart/form-data; boundary=b' },
  { raw: '--b\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nx\r\n--b\r\nContent-Disposition: form-data; name="file2"; filename="b"\r\n\r\ny\r\n--b--\r\n', type: 'multipart/form-data; boundary=b' },
  { raw: '--b\r\nContent-Disposition: form-data; name="__proto__"\r\n\r\nx\r\n--b--\r\n', type: 'multipart/form-data; boundary=b' },
  { raw: '--b\r\nbroken', type: 'multipart/form-data; boundary=b' },
  { raw: 'x', type: 'multipart/form-data' },
);

/** Requests over every raw route: ids or hostile text in the path (encoded or not), hostile query strings and bodies. */
export function rawRequestArbitrary(operations: AreaRouteOperation[], ids: number[]): fc.Arbitrary<RestCall> {
  return fc.record({
    operation: fc.nat({ max: operations.length - 1 }),
    param: fc.oneof({ arbitrary: fc.constantFrom(...ids.map(String)), weight: 3 }, { arbitrary: hostileString, weight: 2 }, { arbitrary: fc.constantFrom('%E0%A4%A', '%00', '..%2F..'), weight: 1 }),
    encode: fc.boolean(),
    query: fc.array(fc.tuple(fc.constantFrom('tenant', 'width', 'height', 'options', 'x'), hostileString), { maxLength: 2 }),
    body: hostileUpload,
  }).map(({ operation, param, encode, query, body }) => {
    const literal = !encode && /%|^[\x20-\x7e]*$/.test(param) ? param.replace(/[#?\s]/g, '_') : param;
    const [call] = rawCalls([operations[operation]], literal, encode || literal === param ? encode : true);
    const search = new URLSearchParams(query).toString();
    const withQuery: RestCall = { method: call.method, path: `${call.path}${search ? `${call.path.includes('?') ? '&' : '?'}${search}` : ''}` };
    if (call.method !== 'GET' && body) return { ...withQuery, body: body.raw, headers: { 'content-type': body.type } };
    return withQuery;
  });
}

// ---------------------------------------------------------------------------------------------
// GraphQL.

/** The GraphQL document for a root field, every output field selected (as the REST gateway runs it). */
export function operationFor(schema: GraphQLSchema, kind: 'query' | 'mutation', field: string): string {
  const operation = buildOperationNodeForField({ kind: kind === 'query' ? OperationTypeNode.QUERY : OperationTypeNode.MUTATION, schema, field, circularReferenceDepth: 1 });
  return print({ kind: Kind.DOCUMENT, definitions: [operation] });
}

export function rootFields(schema: GraphQLSchema): { kind: 'query' | 'mutation'; field: GraphQLField<unknown, unknown> }[] {
  return [
    ...Object.values(schema.getQueryType()!.getFields()).map((field) => ({ kind: 'query' as const, field })),
    ...Object.values(schema.getMutationType()!.getFields()).map((field) => ({ kind: 'mutation' as const, field })),
  ];
}

export function plainVariables(field: GraphQLField<unknown, unknown>, id: number): Record<string, unknown> {
  return Object.fromEntries(field.args.filter((arg) => isNonNullType(arg.type) || /id$/i.test(arg.name)).map((arg) => [arg.name, plainValue(arg.type, id, false)]));
}

export interface GraphqlSample {
  field: string;
  document: string;
  variables: Record<string, unknown>;
}

/** Operations on every root field with hostile variables of each argument's type. */
export function graphqlRequestArbitrary(schema: GraphQLSchema, ids: number[]): fc.Arbitrary<GraphqlSample> {
  const fields = rootFields(schema);
  return fc.nat({ max: fields.length - 1 }).chain((index) => fc.record({
    field: fc.constant(fields[index].field.name),
    document: fc.constant(operationFor(schema, fields[index].kind, fields[index].field.name)),
    variables: fc.record(Object.fromEntries(fields[index].field.args.map((arg) => [arg.name, valueArbitrary(arg.type, false, ids)])), { requiredKeys: [] }),
  }));
}

/**
 * Malformed GraphQL HTTP requests (the protocol rather than the variables): broken JSON, wrong
 * shapes, syntax errors, documents past the depth, alias and token limits, batches, GET
 * mutations, other media types, huge bodies. `field` names the root field a document uses.
 */
export function graphqlProtocolArbitrary(schema: GraphQLSchema): fc.Arbitrary<RestCall> {
  const fields = rootFields(schema);
  const queryField = fields.find(({ kind, field }) => kind === 'query' && field.args.length === 0)?.field.name ?? '__typename';
  const mutation = fields.find(({ kind }) => kind === 'mutation');
  const json = (body: unknown): RestCall => ({ method: 'POST', path: '/graphql', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const nested = (depth: number) => `{ ${'a { '.repeat(depth)}b${' }'.repeat(depth)} }`;
  return fc.oneof(
    fc.string().map((raw) => ({ method: 'POST', path: '/graphql', body: raw, headers: { 'content-type': 'application/json' } })),
    fc.jsonValue({ maxDepth: 3 }).map(json),
    fc.record({ query: hostileString, variables: fc.oneof(fc.jsonValue({ maxDepth: 2 }), hostileString) }).map(json),
    fc.record({ query: fc.constant(`{ ${queryField} }`), variables: fc.jsonValue({ maxDepth: 2 }), operationName: fc.oneof(hostileString, fc.jsonValue({ maxDepth: 1 })) }).map(json),
    fc.constantFrom<RestCall>(
      json({ query: `{ ${Array.from({ length: 40 }, (_, index) => `a${index}: __typename`).join(' ')} }` }),
      json({ query: nested(12) }),
      json({ query: nested(3000) }),
      json({ query: `{ ${'__typename '.repeat(3000)} }` }),
      json([{ query: '{ __typename }' }, { query: '{ __typename }' }]),
      json({ query: `{ ${'a'.repeat(100_000)} }` }),
      json({ query: '{ __typename @skip(if: false) @skip(if: false) @skip(if: false) }' }),
      json({ query: 'query { __typename } query { __typename }' }),
      json({ query: 'subscription { __typename }' }),
      json({ query: '{ __typename }', variables: '{"broken"' }),
      json({ query: 'x'.repeat(2_000_000) }),
      { method: 'POST', path: '/graphql', body: `${'['.repeat(10_000)}${']'.repeat(10_000)}`, headers: { 'content-type': 'application/json' } },
      { method: 'POST', path: '/graphql', body: '{ __typename }', headers: { 'content-type': 'text/plain' } },
      { method: 'POST', path: '/graphql', body: '{ __typename }', headers: { 'content-type': 'application/graphql' } },
      { method: 'POST', path: '/graphql', body: 'query=%7B__typename%7D', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      { method: 'GET', path: `/graphql?query=${encodeURIComponent(mutation ? `mutation { ${mutation.field.name} }` : '{ __typename }')}`, headers: { 'apollo-require-preflight': 'true' } },
      { method: 'GET', path: '/graphql?query=%7B__typename%7D&variables=%7Bbroken', headers: { 'apollo-require-preflight': 'true' } },
      { method: 'GET', path: '/graphql', headers: { 'apollo-require-preflight': 'true' } },
      { method: 'DELETE', path: '/graphql' },
    ),
  );
}
