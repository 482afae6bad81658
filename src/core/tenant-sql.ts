import type { EntityManager } from '@mikro-orm/postgresql';
import { ACROSS_TENANTS, attachTenantScope } from './audit.js';

/**
 * Raw SQL in one tenant's scope: the one place that writes a statement's tenant condition and
 * sends it with the tenant scope's settings (core/audit.ts), so a service never writes
 * `tenant_id = ?` nor passes the tenant as a positional parameter.
 *
 *     const sql = tenantSql(ctx);
 *     await sql.all(`select count(*) from invoice i where ${sql.is('i')} and i.status = :status`, { status: 'open' });
 *
 * - `is(alias)` renders `alias.tenant_id = <the tenant>`; `tenant` renders the tenant's id alone
 *   (the value of an INSERT's tenant column). The id is an integer the service resolved itself
 *   (never input), written into the text exactly as MikroORM writes every parameter value, so the
 *   statement sent is the one a `?` parameter would give.
 * - The other values are named (`:status` with `{ status }`, MikroORM's named parameters) or
 *   positional (`?` with an array).
 * - `all`, `get` and `run` send the statement through the scope's EntityManager — inside its
 *   transaction when one is open — with its logger context, which carries the tenant scope: a
 *   statement that left the condition out still sees only this tenant's rows (row-level security).
 *   The explicit condition stays because the planner then keeps the `(tenant_id, …)` indexes.
 */
export interface TenantSql {
  readonly tenantId: number;
  /** `alias.tenant_id = <tenant>` (without an alias: `tenant_id = <tenant>`). */
  is(alias?: string): string;
  /** The tenant's id as SQL text, for an INSERT's tenant column. */
  readonly tenant: string;
  all<T>(text: string, params?: Params): Promise<T[]>;
  get<T>(text: string, params?: Params): Promise<T | undefined>;
  run(text: string, params?: Params): Promise<{ affectedRows: number; rows: unknown[] }>;
}

/** Positional (`?`) or named (`:name`) parameter values. */
export type Params = readonly unknown[] | Readonly<Record<string, unknown>>;

/** What a tenant scope needs: a request context (`ctx`), a job's, or an EntityManager already confined to `tenantId`. */
export interface TenantScoped {
  readonly em: EntityManager;
  readonly tenantId: number;
}

/** The raw-SQL helper for the tenant of `scope` (see `TenantSql`). */
export function tenantSql(scope: TenantScoped): TenantSql {
  const { em, tenantId } = scope;
  if (!Number.isSafeInteger(tenantId)) throw new Error(`Not a tenant id: ${String(tenantId)}`);
  const send = (text: string, params: Params, method: 'all' | 'get' | 'run'): Promise<unknown> =>
    em.execute(text, params as unknown[], method, em.getLoggerContext());
  return {
    tenantId,
    is: (alias) => `${alias ? `${alias}.` : ''}tenant_id = ${tenantId}`,
    tenant: String(tenantId),
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
