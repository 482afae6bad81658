import {
  ConnectionException,
  DeadlockException,
  ForeignKeyConstraintViolationException,
  LockWaitTimeoutException,
  OptimisticLockError,
  UniqueConstraintViolationException,
} from '@mikro-orm/core';
import { GraphQLError } from 'graphql';
import { ApiError, BadInput, Conflict, NotFound, ServiceUnavailable, staleAuditId } from './errors.js';

/** The problem+json / extensions.code view of any error, and whether it was unexpected (a bug). */
export interface MappedError {
  error: ApiError;
  unexpected: boolean;
}

/**
 * The one place where errors become API errors: our typed errors pass through; GraphQL input
 * coercion failures become 400s naming the field; database conflicts become 409s; an
 * unreachable database a 503. Anything else is a 500 and is logged as a bug.
 */
export function mapError(thrown: unknown): MappedError {
  const original = thrown instanceof GraphQLError && thrown.originalError ? thrown.originalError : thrown;
  if (original instanceof ApiError) return { error: original, unexpected: false };
  if (original instanceof OptimisticLockError) return { error: staleAuditId(), unexpected: false };
  if (original instanceof UniqueConstraintViolationException) return { error: new Conflict('A record with the same unique value exists.'), unexpected: false };
  if (original instanceof ForeignKeyConstraintViolationException) return { error: referenceConflict(original), unexpected: false };
  if (original instanceof DeadlockException || original instanceof LockWaitTimeoutException) return { error: new Conflict('The record is busy; try again.'), unexpected: false };
  if (original instanceof ConnectionException || isConnectionFailure(original)) return { error: new ServiceUnavailable(), unexpected: false };
  // Row-level security refused a row of another tenant (or the serving role lacks a grant): to the
  // caller that record does not exist. Still logged: the tenant filter should have stopped it first.
  if (sqlStateOf(original) === INSUFFICIENT_PRIVILEGE) return { error: new NotFound(), unexpected: true };
  if (thrown instanceof GraphQLError && (!thrown.originalError || original instanceof GraphQLError)) {
    // Errors GraphQL raised itself (coercion of variables, an invalid document); the outer
    // message carries the path of the offending input. The protocol's own codes
    // (GRAPHQL_PARSE_FAILED, …) are kept: GraphQL clients know them.
    const problems = [{ field: fieldOf(thrown.message), message: thrown.message }];
    // (graphql-jit's errors without `extensions` are remade with them in core/requests/compiled-execution.ts.)
    const code: unknown = thrown.extensions.code;
    return {
      error: typeof code === 'string' && GRAPHQL_PROTOCOL_CODES.has(code) ? new ApiError(400, code, thrown.message, problems) : new BadInput(problems, thrown.message),
      unexpected: false,
    };
  }
  return { error: new ApiError(500, 'INTERNAL_SERVER_ERROR', 'An unexpected error occurred.'), unexpected: true };
}

/**
 * A foreign key (or a JSON reference trigger, migration 0036) refused a write: a 409 naming the
 * record and what uses it, or the referenced record that is missing. PostgreSQL's detail names the
 * tables: `Key (id)=(5) is still referenced from table "store_item".` on a delete,
 * `Key (category_item_id)=(77) is not present in table "category_item".` on a write.
 */
function referenceConflict(error: { message: string; detail?: unknown }): Conflict {
  const detail = typeof error.detail === 'string' ? error.detail : '';
  const used = /^Key \(\w+\)=\(([^)]*)\) is still referenced from table "(\w+)"/.exec(detail);
  const deletedTable = /update or delete on table "(\w+)"/.exec(error.message)?.[1];
  if (used && deletedTable) {
    return new Conflict(`The ${nounOf(deletedTable)} ${used[1]} is used by at least one ${nounOf(used[2])}; change or remove that use first.`);
  }
  const missing = /^Key \(\w+\)=\(([^)]*)\) is not present in table "(\w+)"/.exec(detail);
  if (missing) return new Conflict(`The ${nounOf(missing[2])} ${missing[1]} does not exist.`);
  return new Conflict('The record is referenced by other records or refers to a missing one.');
}

/** What a table's row is called in messages: its name in words, unless that reads badly. */
function nounOf(table: string): string {
  return TABLE_NOUNS[table] ?? table.replaceAll('_', ' ');
}

const TABLE_NOUNS: Partial<Record<string, string>> = {
  scheduled_billing: 'billing schedule',
  scheduled_billing_run_item: 'billing run item',
  scheduled_billing_run_record: 'billing run',
  membership_type_payment_plan: 'payment plan',
  store_order_line: 'store order line',
  contact_chapter: 'chapter link',
};

/** Codes of GraphQL requests that could not be run at all: a 400 under the code clients know. */
const GRAPHQL_PROTOCOL_CODES = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'OPERATION_RESOLUTION_FAILURE']);

/** `mapError`, reporting anything unexpected (a bug) to `onUnexpected` on the way. */
export function toApiError(thrown: unknown, onUnexpected: (error: unknown) => void): ApiError {
  const { error, unexpected } = mapError(thrown);
  if (unexpected) onUnexpected(thrown);
  return error;
}

/**
 * The input a GraphQL coercion message is about, as the documented name:
 * `Variable "$input" got invalid value 5 at "input.Name"; ...` → `Name`,
 * `... Field "Name" of required type "String!" was not provided.` → `Name`,
 * `Variable "$vendorid" of required type "Int!" was not provided.` → `vendorid`.
 */
export function fieldOf(message: string): string {
  const at = /got invalid value .*? at "([^"]+)"/s.exec(message)?.[1];
  // graphql-js writes `Field "Name" of required type`; graphql-jit `Field value.Name of required type`.
  const missingMatch = /Field (?:"([^"]+)"|value\.(\S+)) of required type/.exec(message);
  const missing = missingMatch?.[1] ?? missingMatch?.[2];
  const variable = /Variable "\$([^"]+)"/.exec(message)?.[1];
  const unknownField = /Field "([^"]+)" is not defined by type/.exec(message)?.[1];
  const path = at ? stripRoot(at, variable) : null;
  const leaf = missing ?? unknownField;
  if (path && leaf) return `${path}.${leaf}`;
  if (leaf) return leaf;
  if (path) return path;
  return variable ?? 'request';
}

/** `input.Name` → `Name` (a documented body is the whole `input` variable). */
function stripRoot(path: string, variable: string | undefined): string | null {
  if (variable && path === variable) return null;
  if (variable && path.startsWith(`${variable}.`)) return path.slice(variable.length + 1);
  if (variable && path.startsWith(`${variable}[`)) return path.slice(variable.length);
  return path;
}

/** PostgreSQL's SQLSTATE for a row-level security violation or a missing grant. */
const INSUFFICIENT_PRIVILEGE = '42501';

/** The SQLSTATE of a driver error, or of the one the ORM wrapped. */
function sqlStateOf(error: unknown): unknown {
  const { code, sqlState, cause } = (error ?? {}) as { code?: unknown; sqlState?: unknown; cause?: { code?: unknown } };
  return sqlState ?? code ?? cause?.code;
}

/** Network failures, and PostgreSQL refusing or dropping connections (classes 08, 53300, 57P0x). */
const CONNECTION_FAILURES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '53300', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006']);

/** What pg, its pool and the ORM say when a connection was lost or could not be had. */
const CONNECTION_FAILURE_MESSAGES = /Connection terminated|terminating connection|not currently accepting connections|database system is (starting up|shutting down)|not queryable|timeout exceeded when trying to connect|Client was closed|has already been destroyed|connect ECONNREFUSED/i;

function isConnectionFailure(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 3) return false;
  const { code, sqlState } = error as { code?: unknown; sqlState?: unknown };
  return [code, sqlState].some((value) => typeof value === 'string' && CONNECTION_FAILURES.has(value))
    || CONNECTION_FAILURE_MESSAGES.test(error.message)
    // The ORM and AggregateError wrap the driver's error.
    || isConnectionFailure(error.cause, depth + 1)
    || (error instanceof AggregateError && error.errors.some((inner) => isConnectionFailure(inner, depth + 1)));
}
