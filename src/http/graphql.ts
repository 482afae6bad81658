import { ApolloServer, type ApolloServerPlugin, type GraphQLRequestListener } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { fastifyApolloHandler } from '@as-integrations/fastify';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import type { GatewayInterface } from '@apollo/server-gateway-interface';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { execute, Kind, OperationTypeNode, printSchema, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { compileOperation } from '../core/requests/compiled-execution.js';
import type { Config } from '../core/config.js';
import type { RequestContext } from '../core/context.js';
import { mapError, toApiError } from '../core/error-mapping.js';
import type { Metrics } from '../core/runtime/metrics.js';
import { limitAnonymous } from '../core/requests/rate-limit.js';
import { allowReplicaReads, READ_PRIMARY_HEADER, wantsPrimary, withReadScope } from '../core/data/read-routing.js';
import { inSpan, traceIdField, tracingEnabled } from '../core/runtime/tracing.js';
import type { FieldProblem } from '../core/errors.js';
import { metricsServed } from './metrics.js';
import { compiledHeapBytes, compiledOperationKey, graphqlCaches, type BoundedCache, type CachedOperation } from './graphql-caches.js';
import { GraphqlFastPath, type Outcome } from './graphql-fast-path.js';

/** The most tokens a GraphQL document may hold (graphql-js counts them while parsing). */
const MAX_TOKENS = 2000;
/**
 * The most comments a GraphQL document may hold. graphql-js does not count them as tokens, yet
 * builds a token object for each and links it into the document (~84 bytes each, measured): a
 * 1 MiB body of `#` lines kept ~29 MB of heap. GraphiQL's welcome text has 30 comment lines.
 */
const MAX_COMMENTS = 2000;

export interface GraphqlOptions {
  schema: GraphQLSchema;
  config: Config;
  contextFor(request: FastifyRequest): Promise<RequestContext>;
  onUnexpectedError: (error: unknown) => void;
  metrics: Metrics;
}

/** The root fields an operation selects, in order (memoized per parsed operation: Apollo keeps a document it has seen). */
const rootFieldsOf = (() => {
  const known = new WeakMap<OperationDefinitionNode, string[]>();
  return (operation: OperationDefinitionNode | undefined | null): string[] => {
    if (!operation) return [];
    let fields = known.get(operation);
    if (!fields) known.set(operation, (fields = operation.selectionSet.selections.flatMap((selection) => (selection.kind === Kind.FIELD ? [selection.name.value] : []))));
    return fields;
  };
})();

/**
 * Our per-request Apollo hooks, in one plugin whose hooks are the same object for every request
 * (Apollo awaits every plugin's `requestDidStart` and each hook it returns, per request):
 * - once the operation is known: the audit trail names it by its root fields (`saveVendor`;
 *   several joined by commas) before anything runs, and a query operation's reads may be served
 *   by a read replica (core/data/read-routing.ts) unless the caller sends `X-Read-Primary: true`
 *   (a mutation, and anything unrecognised, reads the primary);
 * - before answering: a failed response takes the HTTP status of its first error, so GraphQL and
 *   REST answer the same status for the same failure; and, when metrics are served, the operation
 *   is counted by the root field it selects (`vendors`, `saveVendor`; `multiple` when several,
 *   `other` when none could be resolved), type and outcome — not by the operation name a client
 *   chooses, which could make each name a new series: the root fields are the schema's, so the
 *   label values are bounded by it.
 */
function requestHooks(schema: GraphQLSchema, metrics: Metrics | null): OperationHooks {
  const rootFields = new Set([schema.getQueryType(), schema.getMutationType()].flatMap((type) => Object.keys(type?.getFields() ?? {})));
  for (const meta of ['__typename', '__schema', '__type']) rootFields.add(meta);
  const labelOf = (operation: OperationDefinitionNode | undefined) => {
    const fields = new Set(rootFieldsOf(operation));
    if (fields.size > 1) return 'multiple';
    const [field] = fields;
    return field && rootFields.has(field) ? field : 'other';
  };
  const operationResolved = (context: RequestContext, operation: OperationDefinitionNode | undefined, readPrimaryHeader: string | string[] | null | undefined) => {
    const fields = rootFieldsOf(operation);
    if (context.audit && fields.length) context.audit.operation = fields.join(',').slice(0, 300);
    if (operation?.operation === OperationTypeNode.QUERY && !wantsPrimary(readPrimaryHeader)) allowReplicaReads();
  };
  const answered = (operation: OperationDefinitionNode | undefined, failed: boolean) => {
    metrics?.graphqlOperations.inc({ operation: labelOf(operation), type: operation?.operation ?? 'unknown', outcome: failed ? 'error' : 'ok' });
  };
  const hooks: GraphQLRequestListener<RequestContext> = {
    async didResolveOperation({ contextValue, operation, request }) {
      operationResolved(contextValue, operation, request.http?.headers.get(READ_PRIMARY_HEADER));
    },
    async willSendResponse({ response, errors, operation }) {
      const first = errors?.[0];
      if (first && response.body.kind === 'single' && response.body.singleResult.data == null) {
        response.http.status = mapError(first).error.status;
      }
      answered(operation, Boolean(errors?.length));
    },
  };
  return { plugin: { requestDidStart: async () => hooks }, operationResolved, answered };
}

/** Our Apollo plugin, and what it does, for the fast path to do the same (http/graphql-fast-path.ts). */
interface OperationHooks {
  plugin: ApolloServerPlugin<RequestContext>;
  operationResolved: (context: RequestContext, operation: OperationDefinitionNode | undefined, readPrimaryHeader: string | string[] | null | undefined) => void;
  answered: (operation: OperationDefinitionNode | undefined, failed: boolean) => void;
}

/**
 * Apollo executes through this hook (its `gateway` option, made for federation) so that an
 * operation is compiled once by graphql-jit, as the REST gateway's are, and kept by its source in
 * `compiled` (bounded, http/graphql-caches.ts; the fast path runs it from there too): Apollo still
 * parses, validates and applies the limits; only execution changes. A document is compiled on its second execution, not its first:
 * compiling costs several milliseconds and several times the document's heap, and a client that
 * inlines its values sends most documents once. Apollo hands over the very object it keeps in its
 * document store, so a document seen before is one executed before.
 */
function compiledExecution(schema: GraphQLSchema, compiled: BoundedCache<CachedOperation>, ranAlready: (context: RequestContext) => Outcome | undefined): GatewayInterface {
  const executedOnce = new WeakSet<DocumentNode>();
  return {
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
      return () => {};
    },
    async load() {
      return {
        executor: async (request) => {
          // Run by the fast path already, which handed its outcome (an error) over for Apollo to answer.
          const outcome = ranAlready(request.context as RequestContext);
          if (outcome) {
            if ('thrown' in outcome) throw outcome.thrown;
            return outcome.result;
          }
          const { document, operationName } = request;
          // No operation to run (the operationName sent names none): graphql-js says why, Apollo
          // answers 400. (`request.operationName` is then null; the name sent is in `request.request`.)
          if (!request.operation) return execute({ schema, document, operationName: request.request.operationName ?? undefined });
          const variables = request.request.variables ?? {};
          // By the operation name the client sent (the fast path knows no other), not the one resolved.
          const key = compiledOperationKey(request.request.operationName, request.source);
          let operation = compiled.get(key);
          if (!operation) {
            if (!executedOnce.has(document)) {
              executedOnce.add(document);
              return execute({ schema, document, operationName: operationName ?? undefined, contextValue: request.context, variableValues: variables });
            }
            const { run, generatedCodeLength } = compileOperation(schema, document, operationName ?? undefined);
            compiled.set(key, (operation = { run, operation: request.operation, heapBytes: compiledHeapBytes(generatedCodeLength, document, key) }));
          }
          const run = operation.run;
          // graphql-js runs are traced by the graphql instrumentation; compiled ones here.
          return tracingEnabled() ? inSpan(`graphql.execute ${operationName ?? ''}`.trim(), { 'graphql.operation.name': operationName ?? '' }, async () => run(request.context, variables)) : run(request.context, variables);
        },
      };
    },
    async stop() {},
  };
}

/** Apollo Server at /graphql with CSRF prevention and depth, cost and alias limits. */
/** The methods /graphql answers (another one is a 405 with Allow, app.ts). */
export const GRAPHQL_METHODS = [{ method: 'GET', path: '/graphql' }, { method: 'POST', path: '/graphql' }] as const;

export async function mountGraphql(app: FastifyInstance, options: GraphqlOptions): Promise<ApolloServer<RequestContext>> {
  const armor = new ApolloArmor({
    maxDepth: { n: 8 },
    costLimit: { maxCost: 5000 },
    maxAliases: { n: 15 },
    maxDirectives: { n: 20 },
    // Its token limit parses the document again inside a plugin, where any parse error becomes a
    // 500; graphql-js's own limit (parseOptions below) fails the parse itself: a 400.
    maxTokens: { enabled: false },
    // Its plugin rewrites error messages in place, which graphql-jit's errors do not allow;
    // formatError below removes the suggestions instead.
    blockFieldSuggestion: { enabled: false },
  }).protect();
  const development = options.config.NODE_ENV === 'development';
  const caches = graphqlCaches(options.config.GRAPHQL_CACHE_MB);
  options.metrics.observeGraphqlCaches(caches.figures);
  const hooks = requestHooks(options.schema, metricsServed(options.config) ? options.metrics : null);
  // Set once the handler is made (below): the executor and the context function consult it per request.
  let fastPath: GraphqlFastPath | null = null;
  const apollo = new ApolloServer<RequestContext>({
    gateway: compiledExecution(options.schema, caches.compiled, (context) => fastPath?.outcomeOf(context)),
    // Parsed documents and persisted queries in our caches: Apollo's own are bounded by JSON length, not heap.
    ...caches.apolloOptions,
    introspection: options.config.introspection,
    csrfPrevention: true,
    // No stack trace in any mode: failures are logged, and answers carry our own codes only.
    includeStacktraceInErrorResponses: false,
    parseOptions: { maxTokens: MAX_TOKENS, maxComments: MAX_COMMENTS },
    allowBatchedHttpRequests: false,
    validationRules: armor.validationRules,
    // graphql-armor is typed against Apollo's CommonJS declarations; the objects are the same.
    plugins: [...(armor.plugins as unknown as ApolloServerPlugin<RequestContext>[]), ApolloServerPluginLandingPageDisabled(),
      // Cache-control hints are unused, and the plugin wraps every field resolver (measurable per request).
      ApolloServerPluginCacheControlDisabled(), hooks.plugin],
    formatError: (formatted, error) => {
      const mapped = toApiError(error, options.onUnexpectedError);
      const { http: _http, ...extensions } = mapped.extensions as Record<string, unknown>;
      // Field suggestions ("Did you mean …") would reveal the schema: development only.
      const withoutSuggestions = (text: string) => (development ? text : text.replace(/ ?Did you mean [^?]+\?/g, ''));
      if (Array.isArray(extensions.errors)) {
        extensions.errors = (extensions.errors as FieldProblem[]).map((problem) => ({ ...problem, message: withoutSuggestions(problem.message) }));
      }
      return {
        message: withoutSuggestions(mapped.message),
        ...(formatted.path ? { path: formatted.path } : {}),
        ...(formatted.locations ? { locations: formatted.locations } : {}),
        extensions: { ...extensions, code: mapped.code, ...traceIdField() },
      };
    },
  });
  await apollo.start();
  // A failure here (say, the database is down) carries its status, as a resolver error would.
  const contextFor = async (request: FastifyRequest) => {
    try {
      const context = await options.contextFor(request);
      // Without a credential only public fields answer; their callers are counted per address.
      await limitAnonymous(context, 'graphql');
      return context;
    } catch (error) {
      throw toApiError(error, options.onUnexpectedError);
    }
  };
  const handler = fastifyApolloHandler(apollo, {
    // A request the fast path began comes with its context made (or its failure) already.
    context: async (request) => {
      const handover = fastPath?.handoverOf(request);
      if (!handover) return contextFor(request);
      if ('contextError' in handover) throw handover.contextError;
      return handover.context;
    },
  });
  // Apollo's usage reporting (a plugin Apollo adds itself when APOLLO_KEY is set) sees only the
  // requests that pass through Apollo: with it, every request does.
  if (!process.env.APOLLO_KEY) {
    fastPath = new GraphqlFastPath(caches.compiled, {
      contextFor,
      operationResolved: hooks.operationResolved,
      answered: (operation) => hooks.answered(operation, false),
      apollo: async (request, reply) => handler.call(app, request as Parameters<typeof handler>[0], reply as Parameters<typeof handler>[1]),
    });
  }
  app.route({
    url: '/graphql',
    method: GRAPHQL_METHODS.map((operation) => operation.method), // other methods: the server's 405 (app.ts), in GraphQL's error shape
    // Each request in a read scope of its own, which a query operation opens to replicas.
    handler(request, reply) {
      // A browser opening /graphql (no query, asks for HTML) wants an explorer, not Apollo's CSRF refusal.
      if (request.method === 'GET' && !(request.query as { query?: unknown }).query && request.headers.accept?.includes('text/html')) {
        return reply.redirect(options.config.graphiql ? '/graphiql' : '/');
      }
      const fast = fastPath?.accepts(request);
      if (fast) return withReadScope(() => fastPath!.answer(request, reply, fast));
      return withReadScope(() => handler.call(this, request as Parameters<typeof handler>[0], reply as Parameters<typeof handler>[1]));
    },
  });
  return apollo;
}
