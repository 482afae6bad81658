import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { buildOperationNodeForField } from '@graphql-tools/utils';
import {
  getNamedType, getNullableType, GraphQLError, isEnumType, isInputObjectType, isLeafType, isListType, isNonNullType, Kind, OperationTypeNode,
  type DocumentNode, type GraphQLArgument, type GraphQLField, type GraphQLInputType, type GraphQLLeafType, type GraphQLSchema,
} from 'graphql';
import { createSofa } from 'sofa-api';
import type { RequestContext } from '../core/context.js';
import { compileOperation, type CompiledOperation } from '../core/compiled-execution.js';
import { toApiError } from '../core/error-mapping.js';
import { fieldAccess, type FieldAccess } from '../core/graphql-policies.js';
import { ApiError, BadInput, NotFound } from '../core/errors.js';
import { documentedQueryNames } from './contract.js';
import { documentedKey, needsKeyMapping, toDocumentedKeys } from './documented-keys.js';
import { formToObject } from './form-body.js';
import { nestingDepth } from '../core/json-depth.js';
import { claimIdempotencyKey, finishIdempotencyKey, releaseIdempotencyKey, requestFingerprint, type StoredResponse } from '../core/idempotency.js';
import { labelOperation } from '../core/metrics.js';
import { limitAnonymous } from '../core/rate-limit.js';
import { headersOf, PROBLEM_CONTENT_TYPE, problemOf } from './problem.js';
import type { RouteRow } from './route-table.js';
import type { FileDownload } from '../schema/file-download.js';
import { READ_PRIMARY_HEADER, wantsPrimary, withReadScope } from '../core/read-routing.js';

/**
 * The REST gateway: matches a request against the route table (case-insensitive, trailing
 * slash optional, literal routes before parameter routes), turns path, query and the
 * documented body into the GraphQL field's variables, checks their types, and runs the field's
 * operation against the same schema GraphQL clients use. The operation is the one sofa-api
 * builds for the field (every output field, to sofa's depth), made and compiled on the route's
 * first call (each row is checked against the schema at start); the gateway executes it directly
 * rather than through sofa's own HTTP router, which doubled the cost of a request in our
 * benchmark (BENCHMARKS.md).
 */

/** A path segment: literal text, or a documented `{param}` feeding the GraphQL argument `arg`. */
type Segment = { literal: string } | { param: string; arg: string; optional: boolean };

export interface CompiledRoute {
  row: RouteRow;
  segments: Segment[];
  literalCount: number;
  operationType: 'query' | 'mutation';
  fieldName: string;
  field: GraphQLField<unknown, unknown>;
  /** Lower-cased documented query name (or argument name) → argument. */
  queryArgs: Map<string, { documented: string; arg: GraphQLArgument }>;
  bodyArg: GraphQLArgument | null;
  /** The argument the row's `queryModel` names (fields from the query string), if any. */
  queryModelArg: GraphQLArgument | null;
  mapsKeys: boolean;
  /** Who may call the field (its `@Authorized` decorator): checked before the request is read. */
  access: FieldAccess;
  /** Runs sofa-api's operation for the field, compiled once at start. */
  run: CompiledOperation;
}

export interface GatewayOptions {
  /** The route table, compiled once (`compileRoutes`) and shared with the OpenAPI document. */
  routes: CompiledRoute[];
  contextFor(request: FastifyRequest): Promise<RequestContext>;
  onUnexpectedError: (error: unknown) => void;
  /** Largest request body (bytes); larger is a 413. */
  bodyLimit: number;
}

/** Builds each row against the schema; a row naming a missing field or argument fails at start. */
export function compileRoutes(schema: GraphQLSchema, rows: RouteRow[]): CompiledRoute[] {
  const sofa = createSofa({ basePath: '/api', schema });
  const documentedQuery = documentedQueryNames();
  const compiled = rows.map((row) => {
    const [typeName, fieldName] = row.field.split('.') as ['Query' | 'Mutation', string];
    const type = typeName === 'Query' ? schema.getQueryType() : schema.getMutationType();
    const field = type?.getFields()[fieldName];
    if (!field) throw new Error(`Route ${row.method} ${row.path}: no GraphQL field ${row.field}`);
    // Documented names (`vendorid`, `auditid`) meet camelCase arguments (`vendorId`, `auditId`)
    // case-insensitively; the row's `query` renames the others (`this[]` → `text`).
    const renames = new Map(Object.entries(row.query ?? {}).map(([documented, arg]) => [documented.toLowerCase(), arg]));
    const argFor = (documented: string) => {
      const wanted = (renames.get(documented.toLowerCase()) ?? documented).toLowerCase();
      return field.args.find((arg) => arg.name.toLowerCase() === wanted);
    };
    const segments: Segment[] = row.path.split('/').filter(Boolean).map((part) => {
      const param = /^\{([^}=]+)(=null)?\}$/.exec(part);
      if (!param) return { literal: part.toLowerCase() };
      const arg = argFor(param[1]);
      if (!arg) throw new Error(`Route ${row.path}: ${row.field} has no argument for {${param[1]}}`);
      return { param: param[1], arg: arg.name, optional: Boolean(param[2]) };
    });
    const bodyArg = row.body ? field.args.find((arg) => arg.name === row.body) ?? null : null;
    if (row.body && !bodyArg) throw new Error(`Route ${row.path}: ${row.field} has no body argument ${row.body}`);
    const queryModelArg = row.queryModel ? field.args.find((arg) => arg.name === row.queryModel) ?? null : null;
    if (row.queryModel && !(queryModelArg && isInputObjectType(getNullableType(queryModelArg.type)))) throw new Error(`Route ${row.path}: ${row.field} has no input argument ${row.queryModel}`);
    // An optional path parameter (`{contactid=null}`) may come as a query parameter too; the path wins.
    const taken = new Set([...segments.flatMap((segment) => ('arg' in segment && !segment.optional ? [segment.arg] : [])), bodyArg?.name, queryModelArg?.name, ...Object.keys(row.args ?? {})]);
    const documentedNames = [...Object.keys(row.query ?? {}), ...(documentedQuery.get(`${row.method} ${row.path}`) ?? [])];
    const queryArgs = new Map(field.args
      .filter((arg) => !taken.has(arg.name))
      .map((arg) => {
        const documented = documentedNames.find((name) => argFor(name) === arg) ?? arg.name;
        return [documented.toLowerCase(), { documented, arg }] as const;
      }));
    const operationType = typeName === 'Query' ? 'query' as const : 'mutation' as const;
    return {
      row, segments, field, fieldName, bodyArg, queryModelArg, queryArgs, operationType,
      access: fieldAccess(operationType, fieldName),
      run: compiledOnFirstUse(() => compileOperation(schema, sofaOperation(sofa, operationType, fieldName)).run),
      literalCount: segments.filter((segment) => 'literal' in segment).length,
      mapsKeys: needsKeyMapping(field.type),
    };
  });
  // Literal routes win over parameter routes (/vendors/search before /vendors/{vendorid}).
  return compiled.sort((a, b) => b.literalCount - a.literalCount);
}

/**
 * The routes that can match a path, by its first two segments (lower-cased): every documented
 * path starts with literals (`/api/vendors`, `/api/setup/...`), so a request is checked against
 * a handful of routes instead of the whole table.
 */
export type RouteIndex = Map<string, CompiledRoute[]>;

const prefixOf = (parts: string[]) => parts.slice(0, 2).join('/').toLowerCase();

export function indexRoutes(routes: CompiledRoute[]): RouteIndex {
  const index: RouteIndex = new Map();
  for (const route of routes) {
    const literals = route.segments.slice(0, 2).map((segment) => ('literal' in segment ? segment.literal : null));
    if (literals.includes(null)) throw new Error(`Route ${route.row.path}: its first two segments must be literal`);
    const key = literals.join('/');
    index.set(key, [...(index.get(key) ?? []), route]);
  }
  return index;
}

/** Finds the route for a method and raw path; 404 when none, 405 when only other methods match. */
export function matchRoute(routes: RouteIndex, method: string, rawPath: string) {
  const parts = rawPath.split('/').filter(Boolean).map((part, index) => {
    try {
      return decodeURIComponent(part);
    } catch {
      throw BadInput.field(`path segment ${index + 1}`, 'is not valid percent-encoding');
    }
  });
  const allowed = new Set<string>();
  for (const route of routes.get(prefixOf(parts)) ?? []) {
    const params = matchSegments(route.segments, parts);
    if (!params) continue;
    if (route.row.method === method) return { route, params };
    allowed.add(route.row.method);
  }
  if (allowed.size > 0) {
    throw new ApiError(405, 'METHOD_NOT_ALLOWED', `Use ${[...allowed].join(' or ')} on this path.`, [], { Allow: [...allowed].join(', ') });
  }
  throw new NotFound('The resource');
}

/** A matched path parameter: its value, and its documented name (for messages), by argument. */
type PathParams = Map<string, { value: string; documented: string }>;

function matchSegments(segments: Segment[], parts: string[]): PathParams | null {
  if (parts.length > segments.length) return null;
  const params: PathParams = new Map();
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index];
    const part = parts[index];
    if (part === undefined) {
      if ('param' in segment && segment.optional) continue;
      return null;
    }
    if ('literal' in segment) {
      if (segment.literal !== part.toLowerCase()) return null;
    } else if (!(segment.optional && part === 'null')) {
      params.set(segment.arg, { value: part, documented: segment.param });
    }
  }
  return params;
}

/** The GraphQL variables of a matched request, each checked against its argument's type. */
export function buildVariables(route: CompiledRoute, params: PathParams, rawQuery: string, request: { body: unknown; contentType: string | undefined }) {
  const variables: Record<string, unknown> = { ...route.row.args };
  for (const [argName, { value, documented }] of params) variables[argName] = coerceScalar(value, argOf(route, argName), documented);

  const query = new URLSearchParams(rawQuery);
  for (const key of new Set(query.keys())) {
    const target = route.queryArgs.get(key.toLowerCase());
    if (!target || target.arg.name in variables) continue; // a path parameter wins over the query string
    const values = query.getAll(key);
    const type = getNullableType(target.arg.type);
    if (isInputObjectType(type)) {
      // A model in the query string (`options`): URL-encoded JSON, checked like a body.
      variables[target.arg.name] = toInput(parseJson(values[0], target.documented), type, target.documented);
    } else {
      variables[target.arg.name] = isListType(type)
        ? values.map((value) => coerceScalar(value, target.arg, target.documented))
        : coerceScalar(values[0], target.arg, target.documented);
    }
  }

  if (route.queryModelArg) {
    const model = queryModelFields(route.queryModelArg, query);
    if (model) variables[route.queryModelArg.name] = toInput(model, route.queryModelArg.type, '', true);
  }

  if (route.bodyArg) {
    const text = typeof request.body === 'string' ? request.body.trim() : '';
    if (text) {
      const { value, form } = parseBody(text, request.contentType);
      variables[route.bodyArg.name] = toInput(value, route.bodyArg.type, '', form);
    } else if (isNonNullType(route.bodyArg.type)) {
      throw BadInput.field('body', 'is required');
    }
  }
  return variables;
}

/**
 * The fields of a query-string model (`?Take=10&Criteria={…}`): keys meet the model's documented
 * field names case-insensitively, a field that is itself a model is URL-encoded JSON. Null when
 * the query string names none of them.
 */
function queryModelFields(arg: GraphQLArgument, query: URLSearchParams): Record<string, unknown> | null {
  const model = getNullableType(arg.type);
  if (!isInputObjectType(model)) return null;
  const fields = new Map(Object.values(model.getFields()).map((inputField) => [documentedKey(inputField.name).toLowerCase(), inputField]));
  const given: Record<string, unknown> = {};
  for (const key of new Set(query.keys())) {
    const inputField = fields.get(key.toLowerCase());
    if (!inputField) continue;
    const name = documentedKey(inputField.name);
    const value = query.get(key) ?? '';
    given[name] = isInputObjectType(getNamedType(inputField.type)) ? parseJson(value, name) : value;
  }
  return Object.keys(given).length ? given : null;
}

/** The media types a documented body may come in (listed in the OpenAPI document too). */
export const BODY_MEDIA_TYPES = ['application/json', 'text/json', 'application/x-www-form-urlencoded'] as const;

/**
 * A request body as a value: JSON (`application/json`, `application/*+json`, or `text/json` as
 * old ASP.NET clients label it; no content type at all is read as JSON too), or a form
 * (`application/x-www-form-urlencoded`, bound like ASP.NET model binding did). Anything else: 415.
 */
function parseBody(text: string, contentType: string | undefined): { value: unknown; form: boolean } {
  const mediaType = contentType?.split(';')[0]!.trim().toLowerCase() ?? '';
  if (mediaType === 'application/x-www-form-urlencoded') return { value: formToObject(text), form: true };
  if (!mediaType || mediaType === 'text/json' || /^application\/([\w.+-]+\+)?json$/.test(mediaType)) return { value: parseJson(text, 'body'), form: false };
  throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', `The request body must be one of ${BODY_MEDIA_TYPES.join(', ')}.`);
}

function argOf(route: CompiledRoute, name: string): GraphQLArgument {
  return route.field.args.find((arg) => arg.name === name)!;
}

/** No documented model (nor a FilterBase in `options`) nests anywhere near this deep. */
const MAX_JSON_NESTING = 64;

function parseJson(text: string, field: string): unknown {
  if (text.trim() === '') return null;
  if (nestingDepth(text) > MAX_JSON_NESTING) throw BadInput.field(field, `nests deeper than ${MAX_JSON_NESTING} levels`);
  try {
    return JSON.parse(text);
  } catch {
    throw BadInput.field(field, 'is not valid JSON');
  }
}

const INT32 = { min: -2147483648, max: 2147483647 };

/** A path or query string value as the argument's scalar; a wrong one is a 400 naming the parameter. */
function coerceScalar(value: string, arg: GraphQLArgument, name: string): unknown {
  switch (getNamedType(arg.type).name) {
    case 'Int': {
      const number = /^-?\d{1,10}$/.test(value) ? Number(value) : NaN;
      if (!(number >= INT32.min && number <= INT32.max)) throw BadInput.field(name, 'must be an integer');
      return number;
    }
    case 'Float': {
      const number = value.trim() === '' ? NaN : Number(value);
      if (!Number.isFinite(number)) throw BadInput.field(name, 'must be a number');
      return number;
    }
    case 'Boolean': {
      const lower = value.toLowerCase();
      if (lower !== 'true' && lower !== 'false') throw BadInput.field(name, 'must be true or false');
      return lower === 'true';
    }
    default:
      return value;
  }
}

/**
 * A JSON value shaped for a GraphQL input type, checked here so that a REST caller's error names
 * the documented field (`Name`, `options.Take`) in our own words rather than GraphQL's: documented
 * keys become field names (exact match first, then case-insensitive, as ASP.NET model binding
 * did), unknown fields, server-owned ones included, are dropped, required fields must be there,
 * and every scalar must parse. Numbers and booleans sent as strings that parse exactly
 * (`"VendorId": "0"`, `"IsActive": "true"`) are converted, as Json.NET did.
 */
function toInput(value: unknown, type: GraphQLInputType, path: string, form = false): unknown {
  const nullable = getNullableType(type);
  const field = path || 'body';
  if (value === null || value === undefined) {
    if (isNonNullType(type)) throw BadInput.field(field, 'is required');
    return value;
  }
  if (isListType(nullable)) {
    // A form field given once is a list of one, as form binding had it.
    const items = form && !Array.isArray(value) ? [value] : value;
    if (!Array.isArray(items)) throw BadInput.field(field, 'must be a JSON array');
    return items.map((item, index) => toInput(item, nullable.ofType, `${path}[${index}]`, form));
  }
  // Json.NET and form binding read "" as no value for a number, a boolean or a choice.
  if (value === '' && isLeafType(nullable) && nullable.name !== 'String' && nullable.name !== 'ID') return toInput(null, type, path, form);
  if (isLeafType(nullable)) return toLeaf(value, nullable, field);
  if (typeof value !== 'object' || Array.isArray(value)) throw BadInput.field(field, 'must be a JSON object');
  const given = value as Record<string, unknown>;
  const lowerKeys = new Map(Object.keys(given).map((key) => [key.toLowerCase(), key]));
  const result: Record<string, unknown> = {};
  for (const inputField of Object.values(nullable.getFields())) {
    const documented = documentedKey(inputField.name);
    const key = documented in given ? documented : lowerKeys.get(documented.toLowerCase());
    const fieldPath = path ? `${path}.${documented}` : documented;
    if (key !== undefined && given[key] !== undefined) result[inputField.name] = toInput(given[key], inputField.type, fieldPath, form);
    else if (isNonNullType(inputField.type) && inputField.defaultValue === undefined) throw BadInput.field(fieldPath, 'is required');
  }
  return result;
}

/** A scalar or enum value, converted from a string where Json.NET would have; a wrong one is a 400 naming the field. */
function toLeaf(value: unknown, type: GraphQLLeafType, field: string): unknown {
  let candidate = value;
  if (typeof value === 'string' && (type.name === 'Int' || type.name === 'Float') && /^\s*-?\d+(\.\d+)?([eE][+-]?\d+)?\s*$/.test(value)) candidate = Number(value);
  if (typeof value === 'string' && type.name === 'Boolean' && /^(true|false)$/i.test(value.trim())) candidate = value.trim().toLowerCase() === 'true';
  try {
    if (type.parseValue(candidate) === undefined) throw new TypeError('no value');
    return candidate;
  } catch (error) {
    throw BadInput.field(field, expectation(type, error));
  }
}

function expectation(type: GraphQLLeafType, error: unknown): string {
  if (isEnumType(type)) return `must be one of ${type.getValues().map((value) => value.name).join(', ')}`;
  switch (type.name) {
    case 'Int': return 'must be an integer from -2147483648 to 2147483647';
    case 'Float': return 'must be a number';
    case 'Boolean': return 'must be true or false';
    case 'String': case 'ID': return 'must be a string';
    default: return error instanceof GraphQLError ? error.message : `must be a valid ${type.name}`;
  }
}

/**
 * A model read from the query string (`?options={…}`) is checked by the resolver's rules, which
 * name its fields as the model has them (`Take`, `Criteria.TermsOfUseId`): as the REST caller
 * sent them, they are `options.Take`. (The same input type also serves the POST body of the
 * list, where the bare names are right.)
 */
function namedAsDocumented(route: CompiledRoute, variables: Record<string, unknown>, error: ApiError): ApiError {
  if (!(error instanceof BadInput) || error.problems.length === 0) return error;
  const models = [...route.queryArgs.values()].filter(({ arg }) => arg.name in variables && isInputObjectType(getNullableType(arg.type)));
  if (models.length !== 1) return error;
  const { documented, arg } = models[0];
  const model = getNamedType(arg.type);
  if (!isInputObjectType(model)) return error;
  const fields = new Set(Object.values(model.getFields()).map((field) => documentedKey(field.name)));
  const rename = (field: string) => (fields.has(field.split(/[.[]/)[0]) ? `${documented}.${field}` : field);
  if (!error.problems.some((problem) => rename(problem.field) !== problem.field)) return error;
  const problems = error.problems.map((problem) => ({ ...problem, field: rename(problem.field) }));
  return new BadInput(problems, problems.map((problem) => `${problem.field}: ${problem.message}`).join('; '));
}

/**
 * Answering before the body is read leaves it on the connection, and keeping the connection
 * would mean reading (buffering) it anyway: close it instead, so a refused upload costs nothing.
 */
export function closeUnreadBody(request: FastifyRequest, reply: FastifyReply): void {
  const length = Number(request.headers['content-length'] ?? 0);
  if (length > 0 || request.headers['transfer-encoding']) reply.header('connection', 'close');
}

/** Registers the gateway: every /api/* request not served by a fixed route goes through it. */
export async function restGateway(app: FastifyInstance, options: GatewayOptions): Promise<void> {
  const routes = indexRoutes(options.routes);

  // The gateway reads bodies itself (to unwrap documented bodies and answer 415 and 400 properly).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  // Every method but OPTIONS, which belongs to CORS preflight (app.ts); HEAD follows GET.
  // The route and the caller are settled before the body is even read: a stranger learns nothing
  // from a 400, and an unauthenticated request costs no body buffering (413 aside).
  const settled = new WeakMap<FastifyRequest, { route: CompiledRoute; params: PathParams; rawQuery: string; contextValue: RequestContext }>();
  app.addHook('onRequest', async (request, reply) => {
    const [rawPath = '', rawQuery = ''] = request.url.split(/\?(.*)/s, 2);
    try {
      const { route, params } = matchRoute(routes, request.method, rawPath);
      labelOperation(request, `${route.row.method} ${route.row.path}`);
      const contextValue = await options.contextFor(request);
      if (!route.access.public) contextValue.requireRole(...route.access.roles);
      else if (!contextValue.caller) await limitAnonymous(contextValue, 'public-rest');
      settled.set(request, { route, params, rawQuery, contextValue });
    } catch (error) {
      closeUnreadBody(request, reply);
      throw error;
    }
  });

  app.route({ method: ['GET', 'POST', 'DELETE', 'PUT', 'PATCH'], url: '/api/*', bodyLimit: options.bodyLimit, handler: async (request: FastifyRequest, reply: FastifyReply) => {
    const { route, params, rawQuery, contextValue } = settled.get(request)!;
    const key = request.method !== 'GET' ? request.headers['idempotency-key'] : undefined;
    const caller = contextValue.caller;
    if (typeof key !== 'string' || !caller) return send(reply, await answer(route, params, rawQuery, contextValue, request));
    // A write with an Idempotency-Key runs once per caller and key; repeats get its response again.
    const { pool } = contextValue.app;
    const claim = await claimIdempotencyKey(pool, caller, key, requestFingerprint(request.method, request.url, request.body));
    if (!claim.execute) return send(reply.header('idempotent-replayed', 'true'), { ...claim.response, headers: {} });
    let response: GatewayResponse;
    try {
      response = await answer(route, params, rawQuery, contextValue, request);
    } catch (error) {
      const apiError = toApiError(error, options.onUnexpectedError);
      // A refusal of the request itself (400, 415, ...) is its answer; a failure (5xx) may be retried.
      await (apiError.status >= 500 ? releaseIdempotencyKey(pool, claim.recordId) : finishIdempotencyKey(pool, claim.recordId, problemResponse(apiError, request.url, route.row.publicApiResponse)));
      throw apiError;
    }
    await finishIdempotencyKey(pool, claim.recordId, response);
    return send(reply, response);
  } });

  /** Runs the route's operation: its answer as status, content type, body and headers (errors as problem+json). */
  async function answer(route: CompiledRoute, params: PathParams, rawQuery: string, contextValue: RequestContext, request: FastifyRequest): Promise<GatewayResponse> {
    let variables: Record<string, unknown>;
    try {
      variables = buildVariables(route, params, rawQuery, { body: request.body, contentType: request.headers['content-type'] });
    } catch (error) {
      // A public operation answers its PublicApiResponse for bad input too.
      if (!route.row.publicApiResponse || !(error instanceof ApiError)) throw error;
      return problemResponse(error, request.url, route.row.publicApiResponse);
    }
    // A query field's reads may be served by a read replica (core/read-routing.ts); a mutation's never are.
    const result = await withReadScope(() => route.run(contextValue, variables), route.operationType === 'query' && !wantsPrimary(request.headers[READ_PRIMARY_HEADER]));
    if (result.errors?.length) {
      return problemResponse(namedAsDocumented(route, variables, toApiError(result.errors[0], options.onUnexpectedError)), request.url, route.row.publicApiResponse);
    }
    if (route.row.emptyResponse) return { statusCode: 200, contentType: null, body: null, headers: {} };
    if (route.row.download) return downloadResponse((result.data as Record<string, FileDownload>)[route.fieldName]);
    const data = (result.data as Record<string, unknown>)[route.fieldName];
    return { statusCode: 200, contentType: 'application/json; charset=utf-8', body: JSON.stringify(route.mapsKeys ? toDocumentedKeys(data) : data), headers: {} };
  }
}

interface GatewayResponse extends StoredResponse {
  headers: Record<string, string>;
}

/** A failure as problem+json; for a public operation answering PublicApiResponse, the problem also carries Status, StatusMessage and Data null. */
function problemResponse(error: ApiError, url: string, publicApiResponse?: boolean): GatewayResponse {
  const problem = problemOf(error, url);
  const body = publicApiResponse ? { ...problem, Status: error.status, StatusMessage: error.message, Data: null } : problem;
  return { statusCode: error.status, contentType: PROBLEM_CONTENT_TYPE, body: JSON.stringify(body), headers: headersOf(error) };
}

function send(reply: FastifyReply, response: GatewayResponse) {
  reply.code(response.statusCode).headers(response.headers);
  if (response.contentType) reply.type(response.contentType);
  return reply.send(response.body ?? undefined);
}

/**
 * A FileDownload as the HTTP response itself: its media type, an attachment disposition (RFC 6266)
 * and its bytes. The files areas answer this way are text (CSV), kept as UTF-8 text like every
 * other response (so an Idempotency-Key replay answers the same file).
 */
function downloadResponse(file: FileDownload): GatewayResponse {
  const fallback = file.FileName.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return {
    statusCode: 200, contentType: file.ContentType, body: Buffer.from(file.Content, 'base64').toString('utf8'),
    headers: { 'content-disposition': `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(file.FileName)}`, 'cache-control': 'no-store' },
  };
}

/**
 * An operation compiled when its route is first called, not at start: graphql-jit's code for all
 * 247 operations held about 5 MB of generated source alone, for routes most processes never serve.
 */
function compiledOnFirstUse(compile: () => CompiledOperation): CompiledOperation {
  let compiled: CompiledOperation | undefined;
  return (contextValue, variables) => (compiled ??= compile())(contextValue, variables);
}

/** The operation sofa-api makes for a root field: the field with all its output fields selected. */
function sofaOperation(sofa: ReturnType<typeof createSofa>, kind: 'query' | 'mutation', field: string): DocumentNode {
  const operation = buildOperationNodeForField({
    kind: kind === 'query' ? OperationTypeNode.QUERY : OperationTypeNode.MUTATION, schema: sofa.schema, field, models: sofa.models, ignore: sofa.ignore, circularReferenceDepth: sofa.depthLimit,
  });
  return { kind: Kind.DOCUMENT, definitions: [operation] };
}
