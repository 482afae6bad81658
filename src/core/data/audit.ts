import { AsyncLocalStorage } from 'node:async_hooks';
import { raw, type Configuration, type EventSubscriber, type TransactionEventArgs } from '@mikro-orm/core';
import { PostgreSqlConnection, PostgreSqlDriver, type EntityManager } from '@mikro-orm/postgresql';
import type { GraphQLSchema } from 'graphql';
import type pg from 'pg';
import type { RequestContext } from '../context.js';

/**
 * The link between the code and the database's transaction-local settings (`app.*`), which
 * PostgreSQL reads in two places:
 * - the audit trail: every change to a tenant-owned table is recorded by one row trigger
 *   (`audit_record_change`, migration 0022) that reads who made it and through which operation
 *   from `app.audit_*`;
 * - the tenant scope's second layer: the row-level security policy on every tenant table
 *   (`tenant_scope`, migration 0030) shows a statement only the rows of the tenant in
 *   `app.tenant_id`, or every tenant's when `app.cross_tenant` is `on` (code that works across
 *   tenants on purpose: `acrossTenants`).
 * This module sets them, always in one statement (`select set_config(…), …`) and always
 * transaction-local, so a pooled connection never carries them to the next request:
 * - once at the start of every transaction MikroORM opens (a flush's own transaction,
 *   `inTransaction`, `em.transactional`): `AuditActorSubscriber`;
 * - for a statement sent outside any transaction: `AuditedPostgreSqlConnection` sends the
 *   settings and the statement as one simple-protocol message, which PostgreSQL runs as one
 *   implicit transaction (one round trip; the settings end with it).
 * The actor comes from the request (`RequestContext.audit`, current while a GraphQL root field
 * runs — both interfaces run through them — and attached to the request's EntityManager and its
 * forks) or from the background job running (`runAsJob`); the tenant scope is attached to the
 * EntityManager (`attachTenantScope`) wherever the tenant filter's parameter is set.
 */
/** Who is behind a change and how it came in. */
export interface AuditActor {
  /** The GraphQL field(s), the documented REST operation (`POST /api/vendors`), the job name. */
  operation: string;
  loginId: number | null;
  /** The login's sign-in name (its email), kept as it was at the time of the change. */
  login: string | null;
  credentialId: number | null;
  /** `session` or `api_key`. */
  credentialKind: string | null;
  /** The caller's role (`staff`, `member`, `partner`; several joined by commas). */
  role: string | null;
  requestId: string | null;
}

/** The actor of the work running now: a request's root field (`auditRootFields`) or a background job (`runAsJob`). */
const actorScope = new AsyncLocalStorage<AuditActor>();

/** Where the actor also travels with an EntityManager: its logger context, which every fork (and `em.transactional`) inherits. */
const LOGGER_CONTEXT_KEY = 'auditActor';

/** Makes `actor` the author of every change made through `em` and the forks taken from it later. */
export function attachAuditActor(em: EntityManager, actor: AuditActor): void {
  em.setLoggerContext({ ...em.getLoggerContext({ disableContextResolution: true }), [LOGGER_CONTEXT_KEY]: actor });
}

function actorOf(loggerContext: unknown): AuditActor | undefined {
  return (loggerContext as Record<string, AuditActor | undefined> | undefined)?.[LOGGER_CONTEXT_KEY];
}

/** Runs `work` as the background job `name`: changes it makes are recorded with that operation. */
export function runAsJob<R>(name: string, work: () => Promise<R>): Promise<R> {
  return actorScope.run({ operation: name, loginId: null, login: null, credentialId: null, credentialKind: null, role: null, requestId: null }, work);
}

/**
 * Runs every root field (query or mutation) of `schema` with its request's actor as the current
 * one, so that writes anywhere below it — raw SQL on `ctx.em.getConnection()` included — name it.
 * Only root fields are wrapped: nested fields cost nothing.
 */
export function auditRootFields(schema: GraphQLSchema): GraphQLSchema {
  for (const type of [schema.getQueryType(), schema.getMutationType()]) {
    for (const field of Object.values(type?.getFields() ?? {})) {
      const resolve = field.resolve;
      if (!resolve) continue;
      field.resolve = (source, args, context: RequestContext | undefined, info) => {
        const actor = context?.audit;
        return actor ? actorScope.run(actor, () => resolve(source, args, context, info)) : resolve(source, args, context, info);
      };
    }
  }
  return schema;
}

/** The setting names the trigger reads, in the order `auditSettings` answers their values. */
const SETTINGS = ['operation', 'login_id', 'login', 'credential_id', 'credential_kind', 'role', 'request_id'] as const;

/** Setting name and value pairs, flattened (`['app.audit_operation', 'POST /api/vendors', …]`). */
type Settings = string[];

function auditSettings(actor: AuditActor | undefined): Settings {
  if (!actor) return [];
  const text = (value: string | number | null) => (value === null ? '' : String(value));
  const values = [actor.operation, actor.loginId, actor.login, actor.credentialId, actor.credentialKind, actor.role, actor.requestId];
  return SETTINGS.flatMap((name, index) => [`app.audit_${name}`, text(values[index])]);
}

/** The role tenant-scoped statements run as (`serveScopedStatementsAs`); none: the login's own. */
let scopedRole: string | undefined;

/**
 * Makes every tenant-scoped transaction and statement run as `role` (none: as the login): the
 * role is one more transaction-local setting (`set_config('role', …, true)`, as `SET LOCAL ROLE`),
 * so the row-level security policies bind the statement even when the login owns the tables or
 * is a superuser, and the connection is the login's again when the transaction ends. Unscoped
 * statements (migrations, pg-boss, bootstrapping lookups) keep the login. Set once at start-up,
 * after checking the login may take the role (`db/serving-role.ts`).
 */
export function serveScopedStatementsAs(role: string | undefined): void {
  scopedRole = role;
  scopeSettingsTexts.clear();
}

/** The tenant scope's settings: the tenant the statements are confined to, or every tenant; and the role they run as. */
function tenantSettings(scope: TenantScope | undefined): Settings {
  if (scope === undefined) return [];
  return scopedRole ? [...confinementSettings(scope), 'role', scopedRole] : confinementSettings(scope);
}

/** The setting that confines statements to `scope`: one tenant, or every tenant. */
function confinementSettings(scope: TenantScope): Settings {
  return scope === ACROSS_TENANTS ? ['app.cross_tenant', 'on'] : ['app.tenant_id', String(scope)];
}

const setSettingsTexts: string[] = [];

/**
 * The one statement that sets `settings` for the current transaction; `placeholder(n)` writes the
 * n-th parameter. MikroORM's `?` form goes with every scoped statement, so its text is made once
 * per number of settings.
 */
function setSettingsStatement(settings: Settings, placeholder?: (position: number) => string): string {
  const count = settings.length / 2;
  const text = (write: (position: number) => string) =>
    `select ${Array.from({ length: count }, (_, pair) => `set_config(${write(2 * pair + 1)}, ${write(2 * pair + 2)}, true)`).join(', ')}`;
  return placeholder ? text(placeholder) : (setSettingsTexts[count] ??= text(() => '?'));
}

/**
 * Confines the open transaction of a plain node-postgres connection (no EntityManager: a job
 * pump's batch) to `scope`. It keeps the login — no role, unlike an EntityManager's scope — as
 * pg-boss's own statements do: the pump inserts pg-boss's jobs on the same connection.
 */
export async function confineOpenTransaction(client: pg.ClientBase, scope: TenantScope): Promise<void> {
  const settings = confinementSettings(scope);
  await client.query(setSettingsStatement(settings, (position) => `$${position}`), settings);
}

/** What the tenant scope of an EntityManager is: one tenant's id, or every tenant (`ACROSS_TENANTS`). */
export type TenantScope = number | typeof ACROSS_TENANTS;

/** The scope of code that works across tenants on purpose (sweeps, credential lookups, the command line); see `acrossTenants`. */
export const ACROSS_TENANTS = 'all';

/** Where the tenant scope travels with an EntityManager: its logger context, beside the actor. */
const TENANT_SCOPE_KEY = 'tenantScope';

/**
 * Confines the statements sent through `em` (and the forks taken from it later) to `scope` in the
 * database's row-level security, the layer under the tenant filter. Called where the filter's
 * parameter is set (`RequestContext`, the shared readers) and by `acrossTenants`.
 */
export function attachTenantScope(em: EntityManager, scope: TenantScope): void {
  em.setLoggerContext({ ...em.getLoggerContext({ disableContextResolution: true }), [TENANT_SCOPE_KEY]: scope });
}

/** `em`'s logger context with the tenant scope `scope`, for one statement (`tenantSql`), whatever `em` is confined to. */
export function loggerContextScopedTo(em: EntityManager, scope: TenantScope): Record<string, unknown> {
  return { ...em.getLoggerContext({ disableContextResolution: true }), [TENANT_SCOPE_KEY]: scope };
}

function tenantScopeOf(loggerContext: unknown): TenantScope | undefined {
  return (loggerContext as Record<string, TenantScope | undefined> | undefined)?.[TENANT_SCOPE_KEY];
}

/**
 * Sets the actor's and the tenant scope's settings at the start of each top-level transaction (a
 * savepoint inherits them): one statement per transaction. Registered in the ORM configuration
 * (`db/orm.ts`). A transaction with no actor (command line, migrations, demo seeding) is recorded
 * as `system`; one with no tenant scope sees no tenant's rows.
 */
export class AuditActorSubscriber implements EventSubscriber {
  async afterTransactionStart(args: TransactionEventArgs): Promise<void> {
    const transaction = args.transaction as { savepointName?: string } | undefined;
    if (!transaction || transaction.savepointName) return;
    const em = args.em as EntityManager;
    const context = em.getLoggerContext({ disableContextResolution: true });
    const settings = [...auditSettings(actorOf(context) ?? actorScope.getStore()), ...tenantSettings(tenantScopeOf(context))];
    if (settings.length === 0) return;
    await em.getConnection('write').execute(setSettingsStatement(settings), settings, 'run', args.transaction);
  }
}

/** INSERT, UPDATE, DELETE, MERGE, or a WITH that holds one. */
const WRITE_STATEMENT = /^\s*(?:insert|update|delete|merge)\b|^\s*with\b[\s\S]*\b(?:insert|update|delete)\b/i;

type Execute = PostgreSqlConnection['execute'];

/** What node-postgres answers for each statement of a message. */
interface StatementResult {
  command: string;
  rowCount: number | null;
  rows: unknown[];
}

/**
 * The PostgreSQL connection, but a statement sent outside any transaction carries its settings:
 * the tenant scope of the EntityManager that sent it, and for a write the actor (when known). The
 * settings and the statement go as one simple-protocol message (`select set_config(…); <statement>`),
 * which PostgreSQL runs as one implicit transaction: one round trip, and the settings end with it.
 * (MikroORM already sends every statement with its values written into the text, so the simple
 * protocol changes nothing else.) Statements inside transactions, and statements with no settings
 * to carry, pass straight through.
 */
export class AuditedPostgreSqlConnection extends PostgreSqlConnection {
  override async execute<T>(...[query, params, method = 'all', ctx, loggerContext]: Parameters<Execute>): Promise<T> {
    if (ctx || typeof query !== 'string') return super.execute(query, params, method, ctx, loggerContext) as Promise<T>;
    const actor = WRITE_STATEMENT.test(query) ? actorScope.getStore() ?? actorOf(loggerContext) : undefined;
    const scope = tenantScopeOf(loggerContext);
    const setSettings = actor ? this.setSettingsText([...auditSettings(actor), ...tenantSettings(scope)]) : this.setScopeText(scope);
    if (setSettings === null) return super.execute(query, params, method, ctx, loggerContext) as Promise<T>;
    await this.ensureConnection();
    // Named parameters (an object) are positional ones after `raw`, as MikroORM's own execute does it.
    const fragment = Array.isArray(params) || params === undefined ? { sql: query, params: params ?? [] } : raw(query, params);
    const statement = this.platform.formatQuery(fragment.sql, fragment.params as unknown[]);
    const message = `${setSettings};\n${statement}`;
    const pool = await this.getNativeClient();
    return this.executeQuery(this.getSql(fragment.sql, statement, loggerContext), async () => {
      const results = (await queryKeepingConnection(pool, message)) as StatementResult[];
      const last = results[results.length - 1];
      const affected = /^(INSERT|UPDATE|DELETE|MERGE)$/.test(last.command) ? BigInt(last.rowCount ?? 0) : undefined;
      return this.transformRawResult<T>({ rows: last.rows, numAffectedRows: affected }, method);
    }, { query: fragment.sql, params: fragment.params as unknown[], formatted: statement, ...loggerContext });
  }

  /** The statement setting `settings`, values written in; null when there are none. */
  private setSettingsText(settings: Settings): string | null {
    return settings.length === 0 ? null : this.platform.formatQuery(setSettingsStatement(settings), settings);
  }

  /** The statement setting a read's tenant scope (no actor), made once per scope: every read of a tenant sends the same one. */
  private setScopeText(scope: TenantScope | undefined): string | null {
    if (scope === undefined) return null;
    let text = scopeSettingsTexts.get(scope);
    if (text === undefined) {
      // Bounded: past it, the texts are made again as tenants come (a few hundred bytes each).
      if (scopeSettingsTexts.size >= MAX_SCOPE_SETTINGS_TEXTS) scopeSettingsTexts.clear();
      scopeSettingsTexts.set(scope, (text = this.setSettingsText(tenantSettings(scope))!));
    }
    return text;
  }
}

/** The statements setting each tenant scope (`setScopeText`), at most this many kept (~0.5 MB). */
const MAX_SCOPE_SETTINGS_TEXTS = 4096;
const scopeSettingsTexts = new Map<TenantScope, string>();

/**
 * Runs `text` on a connection of `pool` and gives the connection back. Unlike `pool.query`, an
 * error the server answered (it has a SQLSTATE: a constraint, a policy, a cancelled statement)
 * keeps the connection in the pool, as MikroORM's own path does; only a broken connection is
 * closed.
 */
async function queryKeepingConnection(pool: pg.Pool, text: string): Promise<unknown> {
  const client = await pool.connect();
  try {
    const result = await client.query(text);
    client.release();
    return result;
  } catch (error) {
    client.release((error as { code?: string }).code ? undefined : (error as Error));
    throw error;
  }
}

/** The PostgreSQL driver on `AuditedPostgreSqlConnection` (the ORM configuration's `driver`). */
export class AuditedPostgreSqlDriver extends PostgreSqlDriver {
  constructor(config: Configuration) {
    super(config);
    // The base class builds its connections from a class it names itself; these replace them before any use
    // (the replicas too: a replica's reads carry the tenant scope like the primary's).
    Object.assign(this, {
      connection: new AuditedPostgreSqlConnection(this.config),
      replicas: this.createReplicas((replica) => new AuditedPostgreSqlConnection(this.config, replica, 'read')),
    });
  }
}

/**
 * Tables whose changes are not audited (the migration's `audit_excluded_tables()` holds the same
 * list; a test checks that every other table with a `tenant_id` carries the trigger):
 * technical, high-churn or secret-bearing state rather than records anyone edits.
 */
export const AUDIT_EXCLUDED_TABLES = [
  'audit_entry', // the trail itself
  'idempotency_record', // stored responses of repeated requests, 24 h
  'provider_callback', // raw inbound provider deliveries and their processing state
  'email_event', // provider events normalized from those deliveries (an append-only log already)
  'meeting_event', // the same, for meetings
  'outbox_message', // outgoing mail queue: bodies carry sign-in links (secrets)
  'file_content', // file bytes (stored_file, the file's record, is audited)
  'webhook_event', // outbound webhook outbox: one row per event, written with the change it describes
  'webhook_delivery', // its delivery state, changed on every attempt
  'contact_import_dry_contact', // what an import's dry run would have left: scratch state, deleted when the run ends
] as const;

/**
 * Tenant tables without the row-level security policy (migration 0030's `rls_excluded_tables()`
 * holds the same list; a test checks every other table with a `tenant_id` has it): read before any
 * tenant is known through the plain `pg` pool, whose statements carry no tenant scope yet.
 */
export const RLS_EXCLUDED_TABLES = [
  'provider_callback', // callback ingestion stores a delivery before anything else runs
  'callback_secret', // and verifies its signature with the secret found by the tenant's key
  'idempotency_record', // repeated requests' stored responses, claimed and read per credential
] as const;
