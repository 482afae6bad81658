import { Decimal } from 'decimal.js';
import { BadInput } from './errors.js';

/**
 * Money is exact: amounts are `numeric(12,2)` in PostgreSQL (MikroORM hands them over as strings)
 * and decimal.js values in arithmetic, never binary floats. A documented `num` money field is
 * written as a JSON number with at most two decimals (`toMoneyNumber`), which is exact for display.
 */
export type Money = Decimal;

/** The largest amount a `numeric(12,2)` column holds. */
export const MAX_MONEY = new Decimal('9999999999.99');

/** An exact amount from a stored string, a decimal, or an integer/short decimal literal. */
export function money(value: Decimal.Value): Money {
  return new Decimal(value);
}

export const ZERO: Money = new Decimal(0);

/** The exact sum of `values`. */
export function sumMoney(values: Iterable<Decimal.Value>): Money {
  let total = ZERO;
  for (const value of values) total = total.plus(value);
  return total;
}

/** Rounded to cents, half away from zero (the usual rule for money). */
export function toCents(value: Money): Money {
  return value.toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
}

/** For a `numeric(12,2)` column: the amount rounded to cents, as text ("12.30"). */
export function toMoneyString(value: Decimal.Value): string {
  return toCents(new Decimal(value)).toFixed(2);
}

/** For a JSON `num` field: the amount rounded to cents as a number (12.3 for "12.30"). */
export function toMoneyNumber(value: Decimal.Value): number {
  return toCents(new Decimal(value)).toNumber();
}

/**
 * A client's amount (a JSON number or a numeric string) checked for money: finite, at most two
 * decimals, within what the column holds, and not negative unless `allowNegative`. 400 naming
 * `field` otherwise.
 */
export function parseMoney(value: unknown, field: string, options: { allowNegative?: boolean } = {}): Money {
  let amount: Decimal;
  try {
    if (typeof value !== 'number' && typeof value !== 'string') throw new Error('not a number');
    amount = new Decimal(typeof value === 'string' ? value.trim() : value);
  } catch {
    throw BadInput.field(field, 'must be an amount of money');
  }
  if (!amount.isFinite()) throw BadInput.field(field, 'must be an amount of money');
  if (amount.decimalPlaces() > 2) throw BadInput.field(field, 'must have at most two decimals');
  if (amount.abs().greaterThan(MAX_MONEY)) throw BadInput.field(field, `must be at most ${MAX_MONEY.toFixed(2)}`);
  if (amount.isNegative() && !amount.isZero() && !options.allowNegative) throw BadInput.field(field, 'must not be negative');
  return amount;
}

/**
 * `total` split into `count` payments that add up to it exactly: equal cents, the rounding
 * remainder on the last payment (a payment plan's schedule, an instalment run).
 */
export function splitEvenly(total: Decimal.Value, count: number): Money[] {
  if (!Number.isInteger(count) || count < 1) throw new RangeError('count must be a positive integer');
  const amount = new Decimal(total);
  const share = amount.dividedBy(count).toDecimalPlaces(2, Decimal.ROUND_DOWN);
  const shares = Array.from({ length: count }, () => share);
  shares[count - 1] = amount.minus(share.times(count - 1));
  return shares;
}
