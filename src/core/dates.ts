import { BadInput } from './errors.js';

/*
 * Calendar days as the API carries them: `yyyy-mm-dd` strings, in UTC. Comparing two such strings
 * compares the days.
 */

/** Today in UTC, `yyyy-mm-dd`. */
export function todayUtc(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/** `value` if it is a real calendar day (`yyyy-mm-dd`) between the years 1 and 9999, else 400 naming `field`. */
export function calendarDay(value: string, field: string): string {
  const day = new Date(`${value}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== value || value < '0001-01-01') {
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
