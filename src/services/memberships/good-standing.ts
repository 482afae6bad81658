import type { ObjectQuery } from '@mikro-orm/core';
import { BadInput } from '../../core/errors.js';
import type { Membership } from '../../entities/membership.js';

/*
 * The one rule for "a member in good standing on a day", used by every area that asks (events'
 * member prices, store's member-only items, directories' member listings, reports, dashboards):
 * the membership is active, has started, and its end date plus the type's grace days
 * (`good_through`, kept by the database) has not passed. Pending, lapsed and cancelled rows never
 * count, whatever their dates. Every area uses one of the two forms below, never its own.
 */

/** The rule as a MikroORM condition on `Membership`, for `day` (yyyy-mm-dd). */
export function inGoodStandingOn(day: string): ObjectQuery<Membership> {
  return { status: 'active', startDate: { $lte: day }, $or: [{ goodThrough: null }, { goodThrough: { $gte: day } }] };
}

/**
 * The rule as SQL over the membership aliased `alias`, for `day` (yyyy-mm-dd; checked here, so
 * it can be written into the statement as a literal).
 */
export function inGoodStandingSql(alias: string, day: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) throw BadInput.field('Date', 'must be a date (yyyy-mm-dd)');
  return `(${alias}.status = 'active' and ${alias}.start_date <= date '${day}' and (${alias}.good_through is null or ${alias}.good_through >= date '${day}'))`;
}
