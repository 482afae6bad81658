import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import pg from 'pg';
import type { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import { buildApiSchema, rawRoutes, routes } from './areas/index.js';
import { trustProxySetting, type Config } from './core/config.js';
import { auditRootFields } from './core/data/audit.js';
import { RequestContext, requestEntityManagers, requestInfo, type AppDeps } from './core/context.js';
import { CredentialCache } from './core/requests/credential-cache.js';
import { JOBS_SCHEMA } from './core/runtime/jobs.js';
import { CredentialRateLimiter } from './core/requests/credential-rate-limit.js';
import { InFlightRequests } from './core/runtime/in-flight.js';
import { Metrics } from './core/runtime/metrics.js';
import { toApiError } from './core/error-mapping.js';
import { ApiError, BadInput, PayloadTooLarge, ServiceUnavailable } from './core/errors.js';
import { mountDocs } from './http/docs.js';
import { sdlOf } from './http/schema-sdl.js';
import { GRAPHQL_METHODS, mountGraphql } from './http/graphql.js';
import { mountHealth } from './http/health.js';
import { addCors } from './http/cors.js';
import { addSecurityHeaders } from './http/security-headers.js';
import { listenOnSockets } from './http/listening-sockets.js';
import { mountMetrics } from './http/metrics.js';
import { AllowedMethods } from './rest/allowed-methods.js';
import { restGateway } from './rest/gateway/plugin.js';
import { compileRoutes } from './rest/gateway/routes.js';
import { buildOpenApi } from './rest/openapi.js';
import { takeServingRole } from './db/serving-role.js';
import { headersOf, PROBLEM_CONTENT_TYPE, problemOf } from './rest/problem.js';
import { TenantCorsOrigins } from './services/cors-origins/cors-origins.js';
import { authenticate } from './services/login/identity.js';

export interface AppOptions {
  config: Config;
  orm: MikroORM;
  jobs: PgBoss | null;
  log: Logger;
  /** Adds routes before the server starts (the benchmark's raw baseline; nothing else). */
  configure?: (server: FastifyInstance) => Promise<void>;
  /** Largest request body accepted (bytes); larger is a 413. */
  bodyLimit?: number;
  /** The plain pg pool of `AppDeps.pool`; by default the app makes one on the ORM's database and closes it. */
  pool?: pg.Pool;
}

export interface App {
  server: FastifyInstance;
  deps: AppDeps;
  /**
   * First step of a shutdown: /readyz answers 503 from now on, requests that arrive get 503
   * problem+json with `Connection: close` and Retry-After, and responses to requests already
   * running close their connection. The port stays open until `close`.
   */
  drain(): void;
  /** Starts accepting connections on `host:port` (0: a free port) with LISTEN_SOCKETS listening sockets (http/listening-sockets.ts). */
  listen(host: string, port: number): Promise<AddressInfo>;
  /**
   * Stops accepting connections, lets running requests finish (for at most `drainTimeoutMs`,
   * after which their connections are cut), then stops GraphQL and the app's own pool.
   */
  close(drainTimeoutMs?: number): Promise<void>;
}

/** Builds the HTTP service: GraphQL at /graphql, the documented REST API at /api, docs and health. */
export async function buildApp(options: AppOptions): Promise<App> {
  const { config, orm } = options;
  // Slow clients (config.ts): Node checks the request and header deadlines every second rather than every 30.
  const timeouts = { requestTimeout: config.REQUEST_TIMEOUT_MS, headersTimeout: config.HEADERS_TIMEOUT_MS, connectionsCheckingInterval: 1000 };
  // Cast: the https variant is typed as another server kind, though it behaves the same to us.
  const server = Fastify({
    loggerInstance: options.log,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,100}$/.test(given) ? given : randomUUID();
    },
    trustProxy: trustProxySetting(config.TRUST_PROXY),
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    // While closing, Fastify's own 503 is plain JSON: the draining hook below answers problem+json instead.
    return503OnClosing: false,
    // maxParamLength: Node refuses request heads over 16 KiB (431), so no path parameter is longer;
    // with find-my-way's default (100) a longer one skipped its route and reached another (a 405).
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 16 * 1024 },
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    connectionTimeout: config.CONNECTION_TIMEOUT_MS,
    keepAliveTimeout: config.KEEP_ALIVE_TIMEOUT_MS,
    clientErrorHandler: answerClientError,
    // The router's own refusals (a path parameter that is not valid percent-encoding) answer like any other error.
    frameworkErrors: (error, request, reply) => { void answerError(error, request, reply); },
    http: timeouts,
    ...(config.TLS_CERT_FILE && config.TLS_KEY_FILE
      ? { https: { cert: readFileSync(config.TLS_CERT_FILE), key: readFileSync(config.TLS_KEY_FILE), ...timeouts } }
      : {}),
  }) as unknown as FastifyInstance;
  // Shutting down (drain): new requests are refused before any work; answers to the requests
  // already running close their connection, so keep-alive clients reconnect to another instance.
  let draining = false;
  // Requests in flight. A handler outlives its connection when the client goes away mid-request,
  // so a closed server is not enough: shutdown waits for our code still working on a request
  // before the database closes (else it fails with "driver has already been destroyed"), and
  // for nothing else (core/runtime/in-flight.ts).
  const inFlight = new InFlightRequests();
  inFlight.install(server);
  // The hooks every request passes take Fastify's callback form: an async hook costs a promise
  // and a microtask hop each, on every request (measurable on the cheapest routes).
  server.addHook('onRequest', (request, reply, done) => {
    if (!draining) {
      inFlight.started(request);
      // No path names anything with a NUL in it, and PostgreSQL cannot compare one: refused for every route.
      return done(pathHasNul(request.url) ? BadInput.field('path', 'must not contain NUL characters') : undefined);
    }
    reply.header('connection', 'close');
    done(new ServiceUnavailable('The service is shutting down; retry the request.'));
  });
  server.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    if (draining) reply.header('connection', 'close');
    inFlight.finished(request);
    done(null, payload);
  });
  server.addHook('onResponse', (request, _reply, done) => {
    inFlight.finished(request);
    done();
  });

  // Tenant-scoped statements run as DATABASE_APP_ROLE, bound by row-level security (db/serving-role.ts).
  await takeServingRole(orm, config.DATABASE_APP_ROLE, options.jobs ? JOBS_SCHEMA : null, (message) => server.log.warn(message));
  const tls = Boolean(config.TLS_CERT_FILE);
  const pool = options.pool ?? new pg.Pool({
    connectionString: orm.config.get('clientUrl'),
    max: config.DATABASE_POOL_MAX,
    connectionTimeoutMillis: 10_000,
  });
  if (!options.pool) pool.on('error', (error) => server.log.warn({ err: error }, 'idle database connection failed'));
  const deps: AppDeps = {
    config,
    log: server.log,
    jobs: options.jobs,
    pool,
    publicBaseUrl: (config.PUBLIC_BASE_URL ?? `${tls ? 'https' : 'http'}://${config.HOST}:${config.PORT}`).replace(/\/$/, ''),
    metrics: new Metrics(pool, options.jobs),
    // Behind a transaction-pooling PgBouncer no session can LISTEN: every request looks its credential up.
    credentials: new CredentialCache(orm.config.get('clientUrl'), config.DATABASE_PGBOUNCER ? 0 : config.CREDENTIAL_CACHE_SECONDS, server.log, config.CREDENTIAL_CACHE_MB),
    corsOrigins: new TenantCorsOrigins(pool),
  };
  await deps.credentials.start();
  const onUnexpectedError = (error: unknown) => server.log.error({ err: error }, 'unexpected error');
  /** Any failure as problem+json, or on /graphql as GraphQL errors with extensions.code. */
  const answerError = (error: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = error instanceof ApiError ? error : fromFastifyError(error, onUnexpectedError);
    if (!request.url.startsWith('/graphql')) {
      return reply.code(apiError.status).headers(headersOf(apiError)).type(PROBLEM_CONTENT_TYPE).send(problemOf(apiError, request.url));
    }
    return reply.code(apiError.status).headers(headersOf(apiError)).send({ errors: [{ message: apiError.message, extensions: { code: apiError.code } }] });
  };
  const credentialLimit = new CredentialRateLimiter(pool, config.CREDENTIAL_RATE_LIMIT_PER_MINUTE, server.log);

  const entityManagers = requestEntityManagers(orm);
  /**
   * One context per request: its EntityManagers (a fork opened on first use, the tenant's shared
   * reader until then), DataLoaders and the authenticated caller (counted against its
   * credential's rate limit: 429 past it, on every interface).
   */
  const contextFor = async (request: FastifyRequest): Promise<RequestContext> => {
    const caller = await authenticate(entityManagers.readerFor(null), request.headers.authorization, deps.credentials);
    if (caller) await credentialLimit.take(caller.credentialId);
    return new RequestContext(deps, entityManagers, caller, requestInfo(request));
  };

  addSecurityHeaders(server, {
    // Without TLS, asking browsers to upgrade to https would break the docs pages.
    hsts: tls,
    contentSecurityPolicy: {
      directives: {
        'script-src': ["'self'"], 'style-src': ["'self'", "'unsafe-inline'"], 'img-src': ["'self'", 'data:'],
        'upgrade-insecure-requests': tls ? [] : null,
      },
    },
  });
  // CORS (http/cors.ts): the origins of CORS_ORIGINS, and those the tenant a request names allows.
  const corsOrigins = new Set((config.CORS_ORIGINS ?? '').split(',').map((origin) => origin.trim().replace(/\/$/, '')).filter(Boolean));
  addCors(server, { origins: corsOrigins, tenantOrigins: deps.corsOrigins });
  server.setErrorHandler((error: FastifyError | ApiError, request, reply) => answerError(error, request, reply));
  // Every documented path with its methods: another method on one is a 405 with Allow, wherever
  // it lands (the gateway, or here: TRACE, OPTIONS that is no preflight, a raw route's path).
  const rawOperations = rawRoutes.flatMap((area) => area.operations);
  const allowedMethods = new AllowedMethods([...routes, ...rawOperations, ...GRAPHQL_METHODS]);
  server.setNotFoundHandler((request, reply) => answerError(allowedMethods.refusal(request.method, request.url.split('?')[0]), request, reply));

  const metricsListener = await mountMetrics(server, deps.metrics, config);
  const schema = auditRootFields(await buildApiSchema());
  mountHealth(server, orm, () => draining);
  const apollo = await mountGraphql(server, { schema, config, contextFor, onUnexpectedError, metrics: deps.metrics });
  // Compiling the routes checks every row against the schema at start, for the gateway and the
  // OpenAPI; each route's operation is built and JIT-compiled on its first call.
  const compiledRoutes = compileRoutes(schema, routes);
  await mountDocs(server, () => buildOpenApi(schema, compiledRoutes, rawOperations, config), {
    graphiql: config.graphiql, isProduction: config.isProduction,
    sdl: config.introspection ? sdlOf(schema) : null,
  });
  for (const area of rawRoutes) await area.register(server, contextFor, deps);
  await server.register(async (scope) => restGateway(scope, { routes: compiledRoutes, contextFor, onUnexpectedError, bodyLimit: config.API_BODY_LIMIT_BYTES, allowedMethods }));
  await options.configure?.(server);
  await server.ready();

  let closeExtraSockets = () => {};
  return {
    server,
    deps,
    drain() {
      draining = true;
    },
    async listen(host, port) {
      const { address, closeExtra } = await listenOnSockets(server, host, port, config.LISTEN_SOCKETS);
      closeExtraSockets = closeExtra;
      return address;
    },
    async close(drainTimeoutMs) {
      draining = true;
      // Requests still running after the timeout lose their connections (a client gets a reset,
      // never a half-applied write: each write commits or rolls back as one transaction).
      const deadline = drainTimeoutMs === undefined ? undefined : Date.now() + drainTimeoutMs;
      const cut = deadline === undefined ? undefined : setTimeout(() => server.server.closeAllConnections(), drainTimeoutMs);
      try {
        closeExtraSockets();
        await server.close();
        // Every connection is closed now; requests our code is still working on (their clients
        // went away) are waited for too, within the same bound.
        await inFlight.settle(deadline === undefined ? undefined : Math.max(0, deadline - Date.now()));
      } finally {
        clearTimeout(cut);
      }
      await credentialLimit.stop();
      await apollo.stop();
      await deps.credentials.stop();
      await new Promise((resolve) => (metricsListener ? metricsListener.close(resolve) : resolve(undefined)));
      deps.metrics.close();
      if (!options.pool) await pool.end();
    },
  };
}

/**
 * What Node refuses before a request reaches Fastify — too slow (408), headers too large (431),
 * not HTTP (400) — answered as problem+json on the raw socket, which is then closed.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const apiError = error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
    ? new ApiError(408, 'REQUEST_TIMEOUT', 'The request did not arrive in time.')
    : error.code === 'HPE_HEADER_OVERFLOW'
      ? new ApiError(431, 'REQUEST_HEADER_FIELDS_TOO_LARGE', 'The request headers are too large.')
      : new ApiError(400, 'BAD_REQUEST', 'The request is not valid HTTP.');
  // Only when nothing of a response was written yet (as Node's own handler does).
  if (socket.writable && socket.bytesWritten === 0) {
    const body = JSON.stringify(problemOf(apiError));
    socket.write(`HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status]}\r\nConnection: close\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  }
  socket.destroy(error);
}

/** Whether the path (not the query string) of a raw request URL holds a percent-encoded NUL. */
function pathHasNul(url: string): boolean {
  const nul = url.indexOf('%00');
  if (nul < 0) return false;
  const query = url.indexOf('?');
  return query < 0 || nul < query;
}

/** Fastify's own failures (body too large, bad JSON, ...) as API errors. */
function fromFastifyError(error: FastifyError, onUnexpectedError: (error: unknown) => void): ApiError {
  const status = error.statusCode ?? 500;
  if (status === 413) return new PayloadTooLarge();
  if (status === 415) return new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'The request body must be application/json.');
  if (error.code === 'FST_ERR_BAD_URL') return BadInput.field('path', 'is not valid percent-encoding');
  if (status >= 400 && status < 500) return new ApiError(status, 'BAD_REQUEST', error.message);
  return toApiError(error, onUnexpectedError);
}
