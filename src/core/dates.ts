import { BadInput } from './errors.js';

/*
 * Calendar days as `yyyy-mm-dd` strings (PostgreSQL `date` columns, which MikroORM hands over as
 * such strings): checked, compared as text, and moved by days or months in UTC.
 */

/** Today in UTC. */
export function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}

/** A yyyy-mm-dd that is a real calendar day between the years 1 and 9999, or 400 naming `field`. */
export function calendarDay(value: string, field: string): string {
  const day = new Date(`${value}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== value || value < '0001-01-01') {
    throw BadInput.field(field, 'must be a calendar date (yyyy-mm-dd)');
  }
  return value;
}

/** `date` plus `months`, the day clamped to the month's last (as PostgreSQL's date + interval does: 31 Jan + 1 month = 28/29 Feb). */
export function addMonths(date: string, months: number): string {
  const [year, month, day] = date.split('-').map(Number);
  const index = year * 12 + (month - 1) + months;
  const targetYear = Math.floor(index / 12);
  const targetMonth = index - targetYear * 12; // 0-based
  return `${pad(targetYear, 4)}-${pad(targetMonth + 1, 2)}-${pad(Math.min(day, daysInMonth(targetYear, targetMonth)), 2)}`;
}

function daysInMonth(year: number, month: number): number {
  if (month === 1) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month];
}

function pad(value: number, length: number): string {
  return String(value).padStart(length, '0');
}

/** `date` plus `days` (negative: before). */
export function addDays(date: string, days: number): string {
  const value = new Date(`${date}T00:00:00Z`);
  value.setUTCDate(value.getUTCDate() + days);
  return isoDay(value);
}

function isoDay(date: Date): string {
  return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}`;
}
