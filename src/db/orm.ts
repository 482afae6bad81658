import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, MikroORM, type Options } from '@mikro-orm/postgresql';
import { replicaConnections, ReplicaRoutingDriver } from '../core/data/read-routing.js';
import { ReflectMetadataProvider } from '@mikro-orm/decorators/legacy';
import { AuditActorSubscriber } from '../core/data/audit.js';
import { TENANT_FILTER } from '../entities/base.js';
import { entities, tenantOwnedEntities } from '../areas/index.js';
import { migrations } from './migrations/index.js';
import { addListIndexes } from '../core/data/list-query.js';
import type { StartProgress } from '../core/runtime/progress.js';
import { StartupRefused } from '../core/runtime/failures.js';

export interface OrmOptions {
  url: string;
  poolMax?: number;
  /**
   * Read replicas (complete PostgreSQL URLs): reads of query operations go there
   * (`core/data/read-routing.ts`); everything else stays on `url`.
   */
  replicaUrls?: readonly string[];
  /** Called once per SQL statement (with its text and the connection that ran it); used by tests and benchmarks to count statements. */
  onQuery?: (statement: { query?: string; connection?: { type?: string; name?: string } }) => void;
}

/** The one ORM configuration every entry point (server, CLI, tests) uses. */
export function ormConfig(options: OrmOptions): Options {
  return defineConfig({
    clientUrl: options.url,
    // Reads of query operations may go to replicas; writes name their author for the audit trail.
    driver: ReplicaRoutingDriver,
    ...(options.replicaUrls?.length ? { replicas: replicaConnections(options.replicaUrls), preferReadReplicas: true } : {}),
    entities,
    metadataProvider: ReflectMetadataProvider,
    extensions: [Migrator],
    // Names the author of every change for the audit trail's trigger (core/data/audit.ts).
    subscribers: [new AuditActorSubscriber()],
    pool: { min: 0, max: options.poolMax ?? 10 },
    filters: {
      // The tenant filter: confines every read, update and delete of a tenant-owned entity to
      // the tenant set with em.setFilterParams(TENANT_FILTER, { tenantId }). Without the param
      // MikroORM refuses the query, so forgetting the tenant fails loudly instead of leaking.
      [TENANT_FILTER]: {
        cond: (args: { tenantId: number }) => ({ tenant: args.tenantId }),
        entity: tenantOwnedEntities,
        default: true,
        args: true,
      },
    },
    migrations: { migrationsList: migrations, transactional: true, allOrNothing: true, snapshot: false, silent: true },
    allowGlobalContext: false,
    forceUtcTimezone: true,
    // Every declared list's order and search indexes belong to the schema (src/core/data/list-query.ts).
    discovery: { afterDiscovered: (storage) => addListIndexes(storage) },
    ignoreUndefinedInQuery: true,
    debug: options.onQuery ? ['query'] : false,
    loggerFactory: options.onQuery ? () => countingLogger(options.onQuery!) : undefined,
  });
}

export async function openOrm(options: OrmOptions): Promise<MikroORM> {
  return MikroORM.init(ormConfig(options));
}

/**
 * Applies pending migrations; returns the names applied. With `progress`, each applied migration
 * is a tick. Refuses (StartupRefused) a database that recorded migrations this build does not
 * know: a newer build migrated it, and this one would run on a schema it was not written for.
 */
export async function migrate(orm: MikroORM, progress?: StartProgress): Promise<string[]> {
  await refuseUnknownMigrations(orm);
  const pending = progress ? (await orm.migrator.getPending()).length : 0;
  if (!progress || !pending) return (await orm.migrator.up()).map((migration) => migration.name);
  const step = progress('migrations', pending);
  const tick = () => step.tick();
  orm.migrator.on('migrated', tick);
  try {
    return (await orm.migrator.up()).map((migration) => migration.name);
  } finally {
    orm.migrator.off('migrated', tick);
    step.finish();
  }
}

async function refuseUnknownMigrations(orm: MikroORM): Promise<void> {
  const known = new Set(migrations.map((migration) => migration.name));
  const unknown = (await orm.migrator.getExecuted()).map((row) => row.name.replace(/\.[jt]s$/, '')).filter((name) => !known.has(name));
  if (!unknown.length) return;
  throw new StartupRefused(
    `The database was migrated by a newer version of the service: this build does not know its migration${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')}. ` +
    'Start the newer version (or restore a backup taken before it migrated).',
  );
}

function countingLogger(onQuery: NonNullable<OrmOptions['onQuery']>) {
  const ignore = () => {};
  return {
    log: ignore,
    error: ignore,
    warn: ignore,
    logQuery: (context: { query?: string; connection?: { type?: string; name?: string } }) => onQuery(context),
    setDebugMode: ignore,
    isEnabled: (namespace: string) => namespace === 'query',
  };
}
