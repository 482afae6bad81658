import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ExecutionResult } from 'graphql';
import type { RequestContext, RequestInfo } from '../core/context.js';
import { READ_PRIMARY_HEADER } from '../core/data/read-routing.js';
import { inSpan, tracingEnabled } from '../core/runtime/tracing.js';
import { compiledOperationKey, type BoundedCache, type CachedOperation } from './graphql-caches.js';

/**
 * What Apollo would answer a request's `Accept` header with (its content negotiation), for the
 * values clients send; another value goes through Apollo.
 */
const CONTENT_TYPE_FOR_ACCEPT = new Map<string | undefined, string>([
  [undefined, 'application/json; charset=utf-8'],
  ['*/*', 'application/json; charset=utf-8'],
  ['application/json', 'application/json; charset=utf-8'],
  ['application/graphql-response+json', 'application/graphql-response+json; charset=utf-8'],
  ['application/graphql-response+json, application/json', 'application/graphql-response+json; charset=utf-8'],
  ['application/graphql-response+json, application/json;q=0.9', 'application/graphql-response+json; charset=utf-8'],
]);

/** A request on the fast path: its parsed body, its compiled operation and its answer's content type. */
export interface FastRequest {
  operation: CachedOperation;
  variables: Record<string, unknown>;
  contentType: string;
}

/** What the fast path hands Apollo for a request it does not answer itself (see `GraphqlFastPath`). */
export type Handover = { context: RequestContext } | { contextError: unknown };

/** The outcome of a compiled run Apollo is to answer (an error, or a result with errors). */
export type Outcome = { result: ExecutionResult } | { thrown: unknown };

export interface FastPathHooks {
  /** The request's context, as Apollo's context function makes it (its errors already API errors). */
  contextFor(request: FastifyRequest): Promise<RequestContext>;
  /** What our Apollo plugin does once the operation is known (audit name, replica reads). */
  operationResolved(context: RequestContext, operation: CachedOperation['operation'], readPrimaryHeader: string | string[] | undefined): void;
  /** What our Apollo plugin does before a successful answer is sent (metrics). */
  answered(operation: CachedOperation['operation']): void;
  /** Apollo's handler: answers the request with the handed-over context (and outcome, if any). */
  apollo(request: FastifyRequest, reply: FastifyReply): Promise<unknown>;
}

/**
 * GraphQL's fast path: the common request — a POST of JSON whose document Apollo has already
 * parsed and validated (with the depth, cost, alias and introspection rules) and we have compiled
 * (it is in `compiled`, keyed by its source: no SHA-256 of the query) — runs its compiled
 * operation and is answered here, without Apollo's per-request pipeline (its CSRF check, content
 * negotiation, query hash, document store, plugin promises, header map). It does what that
 * pipeline does for such a request, nothing less:
 * - CSRF prevention: a JSON body is one a browser cannot send cross-site without a preflight, so
 *   Apollo lets it through; any other content type never reaches here (no parsed object body);
 * - only bodies Apollo takes as they are: an object with a string `query`, `variables` an object
 *   (or absent), `operationName` a string (or absent), and no `extensions` (persisted queries go
 *   through Apollo); a batch (an array) is not an object: Apollo refuses it;
 * - our plugin's hooks (the audit trail's operation name, replica reads, the operations metric),
 *   the same execute span, graphql-jit's variable coercion, Apollo's answer (`{"data":…}` and a
 *   new line, the content type it negotiates for the `Accept` values listed above);
 * - anything else — a failed context (401, 429…), a result with errors, an exception — is handed
 *   to Apollo with the context already made and the outcome already computed (nothing runs
 *   twice), so error formatting, masking, status and its plugins' hooks are Apollo's own.
 * GET requests, other Accept values and documents not compiled yet go through Apollo unchanged.
 */
export class GraphqlFastPath {
  /** What Apollo's context function and executor take over, per request and per context. */
  readonly #handovers = new WeakMap<FastifyRequest, Handover>();
  /** By the context's request facts: Apollo hands its executor a shallow copy of the context, which shares them. */
  readonly #outcomes = new WeakMap<RequestInfo, Outcome>();

  constructor(private readonly compiled: BoundedCache<CachedOperation>, private readonly hooks: FastPathHooks) {}

  /** The request, when the fast path can answer it. */
  accepts(request: FastifyRequest): FastRequest | null {
    if (request.method !== 'POST') return null;
    const contentType = CONTENT_TYPE_FOR_ACCEPT.get(request.headers.accept);
    const body = request.body as Record<string, unknown> | null | undefined;
    if (contentType === undefined || typeof body !== 'object' || body === null || Array.isArray(body) || Buffer.isBuffer(body)) return null;
    const { query, variables, operationName } = body;
    if (typeof query !== 'string' || body.extensions !== undefined) return null;
    if (operationName != null && typeof operationName !== 'string') return null;
    if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) return null;
    const operation = this.compiled.get(compiledOperationKey(operationName, query));
    if (!operation) return null;
    return { operation, variables: (variables ?? {}) as Record<string, unknown>, contentType };
  }

  /** Answers a request `accepts` took (within the handler's read scope). */
  async answer(request: FastifyRequest, reply: FastifyReply, fast: FastRequest): Promise<unknown> {
    let context: RequestContext;
    try {
      context = await this.hooks.contextFor(request);
    } catch (contextError) {
      return this.#handOver(request, reply, { contextError });
    }
    const { operation: { run, operation }, variables } = fast;
    this.hooks.operationResolved(context, operation, request.headers[READ_PRIMARY_HEADER]);
    let result: ExecutionResult;
    try {
      // The same span as Apollo's executor makes for a compiled run (named by the operation run).
      const name = operation.name?.value ?? '';
      result = tracingEnabled()
        ? await inSpan(`graphql.execute ${name}`.trim(), { 'graphql.operation.name': name }, async () => run(context, variables))
        : await run(context, variables);
    } catch (thrown) {
      this.#outcomes.set(context.request, { thrown });
      return this.#handOver(request, reply, { context });
    }
    if (result.errors?.length || result.data == null) {
      this.#outcomes.set(context.request, { result });
      return this.#handOver(request, reply, { context });
    }
    this.hooks.answered(operation);
    void reply.code(200).header('content-type', fast.contentType);
    return `${JSON.stringify({ data: result.data })}\n`;
  }

  /** What the fast path handed Apollo for this request, if anything (Apollo's context function). */
  handoverOf(request: FastifyRequest): Handover | undefined {
    return this.#handovers.get(request);
  }

  /** The outcome computed for this context, if the fast path ran it already (Apollo's executor). */
  outcomeOf(context: RequestContext): Outcome | undefined {
    return this.#outcomes.get(context.request);
  }

  #handOver(request: FastifyRequest, reply: FastifyReply, handover: Handover): Promise<unknown> {
    this.#handovers.set(request, handover);
    return this.hooks.apollo(request, reply);
  }
}
