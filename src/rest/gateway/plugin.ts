import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RequestContext } from '../../core/context.js';
import { toApiError } from '../../core/error-mapping.js';
import { ApiError } from '../../core/errors.js';
import { labelOperation } from '../../core/runtime/metrics.js';
import { limitAnonymous } from '../../core/requests/rate-limit.js';
import { READ_PRIMARY_HEADER, wantsPrimary, withReadScope } from '../../core/data/read-routing.js';
import { inSpan, nameServerSpan, tracingEnabled } from '../../core/runtime/tracing.js';
import { answerDownloadAsBody, takeDownloadBody, type FileDownload } from '../../schema/file-download.js';
import { toDocumentedKeys } from '../documented-keys.js';
import { idempotencyKeyOf, sendOnce } from './idempotency.js';
import { closeUnreadBody, downloadResponse, namedAsDocumented, problemResponse, type GatewayResponse } from './responses.js';
import { byteLimit, refuseDeclaredOver } from './request-body.js';
import { indexRoutes, matchRoute, type PathParams } from './route-matching.js';
import type { AllowedMethods } from '../allowed-methods.js';
import type { CompiledRoute } from './routes.js';
import { buildVariables } from './variables.js';

/**
 * The REST gateway: matches a request against the route table (case-insensitive, trailing
 * slash optional, literal routes before parameter routes), turns path, query and the
 * documented body into the GraphQL field's variables, checks their types, and runs the field's
 * operation against the same schema GraphQL clients use. The operation is the one sofa-api
 * builds for the field (every output field, to sofa's depth), made and compiled on the route's
 * first call (each row is checked against the schema at start); the gateway executes it directly
 * rather than through sofa's own HTTP router, which doubled the cost of a request in our
 * benchmark (BENCHMARKS.md).
 *
 * This file wires the parts beside it: `routes.ts` (the table compiled against the schema),
 * `route-matching.ts` (a request's route; 404, 405), `variables.ts` (path, query and body as
 * GraphQL variables, through `request-body.ts`, `form-body.ts` and `coercion.ts`), `responses.ts`
 * (problem+json, downloads, sending) and `idempotency.ts` (a write with an Idempotency-Key once).
 */

export interface GatewayOptions {
  /** The route table, compiled once (`compileRoutes`) and shared with the OpenAPI document. */
  routes: CompiledRoute[];
  contextFor(request: FastifyRequest): Promise<RequestContext>;
  onUnexpectedError: (error: unknown) => void;
  /** Largest request body (bytes); larger is a 413. */
  bodyLimit: number;
  /** The methods of every documented path (the table's and the raw routes'), for 405 answers. */
  allowedMethods: AllowedMethods;
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
    const queryAt = request.url.indexOf('?');
    const rawPath = queryAt < 0 ? request.url : request.url.slice(0, queryAt);
    const rawQuery = queryAt < 0 ? '' : request.url.slice(queryAt + 1);
    try {
      const { route, params } = matchRoute(routes, options.allowedMethods, request.method, rawPath);
      labelOperation(request, `${route.row.method} ${route.row.path}`);
      nameServerSpan(route.row.method, route.row.path);
      const contextValue = await options.contextFor(request);
      if (!route.access.public) contextValue.authorize(route.row.field, route.access.roles);
      else if (!contextValue.caller) await limitAnonymous(contextValue, 'public-rest');
      settled.set(request, { route, params, rawQuery, contextValue });
    } catch (error) {
      closeUnreadBody(request, reply);
      throw error;
    }
  });

  // A row's own smaller limit: refused on its Content-Length before a byte is read, else counted as it arrives.
  // (Callback form: every request passes here, most with no limit of their own; see app.ts.)
  app.addHook('preParsing', (request, reply, payload, done) => {
    const limit = settled.get(request)?.route.row.bodyLimit;
    if (limit === undefined) return done(null, payload);
    try {
      refuseDeclaredOver(limit, request.headers['content-length']);
    } catch (error) {
      closeUnreadBody(request, reply);
      return done(error as Error);
    }
    done(null, payload.pipe(byteLimit(limit)));
  });

  app.route({ method: ['GET', 'POST', 'DELETE', 'PUT', 'PATCH'], url: '/api/*', bodyLimit: options.bodyLimit, handler: async (request: FastifyRequest, reply: FastifyReply) => {
    const { route, params, rawQuery, contextValue } = settled.get(request)!;
    return sendOnce(request, reply, route, contextValue, () => answer(route, params, rawQuery, contextValue, request), options.onUnexpectedError);
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
    // A download is sent as it is made, unless it is a response kept for an Idempotency-Key.
    if (route.row.download && idempotencyKeyOf(request, contextValue) === null) answerDownloadAsBody(contextValue);
    // A query field's reads may be served by a read replica (core/data/read-routing.ts); a mutation's never are.
    const run = () => route.run(contextValue, variables);
    const traced = tracingEnabled() ? () => inSpan(`graphql.execute ${route.fieldName}`, { 'graphql.operation.type': route.operationType }, async () => run()) : run;
    const result = await withReadScope(traced, route.operationType === 'query' && !wantsPrimary(request.headers[READ_PRIMARY_HEADER]));
    if (result.errors?.length) {
      return problemResponse(namedAsDocumented(route, variables, toApiError(result.errors[0], options.onUnexpectedError)), request.url, route.row.publicApiResponse);
    }
    if (route.row.emptyResponse) return { statusCode: 200, contentType: null, body: null, headers: {} };
    if (route.row.download) return downloadResponse((result.data as Record<string, FileDownload>)[route.fieldName], takeDownloadBody(contextValue));
    const data = (result.data as Record<string, unknown>)[route.fieldName];
    return { statusCode: 200, contentType: 'application/json; charset=utf-8', body: JSON.stringify(route.mapsKeys ? toDocumentedKeys(data) : data), headers: {} };
  }
}
