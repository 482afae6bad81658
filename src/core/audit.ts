import { AsyncLocalStorage } from 'node:async_hooks';
import type { Configuration, EventSubscriber, TransactionEventArgs } from '@mikro-orm/core';
import { PostgreSqlConnection, PostgreSqlDriver, type EntityManager } from '@mikro-orm/postgresql';
import type { GraphQLSchema } from 'graphql';
import type { RequestContext } from './context.js';

/**
 * The audit trail's link between the code and the database. Every change to a tenant-owned table
 * is recorded by one PostgreSQL row trigger (`audit_record_change`, migration 0022) in the
 * transaction of the change; the trigger reads who made it and through which operation from
 * transaction-local settings (`app.audit_*`). This module sets them, in one statement
 * (`select set_config(…), …`):
 * - once at the start of every transaction MikroORM opens (a flush's own transaction,
 *   `inTransaction`, `em.transactional`): `AuditActorSubscriber`;
 * - for a write statement sent outside any transaction (a single `nativeUpdate`, `deleteRecord`,
 *   raw SQL), in a short transaction of its own: `AuditedPostgreSqlConnection`.
 * The actor comes from the request (`RequestContext.audit`, current while a GraphQL root field
 * runs — both interfaces run through them — and attached to the request's EntityManager and its
 * forks) or from the background job running (`runAsJob`).
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
const SET_AUDIT_SETTINGS = `select ${SETTINGS.map((name) => `set_config('app.audit_${name}', ?, true)`).join(', ')}`;

function auditSettings(actor: AuditActor): string[] {
  const text = (value: string | number | null) => (value === null ? '' : String(value));
  return [actor.operation, actor.loginId, actor.login, actor.credentialId, actor.credentialKind, actor.role, actor.requestId].map(text);
}

/**
 * Sets the actor's settings at the start of each top-level transaction (a savepoint inherits
 * them): one statement per transaction. Registered in the ORM configuration (`db/orm.ts`). A
 * transaction with no actor (command line, migrations, demo seeding) is recorded as `system`.
 */
export class AuditActorSubscriber implements EventSubscriber {
  async afterTransactionStart(args: TransactionEventArgs): Promise<void> {
    const transaction = args.transaction as { savepointName?: string } | undefined;
    if (!transaction || transaction.savepointName) return;
    const em = args.em as EntityManager;
    const actor = actorOf(em.getLoggerContext({ disableContextResolution: true })) ?? actorScope.getStore();
    if (!actor) return;
    await em.getConnection('write').execute(SET_AUDIT_SETTINGS, auditSettings(actor), 'run', args.transaction);
  }
}

/** INSERT, UPDATE, DELETE, MERGE, or a WITH that holds one. */
const WRITE_STATEMENT = /^\s*(?:insert|update|delete|merge)\b|^\s*with\b[\s\S]*\b(?:insert|update|delete)\b/i;

type Execute = PostgreSqlConnection['execute'];

/**
 * The PostgreSQL connection, but a write statement sent outside any transaction while an actor
 * is known runs in a short transaction of its own that first sets the actor (BEGIN, the settings,
 * the statement, COMMIT). Reads and statements inside transactions pass straight through.
 */
export class AuditedPostgreSqlConnection extends PostgreSqlConnection {
  override async execute<T>(...[query, params, method, ctx, loggerContext]: Parameters<Execute>): Promise<T> {
    const actor = ctx || typeof query !== 'string' || !WRITE_STATEMENT.test(query) ? undefined : actorScope.getStore() ?? actorOf(loggerContext);
    if (!actor) return super.execute(query, params, method, ctx, loggerContext) as Promise<T>;
    return this.transactional(async (transaction) => {
      await super.execute(SET_AUDIT_SETTINGS, auditSettings(actor), 'run', transaction);
      return super.execute(query, params, method, transaction, loggerContext) as Promise<T>;
    });
  }
}

/** The PostgreSQL driver on `AuditedPostgreSqlConnection` (the ORM configuration's `driver`). */
export class AuditedPostgreSqlDriver extends PostgreSqlDriver {
  constructor(config: Configuration) {
    super(config);
    // The base class builds its connection from a class it names itself; this one replaces it before any use.
    Object.assign(this, { connection: new AuditedPostgreSqlConnection(this.config) });
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
] as const;
