import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import type { Config } from './config.js';
import { TENANT_FILTER } from '../entities/base.js';
import type { Role } from '../entities/login.js';
import { Forbidden, Unauthenticated } from './errors.js';
import { createLoaders, type Loaders } from './loaders.js';

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
}

/**
 * Everything one request needs, built once per request and shared by the GraphQL and REST
 * paths: its own EntityManager fork (tenant filter set when a caller is known), its
 * DataLoaders, and the caller. Services take it as their first argument.
 */
export class RequestContext {
  readonly loaders: Loaders;

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

  /** The caller's tenant id, or 401. Services pass it explicitly into every write. */
  get tenantId(): number {
    return this.requireCaller().tenantId;
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
  return { id: String(request.id), ip: request.ip, userAgent: request.headers['user-agent'] ?? null };
}
