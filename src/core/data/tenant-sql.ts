import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { ACROSS_TENANTS, attachTenantScope, confineOpenTransaction, loggerContextScopedTo, type TenantScope } from './audit.js';

/**
 * Raw SQL in one tenant's scope: the one place that writes a statement's tenant condition and
 * sends it with the tenant scope's settings (core/data/audit.ts), so a service never writes
 * `tenant_id = ?` nor passes the tenant among its parameters.
 *
 *     await tenantSql(ctx).all(`select count(*) from invoice i where ${tenantIs('i')} and i.status = ?`, ['open']);
 *
 * - `tenantIs(alias)` writes `alias.tenant_id = {tenant}`, and `TENANT` the `{tenant}` alone (an
 *   INSERT's tenant value). `all`, `get` and `run` put the scope's tenant id there: an integer the
 *   service resolved itself (never input), written into the text as MikroORM writes every
 *   parameter value, so the statement sent is exactly the one a `?` parameter would give. Sent any
 *   other way the braces are a syntax error: a condition cannot silently go missing.
 * - The other values stay parameters: positional (`?`, an array) or named (`:today`, an object;
 *   MikroORM's named parameters).
 * - `all`, `get` and `run` send the statement through the scope's EntityManager — inside its
 *   transaction when one is open (whose settings came from the EntityManager: confine it first,
 *   `confineToTenant`) — and outside one with the tenant scope's settings for `tenantId`: a
 *   statement that left the condition out still sees only this tenant's rows (row-level security,
 *   migration 0030). The explicit condition stays because with it the planner keeps the
 *   `(tenant_id, …)` indexes.
 */
export interface TenantSql {
  readonly tenantId: number;
  all<T>(text: string, params?: Params): Promise<T[]>;
  get<T>(text: string, params?: Params): Promise<T | undefined>;
  run(text: string, params?: Params): Promise<{ affectedRows: number; rows: unknown[] }>;
}

/** Positional (`?`) or named (`:name`) parameter values. */
export type Params = readonly unknown[] | Readonly<Record<string, unknown>>;

/** Where the scope's tenant id goes in a statement sent by `tenantSql`. */
export const TENANT = '{tenant}';

/** The tenant condition on `alias` (none: the statement's only table). */
export function tenantIs(alias?: string): string {
  return `${alias ? `${alias}.` : ''}tenant_id = ${TENANT}`;
}

/** What a tenant scope needs: a request context (`ctx`), a job's, or an EntityManager already confined to `tenantId`. */
export interface TenantScoped {
  readonly em: EntityManager;
  readonly tenantId: number;
}

/** The raw-SQL helper for the tenant of `scope` (see `TenantSql`). */
export function tenantSql(scope: TenantScoped): TenantSql {
  const { em, tenantId } = scope;
  if (!Number.isSafeInteger(tenantId)) throw new Error(`Not a tenant id: ${String(tenantId)}`);
  return { tenantId, ...scopedStatements(em, tenantId, (text) => text.replaceAll(TENANT, String(tenantId))) };
}

/**
 * Raw SQL across tenants, on the named cross-tenant path (see `acrossTenants`): for sweeps whose
 * statements name no tenant (retention, housekeeping). `TENANT` has no meaning here.
 */
export function acrossTenantsSql(em: EntityManager): Omit<TenantSql, 'tenantId'> {
  return scopedStatements(em, ACROSS_TENANTS, (text) => text);
}

/** `all`, `get` and `run` on `em` with the tenant scope `scope` (core/data/audit.ts), each statement's text passed through `render`. */
function scopedStatements(em: EntityManager, scope: TenantScope, render: (text: string) => string): Omit<TenantSql, 'tenantId'> {
  const send = (text: string, params: Params, method: 'all' | 'get' | 'run'): Promise<unknown> =>
    em.execute(render(text), params as unknown[], method, loggerContextScopedTo(em, scope));
  return {
    all: <T>(text: string, params: Params = []) => send(text, params, 'all') as Promise<T[]>,
    get: <T>(text: string, params: Params = []) => send(text, params, 'get') as Promise<T | undefined>,
    run: (text, params = []) => send(text, params, 'run') as Promise<{ affectedRows: number; rows: unknown[] }>,
  };
}

/**
 * A fork of `em` for work that spans tenants on purpose — and is named for it: sweeps over every
 * tenant (billing runs, retention, housekeeping, the callback dispatcher), lookups that find the
 * tenant (a credential by its token, a magic link), the command line and seeding. Its statements
 * set `app.cross_tenant`, the one way past the row-level security policy for the service's role;
 * ORM queries through it still pass `filters: false` (or a tenant) themselves.
 */
export function acrossTenants(em: EntityManager): EntityManager {
  const fork = em.fork({ clear: false, useContext: false });
  attachTenantScope(fork, ACROSS_TENANTS);
  return fork;
}

/** `acrossTenants` for a plain node-postgres connection: puts its open transaction on the cross-tenant path (a job pump's batch, `inPumpTransaction`). */
export function acrossTenantsInTransaction(client: pg.ClientBase): Promise<void> {
  return confineOpenTransaction(client, ACROSS_TENANTS);
}
