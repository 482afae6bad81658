import type { EntityManager } from '@mikro-orm/postgresql';
import { TENANT_FILTER } from '../../entities/base.js';

/**
 * The SQL of a lean read, built once per query *shape* instead of once per request. MikroORM's
 * QueryBuilder turns a filter object into SQL on every call — the largest single cost of a list
 * request in our profiles — though requests of one shape (same entity, fields, order, filter
 * structure, tenant filter on) differ only in their values.
 *
 * How a shape is compiled, safely: the query is built once with a distinct sentinel in place of
 * every value (each filter value, the tenant filter's id, limit and offset). The shape is kept only
 * if every SQL parameter is exactly one of the sentinels and every sentinel is a parameter (none
 * was inlined into the SQL text or transformed); the parameter list then says which value goes
 * where, and later requests of the shape send the same SQL with their own values. Anything
 * else — booleans, nulls and operators are part of the shape; values of other kinds (entities,
 * raw fragments, dates) make the shape uncacheable — falls back to the QueryBuilder.
 */

/** Compiled SQL and, per parameter, which of the request's values it takes. */
interface CompiledStatement {
  sql: string;
  slots: number[];
}

/** The values of one request, in the order the shape found them, and its shape key. */
interface Shaped {
  key: string;
  values: unknown[];
}

/** What a lean query is made of; `where`, `limit` and `offset` carry the request's values. */
export interface LeanQueryParts<W> {
  entity: string;
  fields: string[];
  where: W;
  orderBy?: unknown;
  limit?: number;
  offset?: number;
  /** Default filters turned off (part of the shape: they change the SQL). */
  filters?: Record<string, false>;
}

/** The values of a query of the shape, replaced by sentinels, for building the shape's SQL once. */
export interface StandIns<W> {
  where: W;
  limit?: number;
  offset?: number;
}

/** Builds a query's SQL and parameters on `probe` (an EntityManager with the tenant filter's stand-in id). */
export type BuildStatement<W> = (probe: EntityManager, standIns: StandIns<W>) => Promise<{ sql: string; params: readonly unknown[] }>;

const MAX_SHAPES = 5000;
const compiled = new Map<string, CompiledStatement | null>();

/** A value's part of the shape key: a slot for numbers and strings, the value itself for what SQL may inline. */
function describe(value: unknown, values: unknown[], out: string[]): boolean {
  if (typeof value === 'number' || typeof value === 'string') {
    values.push(value);
    out.push(typeof value === 'number' ? '#' : '$');
    return true;
  }
  if (value === null || value === undefined || typeof value === 'boolean') {
    out.push(String(value));
    return true;
  }
  if (Array.isArray(value)) {
    out.push('[');
    for (const item of value) if (!describe(item, values, out)) return false;
    out.push(']');
    return true;
  }
  // A raw SQL fragment as a key (`{ [raw(…)]: … }`) is a symbol Object.entries would skip: not cached.
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype && Object.getOwnPropertySymbols(value).length === 0) {
    out.push('{');
    for (const [key, item] of Object.entries(value)) {
      out.push(JSON.stringify(key), ':');
      if (!describe(item, values, out)) return false;
    }
    out.push('}');
    return true;
  }
  return false; // a date, an entity, a raw SQL fragment, ...: not cached
}

/**
 * The SQL of a lean query and its parameters (this request's values), from the compiled statement
 * of its shape; on the shape's first request, `build` makes the shape's SQL from sentinel values
 * and the result is remembered. Null when the query cannot be cached: the caller builds it itself.
 */
export async function cachedStatement<W>(em: EntityManager, parts: LeanQueryParts<W>, build: BuildStatement<W>): Promise<{ sql: string; params: unknown[] } | null> {
  const shape = shapeOf(em, parts);
  if (!shape) return null;
  let statement = compiled.get(shape.key);
  if (statement === undefined) statement = await compile(em, parts, shape, build);
  return statement && { sql: statement.sql, params: statement.slots.map((slot) => shape.values[slot]) };
}

/** The shape of a lean query and its values, or null when it cannot be cached. */
function shapeOf(em: EntityManager, parts: LeanQueryParts<unknown>): Shaped | null {
  const values: unknown[] = [];
  const out = [parts.entity, '|', parts.fields.join(','), '|', JSON.stringify(parts.orderBy ?? null), '|', JSON.stringify(parts.filters ?? null), '|'];
  if (!describe(parts.where, values, out)) return null;
  const tenant = tenantFilterId(em);
  out.push('|t', tenant === undefined ? '-' : '#', '|l', parts.limit === undefined ? '-' : '#', '|o', parts.offset ? '#' : '-');
  if (tenant !== undefined) values.push(tenant);
  if (parts.limit !== undefined) values.push(parts.limit);
  if (parts.offset) values.push(parts.offset);
  return { key: out.join(''), values };
}

/**
 * Compiles a shape from the SQL and parameters `build` makes for sentinel values (`sentinels[i]`
 * stands for value i) and remembers the result; null (never cached) when `build` refuses the
 * stand-ins or the SQL does not take every value as a parameter.
 */
async function compile<W>(em: EntityManager, parts: LeanQueryParts<W>, shape: Shaped, build: BuildStatement<W>): Promise<CompiledStatement | null> {
  const { sentinels, tenantId, ...query } = standIns(em, parts, shape);
  const probe = em.fork({ clear: true, useContext: false });
  if (tenantId !== undefined) probe.setFilterParams(TENANT_FILTER, { tenantId });
  let built: { sql: string; params: readonly unknown[] } | null;
  try {
    built = await build(probe, query);
  } catch {
    built = null;
  }
  const statement = built && mapsEveryValue(built.sql, built.params, sentinels) ? { sql: built.sql, slots: built.params.map((param) => sentinels.indexOf(param)) } : null;
  if (compiled.size < MAX_SHAPES) compiled.set(shape.key, statement);
  return statement;
}

/** Every parameter is one of the sentinels, every sentinel is a parameter, and none was inlined into the SQL. */
function mapsEveryValue(sql: string, params: readonly unknown[], sentinels: readonly unknown[]): boolean {
  return params.every((param) => sentinels.includes(param))
    && sentinels.every((sentinel) => params.includes(sentinel) && !sql.includes(String(sentinel)));
}

/** The tenant filter's id on `em`, if it is set. */
function tenantFilterId(em: EntityManager): number | undefined {
  return (em.getFilterParams(TENANT_FILTER) as { tenantId?: number } | undefined)?.tenantId;
}

/**
 * A query of `shape` with a distinct sentinel in place of each of its values, in the order
 * `shapeOf` collected them (the filter's values, then the tenant filter's id, limit and offset),
 * and the sentinels.
 */
function standIns<W>(em: EntityManager, query: { where: W; limit?: number; offset?: number }, shape: Shaped) {
  const sentinels = sentinelsFor(shape.values);
  const next = { index: 0 };
  // Property order is evaluation order: the same order as shapeOf's.
  return {
    sentinels,
    where: withSentinels(query.where, sentinels, next),
    tenantId: tenantFilterId(em) === undefined ? undefined : (sentinels[next.index++] as number),
    limit: query.limit === undefined ? undefined : (sentinels[next.index++] as number),
    offset: query.offset ? (sentinels[next.index++] as number) : undefined,
  };
}

/** Distinct stand-ins for a shape's values, of the same kinds (numbers stay 32-bit integers). */
function sentinelsFor(values: readonly unknown[]): unknown[] {
  return values.map((value, index) => (typeof value === 'number' ? 1_700_000_001 + index * 7 : `\u0002sentinel${index}\u0003`));
}

/** Rebuilds a value tree with the sentinels in the order `describe` found its values. */
function withSentinels<T>(value: T, sentinels: readonly unknown[], next = { index: 0 }): T {
  if (typeof value === 'number' || typeof value === 'string') return sentinels[next.index++] as T;
  if (Array.isArray(value)) return value.map((item: unknown) => withSentinels(item, sentinels, next)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withSentinels(item, sentinels, next)])) as T;
  }
  return value;
}
