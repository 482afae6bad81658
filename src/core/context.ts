import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { LRUCache } from 'lru-cache';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import type { Config } from './config.js';
import type { TenantCorsOrigins } from '../services/cors-origins/cors-origins.js';
import type { CredentialCache } from './requests/credential-cache.js';
import { TENANT_FILTER } from '../entities/base.js';
import type { Role } from '../entities/login.js';
import { Forbidden, NotFound, Unauthenticated } from './errors.js';
import { createLoaders, type Loaders } from './data/loaders.js';
import { operationOf, type Metrics } from './runtime/metrics.js';
import { TENANT_KEY_PATTERN } from './values.js';
import { attachAuditActor, attachTenantScope, type AuditActor } from './data/audit.js';

/** Who is calling: resolved from the bearer credential. */
export interface Caller {
  tenantId: number;
  loginId: number;
  contactId: number | null;
  roles: readonly Role[];
  credentialId: number;
  /** The login's sign-in name (email) and the credential's kind (`session`, `api_key`): recorded in the audit trail. */
  login?: string;
  credentialKind?: string;
}

/** Facts about the HTTP request that some operations record (terms acceptance, audit). */
export interface RequestInfo {
  id: string;
  ip: string;
  userAgent: string | null;
  /** Which tenant an anonymous caller of a public operation means: `X-Tenant-Key` header or `?tenant=` (lower-cased). */
  tenantKey: string | null;
  /** The Host header without its port, lower-cased: a tenant's own domain also names it. */
  host: string | null;
  /**
   * The operation the request reached (the documented REST operation, `POST /graphql` until the
   * GraphQL fields are known): the audit trail records it. Absent for background work.
   */
  operation?: string;
}

/** Process-wide dependencies the services may use. */
export interface AppDeps {
  config: Config;
  log: FastifyBaseLogger;
  /** The background job queue; null when the process runs without it (CLI). */
  jobs: PgBoss | null;
  /**
   * A plain `pg` pool for hot paths that bypass the ORM: callback ingestion.
   */
  pool: pg.Pool;
  /** The URL the service is reachable at, for links it sends out. */
  publicBaseUrl: string;
  /** Prometheus metrics of this instance. */
  metrics: Metrics;
  /** Bearer credentials this instance knows (revocations clear it through PostgreSQL notifications). */
  credentials: CredentialCache;
  /** The origins each tenant allows for CORS, kept briefly (services/cors-origins/cors-origins.ts). */
  corsOrigins: TenantCorsOrigins;
}

/**
 * Where an HTTP request's EntityManagers come from. A fork of the ORM's EntityManager (with its
 * unit of work and identity map) is the largest object a request allocates, and most requests
 * only read; so the request's own fork is opened on the first use of `ctx.em`, and until then lean
 * reads go through a reader shared by every request of the same tenant.
 */
export interface RequestEntityManagers {
  /** Opens a new fork for one request (called at most once per request). */
  fork(): EntityManager;
  /**
   * An EntityManager confined to `tenantId` (null: to no tenant) shared by concurrent requests, for
   * the lean read helpers alone (`leanRows`, `leanCount`, …): they keep nothing in it.
   */
  readerFor(tenantId: number | null): EntityManager;
}

/** How many tenants' shared readers a process keeps (each is one idle EntityManager). */
const READERS_KEPT = 256;

/**
 * The EntityManagers of HTTP requests on `orm`: a fresh fork per request that uses one, and one
 * shared reader per tenant (the most recently used `READERS_KEPT` kept), each confined to its
 * tenant by the tenant filter exactly as a request's fork is.
 */
export function requestEntityManagers(orm: MikroORM): RequestEntityManagers {
  const fork = () => orm.em.fork({ clear: true, useContext: false });
  const readers = new LRUCache<number, EntityManager>({ max: READERS_KEPT });
  const tenantless = fork();
  return {
    fork,
    readerFor(tenantId) {
      if (tenantId === null) return tenantless;
      let reader = readers.get(tenantId);
      if (!reader) {
        reader = fork();
        confineToTenant(reader, tenantId);
        readers.set(tenantId, reader);
      }
      return reader;
    },
  };
}

/**
 * The tenant scope, both layers: confines every ORM query through `em` (and its forks) to
 * `tenantId` with the tenant filter, and every statement it sends — raw SQL and lean reads
 * included — with the database's row-level security (`app.tenant_id`, core/data/audit.ts).
 */
export function confineToTenant(em: EntityManager, tenantId: number): void {
  em.setFilterParams(TENANT_FILTER, { tenantId });
  attachTenantScope(em, tenantId);
}

/**
 * Everything one request needs, built once per request and shared by the GraphQL and REST
 * paths: its own EntityManager fork (`em`, opened on first use; tenant filter set when the
 * tenant is known), the EntityManager its lean reads use (`reader`), its DataLoaders, and the
 * caller. Services take it as their first argument.
 */
export class RequestContext {
  readonly loaders: Loaders;
  /** Who the audit trail names for this request's changes (null for background work, which names its job). */
  readonly audit: AuditActor | null = null;
  private readonly managers: RequestEntityManagers | null;
  /**
   * What the request settles as it runs: its own EntityManager once opened, the tenant a public
   * operation serves when there is no caller (`usePublicTenant`), and the field whose `@Authorized`
   * was last checked (`authorize`). One object, because Apollo hands the resolvers a shallow copy
   * of the context: the copy and the original must share it.
   */
  private readonly settled: { em: EntityManager | null; publicTenantId: number | null; authorizedField: string | null } = {
    em: null, publicTenantId: null, authorizedField: null,
  };

  /** `em`: the request's EntityManager, or (HTTP requests) how to open it when first used. */
  constructor(
    readonly app: AppDeps,
    em: EntityManager | RequestEntityManagers,
    readonly caller: Caller | null,
    readonly request: RequestInfo,
  ) {
    if (request.operation !== undefined) {
      this.audit = {
        operation: request.operation,
        loginId: caller?.loginId ?? null,
        login: caller?.login ?? null,
        credentialId: caller?.credentialId ?? null,
        credentialKind: caller?.credentialKind ?? null,
        role: caller ? caller.roles.join(',') : null,
        requestId: request.id,
      };
    }
    this.managers = 'readerFor' in em ? em : null;
    if (!this.managers) this.prepare(em as EntityManager);
    this.loaders = createLoaders(() => this.em);
  }

  /** This request's own EntityManager (its unit of work, transactions, writes); opened on first use. */
  get em(): EntityManager {
    return this.settled.em ?? this.prepare(this.managers!.fork());
  }

  /**
   * The EntityManager for lean reads (`leanRows`, `leanCount`, `leanDistinctOn`, `countsBy`):
   * the request's own once it is open (so reads inside its transaction see its writes), else
   * the shared reader of the request's tenant — no fork for a request that only reads.
   */
  get reader(): EntityManager {
    return this.settled.em ?? this.managers!.readerFor(this.caller?.tenantId ?? this.settled.publicTenantId);
  }

  /** Confines `em` to the request's tenant and names the request as the author of its changes. */
  private prepare(em: EntityManager): EntityManager {
    this.settled.em = em;
    const tenantId = this.caller?.tenantId ?? this.settled.publicTenantId;
    if (tenantId !== null) confineToTenant(em, tenantId);
    if (this.audit) attachAuditActor(em, this.audit);
    return em;
  }

  /** The caller, or 401. */
  requireCaller(): Caller {
    if (!this.caller) throw new Unauthenticated();
    return this.caller;
  }

  /** The caller's tenant id (or the public tenant settled by `usePublicTenant`), else 401. Services pass it explicitly into every write. */
  get tenantId(): number {
    return this.settled.publicTenantId ?? this.requireCaller().tenantId;
  }

  /**
   * For a public operation (no credential needed): settles which tenant it serves and confines
   * this context's queries to it, answering that tenant's id. A signed-in caller is always served
   * its own tenant, so a credential never reaches into another tenant's public records; an
   * anonymous caller names the tenant by `X-Tenant-Key`, `?tenant=`, or the tenant's own domain
   * as the Host. An unknown or missing tenant is a 404: nothing public exists there.
   */
  async usePublicTenant(): Promise<number> {
    if (this.caller) return this.caller.tenantId;
    if (this.settled.publicTenantId !== null) return this.settled.publicTenantId;
    const { tenantKey, host } = this.request;
    if (!tenantKey && !host) throw new NotFound('The tenant');
    const rows = await this.reader.getConnection().execute<{ id: number }[]>(
      tenantKey ? 'select id from tenant where key = ?' : 'select id from tenant where lower(domain) = ?',
      [tenantKey ?? host],
    );
    const id = rows[0]?.id;
    if (id === undefined) throw new NotFound('The tenant');
    this.settled.publicTenantId = id;
    if (this.settled.em) confineToTenant(this.settled.em, id);
    return id;
  }

  /** Whether the caller has `role`. */
  hasRole(role: Role): boolean {
    return this.caller?.roles.includes(role) ?? false;
  }

  /** Whether the caller is staff of its tenant (the back office). */
  get isStaff(): boolean {
    return this.hasRole('staff');
  }

  /**
   * The check of a field's `@Authorized` roles (`field`: `Query.vendors`), once per request: the
   * REST gateway makes it before reading the request, and the authChecker that runs when the
   * field resolves then finds the field already allowed. The caller and a field's roles never
   * change within a request, so remembering a passed check weakens nothing.
   */
  authorize(field: string, roles: Role[]): void {
    if (this.settled.authorizedField === field) return;
    this.requireRole(...roles);
    this.settled.authorizedField = field;
  }

  /** The caller (401 without one), and 403 unless it has one of `roles` (any caller when none are named). */
  requireRole(...roles: Role[]): Caller {
    const caller = this.requireCaller();
    if (roles.length > 0 && !roles.some((role) => caller.roles.includes(role))) throw new Forbidden();
    return caller;
  }
}

export function requestInfo(request: FastifyRequest): RequestInfo {
  const header = request.headers['x-tenant-key'];
  const query = (request.query as Record<string, unknown> | undefined)?.tenant;
  const given = (typeof header === 'string' ? header : typeof query === 'string' ? query : '').toLowerCase();
  const host = (request.headers.host ?? '').toLowerCase().replace(/:\d+$/, '');
  return {
    id: String(request.id),
    ip: request.ip,
    userAgent: request.headers['user-agent'] ?? null,
    tenantKey: TENANT_KEY_PATTERN.test(given) ? given : null,
    host: host.length > 0 && host.length <= 253 ? host : null,
    operation: operationOf(request),
  };
}
