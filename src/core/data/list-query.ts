import type { EntityClass, EntityMetadata, FilterQuery, MetadataStorage, QueryOrderMap } from '@mikro-orm/core';
import type { RequestContext } from '../context.js';
import { MONTH_DAY_PATTERN, YEAR_PATTERN } from '../argument-rules.js';
import { instantBound, type InstantBound } from '../dates.js';
import { BadInput } from '../errors.js';
import { allOf, leanCount, leanRows, type RowOf, type Selection } from './lean-read.js';

/** Page size when `options` gives no Take, and the most a list ever returns. */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

/** The longest Filter and OrderBy texts, and the longest date text. */
const LIST_TEXT_MAX = 200;
const LIST_DATE_TEXT_MAX = 40;

/** A count as `parseListOptions` reads it: a string of digits (as documented) or a JSON integer (as ASP.NET model binding also took). */
function countRule(minimum: number, maximum: number, pattern: string, what: string): Record<string, unknown> {
  return {
    anyOf: [{ type: 'string', pattern }, { type: 'integer', minimum, maximum }, { type: 'null' }],
    description: `${what}: a string of digits (documented as str) or, as ASP.NET model binding also accepted, a JSON integer; from ${minimum} to ${maximum}.`,
  };
}

/** An ISO 8601 date or date-time (empty: none), as `isoDate` takes it. */
function dateRule(): Record<string, unknown> {
  return {
    type: ['string', 'null'], maxLength: LIST_DATE_TEXT_MAX,
    // A time after T only: JavaScript reads a space-separated one for some years only.
    pattern: `^(${YEAR_PATTERN}-${MONTH_DAY_PATTERN}(T([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d{1,9})?)?(Z|[+-]([01]\\d|2[0-3]):?[0-5]\\d)?)?)?$`,
    description: 'An ISO 8601 date (yyyy-mm-dd, a real calendar day), optionally with a time; empty means none.',
  };
}

/**
 * The FilterBase values `parseListOptions` accepts, as JSON Schema (the OpenAPI document's
 * ListOptions and every filter model): made from the same limits, so the two cannot drift.
 */
export const FILTER_BASE_RULES: Record<keyof FilterBaseValues, Record<string, unknown>> = {
  // The page-size pattern spells 1 to MAX_PAGE_SIZE (1000) in digits.
  Top: countRule(1, MAX_PAGE_SIZE, '^0*([1-9]\\d{0,2}|1000)$', 'Alias of Take'),
  Take: { ...countRule(1, MAX_PAGE_SIZE, '^0*([1-9]\\d{0,2}|1000)$', 'Page size'), examples: ['25'] },
  Skip: countRule(0, Number.MAX_SAFE_INTEGER, '^\\d{1,15}$', 'Rows to skip'),
  Filter: { type: ['string', 'null'], maxLength: LIST_TEXT_MAX },
  OrderBy: { type: ['string', 'null'], maxLength: LIST_TEXT_MAX, pattern: '^\\s*[A-Za-z]+(\\s+([Aa][Ss][Cc]|[Dd][Ee][Ss][Cc]))?\\s*(,\\s*[A-Za-z]+(\\s+([Aa][Ss][Cc]|[Dd][Ee][Ss][Cc]))?\\s*)*$' },
  CalendarStartDate: dateRule(),
  CalendarEndDate: dateRule(),
};

/** How one list may be ordered and searched: documented field name → entity property. */
export interface ListSpec<T> {
  orderBy: Record<string, keyof T & string>;
  defaultOrder: string;
  /**
   * Properties the `Filter` text is matched against (case-insensitive, substring); a dotted path
   * (`login.email`) reaches through a relation.
   */
  search: ((keyof T & string) | `${keyof T & string}.${string}`)[];
  /** The date property CalendarStartDate and CalendarEndDate bound, where the list has one. */
  dates?: keyof T & string;
  /** The GraphQL fields (`Query.vendors`) that list through this spec: the OpenAPI document states their OrderBy fields from it. */
  operations: readonly string[];
}

/**
 * How many rows a list's table holds per tenant, which decides how its search is indexed:
 * `few` (configuration: terms, calendars, templates — tens of rows, searched by scanning the
 * tenant's rows in list order) or `many` (grows with members and activity: every searched column
 * of the table gets a trigram index).
 */
export type ListVolume = 'few' | 'many';

export interface RegisteredList {
  entity: EntityClass<object>;
  spec: ListSpec<object>;
  volume: ListVolume;
}

const registeredLists: RegisteredList[] = [];

/**
 * Declares a list (its order and search fields) and registers it, so that the indexes its
 * default order and search need are part of the schema (`addListIndexes`, run at ORM discovery,
 * so `migration create` proposes them) and the plan test checks every list.
 */
export function defineList<T extends object>(entity: EntityClass<T>, spec: ListSpec<T>, volume: ListVolume = 'few'): ListSpec<T> {
  registeredLists.push({ entity, spec: spec as ListSpec<object>, volume });
  return documentedList(spec);
}

const specsByOperation = new Map<string, ListSpec<object>>();

/** Makes a list's spec known by its operations (`defineList` does this; a list whose indexes are its own, the audit trail, calls it itself). */
export function documentedList<T>(spec: ListSpec<T>): ListSpec<T> {
  for (const operation of spec.operations) specsByOperation.set(operation, spec as ListSpec<object>);
  return spec;
}

/** The spec of the list a GraphQL field (`Query.vendors`) answers, if it answers one. */
export function listSpecOf(operation: string): ListSpec<object> | undefined {
  return specsByOperation.get(operation);
}

/** A list's OrderBy as JSON Schema: its own fields (any case), each optionally followed by asc or desc, comma-separated; what `parseOrder` takes. */
export function orderBySchema(spec: ListSpec<object>): Record<string, unknown> {
  const names = Object.keys(spec.orderBy).map(anyCase).join('|');
  const term = `\\s*(${names})(\\s+(${anyCase('asc')}|${anyCase('desc')}))?\\s*`;
  return {
    type: ['string', 'null'], maxLength: LIST_TEXT_MAX, pattern: `^${term}(,${term})*$`,
    description: `Fields to order by: ${Object.keys(spec.orderBy).join(', ')} (any case), each optionally followed by asc or desc, comma-separated; default ${spec.defaultOrder}.`,
  };
}

/** `Name` → `[nN][aA][mM][eE]`: JSON Schema patterns have no case-insensitive flag. */
function anyCase(word: string): string {
  return [...word].map((char) => (/[a-z]/i.test(char) ? `[${char.toLowerCase()}${char.toUpperCase()}]` : char)).join('');
}

/** Every list declared with `defineList` (the services that declare them must be imported). */
export function listsDeclared(): readonly RegisteredList[] {
  return registeredLists;
}

/**
 * Adds to the ORM's metadata, for every declared list, an index that serves its default order
 * within a tenant (tenant, order columns, primary key: the page is read in index order, never
 * sorted) and, for `many` lists, a trigram (GIN) index per searched column of its own table.
 */
export function addListIndexes(storage: MetadataStorage): void {
  for (const { entity, spec, volume } of registeredLists) {
    const meta = storage.find(entity);
    if (!meta) continue;
    const properties: Record<string, { fieldNames: string[] } | undefined> = meta.properties;
    const column = (property: string) => properties[property]?.fieldNames[0];
    const keys = meta.primaryKeys.map(column);
    const order = parseListOptions(null, spec).orderBy.map(({ field, descending }) => ({ name: column(spec.orderBy[field]), descending }));
    const columns = [
      'tenant_id',
      ...order.map(({ name, descending }) => `"${name}"${descending ? ' desc' : ''}`),
      ...keys.filter((key) => !order.some(({ name }) => name === key)).map((key) => `"${key}"`),
    ];
    const orderIndex = `${meta.tableName}_list_${order.map(({ name }) => name).join('_')}`.slice(0, 63);
    addIndex(meta, orderIndex, `create index "${orderIndex}" on "${meta.tableName}" (${columns.map((name) => (name.startsWith('"') ? name : `"${name}"`)).join(', ')})`);
    if (volume !== 'many') continue;
    for (const path of spec.search.filter((candidate: string) => !candidate.includes('.'))) {
      const name = column(path);
      const index = `${meta.tableName}_${name}_trgm`.slice(0, 63);
      addIndex(meta, index, `create index "${index}" on "${meta.tableName}" using gin ("${name}" gin_trgm_ops)`);
    }
  }
}

function addIndex(meta: EntityMetadata, name: string, expression: string): void {
  if (!meta.indexes.some((index) => index.name === name)) meta.indexes.push({ name, expression });
}

/** The FilterBase fields of CONVENTIONS.md, parsed and checked. */
export interface ListOptions {
  skip: number;
  take: number;
  filter: string | null;
  orderBy: { field: string; descending: boolean }[];
  calendarStartDate: string | null;
  calendarEndDate: string | null;
}

/**
 * The FilterBase values of a list's options as they arrive: `ListOptionsInput` or a filter model
 * extending `FilterBaseInput`, already typed by GraphQL (the REST gateway checks a REST caller's
 * values against the same types, naming the documented field). Counts are FilterCount strings;
 * a number is taken too.
 */
export interface FilterBaseValues {
  Top?: string | number | null;
  Take?: string | number | null;
  Skip?: string | number | null;
  Filter?: string | null;
  OrderBy?: string | null;
  CalendarStartDate?: string | null;
  CalendarEndDate?: string | null;
}

/**
 * Checks the values of typed FilterBase options against the list (their types were checked
 * before: GraphQL, and for REST the gateway): the page bounds, the text lengths, the order by the
 * list's documented fields, the dates. Absent means defaults; a wrong value is a 400 naming the
 * field (`options.Take`; with `field` '' — a filter model sent as the body — just `Take`). NUL
 * characters never get here: `validateInput` refuses them in every argument.
 */
export function parseListOptions<T>(options: FilterBaseValues | null | undefined, spec: ListSpec<T>, field = 'options'): ListOptions {
  const name = (key: string) => (field ? `${field}.${key}` : key);
  const raw = options ?? {};
  const take = integer(raw.Take ?? raw.Top, name('Take'), 1, MAX_PAGE_SIZE) ?? DEFAULT_PAGE_SIZE;
  const skip = integer(raw.Skip, name('Skip'), 0, Number.MAX_SAFE_INTEGER) ?? 0;
  const filter = text(raw.Filter, name('Filter'), LIST_TEXT_MAX);
  const orderText = text(raw.OrderBy, name('OrderBy'), LIST_TEXT_MAX) ?? spec.defaultOrder;
  return {
    skip,
    take,
    filter: filter && filter.trim() ? filter.trim() : null,
    orderBy: parseOrder(orderText, spec, name('OrderBy')),
    calendarStartDate: isoDate(raw.CalendarStartDate, name('CalendarStartDate')),
    calendarEndDate: isoDate(raw.CalendarEndDate, name('CalendarEndDate')),
  };
}

/** The MikroORM find options (where, order, page) for parsed list options. */
export function toFindOptions<T extends object>(list: ListOptions, spec: ListSpec<T>) {
  const like = list.filter ? { $ilike: `%${escapeLike(list.filter)}%` } : null;
  const where = allOf<T>(
    like && { $or: spec.search.map((path) => nested(path, like)) },
    spec.dates && list.calendarStartDate ? { [spec.dates]: startOf(list.calendarStartDate) } : null,
    spec.dates && list.calendarEndDate ? { [spec.dates]: endOf(list.calendarEndDate) } : null,
  );
  // The id last: a stable order, so pages never overlap.
  const order = [...list.orderBy.map(({ field, descending }) => ({ [spec.orderBy[field]]: descending ? 'desc' : 'asc' })), { id: 'asc' }];
  return { where, orderBy: order as QueryOrderMap<T>[], limit: list.take, offset: list.skip };
}

/** One page of a list and, when asked, the count of all matching records. */
export interface ListPage<Row> {
  rows: Row[];
  /** All records matching the list's filter over all pages (null when not asked for). */
  total: number | null;
}

/**
 * The one list pipeline: `options` (the typed FilterBase input, or an object read from a body)
 * checked against the list's `spec`, the area's own conditions in `where`, and only `fields`
 * read as plain rows (keyed by property, or by the model's keys: `Selection` in lean-read.ts). One statement for the page, and one for the total only with `total: true`.
 */
export async function listQuery<T extends object, const S extends Selection<T>>(
  ctx: RequestContext,
  entity: EntityClass<T>,
  spec: ListSpec<T>,
  options: ListOptions | FilterBaseValues | null | undefined,
  query: { fields: S; where?: FilterQuery<T>; total?: boolean; filters?: Record<string, false> },
): Promise<ListPage<RowOf<T, S>>> {
  const list = isParsed(options) ? options : parseListOptions(options, spec);
  const find = toFindOptions(list, spec);
  const where = allOf<T>(query.where, find.where);
  const [rows, total] = await Promise.all([
    leanRows(ctx.reader, entity, { fields: query.fields, where, orderBy: find.orderBy, limit: find.limit, offset: find.offset, filters: query.filters }),
    query.total ? leanCount(ctx.reader, entity, where, query.filters) : Promise.resolve(null),
  ]);
  return { rows, total };
}

/**
 * Every record of a list, page after page in the list's order (its skip and take ignored), at
 * most `limit`: each page is read after the last row of the page before (keyset, not OFFSET), so
 * the hundredth page costs what the first does and one page is held at a time. The list's order
 * fields must be columns that are never null (a keyset comparison passes over nulls).
 */
export async function* listPages<T extends { id: number }, F extends keyof T & string>(
  ctx: RequestContext,
  entity: EntityClass<T>,
  spec: ListSpec<T>,
  list: ListOptions,
  query: { fields: readonly F[]; where?: FilterQuery<T>; pageSize: number; limit: number },
): AsyncGenerator<Pick<T, F>[]> {
  const find = toFindOptions(list, spec);
  const keys = orderKeys<T>(list, spec);
  const fields = [...new Set<keyof T & string>([...query.fields, ...keys.map((key) => key.path)])];
  let last: Record<string, unknown> | null = null;
  for (let read = 0; read < query.limit;) {
    const take = Math.min(query.pageSize, query.limit - read);
    const rows: Record<string, unknown>[] = await leanRows(ctx.reader, entity, {
      fields, where: allOf<T>(query.where, find.where, last && (after(keys, last) as FilterQuery<T>)), orderBy: find.orderBy, limit: take,
    });
    if (rows.length > 0) yield rows as Pick<T, F>[];
    if (rows.length < take) return;
    read += rows.length;
    last = rows[rows.length - 1];
  }
}

interface OrderKey<T> {
  path: keyof T & string;
  descending: boolean;
}

/** The list's order as keys, the id last (each field once: the first mention decides). */
function orderKeys<T>(list: ListOptions, spec: ListSpec<T>): OrderKey<T>[] {
  const keys = [...list.orderBy.map(({ field, descending }) => ({ path: spec.orderBy[field], descending })), { path: 'id' as keyof T & string, descending: false }];
  return keys.filter((key, index) => keys.findIndex((other) => other.path === key.path) === index);
}

/** The rows after `row` in the order of `keys`: beyond it on the first key, or equal on it and beyond on the next, and so on. */
function after<T>(keys: readonly OrderKey<T>[], row: Record<string, unknown>): object {
  return {
    $or: keys.map((key, index) => ({
      ...Object.fromEntries(keys.slice(0, index).map((equal) => [equal.path, row[equal.path]])),
      [key.path]: { [key.descending ? '$lt' : '$gt']: row[key.path] },
    })),
  };
}

function isParsed(options: ListOptions | FilterBaseValues | null | undefined): options is ListOptions {
  return Boolean(options && 'orderBy' in options && Array.isArray(options.orderBy) && 'take' in options && typeof options.take === 'number');
}

/** `login.email` and a condition → `{ login: { email: condition } }`. */
function nested(path: string, condition: object): object {
  return path.split('.').reduceRight<object>((inner, key) => ({ [key]: inner }), condition);
}

/** A start date: from the start of its day (a date) or the exact instant (a date-time). */
function startOf(value: string): InstantBound {
  return instantBound('$gte', new Date(value));
}

/** An end date: a date-only value includes its whole day; a date-time is the exact upper bound. */
function endOf(value: string): InstantBound {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const next = new Date(`${value}T00:00:00Z`);
    next.setUTCDate(next.getUTCDate() + 1);
    return instantBound('$lt', next);
  }
  return instantBound('$lte', new Date(value));
}

function parseOrder<T>(value: string, spec: ListSpec<T>, field: string) {
  return value.split(',').map((part) => {
    const [name, direction, ...rest] = part.trim().split(/\s+/);
    const known = Object.keys(spec.orderBy).find((key) => key.toLowerCase() === name?.toLowerCase());
    if (!known || rest.length > 0 || (direction && !/^(asc|desc)$/i.test(direction))) {
      throw BadInput.field(field, `must be one of ${Object.keys(spec.orderBy).join(', ')}, optionally followed by asc or desc`);
    }
    return { field: known, descending: direction?.toLowerCase() === 'desc' };
  });
}

function integer(value: string | number | null | undefined, field: string, min: number, max: number): number | null {
  if (value === undefined || value === null || value === '') return null;
  const number = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) {
    throw BadInput.field(field, `must be an integer from ${min} to ${max}`);
  }
  return number;
}

function text(value: string | null | undefined, field: string, maxLength: number): string | null {
  if (value === undefined || value === null) return null;
  if (value.length > maxLength) throw BadInput.field(field, `must be at most ${maxLength} characters`);
  return value;
}

/** An ISO 8601 date or date-time between the years 1 and 9999 (what both JavaScript and PostgreSQL hold). */
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

function isoDate(value: string | null | undefined, field: string): string | null {
  const date = text(value, field, LIST_DATE_TEXT_MAX);
  if (date === null || date.trim() === '') return null;
  const parts = ISO_DATE.exec(date.trim());
  const [year, month, day] = parts ? [Number(parts[1]), Number(parts[2]), Number(parts[3])] : [0, 0, 0];
  const calendarDay = new Date(Date.UTC(2000, month - 1, day)); // leap year: 29 February passes here
  if (!parts || year < 1 || calendarDay.getUTCMonth() !== month - 1 || calendarDay.getUTCDate() !== day || Number.isNaN(Date.parse(date.trim()))) {
    throw BadInput.field(field, 'must be an ISO 8601 date (yyyy-mm-dd, optionally with a time) between the years 0001 and 9999');
  }
  return date.trim();
}

export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (char) => `\\${char}`);
}
