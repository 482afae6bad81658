import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from './core/config.js';
import type { StartProgress } from './core/runtime/progress.js';
import { externalDatabase, startEmbeddedDatabase, type DatabaseServer } from './db/database.js';
import { parseReplicaUrls } from './core/data/read-routing.js';
import { migrate, openOrm } from './db/orm.js';

/** The database server and ORM every entry point (server, CLI) starts the same way. */
export interface Runtime {
  database: DatabaseServer;
  orm: MikroORM;
  stop(): Promise<void>;
}

/** Connects to DATABASE_URL, or starts the embedded PostgreSQL under DATA_DIR; applies migrations (with `progress`, shown one by one). */
export async function startRuntime(config: Config, log: (message: string) => void, progress?: StartProgress): Promise<Runtime> {
  const database = config.DATABASE_URL
    ? externalDatabase(config.DATABASE_URL)
    : await startEmbeddedDatabase({ dataDir: config.DATA_DIR, port: config.EMBEDDED_PG_PORT, database: 'membership', log });
  try {
    const orm = await openOrm({ url: database.url, poolMax: config.DATABASE_POOL_MAX, replicaUrls: parseReplicaUrls(config.DATABASE_REPLICA_URLS) });
    const applied = await migrate(orm, progress);
    if (applied.length) log(`applied migrations: ${applied.join(', ')}`);
    return {
      database,
      orm,
      async stop() {
        await orm.close();
        await database.stop();
      },
    };
  } catch (error) {
    await database.stop();
    throw error;
  }
}
