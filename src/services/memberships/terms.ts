import { addDays, addMonths } from '../../core/dates.js';
import type { MembershipType } from '../../entities/membership.js';

/** What decides how long a term of a type runs. */
export type TermRule = Pick<MembershipType, 'durationMonths' | 'periodType' | 'fixedStartMonth' | 'fixedStartDay'>;

/**
 * The last day of a term of the type that starts on `start` (yyyy-mm-dd); null for open-ended
 * types. Rolling: `start` + DurationMonths − 1 day. Fixed: the day before the first period start
 * after `start` — periods begin on FixedStartMonth/FixedStartDay and every DurationMonths after
 * it (a 12-month year from 1 July: joining on 10 May 2026 ends 30 June 2026, renewing runs
 * 1 July 2026 – 30 June 2027).
 */
export function termEnd(rule: TermRule, start: string): string | null {
  if (!rule.durationMonths) return null;
  if (rule.periodType !== 'fixed') return addDays(addMonths(start, rule.durationMonths), -1);
  const month = String(rule.fixedStartMonth ?? 1).padStart(2, '0');
  const day = String(rule.fixedStartDay ?? 1).padStart(2, '0');
  // A period start at or before `start` (a year earlier), then forward period by period.
  const first = `${String(Number(start.slice(0, 4)) - 1).padStart(4, '0')}-${month}-${day}`;
  for (let periods = 1; ; periods++) {
    const next = addMonths(first, periods * rule.durationMonths);
    if (next > start) return addDays(next, -1);
  }
}
