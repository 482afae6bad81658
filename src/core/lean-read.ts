import type { EntityClass, FilterQuery, QueryOrderMap } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

export interface LeanQuery<T> {
  fields: (keyof T & string)[];
  where: FilterQuery<T>;
  orderBy?: QueryOrderMap<T>[];
  limit?: number;
  offset?: number;
}

/**
 * The read path for lists and single reads: plain rows keyed by property name, no entities, no
 * identity map (hydrating entities cost more than the SQL in our benchmark). The EntityManager's
 * filters — the tenant filter above all — are applied exactly as `em.find` would.
 */
export async function leanRows<T extends object, F extends keyof T & string>(
  em: EntityManager,
  entity: EntityClass<T>,
  query: LeanQuery<T> & { fields: F[] },
): Promise<Pick<T, F>[]> {
  // QueryBuilder's generics track joins and aliases this helper never uses; it only needs these calls.
  const qb = em.createQueryBuilder(entity) as unknown as RowQuery;
  qb.select(query.fields).where(query.where);
  if (query.orderBy?.length) qb.orderBy(query.orderBy);
  if (query.limit !== undefined) qb.limit(query.limit);
  if (query.offset) qb.offset(query.offset);
  await qb.applyFilters();
  return qb.execute('all', { mapResults: true }) as Promise<Pick<T, F>[]>;
}

/** How many records match `where` (the EntityManager's filters applied, as in `leanRows`). */
export async function leanCount<T extends object>(em: EntityManager, entity: EntityClass<T>, where: FilterQuery<T>): Promise<number> {
  const qb = em.createQueryBuilder(entity) as unknown as RowQuery;
  qb.where(where);
  await qb.applyFilters();
  return qb.getCount();
}

interface RowQuery {
  select(fields: string[]): RowQuery;
  where(cond: object): RowQuery;
  orderBy(order: object[]): RowQuery;
  limit(limit: number): RowQuery;
  offset(offset: number): RowQuery;
  applyFilters(): Promise<void>;
  execute(method: 'all', options: { mapResults: boolean }): Promise<unknown[]>;
  getCount(): Promise<number>;
}
