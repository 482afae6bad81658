import { AsyncLocalStorage } from 'node:async_hooks';
import type { ConnectionType } from '@mikro-orm/core';
import { AuditedPostgreSqlDriver } from './audit.js';

/**
 * Read replicas (`DATABASE_REPLICA_URLS`): which statements may read from a replica.
 *
 * MikroORM picks a connection per statement: 'write' (the primary) for every INSERT, UPDATE,
 * DELETE, raw `em.execute`, and anything inside a transaction; 'read' for a SELECT outside one
 * (`em.find`, `em.count`, the list pipeline and lean reads, DataLoaders). This module narrows
 * 'read' further: a read goes to a replica only inside a scope that allowed it, i.e. while a
 * GraphQL query or a REST route of a query field is answered, and the caller did not ask for the
 * primary with `X-Read-Primary: true`. Everything else — mutations, raw routes (uploads,
 * callbacks, downloads), authentication, jobs, the CLI, migrations — reads the primary, so
 * nothing that writes ever decides on a replica's possibly older copy.
 *
 * Read-your-own-writes: a mutation runs and answers from the primary (the record it returns is
 * the one it wrote); a client that reads again right after a write and must see it sends
 * `X-Read-Primary: true` on that read (SCALING.md).
 */

interface ReadScope {
  replica: boolean;
}

const scopes = new AsyncLocalStorage<ReadScope>();

/**
 * Whether any ORM of this process has replicas (set by `replicaConnections`, never unset): until
 * then every read goes to the primary anyway, and requests open no scope (an AsyncLocalStorage
 * context per request costs about 1 % of a list's CPU).
 */
let replicasInUse = false;

/** The request header a caller sends to read from the primary (read-your-own-writes across requests). */
export const READ_PRIMARY_HEADER = 'x-read-primary';

/** Whether the value of the `X-Read-Primary` header asks for primary reads (`true` or `1`). */
export function wantsPrimary(value: string | string[] | null | undefined): boolean {
  return typeof value === 'string' && /^(true|1)$/i.test(value.trim());
}

/** Runs `work` in a read scope; its reads use replicas once `allowReplicaReads` is called in it (or at once with `replica`). */
export function withReadScope<T>(work: () => T, replica = false): T {
  return replicasInUse ? scopes.run({ replica }, work) : work();
}

/** Lets the rest of the current read scope read from a replica (a query operation has been recognised). */
export function allowReplicaReads(): void {
  const scope = scopes.getStore();
  if (scope) scope.replica = true;
}

export function replicaReadsAllowed(): boolean {
  return scopes.getStore()?.replica ?? false;
}

/**
 * The service's PostgreSQL driver: the audit trail's (writes name their author) with the rule
 * above: a 'read' connection is a replica only inside a scope that allowed it, else the primary.
 * Without replicas configured every statement goes to the primary.
 */
export class ReplicaRoutingDriver extends AuditedPostgreSqlDriver {
  override getConnection(type: ConnectionType = 'write') {
    return super.getConnection(type === 'read' && replicaReadsAllowed() ? 'read' : 'write');
  }
}

/** MikroORM `replicas` from the comma-separated `DATABASE_REPLICA_URLS` (each URL complete: host, port, user, password, database). */
export function replicaConnections(urls: readonly string[]) {
  replicasInUse = true;
  return urls.map((url, index) => {
    const parsed = new URL(url);
    return {
      name: `read-${index + 1}`,
      host: parsed.hostname,
      port: Number(parsed.port || 5432),
      user: decodeURIComponent(parsed.username),
      password: decodeURIComponent(parsed.password),
      dbName: decodeURIComponent(parsed.pathname.replace(/^\//, '')),
    };
  });
}

/** The list of replica URLs in the configuration value. */
export function parseReplicaUrls(value: string | undefined): string[] {
  return (value ?? '').split(',').map((url) => url.trim()).filter(Boolean);
}
