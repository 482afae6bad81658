import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, MikroORM, type Options } from '@mikro-orm/postgresql';
import { ReflectMetadataProvider } from '@mikro-orm/decorators/legacy';
import { TENANT_FILTER } from '../entities/base.js';
import { entities, tenantOwnedEntities } from '../areas/index.js';
import { migrations } from './migrations/index.js';
import { addListIndexes } from '../core/list-query.js';

export interface OrmOptions {
  url: string;
  poolMax?: number;
  /** Called once per SQL statement (with its text); used by tests and benchmarks to count statements. */
  onQuery?: (sql: string) => void;
}

/** The one ORM configuration every entry point (server, CLI, tests) uses. */
export function ormConfig(options: OrmOptions): Options {
  return defineConfig({
    clientUrl: options.url,
    entities,
    metadataProvider: ReflectMetadataProvider,
    extensions: [Migrator],
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
    // Every declared list's order and search indexes belong to the schema (src/core/list-query.ts).
    discovery: { afterDiscovered: (storage) => addListIndexes(storage) },
    ignoreUndefinedInQuery: true,
    debug: options.onQuery ? ['query'] : false,
    loggerFactory: options.onQuery ? () => countingLogger(options.onQuery!) : undefined,
  });
}

export async function openOrm(options: OrmOptions): Promise<MikroORM> {
  return MikroORM.init(ormConfig(options));
}

/** Applies pending migrations; returns the names applied. */
export async function migrate(orm: MikroORM): Promise<string[]> {
  const applied = await orm.migrator.up();
  return applied.map((migration) => migration.name);
}

function countingLogger(onQuery: (sql: string) => void) {
  const ignore = () => {};
  return {
    log: ignore,
    error: ignore,
    warn: ignore,
    logQuery: (context: { query: string }) => onQuery(context.query),
    setDebugMode: ignore,
    isEnabled: (namespace: string) => namespace === 'query',
  };
}
