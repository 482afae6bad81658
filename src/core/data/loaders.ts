import type { EntityClass } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';

/**
 * Per-request DataLoaders. Resolvers that need a related record or a count ask these instead of
 * querying per row, so a list costs the same number of statements at any length.
 */
export class Loaders {
  private readonly byIdLoaders = new Map<EntityClass<object>, DataLoader<number, object | null>>();
  private readonly named = new Map<string, DataLoader<unknown, unknown>>();

  /** `em`: the request's EntityManager, asked for only when a loader first runs a batch. */
  constructor(private readonly em: () => EntityManager) {}

  /** Loads records of `entity` by primary key, batched per tick; the tenant filter applies. */
  byId<T extends { id: number }>(entity: EntityClass<T>): DataLoader<number, T | null> {
    let loader = this.byIdLoaders.get(entity);
    if (!loader) {
      loader = new DataLoader<number, object | null>(async (ids) => {
        const rows = await this.em().find(entity, { id: { $in: [...ids] } } as never);
        const byId = new Map(rows.map((row) => [row.id, row]));
        return ids.map((id) => byId.get(id) ?? null);
      });
      this.byIdLoaders.set(entity, loader);
    }
    return loader as DataLoader<number, T | null>;
  }

  /**
   * A loader an area defines (a count per parent, the rows of a relation, ...), made once per
   * request under `name`. `batch` gets every key asked for in one tick and answers in key order.
   */
  custom<K, V>(name: string, batch: (em: EntityManager, keys: readonly K[]) => Promise<V[]>): DataLoader<K, V> {
    let loader = this.named.get(name);
    if (!loader) {
      loader = new DataLoader<K, V>((keys) => batch(this.em(), keys));
      this.named.set(name, loader);
    }
    return loader as DataLoader<K, V>;
  }
}

export function createLoaders(em: () => EntityManager): Loaders {
  return new Loaders(em);
}
