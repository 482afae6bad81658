import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import type { Config } from './config.js';
import type { CredentialCache } from './credential-cache.js';
import { TENANT_FILTER } from '../entities/base.js';
import type { Role } from '../entities/login.js';
import { Forbidden, NotFound, Unauthenticated } from './errors.js';
import { createLoaders, type Loaders } from './loaders.js';
import type { Metrics } from './metrics.js';
import { TENANT_KEY_PATTERN } from './values.js';

/** Who is calling: resolved from the bearer credential. */
export interface Caller {
  tenantId: number;
  loginId: number;
  contactId: number | null;
  roles: readonly Role[];
  credentialId: number;
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
}

/**
 * Everything one request needs, built once per request and shared by the GraphQL and REST
 * paths: its own EntityManager fork (tenant filter set when a caller is known), its
 * DataLoaders, and the caller. Services take it as their first argument.
 */
export class RequestContext {
  readonly loaders: Loaders;
  /** The tenant a public operation serves when there is no caller (`usePublicTenant`). */
  private publicTenantId: number | null = null;

  constructor(
    readonly app: AppDeps,
    readonly em: EntityManager,
    readonly caller: Caller | null,
    readonly request: RequestInfo,
  ) {
    if (caller) em.setFilterParams(TENANT_FILTER, { tenantId: caller.tenantId });
    this.loaders = createLoaders(em);
  }

  /** The caller, or 401. */
  requireCaller(): Caller {
    if (!this.caller) throw new Unauthenticated();
    return this.caller;
  }

  /** The caller's tenant id (or the public tenant settled by `usePublicTenant`), else 401. Services pass it explicitly into every write. */
  get tenantId(): number {
    return this.publicTenantId ?? this.requireCaller().tenantId;
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
    if (this.publicTenantId !== null) return this.publicTenantId;
    const { tenantKey, host } = this.request;
    if (!tenantKey && !host) throw new NotFound('The tenant');
    const rows = await this.em.getConnection().execute<{ id: number }[]>(
      tenantKey ? 'select id from tenant where key = ?' : 'select id from tenant where lower(domain) = ?',
      [tenantKey ?? host],
    );
    const id = rows[0]?.id;
    if (id === undefined) throw new NotFound('The tenant');
    this.publicTenantId = id;
    this.em.setFilterParams(TENANT_FILTER, { tenantId: id });
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
  };
}
