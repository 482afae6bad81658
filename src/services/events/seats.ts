import type { RequestContext } from '../../core/context.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';

/*
 * Seats (units) counted on the event, its registration types and its offerings (`seats_taken`).
 * Each change is one conditional UPDATE of one row, so concurrent registrations, changes and
 * cancellations add up without a read in between: taking never passes the capacity, releasing
 * never goes below zero. Whoever moves seats of several holders moves them types first, then
 * offerings, then the event, each by ascending id — the order registration takes them in — so two
 * transactions never wait on each other's rows in opposite orders.
 */

export type SeatHolder = 'event' | 'event_registration_type' | 'event_offering';

/** Takes `count` seats of the holder when that many are left (and `condition` holds); answers whether it did. */
export async function takeSeats(ctx: RequestContext, holder: SeatHolder, id: number, count: number, condition = ''): Promise<boolean> {
  const rows = await tenantSql(ctx).all<{ id: number }>(
    `update ${holder} set seats_taken = seats_taken + ?, updated_at = now()
      where id = ? and ${tenantIs()} ${condition} and (capacity is null or seats_taken + ? <= capacity) returning id`, [count, id, count]);
  return rows.length > 0;
}

/** Gives `count` seats of the holder back: the mirror of `takeSeats`, never below zero. */
export async function releaseSeats(ctx: RequestContext, holder: SeatHolder, id: number, count: number): Promise<void> {
  await tenantSql(ctx).run(`update ${holder} set seats_taken = greatest(seats_taken - ?, 0), updated_at = now() where id = ? and ${tenantIs()}`, [count, id]);
}

/** Sums counts by key, keys ascending (the order seats are moved in). */
export function sumByKey(pairs: readonly (readonly [number, number])[]): [number, number][] {
  const sums = new Map<number, number>();
  for (const [key, count] of pairs) sums.set(key, (sums.get(key) ?? 0) + count);
  return [...sums].sort(([a], [b]) => a - b);
}
