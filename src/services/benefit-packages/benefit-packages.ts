import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../core/context.js';
import { calendarDay } from '../../core/dates.js';
import { Conflict } from '../../core/errors.js';
import { countsBy, leanRows } from '../../core/data/lean-read.js';
import { listQuery, defineList } from '../../core/data/list-query.js';
import { assertCurrentVersion, deleteRecord, findOr404, likelyDuplicates, readOr404, withDuplicateLock } from '../../core/data/records.js';
import { BenefitPackage, benefitPackageNameKey, type BenefitItem } from '../../entities/benefit-package.js';
import { MembershipLevel, MembershipType } from '../../entities/membership.js';
import type { Tenant } from '../../entities/tenant.js';
import { rowActions, type ListOptionsInput } from '../../schema/common.js';
import type {
  BenefitItemInput, BenefitPackageAddEdit, BenefitPackageAddEditInput, BenefitPackageAssignment, BenefitPackageCollectionItem, BenefitPackageCopy,
} from '../../schema/benefit-packages.js';

/*
 * Benefit packages (decided where the documents are silent): staff manage them, any signed-in
 * login may list and read them. ActiveDates is {Start, End} of ISO dates, either open; items live
 * with their package, numbered within it. A likely duplicate is another package of the same name
 * (case and whitespace ignored): 409 unless ForceSave. A package assigned to a membership type or
 * level cannot be deleted (409; the database's foreign key decides, so no race can slip past).
 */

const packageList = defineList(BenefitPackage, {
  operations: ['Query.benefitPackages'],
  orderBy: { Name: 'name', BenefitPackageId: 'id', ActivePeriodStart: 'activeFrom', ActivePeriodEnd: 'activeTo' },
  defaultOrder: 'Name',
  search: ['name', 'description'],
});

const NOUN = 'The benefit package';
const FIELDS = ['id', 'name', 'description', 'activeFrom', 'activeTo', 'items', 'auditId'] as const;
type PackageRow = Pick<BenefitPackage, (typeof FIELDS)[number]>;

export async function listBenefitPackages(ctx: RequestContext, options: ListOptionsInput | null | undefined): Promise<BenefitPackageCollectionItem[]> {
  const { rows } = await listQuery(ctx, BenefitPackage, packageList, options, { fields: FIELDS });
  const assignments = await assignmentCounts(ctx, rows.map((row) => row.id));
  return rows.map((row) => toCollectionItem(ctx, row, assignments.get(row.id) ?? 0));
}

export async function getBenefitPackage(ctx: RequestContext, benefitPackageId: number): Promise<BenefitPackageAddEdit> {
  return toAddEdit(await readOr404(ctx, BenefitPackage, FIELDS, benefitPackageId, NOUN));
}

/** Create-or-update: 0 creates, an existing id updates (AuditId checked), an unknown id is 404. */
export function saveBenefitPackage(ctx: RequestContext, benefitPackageId: number, input: BenefitPackageAddEditInput): Promise<BenefitPackageCollectionItem> {
  const name = input.Name.trim();
  const nameKey = benefitPackageNameKey(name);
  const [activeFrom, activeTo] = activePeriod(input);
  return withDuplicateLock(ctx, 'benefit-package', nameKey, async () => {
    const current = benefitPackageId ? await findOr404(ctx, BenefitPackage, benefitPackageId, NOUN) : null;
    if (current) assertCurrentVersion(current, input.AuditId);
    if (!input.ForceSave && current?.nameKey !== nameKey) await refuseLikelyDuplicates(ctx, nameKey, current?.id ?? null);
    const fields = { name, nameKey, description: input.Description?.trim() || null, activeFrom, activeTo, items: mergeItems(current?.items ?? [], input.BenefitItems) };
    const saved = current ? ctx.em.assign(current, fields) : ctx.em.create(BenefitPackage, { tenant: ctx.tenantId, ...fields });
    await ctx.em.persist(saved).flush();
    return toCollectionItem(ctx, saved, current ? (await assignmentCounts(ctx, [saved.id])).get(saved.id) ?? 0 : 0);
  });
}

/** Deletes a package nothing is assigned to (409 otherwise); answers its id. */
export function deleteBenefitPackage(ctx: RequestContext, benefitPackageId: number, auditId: number | null | undefined): Promise<number> {
  return deleteRecord(ctx, BenefitPackage, benefitPackageId, auditId, NOUN);
}

/** The membership types and levels the package is assigned to. */
export async function benefitPackageAssignments(ctx: RequestContext, benefitPackageId: number): Promise<BenefitPackageAssignment> {
  await readOr404(ctx, BenefitPackage, ['id'], benefitPackageId, NOUN);
  const [types, levels] = await Promise.all([
    leanRows(ctx.reader, MembershipType, { fields: ['id', 'name'], where: { benefitPackage: benefitPackageId }, orderBy: [{ name: 'asc' }, { id: 'asc' }] }),
    leanRows(ctx.reader, MembershipLevel, { fields: ['id', 'name'], where: { benefitPackage: benefitPackageId }, orderBy: [{ name: 'asc' }, { id: 'asc' }] }),
  ]);
  return {
    BenefitPackageId: benefitPackageId,
    AssignmentItem: [
      ...types.map((type) => ({ Kind: 'MembershipType', Id: type.id, Name: type.name })),
      ...levels.map((level) => ({ Kind: 'MembershipLevel', Id: level.id, Name: level.name })),
    ],
  };
}

/** The template for a copy: "Copy of …", the active items to copy, the inactive ones apart. */
export async function benefitPackageCopyTemplate(ctx: RequestContext, benefitPackageId: number): Promise<BenefitPackageCopy> {
  const source = await readOr404(ctx, BenefitPackage, FIELDS, benefitPackageId, NOUN);
  const template = toAddEdit(source);
  return {
    ...template,
    BenefitPackageId: 0,
    AuditId: 0,
    Name: `Copy of ${source.name}`.slice(0, 200),
    BenefitItems: template.BenefitItems.filter((item) => item.IsActive),
    InactiveBenefitItems: template.BenefitItems.filter((item) => !item.IsActive),
  };
}

/** Creates the copy of an existing package (404 for an unknown source) from the template as edited. */
export async function copyBenefitPackage(ctx: RequestContext, benefitPackageId: number, input: BenefitPackageAddEditInput): Promise<BenefitPackageCollectionItem> {
  await readOr404(ctx, BenefitPackage, ['id'], benefitPackageId, NOUN);
  return saveBenefitPackage(ctx, 0, { ...input, BenefitItems: (input.BenefitItems ?? []).map((item) => ({ ...item, BenefitItemId: 0 })), AuditId: null });
}

/** Demo packages for a new tenant. */
export async function seedBenefitPackages(em: EntityManager, tenant: Tenant, marker: string): Promise<void> {
  const items = (names: string[]): BenefitItem[] => names.map((name, index) => ({ BenefitItemId: index + 1, Name: `${marker}${name}`, Description: null, IsActive: true }));
  for (const [name, benefits] of [['Corporate benefits', ['Directory listing', 'Event discount 20%', 'Newsletter ad']], ['Individual benefits', ['Event discount 10%']]] as const) {
    em.create(BenefitPackage, { tenant, name: `${marker}${name}`, nameKey: benefitPackageNameKey(`${marker}${name}`), description: null, items: items([...benefits]) });
  }
  await em.flush();
}

// ---------------------------------------------------------------------------------------------

function activePeriod(input: BenefitPackageAddEditInput): [string | null, string | null] {
  const start = input.ActiveDates?.Start || null;
  const end = input.ActiveDates?.End || null;
  if (start) calendarDay(start, 'ActiveDates.Start');
  if (end) calendarDay(end, 'ActiveDates.End');
  // End not before Start: the input's rule (schema/benefit-packages.ts).
  return [start, end];
}

/** The items as sent; a known BenefitItemId keeps its number, others are numbered after the highest. */
function mergeItems(current: BenefitItem[], given: BenefitItemInput[] | null | undefined): BenefitItem[] {
  if (!given) return current;
  const known = new Set(current.map((item) => item.BenefitItemId));
  let next = Math.max(0, ...current.map((item) => item.BenefitItemId)) + 1;
  return given.map((item) => ({
    BenefitItemId: item.BenefitItemId && known.has(item.BenefitItemId) ? item.BenefitItemId : next++,
    Name: item.Name.trim(),
    Description: item.Description?.trim() || null,
    IsActive: item.IsActive ?? true,
  }));
}

async function refuseLikelyDuplicates(ctx: RequestContext, nameKey: string, exceptId: number | null): Promise<void> {
  const duplicates = await likelyDuplicates(ctx, BenefitPackage, nameKey, exceptId, ['name']);
  if (duplicates.length) {
    throw new Conflict('A benefit package with the same name exists; send ForceSave true to save anyway.',
      duplicates.map((duplicate) => ({ field: 'Name', message: `same name as BenefitPackageId ${duplicate.id} ("${duplicate.name}")` })));
  }
}

/** Membership types and levels per package, for a page of packages: two grouped statements. */
async function assignmentCounts(ctx: RequestContext, packageIds: number[]): Promise<Map<number, number>> {
  if (packageIds.length === 0) return new Map();
  const [types, levels] = await Promise.all([
    countsBy(ctx.reader, MembershipType, 'benefitPackage', { benefitPackage: { $in: packageIds } }),
    countsBy(ctx.reader, MembershipLevel, 'benefitPackage', { benefitPackage: { $in: packageIds } }),
  ]);
  return new Map(packageIds.map((id) => [id, (types.get(id) ?? 0) + (levels.get(id) ?? 0)]));
}

function toCollectionItem(ctx: RequestContext, row: Pick<BenefitPackage, 'id' | 'name' | 'description' | 'activeFrom' | 'activeTo'>, assignments: number): BenefitPackageCollectionItem {
  return {
    BenefitPackageId: row.id, Id: row.id, Name: row.name, Description: row.description,
    ActivePeriodStart: row.activeFrom, ActivePeriodEnd: row.activeTo, Assignments: assignments, Actions: rowActions(ctx.isStaff),
  };
}

function toAddEdit(row: PackageRow): BenefitPackageAddEdit {
  return {
    BenefitPackageId: row.id, Name: row.name, Description: row.description, ActiveDates: { Start: row.activeFrom, End: row.activeTo },
    BenefitItems: row.items, ForceSave: false, AuditId: row.auditId,
  };
}
