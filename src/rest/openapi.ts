import {
  getNamedType, getNullableType, isEnumType, isInputObjectType, isListType, isNonNullType, isObjectType, isScalarType,
  type GraphQLField, type GraphQLInputField, type GraphQLInputObjectType, type GraphQLNamedType, type GraphQLSchema, type GraphQLType,
} from 'graphql';
import { DEFAULT_PAGE_SIZE, FILTER_BASE_RULES, listSpecOf, MAX_PAGE_SIZE, orderBySchema, type ListSpec } from '../core/data/list-query.js';
import { IDEMPOTENCY_KEY_PATTERN } from '../core/requests/idempotency.js';
import { TENANT_KEY_PATTERN } from '../core/values.js';
import { documentedKey } from './documented-keys.js';
import { isPublicDirectoryPath } from '../http/directories.js';
import type { AreaRoutes, RawOperation } from '../http/area-routes.js';
import { argumentRules, inputCrossFieldRules, inputFieldRules, withRules, type FieldRules } from './openapi-constraints.js';
import { COMPARISON_KEYWORDS, holdsIn, type CrossFieldRule } from '../core/argument-rules.js';
import type { Config } from '../core/config.js';
import { exampleOf } from './openapi-examples.js';
import { documentedOperations } from './contract.js';
import { BODY_MEDIA_TYPES } from './gateway/request-body.js';
import type { CompiledRoute } from './gateway/routes.js';

type JsonSchema = Record<string, unknown>;

/** Every error status an operation may answer, with when; `errorStatuses` decides which apply to which operation. */
const problemResponses = {
  400: 'Bad input; `errors` names each field (an id in the body that names no record too: "names no …").',
  401: 'No valid credential (for a public operation: the key or token its input carries).',
  403: 'The role is not enough, or the record is not the caller\'s to use.',
  404: 'Not found (also for records of another tenant, and for a public caller naming no known tenant).',
  405: 'The path (with these parameter values) is another operation\'s, which has other methods: the Allow header names them.',
  409: 'Conflict: a stale AuditId, a likely duplicate, a file still being prepared, or the same Idempotency-Key still running (Retry-After).',
  413: 'The request body is larger than the limit.',
  415: 'The request body is not of an accepted media type.',
  422: 'The Idempotency-Key was used for a different request.',
  429: 'Rate limited (anonymous callers per client address, credentials per credential): see Retry-After.',
  503: 'The database is unreachable or the service is shutting down: see Retry-After.',
} as const;

type ErrorStatus = keyof typeof problemResponses;

/** What decides the error statuses of an operation (from the route row or the raw route's declaration). */
interface OperationFacts {
  public: boolean;
  roles: readonly string[];
  hasInput: boolean;
  hasPathIds: boolean;
  hasBody: boolean;
  write: boolean;
  /** Any method but GET (a body sent is read up to the limit). */
  takesBody: boolean;
  /** Answers a file, which may still be being prepared (409). */
  download?: boolean;
  /** Takes an AuditId, which may be stale (409). */
  versioned?: boolean;
  /** Statuses the operation answers beyond the generic ones (a raw route's own). */
  extra?: readonly number[];
}

/** The error statuses an operation can answer, each from the gateway or guard that answers it. */
function errorStatuses(facts: OperationFacts): ErrorStatus[] {
  const statuses: ErrorStatus[] = [];
  if (facts.hasInput) statuses.push(400);
  // A public operation that takes input may take a credential in it (a master key, a magic link token);
  // beyond a role, a service may check the record is the caller's (the uploader, the buyer).
  if (!facts.public || facts.hasInput) statuses.push(401, 403);
  // Any input may name a record (a path id, a query id, an id in a body); a public caller may name no known tenant.
  if (facts.hasInput || facts.public) statuses.push(404);
  if (facts.hasPathIds) statuses.push(405);
  if (facts.write || facts.download || facts.versioned) statuses.push(409);
  // Any request that may carry a body is held to the body limit, documented body or not.
  if (facts.hasBody || facts.takesBody) statuses.push(413);
  if (facts.hasBody) statuses.push(415);
  if (facts.write && !facts.public) statuses.push(422);
  statuses.push(429, 503);
  for (const status of facts.extra ?? []) if (status in problemResponses && !statuses.includes(status as ErrorStatus)) statuses.push(status as ErrorStatus);
  return statuses.sort((a, b) => a - b);
}

const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'string', pattern: '^\\d+$' } } };

function problemResponse(status: ErrorStatus): JsonSchema {
  return {
    description: problemResponses[status],
    ...(status === 429 || status === 503 || status === 409 ? { headers: RETRY_AFTER } : {}),
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  };
}

/** One id per documented method and path (a GraphQL field may serve several paths: `vendors` serves the list and the search). */
function operationIdOf(method: string, path: string): string {
  return `${method.toLowerCase()}_${path.replace(/[^A-Za-z0-9]+/g, '_')}`;
}

/** Writes of signed-in callers take an Idempotency-Key (src/core/requests/idempotency.ts). */
const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN.source },
  description: 'Runs this write once for the caller and key (1 to 255 visible ASCII characters): a repeat within 24 hours gets the first response again (header Idempotent-Replayed: true), ' +
    'the same key with a different request is a 422, a repeat while the first still runs is a 409 with Retry-After.',
};

/** How a public caller names its tenant (core/context.ts): the header, or `?tenant=` where a header cannot be set. */
const TENANT_PARAMETERS = [
  { name: 'X-Tenant-Key', in: 'header', required: false, schema: { type: 'string', pattern: TENANT_KEY_PATTERN.source }, description: 'The tenant a public caller addresses (or `?tenant=`, or the tenant\'s own host name); none known: 404.' },
  { name: 'tenant', in: 'query', required: false, schema: { type: 'string', pattern: TENANT_KEY_PATTERN.source }, description: 'The tenant a public caller addresses, where the X-Tenant-Key header cannot be set.' },
];

/** An id in a path: an int32 in digits (raw routes' `intParam` refuses -2147483648, so the document does too). */
const PATH_INTEGER = { type: 'integer', format: 'int32', minimum: -2147483647, maximum: 2147483647 };

/**
 * The OpenAPI 3.1 document of every routed operation, made from the route table and the
 * schema: the real (unwrapped) request body, path and query parameters by their documented
 * names with the rules the server checks, the response model, every error status the operation
 * can answer as problem+json, and the bearer scheme.
 */
/**
 * The document of the service. `config`: the server's configuration, whose rules it states (a
 * gateway Secret needs GATEWAY_SECRET_KEY); absent, the document states the rules of every
 * configuration only (the checked-in document, openapi-file.ts).
 */
export function buildOpenApi(schema: GraphQLSchema, routes: CompiledRoute[], rawOperations: AreaRoutes['operations'] = [], config?: Config): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const areas = areaIndex();
  const components: Record<string, JsonSchema> = { Problem: problemSchema, ...componentSchemas(schema, config) };
  // Operations served outside the route table (raw bytes in or out): described by their declarations.
  for (const operation of rawOperations) {
    (paths[operation.path] ??= {})[operation.method.toLowerCase()] = rawOperationDocument(operation, areas.tagOf(operation.method, operation.path));
  }
  for (const route of routes) {
    const { row } = route;
    const { access } = route;
    const idempotent = row.method !== 'GET' && !access.public;
    const pathParams = route.segments.flatMap((segment) => ('param' in segment ? [segment] : []));
    const pathArgs = new Set(pathParams.map((segment) => segment.arg));
    const operation = `${route.operationType === 'mutation' ? 'Mutation' : 'Query'}.${route.fieldName}`;
    // The rules the resolver checks on its arguments, and the order fields of the list it answers.
    const argRules = argumentRules(operation);
    const listSpec = listSpecOf(operation);
    const ordered = (model: JsonSchema) => (listSpec ? withListOrder(model, listSpec, components) : model);
    const parameters = [
      ...pathParams.map((segment) => ({
        name: segment.param, in: 'path', required: true,
        schema: withRules(segmentSchema(pathSchema(route.field.args.find((arg) => arg.name === segment.arg)!.type)), argRules.get(segment.arg)),
      })),
      // An optional path parameter may come as a query parameter too: listed once, in the path.
      ...[...route.queryArgs.values()].filter(({ arg }) => !pathArgs.has(arg.name)).map(({ documented, arg }) => ({
        name: documented, in: 'query', required: isNonNullType(arg.type) || Boolean(argRules.get(arg.name)?.required),
        description: arg.description ?? undefined,
        // A model in the query string (`options`) is URL-encoded JSON, which OpenAPI says with `content`.
        ...(isInputObjectType(getNullableType(arg.type))
          ? { content: { 'application/json': { schema: ordered(typeSchema(arg.type)) } } }
          : { schema: withRules(queryScalarSchema(arg.type), argRules.get(arg.name)) }),
      })),
      // A GET documented with a body model takes the model's fields one by one from the query string.
      ...queryModelFields(route).map((field) => ({
        name: documentedKey(field.name), in: 'query', required: false, description: field.description ?? undefined,
        ...(isInputObjectType(getNullableType(field.type))
          ? { content: { 'application/json': { schema: typeSchema(field.type) } } }
          : { schema: field.name === 'OrderBy' && listSpec ? orderBySchema(listSpec) : queryModelFieldSchema(route, field) }),
      })),
      ...(idempotent ? [IDEMPOTENCY_KEY_PARAMETER] : []),
      ...(access.public ? TENANT_PARAMETERS : []),
    ];
    const openApiPath = row.path.replace(/\{([^}=]+)=null\}/g, '{$1}');
    const download = {
      description: 'The file itself.', headers: CONTENT_DISPOSITION,
      content: Object.fromEntries((row.downloadMediaTypes ?? ['application/octet-stream']).map((mediaType) => [mediaType, { schema: { type: 'string' } }])),
    };
    const success = row.emptyResponse
      ? { description: 'Done (empty body).' }
      : row.download ? download : { description: 'OK', content: { 'application/json': { schema: typeSchema(route.field.type) } } };
    const statuses = errorStatuses({
      public: access.public, roles: access.roles, hasPathIds: pathParams.length > 0, hasBody: Boolean(route.bodyArg),
      hasInput: parameters.some((parameter) => parameter.in !== 'header' || parameter.name === 'Idempotency-Key') || Boolean(route.bodyArg),
      // A POST query of a signed-in caller takes an Idempotency-Key like a write (409 while running, 422 reused).
      write: route.operationType === 'mutation' || idempotent, download: Boolean(row.download), takesBody: row.method !== 'GET',
      versioned: route.field.args.some((arg) => arg.name === 'auditId'),
    });
    // The public directory's answers carry an ETag and answer If-None-Match with 304 (http/directories.ts).
    const notModified = row.method === 'GET' && isPublicDirectoryPath(row.path) ? { 304: { description: 'Not modified (If-None-Match matched the ETag).' } } : {};
    (paths[openApiPath] ??= {})[row.method.toLowerCase()] = {
      operationId: operationIdOf(row.method, row.path),
      summary: row.summary ?? route.field.description ?? undefined,
      tags: [areas.tagOf(row.method, row.path)],
      description: [
        `GraphQL: \`${route.operationType} { ${route.fieldName} }\`.`,
        access.public ? 'Public: name the tenant with X-Tenant-Key or ?tenant=.' : access.roles.length ? `Needs role: ${access.roles.join(' or ')}.` : 'Any signed-in login.',
        row.extension ? 'Not in the original API documents: an addition of this service.' : '',
      ].filter(Boolean).join(' '),
      parameters,
      ...(route.bodyArg ? {
        requestBody: {
          required: isNonNullType(route.bodyArg.type),
          // JSON, JSON labelled as old ASP.NET clients label it, or a form bound like ASP.NET model binding did.
          content: Object.fromEntries(BODY_MEDIA_TYPES.map((mediaType) => [mediaType, {
            schema: withOperationRules(ordered(withRules(typeSchema(route.bodyArg!.type), argRules.get(route.bodyArg!.name))), argRules.get(route.bodyArg!.name), config, pathParams),
          }])),
        },
      } : {}),
      responses: { 200: success, ...notModified, ...Object.fromEntries(statuses.map((status) => [status, problemResponse(status)])) },
      security: access.public ? [] : [{ bearer: [] }],
    };
  }
  for (const methods of Object.values(paths)) for (const operation of Object.values(methods)) addExamples(operation, components);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Membership Management Service API',
      version: '1.0',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      description: [
        `Lists take \`options\`: URL-encoded JSON of the **ListOptions** schema (Skip, Take — default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE} —, Filter, OrderBy, CalendarStartDate, CalendarEndDate).`,
        'Errors are application/problem+json (RFC 9457) naming each field.',
        'To get a token: request a magic link (POST /api/login/requestmagiclink), open it, and send the session token it shows as `Authorization: Bearer <token>` (Authorize button); partners use an API key the same way.',
        'Public operations name their tenant with the X-Tenant-Key header or `?tenant=`.',
        'Every field states the rules the server checks (lengths, ranges, patterns, choices); where a documented type is looser (a count documented as a string), the schema says what is accepted and why.',
        `Rules JSON Schema cannot state are vendor keywords (and a sentence of the field's description): on a field, \`${COMPARISON_KEYWORDS.notLessThan}: <Field>\` (a number, or the whole number a string holds, not less than the sibling field's), `
        + `\`${COMPARISON_KEYWORDS.notBefore}: <Field>\` (a day — yyyy-mm-dd or a date-time's day — not before the sibling's), \`${COMPARISON_KEYWORDS.notAfter}: today\` (a day not after today, UTC); a value not given is not compared. `
        + 'On a body, `x-when-parameter: { parameter, equals, then }`: when the path parameter has that value, the body also satisfies the JSON Schema `then`.',
      ].join('\n\n'),
    },
    servers: [{ url: '/' }],
    tags: areas.tags,
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A session token (magic link) or an API key.' },
        callbackSignature: { type: 'apiKey', in: 'header', name: 'X-Callback-Signature', description: 'HMAC-SHA256 of "<X-Callback-Timestamp>.<raw body>" with the tenant\'s callback secret; the tenant key in ?tenant=.' },
      },
      schemas: components,
    },
  };
}

interface ParameterDocument { name: string; in: string; required?: boolean; schema?: JsonSchema; content?: Record<string, JsonSchema>; example?: unknown }

/**
 * Pre-fills an operation for Swagger UI's "Try it out" with a request the server accepts: every
 * path parameter, every required or JSON (`options`) query parameter, and a JSON body.
 */
function addExamples(operation: JsonSchema, components: Record<string, JsonSchema>): void {
  for (const parameter of (operation.parameters ?? []) as ParameterDocument[]) {
    if (parameter.content) {
      for (const media of Object.values(parameter.content)) media.example = exampleOf(media.schema as JsonSchema, components);
    } else if (parameter.required || parameter.in === 'path') {
      const example = exampleOf(parameter.schema, components);
      if (example !== undefined) parameter.example = example;
    }
  }
  const body = operation.requestBody as { content: Record<string, JsonSchema> } | undefined;
  for (const [mediaType, media] of Object.entries(body?.content ?? {})) {
    if (mediaType.endsWith('json')) media.example = exampleOf(media.schema as JsonSchema, components);
  }
}

const CONTENT_DISPOSITION = { 'Content-Disposition': { description: 'attachment (or inline, for an image) with the file name (RFC 6266).', schema: { type: 'string' } } };

/** A raw route's operation, from what its AreaRoutes declaration says it takes and answers. */
function rawOperationDocument(operation: RawOperation, tag: string): JsonSchema {
  const authentication = operation.authentication ?? 'bearer';
  const pathNames = [...operation.path.matchAll(/\{([^}=]+)(=null)?\}/g)].map((match) => match[1]);
  const parameters = [
    ...pathNames.map((name) => ({ name, in: 'path', required: true, schema: operation.pathRules?.[name] ?? PATH_INTEGER })),
    ...(authentication === 'signature' ? [
      { name: 'tenant', in: 'query', required: true, schema: { type: 'string', pattern: TENANT_KEY_PATTERN.source }, description: 'The key of the tenant the callback is for.' },
      { name: 'X-Callback-Timestamp', in: 'header', required: true, schema: { type: 'string', pattern: '^\\d{1,12}$' }, description: 'Unix seconds; a stale one is a 401.' },
    ] : []),
  ];
  const upload = operation.upload;
  const answers = operation.answers ?? { mediaTypes: [] };
  const success = answers.schema
    ? { description: 'OK', content: { 'application/json': { schema: typeof answers.schema === 'string' ? { $ref: `#/components/schemas/${answers.schema}` } : answers.schema } } }
    : answers.mediaTypes.length
      ? { description: 'The file itself.', headers: CONTENT_DISPOSITION, content: Object.fromEntries(answers.mediaTypes.map((mediaType) => [mediaType, { schema: { type: 'string' } }])) }
      : { description: 'Done (empty body).' };
  const statuses = errorStatuses({
    public: authentication !== 'bearer', roles: operation.roles ?? [], hasInput: parameters.length > 0 || Boolean(upload) || authentication === 'signature',
    hasPathIds: pathNames.length > 0, hasBody: Boolean(upload) || authentication === 'signature', write: operation.method !== 'GET', takesBody: operation.method !== 'GET', extra: operation.statuses,
  }).filter((status) => (authentication === 'signature' ? status !== 404 : true));
  // A signed callback is refused with 401 when its signature or tenant is wrong, like a missing credential.
  if (authentication === 'signature' && !statuses.includes(401)) statuses.unshift(401);
  return {
    operationId: operationIdOf(operation.method, operation.path),
    summary: operation.summary,
    tags: [tag],
    description: [
      authentication === 'none' ? 'Public.' : authentication === 'signature' ? 'Authenticated by the provider\'s signature.' : operation.roles?.length ? `Needs role: ${operation.roles.join(' or ')}.` : 'Any signed-in login.',
      operation.extension ? 'Not in the original API documents: an addition of this service.' : '',
    ].filter(Boolean).join(' '),
    parameters,
    ...(upload ? {
      requestBody: {
        required: true,
        description: `One file part named \`file\` (${upload.fileTypes.join(', ')}), at most UPLOAD_MAX_BYTES (default ${upload.maxBytes} bytes).`,
        content: {
          'multipart/form-data': {
            schema: {
              type: 'object', required: ['file'],
              properties: { file: { type: 'string', contentMediaType: 'application/octet-stream' } },
              // The form's text fields, when it takes any, are those of an input model (as text).
              ...(upload.fields ? { allOf: [{ $ref: `#/components/schemas/${upload.fields}` }] } : {}),
            },
            encoding: { file: { contentType: upload.fileTypes.join(', ') } },
          },
        },
      },
    } : authentication === 'signature' ? {
      requestBody: { required: true, description: 'The provider\'s event, as it sent it (at most the callback body limit).', content: { 'application/json': { schema: { type: 'object' } } } },
    } : {}),
    responses: {
      200: success,
      ...(operation.statuses?.includes(304) ? { 304: { description: 'Not modified (If-None-Match matched the ETag).' } } : {}),
      ...Object.fromEntries(statuses.map((status) => [status, problemResponse(status)])),
    },
    security: authentication === 'bearer' ? [{ bearer: [] }] : authentication === 'signature' ? [{ callbackSignature: [] }] : [],
  };
}

/**
 * The tags: the documents' areas in the documents' order (spec/endpoints.json), each operation
 * under its documented area — an extension under the area whose base path its path extends.
 */
function areaIndex() {
  const documented = documentedOperations() as (ReturnType<typeof documentedOperations>[number] & { base?: string; doc?: string })[];
  const order: string[] = [];
  const bases: { base: string; area: string }[] = [];
  const byOperation = new Map<string, string>();
  for (const operation of documented) {
    if (!order.includes(operation.area)) order.push(operation.area);
    byOperation.set(`${operation.method} ${operation.path}`.toLowerCase(), operation.area);
    if (operation.base && !bases.some((entry) => entry.base === operation.base)) bases.push({ base: operation.base.toLowerCase(), area: operation.area });
  }
  const counts = new Map<string, number>();
  const tagOf = (method: string, path: string): string => {
    const lower = path.toLowerCase();
    const area = byOperation.get(`${method} ${lower}`)
      ?? bases.filter(({ base }) => lower.startsWith(base)).sort((a, b) => b.base.length - a.base.length)[0]?.area
      ?? bases.map(({ base, area: candidate }) => ({ area: candidate, shared: commonPrefix(base, lower) })).sort((a, b) => b.shared - a.shared)[0].area;
    counts.set(area, (counts.get(area) ?? 0) + 1);
    return area;
  };
  return {
    tagOf,
    get tags() {
      return order.map((name) => ({
        name,
        description: `${name}: the operations of this area of the API documents (base ${bases.filter((entry) => entry.area === name).map((entry) => entry.base).join(', ')}), with this service's additions to it.`,
      }));
    },
  };
}

function commonPrefix(a: string, b: string): number {
  let length = 0;
  while (length < a.length && a[length] === b[length]) length++;
  return length;
}

const problemSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail'],
  properties: {
    type: { type: 'string' }, title: { type: 'string' }, status: { type: 'integer' }, detail: { type: 'string' }, code: { type: 'string' },
    instance: { type: 'string' },
    traceId: { type: 'string', description: 'The OpenTelemetry trace of the request, when the service exports traces.' },
    errors: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } } } },
  },
};

/** A body with the rules this operation checks beside its input type's (`alsoKeeping`): `allOf` the type and them. */
function withOperationRules(body: JsonSchema, rules: FieldRules | undefined, config: Config | undefined, pathParams: readonly { param: string; arg: string }[]): JsonSchema {
  const acrossFields = (rules?.acrossFields ?? []).filter((rule) => holdsIn(rule, config));
  const stated = acrossFields.map(({ schema, argumentIs }) => {
    if (!argumentIs) return schema;
    // A rule of one path value (id 0 creates): the vendor keyword, as JSON Schema cannot relate a path to a body.
    const parameter = pathParams.find((segment) => segment.arg === argumentIs.argument)?.param ?? argumentIs.argument;
    return { 'x-when-parameter': { parameter, equals: argumentIs.equals, then: schema } };
  });
  return stated.length ? { allOf: [body, ...stated] } : body;
}

/** The sentences rules across fields add to the descriptions of fields, by field. */
function notesOf(rules: readonly CrossFieldRule<unknown>[]): Map<string, string[]> {
  const notes = new Map<string, string[]>();
  for (const [field, sentence] of rules.flatMap((rule) => Object.entries(rule.notes ?? {}))) notes.set(field, [...(notes.get(field) ?? []), sentence]);
  return notes;
}

function componentSchemas(schema: GraphQLSchema, config: Config | undefined): Record<string, JsonSchema> {
  const result: Record<string, JsonSchema> = {};
  const filterLists = listsOfFilterTypes(schema);
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || type.name === 'Query' || type.name === 'Mutation') continue;
    if (isObjectType(type)) {
      const fields = Object.values(type.getFields()) as GraphQLField<unknown, unknown>[];
      result[type.name] = {
        type: 'object',
        description: type.description ?? undefined,
        required: fields.filter((field) => isNonNullType(field.type)).map((field) => documentedKey(field.name)),
        properties: Object.fromEntries(fields.map((field) => [documentedKey(field.name), { ...typeSchema(field.type), description: field.description ?? undefined }])),
      };
    } else if (isInputObjectType(type)) {
      result[type.name] = inputSchema(type, config, filterLists.get(type.name));
    } else if (isEnumType(type)) {
      result[type.name] = { type: 'string', enum: type.getValues().map((value) => value.name) };
    }
  }
  return result;
}

/**
 * The list each filter input type belongs to, when every list taking it orders by the same fields:
 * its OrderBy is then stated wherever the type appears (a scheduled-billing run's filter too).
 */
function listsOfFilterTypes(schema: GraphQLSchema): Map<string, ListSpec<object>> {
  const found = new Map<string, ListSpec<object> | null>();
  for (const [parent, root] of [['Query', schema.getQueryType()], ['Mutation', schema.getMutationType()]] as const) {
    for (const field of Object.values(root?.getFields() ?? {})) {
      const spec = listSpecOf(`${parent}.${field.name}`);
      for (const arg of spec ? field.args : []) {
        const type = getNamedType(arg.type);
        if (!isInputObjectType(type) || !type.getFields().OrderBy) continue;
        const known = found.get(type.name);
        found.set(type.name, known === undefined || (known !== null && orderFields(known) === orderFields(spec!)) ? spec! : null);
      }
    }
  }
  return new Map([...found].filter((entry): entry is [string, ListSpec<object>] => entry[1] !== null));
}

function orderFields(spec: ListSpec<object>): string {
  return Object.keys(spec.orderBy).sort().join(',');
}

/** An input type with the rules its class declares (class-validator) and, for list options, the rules `parseListOptions` checks (OrderBy: of `list`, when known). */
function inputSchema(type: GraphQLInputObjectType, config: Config | undefined, list?: ListSpec<object>): JsonSchema {
  const fields = Object.values(type.getFields());
  const rules = inputFieldRules(type.name);
  const listOptions = fields.some((field) => getNamedType(field.type).name === 'FilterCount');
  const acrossFields = inputCrossFieldRules(type.name).filter((rule) => holdsIn(rule, config));
  const notes = notesOf(acrossFields);
  const described = (name: string, schema: JsonSchema) => (notes.has(name) ? { ...schema, description: [schema.description, ...notes.get(name)!].filter(Boolean).join(' ') } : schema);
  return {
    type: 'object',
    ...(acrossFields.length ? { allOf: acrossFields.map((rule) => rule.schema) } : {}),
    description: type.description ?? undefined,
    required: fields.filter((field) => (isNonNullType(field.type) && field.defaultValue === undefined) || rules.get(field.name)?.required).map((field) => documentedKey(field.name)),
    properties: Object.fromEntries(fields.map((field) => {
      const base = { ...typeSchema(field.type), description: field.description ?? undefined };
      const listRule = listOptions ? (field.name === 'OrderBy' && list ? orderBySchema(list) : FILTER_BASE_RULES[field.name as keyof typeof FILTER_BASE_RULES]) : undefined;
      return [documentedKey(field.name), described(field.name, listRule ? { ...listRule, description: [base.description, listRule.description].filter(Boolean).join(' ') } : withRules(base, rules.get(field.name)))];
    })),
  };
}

/**
 * A list's options or filter model with the OrderBy fields of that list: a copy of the model
 * (nullable as it was), since the model is shared by lists that order by different fields.
 */
function withListOrder(schema: JsonSchema, spec: ListSpec<object>, components: Record<string, JsonSchema>): JsonSchema {
  const branches = (schema.anyOf as JsonSchema[] | undefined) ?? [schema];
  const reference = branches.find((branch) => typeof branch.$ref === 'string');
  const model = reference ? components[String(reference.$ref).split('/').pop()!] : undefined;
  if (!model || !(model.properties as JsonSchema | undefined)?.OrderBy) return schema;
  const copy = { ...model, properties: { ...(model.properties as JsonSchema), OrderBy: orderBySchema(spec) } };
  return schema.anyOf ? { ...schema, anyOf: branches.map((branch) => (branch === reference ? copy : branch)) } : copy;
}

/** A field of a query-string model: its rules, or the list-option rules where the model is a filter. */
function queryModelFieldSchema(route: CompiledRoute, field: GraphQLInputField): JsonSchema {
  const model = getNamedType(route.queryModelArg!.type) as GraphQLInputObjectType;
  const filter = Object.values(model.getFields()).some((candidate) => getNamedType(candidate.type).name === 'FilterCount');
  const listRule = filter ? FILTER_BASE_RULES[field.name as keyof typeof FILTER_BASE_RULES] : undefined;
  return listRule ?? withRules(queryScalarSchema(field.type), inputFieldRules(model.name).get(field.name));
}

function typeSchema(type: GraphQLType): JsonSchema {
  const nonNull = isNonNullType(type);
  const inner = nonNull ? type.ofType : type;
  const schema: JsonSchema = isListType(inner) ? { type: 'array', items: typeSchema(inner.ofType) } : namedSchema(getNamedType(inner));
  if (nonNull) return schema;
  if ('$ref' in schema) return { anyOf: [schema, { type: 'null' }] };
  if ('anyOf' in schema) return { anyOf: [...(schema.anyOf as JsonSchema[]), { type: 'null' }], description: schema.description };
  if (!('type' in schema)) return schema;
  return { ...schema, type: [schema.type, 'null'] };
}

/** A path value: the argument's scalar as the gateway parses it (coercion.ts), as text in the URL. */
function pathSchema(type: GraphQLType): JsonSchema {
  const named = getNamedType(type);
  if (named.name === 'Int') return PATH_INTEGER;
  if (named.name === 'Boolean') return { type: 'boolean', description: 'true or false (any case).' };
  return namedSchema(named);
}

/** A text path parameter is one segment: an empty one, "." or ".." would make the URL another path's. */
function segmentSchema(schema: JsonSchema): JsonSchema {
  return schema.type === 'string' ? { ...schema, minLength: Math.max(1, Number(schema.minLength ?? 0)), not: { enum: ['.', '..'] } } : schema;
}

/** A query-string scalar: as in a path; lists repeat the parameter. */
function queryScalarSchema(type: GraphQLType): JsonSchema {
  const nullable = getNullableType(type);
  if (isListType(nullable)) return { type: 'array', items: pathSchema(nullable.ofType) };
  return pathSchema(type);
}

function namedSchema(type: GraphQLNamedType): JsonSchema {
  if (isScalarType(type)) {
    switch (type.name) {
      case 'Int': return { type: 'integer', format: 'int32' };
      case 'Float': return { type: 'number' };
      case 'Boolean': return { type: 'boolean' };
      // Documented as str; stored and answered as sent (CONVENTIONS.md: kept as the client's JSON).
      case 'JSON': return { description: 'Any JSON value.' };
      case 'JSONObject': return { type: 'object' };
      case 'FilterCount': return FILTER_BASE_RULES.Take;
      default: return { type: 'string' };
    }
  }
  return { $ref: `#/components/schemas/${type.name}` };
}

function queryModelFields(route: CompiledRoute): GraphQLInputField[] {
  const model = route.queryModelArg ? getNullableType(route.queryModelArg.type) : null;
  return model && isInputObjectType(model) ? Object.values(model.getFields()) : [];
}
