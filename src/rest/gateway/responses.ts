import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { getNamedType, getNullableType, isInputObjectType } from 'graphql';
import { ApiError, BadInput } from '../../core/errors.js';
import type { StoredResponse } from '../../core/requests/idempotency.js';
import type { FileDownload } from '../../schema/file-download.js';
import { documentedKey } from '../documented-keys.js';
import { headersOf, PROBLEM_CONTENT_TYPE, problemOf } from '../problem.js';
import type { CompiledRoute } from './routes.js';

/**
 * A failure's fields as the REST caller named them. A resolver's rules name an argument as
 * GraphQL has it (`categoryTypeId`, `month`): for REST that is the documented path or query
 * parameter (`categorytypeid`, `Month`). A model read from the query string (`?options={…}`) is
 * checked by the resolver's rules, which name its fields as the model has them (`Take`,
 * `Criteria.TermsOfUseId`): as the REST caller sent them, they are `options.Take`. (The same
 * input type also serves the POST body of the list, where the bare names are right.)
 */
export function namedAsDocumented(route: CompiledRoute, variables: Record<string, unknown>, error: ApiError): ApiError {
  if (!(error instanceof BadInput) || error.problems.length === 0) return error;
  const parameters = new Map<string, string>([
    ...route.segments.flatMap((segment) => ('param' in segment ? [[segment.arg, segment.param] as const] : [])),
    ...[...route.queryArgs.values()].map(({ documented, arg }) => [arg.name, documented] as const),
  ]);
  const models = [...route.queryArgs.values()].filter(({ arg }) => arg.name in variables && isInputObjectType(getNullableType(arg.type)));
  const model = models.length === 1 ? getNamedType(models[0].arg.type) : null;
  const modelFields = model && isInputObjectType(model) ? new Set(Object.values(model.getFields()).map((field) => documentedKey(field.name))) : new Set<string>();
  const body = route.bodyArg?.name;
  const rename = (field: string) => {
    if (parameters.has(field)) return parameters.get(field)!;
    // A rule on a body that is an argument itself (an array): the body, and its items by index.
    if (body && field === body) return 'body';
    if (body && field.startsWith(`${body}[`)) return field.slice(body.length);
    return modelFields.has(field.split(/[.[]/)[0]) ? `${models[0].documented}.${field}` : field;
  };
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

export interface GatewayResponse extends StoredResponse {
  headers: Record<string, string>;
  /** The body sent as it is made, instead of `body` (a download answered piece by piece). */
  stream?: Readable;
}

/** A failure as problem+json; for a public operation answering PublicApiResponse, the problem also carries Status, StatusMessage and Data null. */
export function problemResponse(error: ApiError, url: string, publicApiResponse?: boolean): GatewayResponse {
  const problem = problemOf(error, url);
  const body = publicApiResponse ? { ...problem, Status: error.status, StatusMessage: error.message, Data: null } : problem;
  return { statusCode: error.status, contentType: PROBLEM_CONTENT_TYPE, body: JSON.stringify(body), headers: headersOf(error) };
}

export function send(reply: FastifyReply, response: GatewayResponse) {
  reply.code(response.statusCode).headers(response.headers);
  if (response.contentType) reply.type(response.contentType);
  return reply.send(response.stream ?? response.body ?? undefined);
}

/**
 * A FileDownload as the HTTP response itself: its media type, an attachment disposition (RFC 6266)
 * and its bytes — `pieces` as they come when it was made piece by piece, else its Content. The
 * files areas answer this way are text (CSV), kept as UTF-8 text like every other response (so an
 * Idempotency-Key replay answers the same file).
 */
export function downloadResponse(file: FileDownload, pieces?: AsyncIterable<Buffer>): GatewayResponse {
  const fallback = file.FileName.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return {
    statusCode: 200, contentType: file.ContentType, body: pieces ? null : Buffer.from(file.Content, 'base64').toString('utf8'), stream: pieces && Readable.from(pieces),
    headers: { 'content-disposition': `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(file.FileName)}`, 'cache-control': 'no-store' },
  };
}
