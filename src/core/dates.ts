import { BadInput } from './errors.js';

/**
 * A yyyy-mm-dd that is a real calendar day between the years 0001 and 9999 (what both JavaScript
 * and PostgreSQL hold), or 400 naming `field`. Empty or absent is null.
 */
export function calendarDay(value: string | null | undefined, field: string): string | null {
  const text = value?.trim();
  if (!text) return null;
  const day = /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T00:00:00Z`) : null;
  if (!day || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== text || text < '0001-01-01') {
    throw BadInput.field(field, 'must be a calendar date (yyyy-mm-dd)');
  }
  return text;
}

/** Today (UTC) as yyyy-mm-dd. */
export function today(): string {
  return new Date().toISOString().slice(0, 10);
}
