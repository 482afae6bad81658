import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../core/context.js';
import { addMonths, calendarDay } from '../../core/dates.js';
import { BadInput, NotFound } from '../../core/errors.js';
import { idOf, leanRows } from '../../core/data/lean-read.js';
import { money, parseMoney, splitEvenly, sumMoney, toMoneyNumber, toMoneyString } from '../../core/money.js';
import { deleteRecord, readOr404, saveRecord } from '../../core/data/records.js';
import { MembershipTypePaymentPlan, type PaymentPlanItem, type PaymentPlanSaleableItem } from '../../entities/billing.js';
import { SaleableItem } from '../../entities/commerce.js';
import { MembershipLevel, MembershipType } from '../../entities/membership.js';
import type { Tenant } from '../../entities/tenant.js';
import { lookupChoices, rowActions } from '../../schema/common.js';
import type { PaymentPlanAddEdit, PaymentPlanAddEditInput, PaymentPlanCollectionItem, PaymentPlans } from '../../schema/payment-plans.js';

/*
 * Payment plans of a membership type (decided where the documents are silent): the total is the
 * sum of the plan's saleable item amounts (each its price unless the plan names an amount); the
 * schedule splits it into `Payments` payments that add up exactly (equal cents, the rounding
 * remainder on the last), the first due on StartDate and the others monthly after it. EndDate is
 * the last day the plan is offered. A plan reached through another membership type's path is
 * 404. `{membershiptypepaymentplanid}` documented as str: a value that is not a whole number finds
 * no plan (404); 0 reads a blank plan to fill in. Staff save and delete; any signed-in login reads
 * (the plans shown on applications are offered to members).
 */

const NOUN = 'The payment plan';
const TYPE_NOUN = 'The membership type';
const FIELDS = ['id', 'membershipType', 'name', 'payments', 'startDate', 'endDate', 'showOnApplication', 'levelIds', 'saleableItems', 'items', 'auditId'] as const;
type PlanRow = Pick<MembershipTypePaymentPlan, (typeof FIELDS)[number]>;
/** The most plans one membership type lists. */
const PLAN_LIMIT = 500;

export async function listPaymentPlans(ctx: RequestContext, membershipTypeId: number): Promise<PaymentPlans> {
  await readOr404(ctx, MembershipType, ['id'], membershipTypeId, TYPE_NOUN);
  const [rows, levels] = await Promise.all([
    leanRows(ctx.reader, MembershipTypePaymentPlan, { fields: [...FIELDS], where: { membershipType: membershipTypeId }, orderBy: [{ name: 'asc' }, { id: 'asc' }], limit: PLAN_LIMIT }),
    levelsOf(ctx, membershipTypeId),
  ]);
  return { MembershipTypeId: membershipTypeId, Plans: rows.map((row) => toCollectionItem(ctx, row, levels)) };
}

/** One plan for editing; "0" is a blank plan of the type. */
export async function getPaymentPlan(ctx: RequestContext, membershipTypeId: number, planIdText: string): Promise<PaymentPlanAddEdit> {
  const planId = planIdOf(planIdText);
  if (planId === 0) {
    await readOr404(ctx, MembershipType, ['id'], membershipTypeId, TYPE_NOUN);
    const blank: PlanRow = {
      id: 0, membershipType: membershipTypeId as never, name: '', payments: 1, startDate: '', endDate: null, showOnApplication: false, levelIds: [], saleableItems: [], items: [], auditId: 0,
    };
    return toAddEdit(ctx, blank);
  }
  return toAddEdit(ctx, await readPlan(ctx, membershipTypeId, planId));
}

/** The template for a copy of a plan: id 0, "Copy of …", the same items and schedule. */
export async function paymentPlanCopyTemplate(ctx: RequestContext, membershipTypeId: number, planIdText: string): Promise<PaymentPlanAddEdit> {
  const source = await readPlan(ctx, membershipTypeId, planIdOf(planIdText));
  const template = await toAddEdit(ctx, source);
  return { ...template, MembershipTypePaymentPlanId: 0, AuditId: 0, Name: `Copy of ${source.name}`.slice(0, 200) };
}

/** Create-or-update: 0 creates, an existing plan of the type updates (AuditId checked), another id is 404. */
export async function savePaymentPlan(ctx: RequestContext, membershipTypeId: number, planId: number, input: PaymentPlanAddEditInput): Promise<PaymentPlanCollectionItem> {
  await readOr404(ctx, MembershipType, ['id'], membershipTypeId, TYPE_NOUN);
  if (planId) await readPlan(ctx, membershipTypeId, planId);
  const startDate = calendarDay(input.StartDate, 'StartDate');
  const endDate = input.EndDate ? calendarDay(input.EndDate, 'EndDate') : null;
  if (endDate && endDate < startDate) throw BadInput.field('EndDate', 'must not be before StartDate');
  if (startDate > '9989-12-31') throw BadInput.field('StartDate', 'must leave room for the payments before the year 9999 ends');
  const levelIds = [...new Set(input.MembershipLevelId ?? [])];
  const levels = await levelsOf(ctx, membershipTypeId);
  const unknownLevel = levelIds.find((id) => !levels.has(id));
  if (unknownLevel !== undefined) throw BadInput.field('MembershipLevelId', `${unknownLevel} is not a level of this membership type`);
  const saleableItems = await planItems(ctx, input);
  const fields = {
    name: input.Name.trim(), payments: input.Payments, startDate, endDate, showOnApplication: input.ShowOnApplication ?? false, levelIds, saleableItems,
    items: schedule(saleableItems, input.Payments, startDate),
  };
  const saved = await saveRecord(ctx, MembershipTypePaymentPlan, { id: planId, auditId: input.AuditId }, fields, NOUN, { membershipType: membershipTypeId as never });
  return toCollectionItem(ctx, { ...saved, membershipType: membershipTypeId as never }, levels);
}

export function deletePaymentPlan(ctx: RequestContext, membershipTypeId: number, planId: number, auditId: number | null | undefined): Promise<number> {
  return deleteRecord(ctx, MembershipTypePaymentPlan, planId, auditId, NOUN, { membershipType: membershipTypeId });
}

/** Demo: a membership type with a plan in three payments. */
export async function seedPaymentPlans(em: EntityManager, tenant: Tenant, marker: string): Promise<void> {
  const type = em.create(MembershipType, { tenant, name: `Plan members ${marker}` });
  const item = em.create(SaleableItem, { tenant, name: `Plan dues ${marker}`, itemType: 'membership', price: '100.00' });
  await em.flush();
  const saleableItems = [{ SaleableItemId: item.id, Amount: '100.00' }];
  em.create(MembershipTypePaymentPlan, {
    tenant, membershipType: type, name: `Three payments ${marker}`, payments: 3, startDate: '2026-01-01', showOnApplication: true, saleableItems,
    items: schedule(saleableItems, 3, '2026-01-01'),
  });
  await em.flush();
}

// ---------------------------------------------------------------------------------------------

/** The schedule: the total split into `payments` exact payments, monthly from `startDate`. */
export function schedule(items: readonly PaymentPlanSaleableItem[], payments: number, startDate: string): PaymentPlanItem[] {
  const total = sumMoney(items.map((item) => money(item.Amount)));
  return splitEvenly(total, payments).map((amount, index) => ({ PaymentNumber: index + 1, DueDate: addMonths(startDate, index), Amount: toMoneyString(amount) }));
}

/** The plan's items, each priced (its price unless the plan names an amount); 400 naming an unknown item. */
async function planItems(ctx: RequestContext, input: PaymentPlanAddEditInput): Promise<PaymentPlanSaleableItem[]> {
  if (input.SaleableItems.length === 0) throw BadInput.field('SaleableItems', 'must name at least one saleable item');
  const loader = ctx.loaders.byId(SaleableItem);
  return Promise.all(input.SaleableItems.map(async (given, index) => {
    const item = await loader.load(given.SaleableItemId);
    if (!item) throw BadInput.field(`SaleableItems[${index}].SaleableItemId`, 'names no saleable item');
    const amount = given.Amount == null ? money(item.price) : parseMoney(given.Amount, `SaleableItems[${index}].Amount`);
    return { SaleableItemId: item.id, Amount: toMoneyString(amount) };
  }));
}

function planIdOf(text: string): number {
  const id = /^\d{1,10}$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!(id >= 0 && id <= 2147483647)) throw new NotFound(NOUN);
  return id;
}

async function readPlan(ctx: RequestContext, membershipTypeId: number, planId: number): Promise<PlanRow> {
  return readOr404(ctx, MembershipTypePaymentPlan, FIELDS, planId, NOUN, { membershipType: membershipTypeId });
}

async function levelsOf(ctx: RequestContext, membershipTypeId: number): Promise<Map<number, string>> {
  const rows = await leanRows(ctx.reader, MembershipLevel, { fields: ['id', 'name'], where: { membershipType: membershipTypeId }, orderBy: [{ sortOrder: 'asc' }, { id: 'asc' }] });
  return new Map(rows.map((row) => [row.id, row.name]));
}

function total(row: Pick<PlanRow, 'saleableItems'>): number {
  return toMoneyNumber(sumMoney(row.saleableItems.map((item) => money(item.Amount))));
}

function toCollectionItem(ctx: RequestContext, row: PlanRow, levels: Map<number, string>): PaymentPlanCollectionItem {
  return {
    MembershipTypePaymentPlanId: row.id, MembershipTypeId: idOf(row.membershipType), Payments: row.payments, StartDate: row.startDate, EndDate: row.endDate,
    ShowOnApplication: row.showOnApplication, Name: row.name,
    Level: row.levelIds.length ? row.levelIds.map((id) => levels.get(id) ?? `Level ${id}`).join(', ') : 'All levels',
    Actions: rowActions(ctx.isStaff), Total: total(row), AuditId: row.auditId,
  };
}

async function toAddEdit(ctx: RequestContext, row: PlanRow): Promise<PaymentPlanAddEdit> {
  const membershipTypeId = idOf(row.membershipType);
  const [levels, items] = await Promise.all([
    levelsOf(ctx, membershipTypeId),
    leanRows(ctx.reader, SaleableItem, {
      fields: ['id', 'name', 'price'],
      where: { $or: [{ itemType: 'membership', isActive: true }, { id: { $in: row.saleableItems.map((item) => item.SaleableItemId) } }] },
      orderBy: [{ name: 'asc' }, { id: 'asc' }], limit: 500,
    }),
  ]);
  const names = new Map(items.map((item) => [item.id, item.name]));
  const chosen = new Set(row.saleableItems.map((item) => item.SaleableItemId));
  return {
    MembershipTypePaymentPlanId: row.id, MembershipTypeId: membershipTypeId, Payments: row.payments, StartDate: row.startDate || null, EndDate: row.endDate,
    ShowOnApplication: row.showOnApplication, Name: row.name, TenantId: ctx.tenantId, MembershipLevelId: row.levelIds,
    SaleableItems: row.saleableItems.map((item) => ({ SaleableItemId: item.SaleableItemId, Name: names.get(item.SaleableItemId) ?? null, Amount: toMoneyNumber(item.Amount) })),
    PaymentPlanItems: row.items.map((item) => ({ PaymentNumber: item.PaymentNumber, DueDate: item.DueDate, Amount: toMoneyNumber(item.Amount) })),
    PaymentPlanEditor: {
      Levels: lookupChoices([...levels].map(([id, name]) => ({ id, name, selected: row.levelIds.includes(id) }))),
      SaleableItems: lookupChoices(items.map((item) => ({ id: item.id, name: item.name, extraData: toMoneyString(item.price), selected: chosen.has(item.id) }))),
      Total: total(row),
    },
    AuditId: row.auditId,
  };
}
