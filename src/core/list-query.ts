import type { FilterQuery, QueryOrderMap } from '@mikro-orm/core';
import { BadInput } from './errors.js';

/** Page size when `options` gives no Take, and the most a list ever returns. */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

/** How one list may be ordered and searched: documented field name → entity property. */
export interface ListSpec<T> {
  orderBy: Record<string, keyof T & string>;
  defaultOrder: string;
  /** Properties the `Filter` text is matched against (case-insensitive, substring). */
  search: (keyof T & string)[];
}

/** The FilterBase fields of CONVENTIONS.md, parsed and checked. */
export interface ListOptions {
  skip: number;
  take: number;
  filter: string | null;
  orderBy: { field: string; descending: boolean }[];
  calendarStartDate: string | null;
  calendarEndDate: string | null;
  criteria: unknown;
}

type Raw = Record<string, unknown>;

/**
 * Reads `options` (URL-encoded JSON of FilterBase fields) or an already-parsed filter body.
 * Absent means defaults; anything malformed is a 400 naming the field (`options.Take`; with
 * `field` '' — a filter model sent as the body — just `Take`).
 */
export function parseListOptions<T>(options: string | Raw | null | undefined, spec: ListSpec<T>, field = 'options'): ListOptions {
  const name = (key: string) => (field ? `${field}.${key}` : key);
  let raw: Raw = {};
  if (typeof options === 'string' && options.trim() !== '') {
    try {
      raw = JSON.parse(options) as Raw;
    } catch {
      throw BadInput.field(field, 'is not valid JSON');
    }
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw BadInput.field(field, 'must be a JSON object');
  } else if (options && typeof options === 'object') {
    raw = options;
  }
  const take = integer(raw.Take ?? raw.Top, name('Take'), 1, MAX_PAGE_SIZE) ?? DEFAULT_PAGE_SIZE;
  const skip = integer(raw.Skip, name('Skip'), 0, Number.MAX_SAFE_INTEGER) ?? 0;
  const filter = text(raw.Filter, name('Filter'), 200);
  const orderText = text(raw.OrderBy, name('OrderBy'), 200) ?? spec.defaultOrder;
  return {
    skip,
    take,
    filter: filter && filter.trim() ? filter.trim() : null,
    orderBy: parseOrder(orderText, spec, name('OrderBy')),
    calendarStartDate: isoDate(raw.CalendarStartDate, name('CalendarStartDate')),
    calendarEndDate: isoDate(raw.CalendarEndDate, name('CalendarEndDate')),
    criteria: raw.Criteria ?? null,
  };
}

/** The MikroORM find options (where, order, page) for parsed list options. */
export function toFindOptions<T extends object>(list: ListOptions, spec: ListSpec<T>) {
  const where = list.filter
    ? ({ $or: spec.search.map((property) => ({ [property]: { $ilike: `%${escapeLike(list.filter!)}%` } })) } as FilterQuery<T>)
    : ({} as FilterQuery<T>);
  const orderBy = list.orderBy.map(({ field, descending }) => ({ [spec.orderBy[field]!]: descending ? 'desc' : 'asc' }) as QueryOrderMap<T>);
  orderBy.push({ id: 'asc' } as QueryOrderMap<T>); // a stable order, so pages never overlap
  return { where, orderBy, limit: list.take, offset: list.skip };
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

function integer(value: unknown, field: string, min: number, max: number): number | null {
  if (value === undefined || value === null || value === '') return null;
  const number = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) {
    throw BadInput.field(field, `must be an integer from ${min} to ${max}`);
  }
  return number;
}

function text(value: unknown, field: string, maxLength: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw BadInput.field(field, 'must be a string');
  if (value.length > maxLength) throw BadInput.field(field, `must be at most ${maxLength} characters`);
  return value;
}

function isoDate(value: unknown, field: string): string | null {
  const date = text(value, field, 40);
  if (date === null || date === '') return null;
  if (!/^\d{4}-\d{2}-\d{2}/.test(date) || Number.isNaN(Date.parse(date))) throw BadInput.field(field, 'must be an ISO 8601 date');
  return date;
}

export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (char) => `\\${char}`);
}
