import { raw, type EntityClass, type EntityData, type EntityMetadata, type EntityProperty, type FilterQuery, type Platform, type QueryOrderMap, type RawQueryFragment, type RequiredEntityData } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { TENANT_FILTER } from '../../entities/base.js';
import { cachedStatement } from './statement-cache.js';

/**
 * What a lean read selects: property names (rows keyed by them, `['id', 'name']`), or the keys of
 * the caller's model mapped to properties (`{ VendorId: 'id', Name: 'name' }`): rows keyed as the
 * model has them, so a service that answers them needs no copy of its own.
 */
export type Selection<T> = readonly (keyof T & string)[] | Readonly<Record<string, keyof T & string>>;

/** The row a selection reads: the properties picked, under their own names or the model's keys. */
export type RowOf<T, S extends Selection<T>> = S extends readonly (infer F)[]
  ? Pick<T, F & keyof T>
  : { -readonly [K in keyof S]: T[S[K] & keyof T] };

/** A record already in hand (a saved entity) under a selection's model keys: the row a lean read of it would answer. */
export function rowFrom<R, const S extends Readonly<Record<string, keyof R & string>>>(record: R, selection: S): RowOf<R, S> {
  const row: Record<string, unknown> = {};
  for (const key of Object.keys(selection)) row[key] = record[selection[key]];
  return row as RowOf<R, S>;
}

export interface LeanQuery<T, S extends Selection<T> = Selection<T>> {
  fields: S;
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
 * The read path for lists and single reads: plain rows, no entities, no identity map (hydrating
 * entities cost more than the SQL in our benchmark). The EntityManager's filters — the tenant
 * filter above all — are applied exactly as `em.find` would. The SQL of each query shape is built
 * once (`statement-cache.ts`); a shape it cannot cache is built each time. Each column is selected
 * under the row's key (`"website_url" as "websiteUrl"`), so the row node-postgres makes is the
 * row answered: no copy per row (`rowReader`).
 */
export async function leanRows<T extends object, const S extends Selection<T>>(
  em: EntityManager,
  entity: EntityClass<T>,
  query: LeanQuery<T, S>,
): Promise<RowOf<T, S>[]> {
  const reader = rowReader(em, entity, query.fields);
  const shaped = { ...query, fields: reader.select };
  const statement = await cachedStatement(em, { ...shaped, entity: entity.name },
    async (probe, standIns) => (await buildRowQuery(probe, entity, { ...shaped, ...standIns })).toQuery());
  if (!statement) {
    const qb = await buildRowQuery(em, entity, shaped);
    return reader.read(await qb.execute('all', { mapResults: false })) as RowOf<T, S>[];
  }
  const context: unknown = em.getTransactionContext();
  // As the QueryBuilder does: a read outside a transaction may go to a replica (core/data/read-routing.ts),
  // and it carries the EntityManager's logger context (its tenant scope: core/data/audit.ts).
  const rows = await em.getDriver().getConnection(context ? 'write' : 'read').execute<EntityData<T>[]>(
    statement.sql, statement.params, 'all', context, em.getLoggerContext());
  return reader.read(rows) as RowOf<T, S>[];
}

/** How the rows of one selection are read: the select list (each column under its key) and the values node-postgres leaves as text. */
interface RowReader {
  select: string[];
  read(rows: unknown[]): unknown[];
}

const MAX_READERS = 5000;
const readers = new Map<string, RowReader>();

/**
 * The reader of a selection of `entity`, made once per selection. A list of properties is selected
 * in the entity's property order, the order MikroORM's result mapper gave its rows; a model's keys
 * in the model's order.
 */
function rowReader<T extends object>(em: EntityManager, entity: EntityClass<T>, fields: Selection<T>): RowReader {
  const key = `${entity.name}|${Array.isArray(fields) ? fields.join(',') : JSON.stringify(fields)}`;
  let reader = readers.get(key);
  if (reader) return reader;
  const meta = em.getMetadata().get(entity);
  const properties = Array.isArray(fields) ? (fields as readonly string[]).map((property) => readable(meta, property).name) : null;
  const pairs = properties
    ? meta.props.filter((prop) => properties.includes(prop.name)).map((prop) => [prop.name, prop.name] as const)
    : Object.entries(fields as Record<string, string>);
  const columns = pairs.map(([as, property]) => ({ as, prop: readable(meta, property) }));
  reader = { select: pairs.map(([as, property]) => `${property} as ${as}`), read: valueReader(em.getPlatform(), columns) };
  if (readers.size < MAX_READERS) readers.set(key, reader);
  return reader;
}

/** A property a lean read can select under a key of its own: one column (a scalar, or a many-to-one read as its id). */
function readable(meta: EntityMetadata, property: string): EntityProperty {
  const prop = meta.properties[property];
  if (!prop || prop.fieldNames?.length !== 1 || prop.embedded || prop.polymorphic) {
    throw new Error(`A lean read of ${meta.className} cannot select ${property}: not a property of one column`);
  }
  return prop;
}

/**
 * Turns, in place, the values node-postgres leaves as text into what MikroORM's result mapper
 * (`EntityComparator.getResultMapper`) made of them: timestamps into Dates (the ORM's time zone
 * added to a text without one), booleans of non-boolean columns into booleans. Most selections
 * have none: their rows are answered as they came.
 */
function valueReader(platform: Platform, columns: readonly { as: string; prop: EntityProperty }[]): (rows: unknown[]) => unknown[] {
  const dates = columns.filter(({ prop }) => prop.runtimeType === 'Date' && !platform.isNumericProperty(prop)).map(({ as }) => as);
  const booleans = columns.filter(({ prop }) => prop.runtimeType === 'boolean').map(({ as }) => as);
  if (dates.length === 0 && booleans.length === 0) return (rows) => rows;
  const timezone = platform.getTimezone();
  const toDate = (value: unknown): unknown => {
    if (value === null || value === undefined || value instanceof Date) return value;
    if (typeof value === 'bigint') return platform.parseDate(Number(value));
    const text = value as string | number;
    const zoned = !timezone || timezone === 'local' || typeof text === 'number' || text.includes('+') || text.lastIndexOf('-') > 10 || text.endsWith('Z');
    return platform.parseDate(zoned ? text : `${text}${timezone}`);
  };
  return (rows) => {
    for (const row of rows as Record<string, unknown>[]) {
      for (const key of dates) row[key] = toDate(row[key]);
      for (const key of booleans) row[key] = row[key] === null || row[key] === undefined ? row[key] : Boolean(row[key]);
    }
    return rows;
  };
}

/**
 * Each sort key in an object of its own, in the order given: the columns are selected under their
 * row keys, so MikroORM takes a key that names a selected column for a raw fragment, and refuses
 * an object that mixes one with a plain property (`{ occurredAt: 'asc', id: 'asc' }`).
 */
function oneKeyEach<T>(orderBy: readonly QueryOrderMap<T>[]): QueryOrderMap<T>[] {
  return orderBy.flatMap((order) => Reflect.ownKeys(order).map((key) => ({ [key]: order[key as keyof typeof order] }) as QueryOrderMap<T>));
}

async function buildRowQuery<T extends object>(em: EntityManager, entity: EntityClass<T>, query: Omit<LeanQuery<T>, 'fields'> & { fields: string[] }) {
  const qb = rowQuery(em, entity);
  qb.select(query.fields).where(query.where);
  if (query.orderBy?.length) qb.orderBy(oneKeyEach(query.orderBy));
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
export async function leanDistinctOn<T extends object, const S extends Selection<T>>(
  em: EntityManager,
  entity: EntityClass<T>,
  query: LeanQuery<T, S> & { distinctOn: (keyof T & string)[] },
): Promise<RowOf<T, S>[]> {
  const reader = rowReader(em, entity, query.fields);
  const qb = rowQuery(em, entity);
  qb.select(reader.select).distinctOn(query.distinctOn).where(query.where);
  if (query.orderBy?.length) qb.orderBy(oneKeyEach(query.orderBy));
  await qb.applyFilters();
  return reader.read(await qb.execute('all', { mapResults: false })) as RowOf<T, S>[];
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
