import { LockMode } from '@mikro-orm/core';
import type { RequestContext } from '../../core/context.js';
import { BadInput, Conflict, NotFound } from '../../core/errors.js';
import { countsBy, idOf, leanRows } from '../../core/data/lean-read.js';
import { defineList, listQuery } from '../../core/data/list-query.js';
import { assertCurrentVersion, deleteRecord, inTransaction, readOr404 } from '../../core/data/records.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';
import { parseMoney, toMoneyString } from '../../core/money.js';
import { BenefitPackage } from '../../entities/benefit-package.js';
import { SaleableItem } from '../../entities/commerce.js';
import { MembershipLevel, MembershipType, type MembershipPeriodType } from '../../entities/membership.js';
import { listResult, rowActions, type ListOptionsInput, type ListResultOf } from '../../schema/common.js';
import type {
  MembershipLevelInput, MembershipTypeAddEdit, MembershipTypeCollectionItem, MembershipTypeCriteria, MembershipTypeInput,
} from '../../schema/memberships.js';

/*
 * Membership types and their levels (decided where the issue is silent):
 * - Levels are saved with their type, under its AuditId and a row lock on it (like a category
 *   list's items): a level sent with its id is kept (renamed, re-priced, re-ordered), one without
 *   an id is added, a level of the type not sent is deleted — unless a membership or a payment
 *   plan uses it, which answers 409 naming them (the save changes nothing).
 * - Duration in months (0/null: open-ended terms). Fixed periods start on FixedStartMonth /
 *   FixedStartDay (day 1–28, so every month has it) and repeat every DurationMonths.
 * - Price: exact, two decimals; a level's price wins over the type's, the type's over its
 *   saleable item's. A type may have none (nothing to bill: enrol and activate by hand).
 * - Delete: 409 while memberships, payment plans, store items (their MembershipTypes),
 *   directories (their membership types) or billing schedules (through their memberships) use
 *   the type, naming each and how many; staff deactivate it instead (IsActive false: it keeps its
 *   members and takes no new ones).
 */

const NOUN = 'The membership type';
const FIELDS = [
  'id', 'auditId', 'name', 'description', 'isActive', 'durationMonths', 'periodType', 'fixedStartMonth', 'fixedStartDay', 'graceDays', 'price',
  'saleableItem', 'benefitPackage',
] as const;
export type MembershipTypeRow = Pick<MembershipType, (typeof FIELDS)[number]>;

const typeList = defineList(MembershipType, {
  operations: ['Query.membershipTypes'],
  orderBy: { Name: 'name', MembershipTypeId: 'id' },
  defaultOrder: 'Name',
  search: ['name', 'description'],
});

export async function listMembershipTypes(ctx: RequestContext, options: ListOptionsInput | null | undefined): Promise<ListResultOf<MembershipTypeCollectionItem, MembershipTypeCriteria>> {
  const { rows, total } = await listQuery(ctx, MembershipType, typeList, options, { fields: FIELDS, total: true });
  const levels = rows.length ? await countsBy(ctx.reader, MembershipLevel, 'membershipType', { membershipType: { $in: rows.map((row) => row.id) } }) : new Map<unknown, number>();
  return listResult<MembershipTypeCollectionItem, MembershipTypeCriteria>({
    criteria: null,
    total: total ?? 0,
    results: rows.map((row) => ({
      MembershipTypeId: row.id, AuditId: row.auditId, Name: row.name, Description: row.description, IsActive: row.isActive, DurationMonths: row.durationMonths,
      PeriodType: row.periodType, GraceDays: row.graceDays, Price: moneyOrNull(row.price), LevelsCount: levels.get(row.id) ?? 0, Actions: rowActions(ctx.isStaff),
    })),
  });
}

export async function getMembershipType(ctx: RequestContext, membershipTypeId: number): Promise<MembershipTypeAddEdit> {
  const row = await readOr404(ctx, MembershipType, FIELDS, membershipTypeId, NOUN);
  const levels = await leanRows(ctx.reader, MembershipLevel, {
    fields: ['id', 'name', 'sortOrder', 'price', 'benefitPackage'], where: { membershipType: membershipTypeId }, orderBy: [{ sortOrder: 'asc' }, { id: 'asc' }],
  });
  return {
    MembershipTypeId: row.id, AuditId: row.auditId, Name: row.name, Description: row.description, IsActive: row.isActive, DurationMonths: row.durationMonths,
    PeriodType: row.periodType, FixedStartMonth: row.fixedStartMonth, FixedStartDay: row.fixedStartDay, GraceDays: row.graceDays, Price: moneyOrNull(row.price),
    SaleableItemId: idOf(row.saleableItem), BenefitPackageId: idOf(row.benefitPackage),
    Levels: levels.map((level) => ({
      MembershipLevelId: level.id, Name: level.name, SortOrder: level.sortOrder, Price: moneyOrNull(level.price), BenefitPackageId: idOf(level.benefitPackage),
    })),
  };
}

/** Create-or-update (0 creates) with its levels; answers the type as read back. */
export async function saveMembershipType(ctx: RequestContext, membershipTypeId: number, input: MembershipTypeInput): Promise<MembershipTypeAddEdit> {
  const periodType = (input.PeriodType ?? 'rolling') as MembershipPeriodType;
  const durationMonths = input.DurationMonths === undefined ? 12 : input.DurationMonths || null;
  // A fixed period needs FixedStartMonth and DurationMonths: the input's rules (schema/memberships.ts).
  await Promise.all([
    input.SaleableItemId ? readOr404(ctx, SaleableItem, ['id'], input.SaleableItemId, 'The saleable item') : null,
    ...[input.BenefitPackageId, ...(input.Levels ?? []).map((level) => level.BenefitPackageId)]
      .filter((id): id is number => Boolean(id)).map((id) => readOr404(ctx, BenefitPackage, ['id'], id, `The benefit package ${id}`)),
  ]);
  const fields = {
    name: input.Name.trim(), description: input.Description?.trim() || null, isActive: input.IsActive ?? true, durationMonths, periodType,
    fixedStartMonth: periodType === 'fixed' ? input.FixedStartMonth ?? null : null, fixedStartDay: periodType === 'fixed' ? input.FixedStartDay ?? 1 : null,
    graceDays: input.GraceDays ?? 0, price: priceOrNull(input.Price, 'Price'),
    saleableItem: input.SaleableItemId ?? null, benefitPackage: input.BenefitPackageId ?? null,
  };
  const id = await inTransaction(ctx, async () => {
    // Locked: the type's levels are replaced under it, so two saves of one type never interleave.
    const current = membershipTypeId ? await ctx.em.findOne(MembershipType, { id: membershipTypeId }, { lockMode: LockMode.PESSIMISTIC_WRITE }) : null;
    if (membershipTypeId && !current) throw new NotFound(NOUN);
    if (current) assertCurrentVersion(current, input.AuditId);
    // updatedAt always moves, so a save that changes only the levels still moves the AuditId on.
    const type = current ? ctx.em.assign(current, { ...fields, updatedAt: new Date() }) : ctx.em.create(MembershipType, { tenant: ctx.tenantId, ...fields });
    await ctx.em.persist(type).flush();
    if (input.Levels) await replaceLevels(ctx, type, input.Levels);
    return type.id;
  });
  return getMembershipType(ctx, id);
}

/** Deletes a type nothing uses, at the AuditId given (409 when stale, or naming what uses it). */
export async function deleteMembershipType(ctx: RequestContext, membershipTypeId: number, auditId: number): Promise<number> {
  return inTransaction(ctx, async () => {
    // Locked: an enrolment in the type (which takes a shared lock on it) cannot slip in between the count and the delete.
    const type = await ctx.em.findOne(MembershipType, { id: membershipTypeId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!type) throw new NotFound(NOUN);
    const uses = await typeUses(ctx, membershipTypeId);
    if (uses.length) {
      throw new Conflict(`The membership type is in use (${uses.map((use) => `${use.count} ${use.what}`).join(', ')}); deactivate it instead (IsActive false).`,
        uses.map((use) => ({ field: 'MembershipTypeId', message: `used by ${use.count} ${use.what}` })));
    }
    return deleteRecord(ctx, MembershipType, membershipTypeId, auditId, NOUN);
  });
}

/** What refers to a type: one statement counting each kind of user. */
async function typeUses(ctx: RequestContext, typeId: number): Promise<{ what: string; count: number }[]> {
  const [row] = await tenantSql(ctx).all<Record<string, number>>(
    `select (select count(*)::int from membership m where ${tenantIs('m')} and m.membership_type_id = ?) as memberships,
            (select count(*)::int from membership_type_payment_plan p where ${tenantIs('p')} and p.membership_type_id = ?) as payment_plans,
            (select count(*)::int from store_item s where ${tenantIs('s')} and s.membership_types @> to_jsonb(?::int)) as store_items,
            (select count(*)::int from directory d where ${tenantIs('d')} and d.deleted_at is null and d.membership_type_ids @> to_jsonb(?::int)) as directories,
            (select count(*)::int from scheduled_billing b join membership m on m.id = b.membership_id where ${tenantIs('b')} and m.membership_type_id = ?) as schedules`,
    [typeId, typeId, typeId, typeId, typeId]);
  const names: Record<string, string> = {
    memberships: 'memberships', payment_plans: 'payment plans', store_items: 'store items', directories: 'directories', schedules: 'billing schedules',
  };
  return Object.entries(names).filter(([key]) => row[key] > 0).map(([key, what]) => ({ what, count: row[key] }));
}

/**
 * Makes the type hold exactly `given`, in that order: its levels sent with their id updated, new
 * ones added, the others deleted — 409 when a membership or payment plan still uses one.
 */
async function replaceLevels(ctx: RequestContext, type: MembershipType, given: MembershipLevelInput[]): Promise<void> {
  const ids = given.map((level) => level.MembershipLevelId ?? 0).filter((id) => id > 0);
  const duplicate = ids.findIndex((id, index) => ids.indexOf(id) !== index);
  if (duplicate >= 0) throw BadInput.field(`Levels.${duplicate}.MembershipLevelId`, 'is given twice');
  const existing = await ctx.em.find(MembershipLevel, { membershipType: type.id });
  const byId = new Map(existing.map((level) => [level.id, level]));
  const kept = given.map((level, index) => {
    const fields = {
      name: level.Name.trim(), sortOrder: index, price: priceOrNull(level.Price, `Levels.${index}.Price`), benefitPackage: level.BenefitPackageId ?? null, membershipType: type,
    };
    if (!level.MembershipLevelId) return ctx.em.create(MembershipLevel, { tenant: ctx.tenantId, ...fields });
    const known = byId.get(level.MembershipLevelId);
    if (!known) throw BadInput.field(`Levels.${index}.MembershipLevelId`, 'is not a level of this membership type');
    return ctx.em.assign(known, fields);
  });
  await ctx.em.flush();
  const removed = existing.filter((level) => !kept.includes(level)).map((level) => level.id);
  if (removed.length === 0) return;
  const [used] = await tenantSql(ctx).all<{ memberships: number; plans: number }>(
    `with removed as (select value::int as id from jsonb_array_elements_text(?::jsonb))
     select (select count(*)::int from membership m where ${tenantIs('m')} and m.membership_level_id in (select id from removed)) as memberships,
            (select count(*)::int from membership_type_payment_plan p where ${tenantIs('p')}
              and exists (select 1 from jsonb_array_elements_text(p.level_ids) as used where used.value::int in (select id from removed))) as plans`,
    [JSON.stringify(removed)]);
  if (used.memberships || used.plans) {
    throw new Conflict('A level left out of Levels is still in use; keep it, or move its members first.', [
      { field: 'Levels', message: `the removed levels are used by ${used.memberships} memberships and ${used.plans} payment plans` },
    ]);
  }
  await ctx.em.nativeDelete(MembershipLevel, { tenant: ctx.tenantId, id: { $in: removed } });
}

function priceOrNull(value: string | null | undefined, field: string): string | null {
  return value == null || value.trim() === '' ? null : toMoneyString(parseMoney(value.trim(), field));
}

function moneyOrNull(value: string | null): string | null {
  return value === null ? null : toMoneyString(value);
}
