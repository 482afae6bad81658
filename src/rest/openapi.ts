import {
  getNamedType, getNullableType, isEnumType, isInputObjectType, isListType, isNonNullType, isObjectType, isScalarType,
  type GraphQLField, type GraphQLInputField, type GraphQLNamedType, type GraphQLSchema, type GraphQLType,
} from 'graphql';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../core/data/list-query.js';
import { documentedKey } from './documented-keys.js';
import type { AreaRoutes } from '../http/area-routes.js';
import { BODY_MEDIA_TYPES } from './gateway/request-body.js';
import type { CompiledRoute } from './gateway/routes.js';

type JsonSchema = Record<string, unknown>;

const problemResponses = {
  400: 'Bad input; `errors` names each field.',
  401: 'No valid credential.',
  403: 'The role is not enough.',
  404: 'Not found (also for records of another tenant).',
  409: 'Conflict: stale AuditId or a duplicate.',
  415: 'The body is not application/json.',
  422: 'The Idempotency-Key was used for a different request.',
  429: 'Rate limited (anonymous callers of public operations, per client address): see Retry-After.',
  503: 'The database is unreachable.',
} as const;

/** One id per documented method and path (a GraphQL field may serve several paths: `vendors` serves the list and the search). */
function operationIdOf(method: string, path: string): string {
  return `${method.toLowerCase()}_${path.replace(/[^A-Za-z0-9]+/g, '_')}`;
}

/** Writes of signed-in callers take an Idempotency-Key (src/core/requests/idempotency.ts). */
const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 255 },
  description: 'Runs this write once for the caller and key: a repeat within 24 hours gets the first response again (header Idempotent-Replayed: true), ' +
    'the same key with a different request is a 422, a repeat while the first still runs is a 409 with Retry-After.',
};

/**
 * The OpenAPI 3.1 document of every routed operation, made from the route table and the
 * schema: the real (unwrapped) request body, path and query parameters by their documented
 * names, the response model, the problem+json errors and the bearer scheme.
 */
export function buildOpenApi(schema: GraphQLSchema, routes: CompiledRoute[], rawOperations: AreaRoutes['operations'] = []): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  // Operations served outside the route table (raw bytes in or out): described by their paths.
  for (const operation of rawOperations) {
    (paths[operation.path] ??= {})[operation.method.toLowerCase()] = {
      operationId: operationIdOf(operation.method, operation.path),
      summary: operation.summary,
      tags: [operation.path.split('/')[2]],
      parameters: [...operation.path.matchAll(/\{([^}=]+)(=null)?\}/g)].map((match) => ({ name: match[1], in: 'path', required: true, schema: { type: 'string' } })),
      responses: { 200: { description: 'OK (raw response: see the summary).' } },
      security: (operation.authentication ?? 'bearer') === 'bearer' ? [{ bearer: [] }] : [],
    };
  }
  for (const route of routes) {
    const { row } = route;
    const { access } = route;
    const idempotent = row.method !== 'GET' && !access.public;
    const pathParams = route.segments.flatMap((segment) => ('param' in segment ? [segment] : []));
    const parameters = [
      ...pathParams.map((segment) => ({
        name: segment.param, in: 'path', required: true,
        schema: scalarSchema(route.field.args.find((arg) => arg.name === segment.arg)!.type),
      })),
      ...[...route.queryArgs.values()].map(({ documented, arg }) => ({
        name: documented, in: 'query', required: isNonNullType(arg.type),
        description: arg.description ?? undefined,
        // A model in the query string (`options`) is URL-encoded JSON, which OpenAPI says with `content`.
        ...(isInputObjectType(getNullableType(arg.type)) ? { content: { 'application/json': { schema: typeSchema(arg.type) } } } : { schema: typeSchema(arg.type) }),
      })),
      // A GET documented with a body model takes the model's fields one by one from the query string.
      ...queryModelFields(route).map((field) => ({
        name: documentedKey(field.name), in: 'query', required: false, description: field.description ?? undefined, ...(isInputObjectType(getNullableType(field.type)) ? { content: { 'application/json': { schema: typeSchema(field.type) } } } : { schema: typeSchema(field.type) }),
      })),
      ...(idempotent ? [IDEMPOTENCY_KEY_PARAMETER] : []),
    ];
    const openApiPath = row.path.replace(/\{([^}=]+)=null\}/g, '{$1}');
    const download = { description: 'The file itself (Content-Disposition: attachment).', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } };
    const success = row.emptyResponse
      ? { description: 'Done (empty body).' }
      : row.download ? download : { description: 'OK', content: { 'application/json': { schema: typeSchema(route.field.type) } } };
    const errors = Object.fromEntries(Object.entries(problemResponses)
      .filter(([status]) => (status !== '401' && status !== '403') || !access.public)
      .filter(([status]) => status !== '403' || access.roles.length > 0)
      .filter(([status]) => status !== '415' || route.bodyArg)
      .filter(([status]) => status !== '422' || idempotent)
      .filter(([status]) => status !== '429' || access.public)
      .map(([status, description]) => [status, { description, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } }]));
    (paths[openApiPath] ??= {})[row.method.toLowerCase()] = {
      operationId: operationIdOf(row.method, row.path),
      summary: row.summary ?? route.field.description ?? undefined,
      tags: [row.path.split('/')[2]],
      description: [
        `GraphQL: \`${route.operationType} { ${route.fieldName} }\`.`,
        access.public ? 'Public.' : access.roles.length ? `Needs role: ${access.roles.join(' or ')}.` : 'Any signed-in login.',
        row.extension ? 'Not in the original API documents: an addition of this service.' : '',
      ].filter(Boolean).join(' '),
      parameters,
      ...(route.bodyArg ? {
        requestBody: {
          required: isNonNullType(route.bodyArg.type),
          // JSON, JSON labelled as old ASP.NET clients label it, or a form bound like ASP.NET model binding did.
          content: Object.fromEntries(BODY_MEDIA_TYPES.map((mediaType) => [mediaType, { schema: typeSchema(route.bodyArg!.type) }])),
        },
      } : {}),
      responses: { 200: success, ...errors },
      security: access.public ? [] : [{ bearer: [] }],
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Membership Management Service API',
      version: '1.0',
      description: `Lists take \`options\` (JSON of FilterBase fields); page size ${DEFAULT_PAGE_SIZE} by default, at most ${MAX_PAGE_SIZE}. Errors are application/problem+json (RFC 9457).`,
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A session token (magic link) or an API key.' } },
      schemas: { Problem: problemSchema, ...componentSchemas(schema) },
    },
  };
}

const problemSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail'],
  properties: {
    type: { type: 'string' }, title: { type: 'string' }, status: { type: 'integer' }, detail: { type: 'string' }, code: { type: 'string' },
    errors: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } } } },
  },
};

function componentSchemas(schema: GraphQLSchema): Record<string, JsonSchema> {
  const result: Record<string, JsonSchema> = {};
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || type.name === 'Query' || type.name === 'Mutation') continue;
    if (isObjectType(type) || isInputObjectType(type)) {
      const fields = Object.values(type.getFields()) as (GraphQLField<unknown, unknown> | GraphQLInputField)[];
      result[type.name] = {
        type: 'object',
        description: type.description ?? undefined,
        required: fields.filter((field) => isNonNullType(field.type)).map((field) => documentedKey(field.name)),
        properties: Object.fromEntries(fields.map((field) => [documentedKey(field.name), { ...typeSchema(field.type), description: field.description ?? undefined }])),
      };
    } else if (isEnumType(type)) {
      result[type.name] = { type: 'string', enum: type.getValues().map((value) => value.name) };
    }
  }
  return result;
}

function typeSchema(type: GraphQLType): JsonSchema {
  const nonNull = isNonNullType(type);
  const inner = nonNull ? type.ofType : type;
  const schema: JsonSchema = isListType(inner) ? { type: 'array', items: typeSchema(inner.ofType) } : namedSchema(getNamedType(inner));
  if (nonNull) return schema;
  return '$ref' in schema ? { anyOf: [schema, { type: 'null' }] } : { ...schema, type: [schema.type, 'null'] };
}

function scalarSchema(type: GraphQLType): JsonSchema {
  return namedSchema(getNamedType(type));
}

function namedSchema(type: GraphQLNamedType): JsonSchema {
  if (isScalarType(type)) {
    switch (type.name) {
      case 'Int': return { type: 'integer', format: 'int32' };
      case 'Float': return { type: 'number' };
      case 'Boolean': return { type: 'boolean' };
      default: return { type: 'string' };
    }
  }
  return { $ref: `#/components/schemas/${type.name}` };
}

function queryModelFields(route: CompiledRoute): GraphQLInputField[] {
  const model = route.queryModelArg ? getNullableType(route.queryModelArg.type) : null;
  return model && isInputObjectType(model) ? Object.values(model.getFields()) : [];
}
