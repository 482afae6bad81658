import { z } from 'zod';
import { StartupRefused } from './runtime/failures.js';

/** Every setting the service reads from its environment, validated once at start. */
/** UPLOAD_MAX_BYTES when not set (also the limit the OpenAPI document states). */
export const DEFAULT_UPLOAD_MAX_BYTES = 10 * 1024 * 1024;

export const configSchema = z.object({
  /** `production` turns off GraphiQL, introspection, field suggestions, the demo tenant and the logging of sign-in links. */
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  /** Address the server listens on (`0.0.0.0` in a container behind a load balancer). */
  HOST: z.string().min(1).default('127.0.0.1'),
  /** Port of the APIs, docs pages and health checks. */
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  /** Local state (the embedded database's data folder) lives here. */
  DATA_DIR: z.string().min(1).default('.data'),
  /** A PostgreSQL server to use instead of the embedded one. */
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  /** Port of the embedded PostgreSQL (used only without DATABASE_URL). */
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1024).max(65535).default(54329),
  /** Connections of each pool this instance opens on PostgreSQL (the ORM's, the plain pg pool's, each replica's): see SCALING.md. */
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  /**
   * Read replicas of DATABASE_URL, comma-separated complete URLs. Reads of query operations (GraphQL
   * queries, REST routes of query fields) go there unless the request sends `X-Read-Primary: true`;
   * mutations, transactions, authentication and jobs use the primary (`core/data/read-routing.ts`).
   */
  DATABASE_REPLICA_URLS: z.string().optional().refine(
    (value) => (value ?? '').split(',').map((url) => url.trim()).filter(Boolean).every((url) => /^postgres(ql)?:\/\/[^/]+\/[^/?#]+/.test(url) && URL.canParse(url)),
    'must be comma-separated postgres:// URLs, each naming its database',
  ),
  /**
   * DATABASE_URL points at PgBouncer in transaction mode: the service then keeps no state on a
   * server connection between transactions (no named prepared statements, and no LISTEN, so the
   * credential cache is off; it uses no session-level SET or advisory locks in any mode). See SCALING.md.
   */
  DATABASE_PGBOUNCER: z.stringbool().default(false),
  /**
   * The role the service's tenant-scoped statements run as (OPERATIONS.md, "Tenant row-level
   * security"): each scoped transaction sets it transaction-locally, beside the tenant, so the
   * row-level security policies bind them even when DATABASE_URL's login is the tables' owner or
   * a superuser. Taken only if the login may (a member, or a superuser); otherwise the service
   * logs one warning and serves as the login. Empty: never switch.
   */
  DATABASE_APP_ROLE: z.string().regex(/^(?:[a-z_][a-z0-9_]*)?$/, 'must be a plain role name (lower case letters, digits, _) or empty').default('membership_app'),
  /** Guards DELETE /api/login/delete; the operation is disabled while unset. */
  MASTER_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Base URL that magic links point at (the member portal). */
  PUBLIC_BASE_URL: z.url().optional(),
  /** GraphQL introspection (default: on outside production). */
  GRAPHQL_INTROSPECTION: z.stringbool().optional(),
  /** GraphiQL at /graphiql (default: on outside production). */
  GRAPHIQL: z.stringbool().optional(),
  /**
   * Heap that GraphQL's per-document caches (parsed documents, compiled operations, persisted
   * queries) may hold together, in MB, by estimated heap bytes (OPERATIONS.md, "GraphQL caches").
   * Unset: a fifth of V8's heap limit, 48 MB under `npm start`'s flags.
   */
  GRAPHQL_CACHE_MB: z.coerce.number().int().min(1).max(4096).optional(),
  /**
   * Browser origins allowed to call the APIs from another site (CORS), comma-separated, e.g.
   * `https://portal.example.org,https://admin.example.org`, on every request. Unset: none but
   * those a tenant lists for the requests that name it (`/api/setup/corsorigins`).
   */
  CORS_ORIGINS: z.string().optional(),
  /** PEM certificate chain: with TLS_KEY_FILE the server speaks HTTPS itself (set both or neither). */
  TLS_CERT_FILE: z.string().min(1).optional(),
  /** PEM private key of TLS_CERT_FILE. */
  TLS_KEY_FILE: z.string().min(1).optional(),
  /** Fastify's trustProxy: true/false, a hop count, or a list of addresses. */
  TRUST_PROXY: z.string().optional(),
  /** false disables the pg-boss worker on this instance (jobs can still be queued). */
  JOBS_WORKER: z.stringbool().default(true),
  /**
   * Shutdown (SIGTERM): for SHUTDOWN_GRACE_MS /readyz answers 503 while the port stays open (so
   * a load balancer stops sending), then the port closes and requests in flight get up to
   * SHUTDOWN_DRAIN_TIMEOUT_MS to finish; running jobs get SHUTDOWN_JOBS_TIMEOUT_MS, after which
   * they are handed back to the queue (failed, so another instance retries them).
   */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(120_000).default(1000),
  /** On SIGTERM, how long requests in flight may take to finish after the port closes (then their connections are cut). */
  SHUTDOWN_DRAIN_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(20_000),
  /** On SIGTERM, how long running jobs may take before they are handed back to the queue for another instance. */
  SHUTDOWN_JOBS_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(10_000),
  /** pino level of the JSON log on stdout. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Lifetime of a session token issued by sign-in (hours). */
  SESSION_TTL_HOURS: z.coerce.number().int().min(1).max(24 * 90).default(24 * 14),
  /** How long a sign-in link may be redeemed (minutes). */
  MAGIC_LINK_TTL_MINUTES: z.coerce.number().int().min(1).max(24 * 60).default(15),
  /** Magic links one address may be sent per hour. */
  MAGIC_LINK_PER_HOUR: z.coerce.number().int().min(1).max(1000).default(5),
  /**
   * Largest REST request body (bytes); larger is a 413. Documented models are small; the limit
   * bounds what a caller can make the server hold at once (uploads and callbacks have their own).
   */
  API_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(16 * 1024 * 1024).default(256 * 1024),
  /**
   * Requests one client address may make per minute to public operations without a credential
   * (directory search, event registration), counted across all instances; 0 turns the limit off.
   */
  PUBLIC_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(300),
  /**
   * How long (seconds) an instance may answer a bearer credential from memory instead of
   * looking it up; revocations reach every instance at once through PostgreSQL notifications
   * (LISTEN needs a session: off with DATABASE_PGBOUNCER). 0 turns the cache off.
   */
  CREDENTIAL_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
  /**
   * Heap the credential cache may hold, in MB, by estimated heap bytes (about 500 bytes a
   * credential; the least recently used go first, and are looked up again when next used).
   * Unset: a thirtieth of V8's heap limit, 8 MB under `npm start`'s flags (about 16,000 credentials).
   */
  CREDENTIAL_CACHE_MB: z.coerce.number().int().min(1).max(1024).optional(),
  /**
   * Requests one credential (API key or session) may make per minute, counted across all
   * instances (within about one second of traffic: core/requests/credential-rate-limit.ts); 0 turns the
   * limit off. 6,000 (100 a second, sustained) leaves a partner integration's sync or a busy
   * back office far below it while one leaked or runaway token cannot take the service alone.
   */
  CREDENTIAL_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).max(100_000_000).default(6000),
  /**
   * Slow clients. A request (headers and body) must arrive within REQUEST_TIMEOUT_MS and its
   * headers within HEADERS_TIMEOUT_MS of the connection's start or of the previous response,
   * else 408 (slow-loris). A connection that moves no byte for CONNECTION_TIMEOUT_MS (a client
   * that stops reading its response, a dead peer) is closed. An idle keep-alive connection is
   * closed after KEEP_ALIVE_TIMEOUT_MS: above a load balancer's idle timeout (60 s on AWS ALB),
   * so the balancer, not the service, closes idle connections first.
   */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(60_000),
  /** Time for a request's headers to arrive (at most REQUEST_TIMEOUT_MS), else 408: the slow-loris guard. */
  HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(15_000),
  /** A connection that moves no byte this long (a client that stops reading, a dead peer) is closed. */
  CONNECTION_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(120_000),
  /** An idle keep-alive connection is closed after this long (keep it above the load balancer's idle timeout). */
  KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(72_000),
  /**
   * Listening sockets for PORT, in one SO_REUSEPORT group (Linux; one socket elsewhere). Node
   * accepts one connection per socket per event-loop turn, so under load a burst of new
   * connections waits a turn each; the kernel spreads them over the sockets (OPERATIONS.md, "Accepting connections").
   */
  LISTEN_SOCKETS: z.coerce.number().int().min(1).max(64).default(8),
  /** Serves Prometheus metrics at /metrics on the service's port to `Authorization: Bearer <METRICS_TOKEN>`. */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Serves Prometheus metrics at /metrics on a separate port (no credential; bind it privately). */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Address of the METRICS_PORT listener. */
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /** Largest file one upload may carry (bytes); larger is a 413. */
  UPLOAD_MAX_BYTES: z.coerce.number().int().min(1024).max(1024 * 1024 * 1024).default(DEFAULT_UPLOAD_MAX_BYTES),
  /** Largest CSV one contact import upload may carry (bytes; streamed to storage, never held whole); larger is a 413. */
  IMPORT_MAX_BYTES: z.coerce.number().int().min(1024).max(4 * 1024 * 1024 * 1024).default(256 * 1024 * 1024),
  /** Rows a contact import writes per transaction (its checkpoint moves with each). */
  IMPORT_BATCH_ROWS: z.coerce.number().int().min(1).max(5000).default(500),
  /**
   * A running contact import whose checkpoint has not moved for this long (its process died) is
   * handed to another worker, which resumes after the last committed batch.
   */
  IMPORT_STALE_SECONDS: z.coerce.number().int().min(1).max(86400).default(60),
  /**
   * Archives the service opens (DOCX templates, at upload and before each generation) are
   * refused (413) with more entries than ZIP_MAX_ENTRIES, more inflated bytes in all than
   * ZIP_MAX_INFLATED_BYTES, or an entry of over 1 MiB compressed more than
   * ZIP_MAX_COMPRESSION_RATIO to 1 — read from the archive's directory before inflating, then
   * counted while inflating (core/external/zip-archive.ts). A Word document is rarely over 200 entries
   * or 20 MB inflated; text compresses 5–20 to 1, a ZIP bomb about 1000 to 1.
   */
  ZIP_MAX_ENTRIES: z.coerce.number().int().min(10).max(100_000).default(1000),
  /** See ZIP_MAX_ENTRIES: the most bytes an archive may inflate to in all. */
  ZIP_MAX_INFLATED_BYTES: z.coerce.number().int().min(1024 * 1024).max(1024 * 1024 * 1024).default(32 * 1024 * 1024),
  /** See ZIP_MAX_ENTRIES: the highest compression ratio of an entry over 1 MiB inflated. */
  ZIP_MAX_COMPRESSION_RATIO: z.coerce.number().int().min(10).max(10_000).default(100),
  /** Where file bytes live: `database` (PostgreSQL, the default) or `s3` (an S3-compatible object store). */
  FILE_STORAGE: z.enum(['database', 's3']).default('database'),
  /** Bucket for file contents; required when FILE_STORAGE is `s3`. */
  S3_BUCKET: z.string().min(3).max(63).optional(),
  /** Region of the bucket. */
  S3_REGION: z.string().min(1).default('us-east-1'),
  /** An S3-compatible endpoint other than AWS (MinIO, R2, ...). */
  S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  /** Addresses objects as `endpoint/bucket/key` instead of `bucket.endpoint/key` (MinIO and most self-hosted stores need it). */
  S3_FORCE_PATH_STYLE: z.stringbool().default(false),
  /** Key prefix for every object this service writes. */
  S3_PREFIX: z.string().max(200).default('files/'),
  /** Static credentials (with S3_SECRET_ACCESS_KEY); when unset the AWS SDK's default chain (environment, profile, instance role) applies. */
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  /** Secret of S3_ACCESS_KEY_ID (set both or neither). */
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** Days the audit trail keeps an entry; an hourly job deletes older ones. */
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(36500).default(365),
  /**
   * Development and tests only: lets requests to URLs staff set (a captcha VerifyUrl) use http and
   * reach loopback, private and link-local addresses. Off, such URLs must be https on a public
   * address, checked when saved and again at every connection (`core/external/outbound.ts`).
   */
  OUTBOUND_ALLOW_PRIVATE: z.stringbool().default(false),
  /**
   * Host names a tenant's captcha VerifyUrl may name besides the known providers' (Cloudflare
   * Turnstile, hCaptcha, Google reCAPTCHA), comma-separated, e.g. `captcha.example.org`. The
   * tenant's captcha secret is sent there.
   */
  CAPTCHA_VERIFY_HOSTS: z.string().optional(),
  /**
   * The SMTP server e-mail (sign-in links) goes through: `smtp://user:password@host:587`
   * (STARTTLS when the server offers it) or `smtps://…:465`. Its host must be a public address
   * unless OUTBOUND_ALLOW_PRIVATE. Unset: outside production each message is written as an `.eml`
   * file under DATA_DIR/outbox (and the log says where); in production it is marked failed.
   */
  SMTP_URL: z.string().regex(/^smtps?:\/\/[^/?#]+/, 'must be an smtp:// or smtps:// URL').optional(),
  /** The From of the e-mail the service sends. */
  SMTP_FROM: z.string().min(3).max(254).default('Membership API <no-reply@localhost>'),
  /** Attempts at one e-mail before it is marked failed (retried with exponential backoff from 10 s to an hour: 12 attempts span about 3.5 hours). */
  SMTP_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(12),
  /**
   * The key payment gateway credentials are encrypted with (AES-256-GCM): 32 random bytes in
   * base64 (`openssl rand -base64 32`). Unset: saving an account with a credential is refused
   * (400 naming Secret; the served OpenAPI document then states that Secret can only be cleared,
   * and why); accounts without one work. Replacing it makes stored credentials
   * unreadable: set them again (OPERATIONS.md, "Payment gateway credentials").
   */
  GATEWAY_SECRET_KEY: z.string().refine((value) => /^[A-Za-z0-9+/]{43}=$/.test(value) && Buffer.from(value, 'base64').length === 32, 'must be 32 bytes in base64').optional(),
});

export type Config = z.infer<typeof configSchema> & { introspection: boolean; graphiql: boolean; isProduction: boolean };

/** A bad variable: printed as one line naming it, exit code 1. */
export class ConfigError extends StartupRefused {}

/**
 * The configuration a background job works with: `given` (tests pass their server's), else the
 * process's, read on first use — job definitions are made at start-up, before anything is read.
 */
export function configOnFirstUse(given?: Config): () => Config {
  let loaded: Config | undefined = given;
  return () => (loaded ??= loadConfig());
}

/**
 * A setting outside the schema (how long a job may run before it is taken to have died with its
 * worker): whole seconds, at least `minimum`, from `env[name]`; undefined when unset.
 */
export function wholeSecondsFromEnv(env: NodeJS.ProcessEnv, name: string, minimum: number): number | undefined {
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < minimum) throw new Error(`Invalid configuration: ${name} must be a whole number of seconds, at least ${minimum} (is ${value})`);
  return seconds;
}

/** Reads the configuration; a bad variable is reported by name. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable counts as unset (as `MASTER_KEY=` in an env file means "none").
  const given = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = configSchema.safeParse(given);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  const config = parsed.data;
  if (Boolean(config.TLS_CERT_FILE) !== Boolean(config.TLS_KEY_FILE)) {
    throw new ConfigError('Invalid configuration: TLS_CERT_FILE and TLS_KEY_FILE must be set together');
  }
  if (config.HEADERS_TIMEOUT_MS > config.REQUEST_TIMEOUT_MS) {
    throw new ConfigError('Invalid configuration: HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS');
  }
  if (config.FILE_STORAGE === 's3' && !config.S3_BUCKET) {
    throw new ConfigError('Invalid configuration: S3_BUCKET is required when FILE_STORAGE is s3');
  }
  if (Boolean(config.S3_ACCESS_KEY_ID) !== Boolean(config.S3_SECRET_ACCESS_KEY)) {
    throw new ConfigError('Invalid configuration: S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together');
  }
  return {
    ...config,
    isProduction: config.NODE_ENV === 'production',
    introspection: config.GRAPHQL_INTROSPECTION ?? config.NODE_ENV !== 'production',
    graphiql: config.GRAPHIQL ?? config.NODE_ENV !== 'production',
  };
}

/** Fastify's trustProxy option from the TRUST_PROXY string. */
export function trustProxySetting(value: string | undefined): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return (_address, hop) => hop < Number(value);
  return value.split(',').map((part) => part.trim());
}
