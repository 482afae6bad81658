import { raw, type EntityClass, type EntityData, type FilterQuery, type QueryOrderMap, type RawQueryFragment, type RequiredEntityData } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { TENANT_FILTER } from '../../entities/base.js';
import { cachedStatement } from './statement-cache.js';

export interface LeanQuery<T> {
  fields: (keyof T & string)[];
  where: FilterQuery<T>;
  orderBy?: QueryOrderMap<T>[];
  limit?: number;
  offset?: number;
  /**
   * Default filters turned off for this read, e.g. `{ notDeleted: false }` for a list that may
   * show archived records. The tenant filter can never be turned off here.
   */
  filters?: Record<string, false>;
}

/**
 * The read path for lists and single reads: plain rows keyed by property name, no entities, no
 * identity map (hydrating entities cost more than the SQL in our benchmark). The EntityManager's
 * filters — the tenant filter above all — are applied exactly as `em.find` would. The SQL of each
 * query shape is built once (`statement-cache.ts`); a shape it cannot cache is built each time.
 */
export async function leanRows<T extends object, F extends keyof T & string>(
  em: EntityManager,
  entity: EntityClass<T>,
  query: LeanQuery<T> & { fields: F[] },
): Promise<Pick<T, F>[]> {
  const statement = await cachedStatement(em, { ...query, entity: entity.name },
    async (probe, standIns) => (await buildRowQuery(probe, entity, { ...query, ...standIns })).toQuery());
  if (!statement) {
    const qb = await buildRowQuery(em, entity, query);
    return qb.execute('all', { mapResults: true }) as Promise<Pick<T, F>[]>;
  }
  const context: unknown = em.getTransactionContext();
  const driver = em.getDriver();
  // As the QueryBuilder does: a read outside a transaction may go to a replica (core/data/read-routing.ts),
  // and it carries the EntityManager's logger context (its tenant scope: core/data/audit.ts).
  const rows = await driver.getConnection(context ? 'write' : 'read').execute<EntityData<T>[]>(
    statement.sql, statement.params, 'all', context, em.getLoggerContext());
  const meta = em.getMetadata().get(entity);
  return rows.map((row) => driver.mapResult(row, meta) as unknown as Pick<T, F>);
}

async function buildRowQuery<T extends object>(em: EntityManager, entity: EntityClass<T>, query: LeanQuery<T>) {
  const qb = rowQuery(em, entity);
  qb.select(query.fields).where(query.where);
  if (query.orderBy?.length) qb.orderBy(query.orderBy);
  if (query.limit !== undefined) qb.limit(query.limit);
  if (query.offset) qb.offset(query.offset);
  await qb.applyFilters(withoutTenantSwitch(query.filters));
  return qb;
}

/**
 * The first row of each group of equal `distinctOn` values (PostgreSQL `DISTINCT ON`), the
 * first by `orderBy` — which must start with the `distinctOn` properties. E.g. the newest terms
 * of each login type in one statement.
 */
export async function leanDistinctOn<T extends object, F extends keyof T & string>(
  em: EntityManager,
  entity: EntityClass<T>,
  query: LeanQuery<T> & { fields: F[]; distinctOn: (keyof T & string)[] },
): Promise<Pick<T, F>[]> {
  const qb = rowQuery(em, entity);
  qb.select(query.fields).distinctOn(query.distinctOn).where(query.where);
  if (query.orderBy?.length) qb.orderBy(query.orderBy);
  await qb.applyFilters();
  return qb.execute('all', { mapResults: true }) as Promise<Pick<T, F>[]>;
}

/**
 * How many records match `where`, per value of `groupBy` (a column or a many-to-one, read as
 * its id): one grouped statement, e.g. for a DataLoader's batch or a chart. Values without
 * records are absent from the map.
 */
export async function countsBy<T extends object>(em: EntityManager, entity: EntityClass<T>, groupBy: keyof T & string, where: FilterQuery<T>): Promise<Map<unknown, number>> {
  const qb = rowQuery(em, entity, 'e');
  qb.select([`e.${groupBy}`, raw('count(*) as count')]).where(where).groupBy(`e.${groupBy}`);
  await qb.applyFilters();
  const rows = (await qb.execute('all', { mapResults: true })) as Record<string, unknown>[];
  return new Map(rows.map((row) => [idOrValue(row[groupBy]), Number(row.count)]));
}

/**
 * Inserts `rows`, skipping any that would break the unique key `conflictOn` (`INSERT … ON
 * CONFLICT (…) DO NOTHING`): idempotent writes such as likes or recorded events, race-free
 * without a read first. Answers how many rows were new.
 */
export async function insertIgnoringDuplicates<T extends object>(
  em: EntityManager, entity: EntityClass<T>, rows: RequiredEntityData<T>[], conflictOn: (keyof T & string)[],
): Promise<number> {
  if (rows.length === 0) return 0;
  const qb = rowQuery(em, entity);
  const result = await qb.insert(rows).onConflict(conflictOn).ignore().execute('run');
  return result.affectedRows;
}

/**
 * Deletes the rows matching `where` in one `DELETE … RETURNING` and answers `fields` of what they
 * held: for a delete that must go on with the deleted record's values (its files to release), with
 * no read before it that a concurrent change could make stale. The tenant filter is not applied
 * to a delete: `where` names the tenant itself (as every write does).
 */
export async function deleteReturning<T extends object, F extends keyof T & string>(
  em: EntityManager, entity: EntityClass<T>, where: FilterQuery<T>, fields: F[],
): Promise<Pick<T, F>[]> {
  const meta = em.getMetadata().get(entity);
  const { sql, params } = rowQuery(em, entity).delete(where).toQuery();
  // MikroORM's QueryBuilder ignores `returning` on a delete (it returns only on inserts and updates), so the clause is added here.
  const properties: Record<string, { fieldNames: string[] }> = meta.properties;
  const returning = fields.flatMap((field) => properties[field].fieldNames).map((column) => em.getPlatform().quoteIdentifier(column));
  const rows = await em.getConnection().execute<EntityData<T>[]>(`${sql} returning ${returning.join(', ')}`, params, 'all', em.getTransactionContext(), em.getLoggerContext());
  // The driver maps columns to properties and converts their values, as for any read.
  // (Typed as the fields asked for: MikroORM types the mapped row as any data of T.)
  return rows.map((row) => em.getDriver().mapResult(row, meta) as unknown as Pick<T, F>);
}

function idOrValue(value: unknown): unknown {
  return value !== null && typeof value === 'object' && 'id' in value ? value.id : value;
}

/** How many records match `where` (the EntityManager's filters applied, as in `leanRows`, but for the `filters` turned off). */
export async function leanCount<T extends object>(em: EntityManager, entity: EntityClass<T>, where: FilterQuery<T>, filters?: Record<string, false>): Promise<number> {
  const qb = rowQuery(em, entity);
  qb.where(where);
  await qb.applyFilters(withoutTenantSwitch(filters));
  return qb.getCount();
}

/** The filter switches of a read, never one for the tenant filter. */
function withoutTenantSwitch(filters: Record<string, false> | undefined): Record<string, false> | undefined {
  if (!filters) return undefined;
  const { [TENANT_FILTER]: _tenant, ...others } = filters;
  return others;
}

/**
 * Conditions that must all hold, as one filter of `T` (absent ones skipped). MikroORM cannot type
 * a condition built for a generic entity, so the kit builds them as plain objects and types them
 * here, once.
 */
export function allOf<T>(...conditions: (object | null | undefined)[]): FilterQuery<T> {
  const given = conditions.filter((condition): condition is object => Boolean(condition) && Object.keys(condition ?? {}).length > 0);
  // Typed as a plain object first: FilterQuery<T> accepts any object, not an `$and` of them.
  const combined: object = given.length === 0 ? {} : given.length === 1 ? given[0] : { $and: given };
  return combined;
}

/**
 * The key a relation holds in a lean row (the id), or in an entity (a reference with its id);
 * null for an empty relation.
 */
export function idOf(relation: number | { id: number }): number;
export function idOf(relation: number | { id: number } | null | undefined): number | null;
export function idOf(relation: number | { id: number } | null | undefined): number | null {
  if (relation === null || relation === undefined) return null;
  return typeof relation === 'number' ? relation : relation.id;
}

// MikroORM's QueryBuilder generics track joins and aliases these helpers never use; they need
// only these calls, typed once here instead of at every use.
function rowQuery<T extends object>(em: EntityManager, entity: EntityClass<T>, alias?: string): RowQuery & InsertQuery & DeleteQuery {
  return em.createQueryBuilder(entity, alias) as unknown as RowQuery & InsertQuery & DeleteQuery;
}

interface RowQuery {
  select(fields: (string | RawQueryFragment)[]): RowQuery;
  distinctOn(fields: string[]): RowQuery;
  groupBy(field: string): RowQuery;
  where(cond: object): RowQuery;
  orderBy(order: object[]): RowQuery;
  limit(limit: number): RowQuery;
  offset(offset: number): RowQuery;
  applyFilters(filterOptions?: Record<string, boolean>): Promise<void>;
  toQuery(): { sql: string; params: readonly unknown[] };
  execute(method: 'all', options: { mapResults: boolean }): Promise<unknown[]>;
  getCount(): Promise<number>;
}

interface DeleteQuery {
  delete(cond: object): DeleteQuery;
  toQuery(): { sql: string; params: unknown[] };
}

interface InsertQuery {
  insert(rows: object[]): InsertQuery;
  onConflict(fields: string[]): InsertQuery;
  ignore(): InsertQuery;
  execute(method: 'run'): Promise<{ affectedRows: number }>;
}
