import { MONTH_DAY_PATTERN, YEAR_PATTERN } from './argument-rules.js';
import { BadInput } from './errors.js';

/*
 * Calendar days as the API carries them: `yyyy-mm-dd` strings, in UTC. Comparing two such strings
 * compares the days.
 */

/** Today in UTC, `yyyy-mm-dd`. */
export function todayUtc(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/** Leap years from 0004 to 9996: divisible by 4, centuries only when divisible by 400. */
const LEAP_YEAR_PATTERN = '(\\d\\d(0[48]|[2468][048]|[13579][26])|(0[48]|[2468][048]|[13579][26])00)';

/**
 * A real calendar day (`yyyy-mm-dd`) between the years 1 and 9999: one expression, which the
 * input classes check with `@Matches` (so the OpenAPI document states it) and `calendarDay` too.
 */
export const CALENDAR_DAY = new RegExp(`^(${YEAR_PATTERN}-${MONTH_DAY_PATTERN}|${LEAP_YEAR_PATTERN}-02-29)$`);

/** `value` if it is a real calendar day (`yyyy-mm-dd`) between the years 1 and 9999, else 400 naming `field`. */
export function calendarDay(value: string, field: string): string {
  if (!CALENDAR_DAY.test(value)) {
    throw BadInput.field(field, 'must be a calendar date (yyyy-mm-dd)');
  }
  return value;
}

/** The first day of the month `offset` months from the month of `day` (`yyyy-mm-dd`). */
export function monthStart(day: string, offset = 0): string {
  const date = new Date(`${day.slice(0, 7)}-01T00:00:00Z`);
  date.setUTCMonth(date.getUTCMonth() + offset);
  return date.toISOString().slice(0, 10);
}

/** `calendarDay` for an optional field: absent or blank is null. */
export function optionalCalendarDay(value: string | null | undefined, field: string): string | null {
  const text = value?.trim();
  return text ? calendarDay(text, field) : null;
}

/** `date` plus `months`, the day clamped to the month's last (as PostgreSQL's date + interval does: 31 Jan + 1 month = 28/29 Feb). */
export function addMonths(date: string, months: number): string {
  const [year, month, day] = date.split('-').map(Number);
  const index = year * 12 + (month - 1) + months;
  const targetYear = Math.floor(index / 12);
  const targetMonth = index - targetYear * 12; // 0-based
  return `${pad(targetYear, 4)}-${pad(targetMonth + 1, 2)}-${pad(Math.min(day, daysInMonth(targetYear, targetMonth)), 2)}`;
}

/** `date` plus `days` (negative: before). */
export function addDays(date: string, days: number): string {
  const value = new Date(`${date}T00:00:00Z`);
  value.setUTCDate(value.getUTCDate() + days);
  return `${pad(value.getUTCFullYear(), 4)}-${pad(value.getUTCMonth() + 1, 2)}-${pad(value.getUTCDate(), 2)}`;
}

function daysInMonth(year: number, month: number): number {
  if (month === 1) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month];
}

function pad(value: number, length: number): string {
  return String(value).padStart(length, '0');
}

/**
 * The instants a date condition may name: years 0001–9999, what both JavaScript and PostgreSQL
 * timestamps hold and all a record of ours can carry. An accepted date can still land outside
 * (the day after 9999-12-31; `0001-01-01T00:00+05:00` is in the year 0), and such a Date cannot
 * be sent to PostgreSQL.
 */
const FIRST_INSTANT = new Date('0001-01-01T00:00:00.000Z');
const LAST_INSTANT = new Date('9999-12-31T23:59:59.999Z');

export type InstantBound = { $gte: Date } | { $gt: Date } | { $lt: Date } | { $lte: Date };

/** The condition `operator instant`, an instant outside the range replaced by the range's edge: the same records match. */
export function instantBound(operator: '$gte' | '$lt' | '$lte', instant: Date): InstantBound {
  if (instant > LAST_INSTANT) return operator === '$gte' ? { $gt: LAST_INSTANT } : { $lte: LAST_INSTANT };
  if (instant < FIRST_INSTANT) return operator === '$gte' ? { $gte: FIRST_INSTANT } : { $lt: FIRST_INSTANT };
  return { [operator]: instant } as InstantBound;
}
