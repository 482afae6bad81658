import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../core/context.js';
import { BadInput, Conflict, NotFound, staleAuditId } from '../../core/errors.js';
import { countsBy, idOf, insertIgnoringDuplicates, leanRows } from '../../core/data/lean-read.js';
import { listQuery, MAX_PAGE_SIZE, defineList } from '../../core/data/list-query.js';
import { assertCurrentVersion, deleteRecord, inTransaction, readOr404 } from '../../core/data/records.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';
import { CATEGORY_TYPES, CategoryItem, CategoryList, CategoryType, type CategoryTypeId } from '../../entities/category-list.js';
import type { Tenant } from '../../entities/tenant.js';
import type {
  CategoryListAddEdit, CategoryListAddEditInput, CategoryListCollectionItem, CategoryListCriteria, CategoryListItemInput,
} from '../../schema/category-lists.js';
import { CATEGORY_TYPE_RULE } from '../../schema/category-lists.js';
import { listResult, lookupChoices, rowActions, type ListOptionsInput, type ListResultOf, type LookupChoiceInt } from '../../schema/common.js';

/*
 * Category lists (decided where the documents are silent):
 * - Staff manage lists; any signed-in login reads the lookups. For a caller who is not staff the
 *   contact category lookup offers only lists that are public or member-viewable.
 * - CategoryTypeId is one of six types (lookup/categorytypeid), written as its number in a string
 *   ("1") and read as the number or the name ("Contact", "public contact"). A list keeps its type.
 * - System lists: every tenant has one per type (SYSTEM_LISTS). They are created the first time
 *   the tenant uses category lists after this process started (one INSERT … ON CONFLICT DO
 *   NOTHING on the unique (tenant, systemKey), so concurrent first calls and restarts add
 *   nothing twice), and by the demo seed. They cannot be deleted or renamed (409).
 * - Items (our `Items` addition) are saved with their list, under its AuditId and a row lock on
 *   the list; an item id of another list of the same type moves that item here (reassigning;
 *   the list it leaves keeps its AuditId, since only the receiving list is saved).
 * - An item a store item, billing schedule or live directory listing uses is not deleted: leaving
 *   it out of a save, or deleting its list, answers 409 naming the item and what uses it.
 * - `{auditid}` in GET …/{auditid}/items: 0 reads any version, another number must be current
 *   (409 otherwise); in DELETE it must be current.
 */

const NOUN = 'The category list';
const FIELDS = [
  'id', 'auditId', 'systemKey', 'categoryType', 'name', 'description', 'isActive', 'isPublic', 'isMemberViewable', 'isMemberEditable', 'isRequired',
  'minQuantity', 'maxQuantity',
] as const;
type ListRow = Pick<CategoryList, (typeof FIELDS)[number]>;

const categoryListSpec = defineList(CategoryList, {
  operations: ['Query.categoryLists'],
  orderBy: { Name: 'name', CategoryListId: 'id', CategoryTypeId: 'categoryType' },
  defaultOrder: 'Name',
  search: ['name', 'description'],
});

/** The lists every tenant has, one per category type. */
const SYSTEM_LISTS: { key: string; type: CategoryTypeId; name: string }[] = [
  { key: 'contact-industries', type: CategoryType.Contact, name: 'Industries' },
  { key: 'public-contact-categories', type: CategoryType.PublicContact, name: 'Directory categories' },
  { key: 'product-categories', type: CategoryType.Product, name: 'Product categories' },
  { key: 'project-categories', type: CategoryType.Project, name: 'Project categories' },
  { key: 'certifications', type: CategoryType.Certification, name: 'Certifications' },
  { key: 'sales-categories', type: CategoryType.Sales, name: 'Sales opportunity categories' },
];

/** Tenants whose system lists this process has made sure of, per application (each test server has its own). */
const seededTenants = new WeakMap<object, Set<number>>();

export async function seedSystemCategoryLists(em: EntityManager, tenantId: number): Promise<void> {
  await insertIgnoringDuplicates(em, CategoryList, SYSTEM_LISTS.map((list) => ({
    tenant: tenantId, systemKey: list.key, categoryType: list.type, name: list.name, description: null, auditId: 1,
    isActive: true, isPublic: list.type === CategoryType.PublicContact, isMemberViewable: false, isMemberEditable: false, isRequired: false,
    minQuantity: null, maxQuantity: null, createdAt: new Date(), updatedAt: new Date(),
  })), ['tenant', 'systemKey']);
}

async function ensureSystemLists(ctx: RequestContext): Promise<void> {
  let seeded = seededTenants.get(ctx.app);
  if (!seeded) seededTenants.set(ctx.app, (seeded = new Set()));
  if (seeded.has(ctx.tenantId)) return;
  await seedSystemCategoryLists(ctx.em, ctx.tenantId);
  seeded.add(ctx.tenantId);
}

/** `GET /api/categorylists/all`: one page of lists and the count of all matching ones. */
export async function listCategoryLists(ctx: RequestContext, options: ListOptionsInput | null | undefined): Promise<ListResultOf<CategoryListCollectionItem, CategoryListCriteria>> {
  await ensureSystemLists(ctx);
  const { rows, total } = await listQuery(ctx, CategoryList, categoryListSpec, options, { fields: FIELDS, total: true });
  const counts = await itemCounts(ctx, rows.map((row) => row.id));
  return listResult<CategoryListCollectionItem, CategoryListCriteria>({
    criteria: null,
    criteriaItems: categoryTypeLookup(),
    total: total ?? 0,
    results: rows.map((row) => toCollectionItem(ctx, row, counts.get(row.id) ?? 0, total ?? 0)),
  });
}

/** One list with its items, for editing (`auditId` 0: any version; otherwise it must be current). */
export async function getCategoryList(ctx: RequestContext, categoryListId: number, auditId: number): Promise<CategoryListAddEdit> {
  const row = await readOr404(ctx, CategoryList, FIELDS, categoryListId, NOUN);
  if (auditId && auditId !== row.auditId) throw staleAuditId();
  const items = await leanRows(ctx.reader, CategoryItem, {
    fields: ['id', 'name', 'description', 'isActive', 'sortOrder'], where: { list: categoryListId }, orderBy: [{ sortOrder: 'asc' }, { id: 'asc' }],
  });
  return {
    CategoryListId: row.id, AuditId: row.auditId, IsSystem: row.systemKey !== null, CategoryTypeId: String(row.categoryType), Name: row.name,
    Description: row.description, IsActive: row.isActive, IsPublic: row.isPublic, IsMemberViewable: row.isMemberViewable, IsMemberEditable: row.isMemberEditable,
    IsRequired: row.isRequired, MinQuantity: quantityText(row.minQuantity), MaxQuantity: quantityText(row.maxQuantity),
    Items: items.map((item) => ({ CategoryItemId: item.id, Name: item.name, Description: item.description, IsActive: item.isActive, SortOrder: item.sortOrder })),
  };
}

/**
 * Create-or-update (0 creates). `onlyType` confines the save to lists of one type (the sales
 * category save): another type's list is not found there, and a new list gets that type.
 */
export async function saveCategoryList(ctx: RequestContext, categoryListId: number, input: CategoryListAddEditInput, onlyType?: CategoryTypeId): Promise<CategoryListCollectionItem> {
  await ensureSystemLists(ctx);
  const name = input.Name.trim();
  // MaxQuantity not less than MinQuantity, and a sales save's CategoryTypeId: the input's rules (schema/category-lists.ts).
  const minQuantity = quantity(input.MinQuantity);
  const maxQuantity = quantity(input.MaxQuantity);
  const givenType = input.CategoryTypeId ? CATEGORY_TYPE_RULE.parse(input.CategoryTypeId, 'CategoryTypeId') : null;
  return inTransaction(ctx, async () => {
    // Locked: the list's items are replaced under it, so two saves of one list never interleave.
    const current = categoryListId ? await ctx.em.findOne(CategoryList, { id: categoryListId }, { lockMode: LockMode.PESSIMISTIC_WRITE }) : null;
    if (categoryListId && (!current || (onlyType && current.categoryType !== onlyType))) throw new NotFound(NOUN);
    if (current) {
      assertCurrentVersion(current, input.AuditId);
      if (givenType !== null && givenType !== current.categoryType) throw BadInput.field('CategoryTypeId', 'cannot change once the list exists');
      if (current.systemKey && current.name !== name) {
        throw new Conflict('A system category list cannot be renamed.', [{ field: 'Name', message: `must stay "${current.name}" (a system list)` }]);
      }
    }
    const categoryType = current?.categoryType ?? onlyType ?? givenType;
    if (!categoryType) throw BadInput.field('CategoryTypeId', 'is required for a new list');
    const fields = {
      name, description: input.Description?.trim() || null, isActive: input.IsActive ?? true, isPublic: input.IsPublic ?? false,
      isMemberViewable: input.IsMemberViewable ?? false, isMemberEditable: input.IsMemberEditable ?? false, isRequired: input.IsRequired ?? false,
      minQuantity, maxQuantity,
    };
    // updatedAt always moves, so a save that changes only the items still moves the AuditId on.
    const list = current ? ctx.em.assign(current, { ...fields, updatedAt: new Date() }) : ctx.em.create(CategoryList, { tenant: ctx.tenantId, categoryType, ...fields });
    await ctx.em.persist(list).flush();
    if (input.Items) await replaceItems(ctx, list, input.Items);
    const count = (await itemCounts(ctx, [list.id])).get(list.id) ?? 0;
    return toCollectionItem(ctx, list, count, 1);
  });
}

/**
 * Deletes a list that is not a system list (409), at the AuditId given (409 when stale); its items
 * go with it — unless one is in use (409 naming it, `refuseDroppingUsedItems`).
 */
export async function deleteCategoryList(ctx: RequestContext, categoryListId: number, auditId: number): Promise<number> {
  const row = await readOr404(ctx, CategoryList, ['id', 'systemKey'], categoryListId, NOUN);
  if (row.systemKey) throw new Conflict('A system category list cannot be deleted.', [{ field: 'CategoryListId', message: 'is a system list' }]);
  return inTransaction(ctx, async () => {
    await refuseDroppingUsedItems(ctx, categoryListId, [], 'CategoryListId');
    return deleteRecord(ctx, CategoryList, categoryListId, auditId, NOUN);
  });
}

/** The category types (`lookup/categorytypeid`). */
export function categoryTypeLookup(): LookupChoiceInt[] {
  return lookupChoices(CATEGORY_TYPES.map((type) => ({ id: type.id, name: type.name, extraData: type.objectType })));
}

/** Lists of one type (`lookup/{categorytypeid}/{showemptylists}`): without `showEmptyLists`, only those with items. */
export async function categoryListLookup(ctx: RequestContext, type: CategoryTypeId, showEmptyLists: boolean): Promise<LookupChoiceInt[]> {
  await ensureSystemLists(ctx);
  const lists = await listsOfType(ctx, type, {});
  if (showEmptyLists) return lookupChoices(lists);
  const counts = await itemCounts(ctx, lists.map((list) => list.id));
  return lookupChoices(lists.filter((list) => counts.has(list.id)));
}

/** Lists of a type that items can be moved to (`lookup/reassigncategorylist/{categorytypeid}`): the active ones, but `exceptCategoryListId`. */
export async function reassignCategoryListLookup(ctx: RequestContext, type: CategoryTypeId, exceptCategoryListId: number | null | undefined): Promise<LookupChoiceInt[]> {
  await ensureSystemLists(ctx);
  const lists = await listsOfType(ctx, type, { isActive: true, ...(exceptCategoryListId ? { id: { $ne: exceptCategoryListId } } : {}) });
  return lookupChoices(lists);
}

/**
 * The active items of the active lists of one type, list by list (ExtraData: the list's name).
 * Public contact items are those of the public contact lists and of contact lists marked public.
 */
export async function categoryItemLookup(ctx: RequestContext, type: CategoryTypeId): Promise<LookupChoiceInt[]> {
  await ensureSystemLists(ctx);
  const memberLimit = type === CategoryType.Contact && !ctx.isStaff ? { $or: [{ isPublic: true }, { isMemberViewable: true }] } : {};
  const lists = type === CategoryType.PublicContact
    ? await listsWhere(ctx, { isActive: true, $or: [{ categoryType: CategoryType.PublicContact }, { categoryType: CategoryType.Contact, isPublic: true }] })
    : await listsOfType(ctx, type, { isActive: true, ...memberLimit });
  if (lists.length === 0) return [];
  const items = await leanRows(ctx.reader, CategoryItem, {
    fields: ['id', 'name', 'list'], where: { list: { $in: lists.map((list) => list.id) }, isActive: true },
    orderBy: [{ sortOrder: 'asc' }, { id: 'asc' }], limit: MAX_PAGE_SIZE,
  });
  const order = new Map(lists.map((list, index) => [list.id, index]));
  const names = new Map(lists.map((list) => [list.id, list.name]));
  const sorted = [...items].sort((a, b) => (order.get(idOf(a.list)) ?? 0) - (order.get(idOf(b.list)) ?? 0));
  return lookupChoices(sorted.map((item) => ({ id: item.id, name: item.name, extraData: names.get(idOf(item.list)) ?? null })));
}

/** Demo lists for a new tenant: the system lists and one list of the tenant's own with items. */
export async function seedCategoryLists(em: EntityManager, tenant: Tenant, marker: string): Promise<void> {
  await seedSystemCategoryLists(em, tenant.id);
  const list = em.create(CategoryList, { tenant, categoryType: CategoryType.Contact, name: `${marker}Interests`, description: `${marker}What members care about`, isMemberViewable: true });
  ['Advocacy', 'Education', 'Networking'].forEach((name, index) => em.create(CategoryItem, { tenant, list, name: `${marker}${name}`, sortOrder: index }));
  const product = em.create(CategoryList, { tenant, categoryType: CategoryType.Sales, name: `${marker}Deal sizes` });
  em.create(CategoryItem, { tenant, list: product, name: `${marker}Large`, sortOrder: 0 });
  await em.flush();
}

// ---------------------------------------------------------------------------------------------

function listsOfType(ctx: RequestContext, type: CategoryTypeId, where: object) {
  return listsWhere(ctx, { categoryType: type, ...where });
}

function listsWhere(ctx: RequestContext, where: object) {
  return leanRows(ctx.reader, CategoryList, { fields: ['id', 'name'], where, orderBy: [{ name: 'asc' }, { id: 'asc' }], limit: MAX_PAGE_SIZE });
}

/** Items per list, for a page of lists: one grouped statement. */
async function itemCounts(ctx: RequestContext, listIds: number[]): Promise<Map<unknown, number>> {
  if (listIds.length === 0) return new Map();
  return countsBy(ctx.reader, CategoryItem, 'list', { list: { $in: listIds } });
}

/**
 * Makes the list hold exactly `given`, in that order: known items updated, items of other lists
 * of the same type moved here, new ones added, the list's items not given deleted.
 */
async function replaceItems(ctx: RequestContext, list: CategoryList, given: CategoryListItemInput[]): Promise<void> {
  const ids = given.map((item) => item.CategoryItemId ?? 0).filter((id) => id > 0);
  const duplicate = ids.findIndex((id, index) => ids.indexOf(id) !== index);
  if (duplicate >= 0) throw BadInput.field(`Items.${duplicate}.CategoryItemId`, 'is given twice');
  const known = ids.length
    ? await ctx.em.find(CategoryItem, { id: { $in: ids }, list: { categoryType: list.categoryType } }, { populate: [] })
    : [];
  const byId = new Map(known.map((item) => [item.id, item]));
  const kept = given.map((item, index) => {
    const fields = { name: item.Name.trim(), description: item.Description?.trim() || null, isActive: item.IsActive ?? true, sortOrder: index, list };
    if (!item.CategoryItemId) return ctx.em.create(CategoryItem, { tenant: ctx.tenantId, ...fields });
    const existing = byId.get(item.CategoryItemId);
    if (!existing) throw BadInput.field(`Items.${index}.CategoryItemId`, 'is not an item of a list of this category type');
    return ctx.em.assign(existing, fields);
  });
  await ctx.em.flush();
  const keptIds = kept.map((item) => item.id);
  await refuseDroppingUsedItems(ctx, list.id, keptIds, 'Items');
  await ctx.em.nativeDelete(CategoryItem, { tenant: ctx.tenantId, list: list.id, ...(keptIds.length ? { id: { $nin: keptIds } } : {}) });
}

/**
 * 409 when an item of the list, other than `keptIds`, is in use: a category item that a store item,
 * a billing schedule or a live directory listing is filed under is not deleted out from under it
 * (decided: refused, not retired — a retired item would still be read back in the list staff just
 * saved without it). Names the item and one user, so staff know what to change. Migration 0036
 * holds the same rule in the database for a use that lands between this check and the delete.
 */
async function refuseDroppingUsedItems(ctx: RequestContext, listId: number, keptIds: number[], field: string): Promise<void> {
  const used = await tenantSql(ctx).get<{ item: string; used_by: string }>(
    `select ci.name as item, u.used_by from category_item ci
       cross join lateral (
         select 'store item "' || s.name || '"' as used_by from store_item s where ${tenantIs('s')} and s.category_item_id = ci.id
         union all
         select 'directory listing "' || l.name || '"' from directory_listing l
          where ${tenantIs('l')} and l.deleted_at is null and l.category_item_ids @> jsonb_build_array(ci.id)
         union all
         select 'billing schedule "' || b.description || '"' from scheduled_billing b where ${tenantIs('b')} and b.category_item_id = ci.id
         limit 1) u
      where ${tenantIs('ci')} and ci.list_id = ? and not (ci.id = any(?::int[]))
      order by ci.sort_order, ci.id limit 1`, [listId, `{${keptIds.join(',')}}`]);
  if (used) throw new Conflict(`The category item "${used.item}" is used by ${used.used_by}; change that first.`, [{ field, message: `item "${used.item}" is in use` }]);
}

function quantity(value: string | null | undefined): number | null {
  return value == null || value.trim() === '' ? null : Number(value.trim());
}

function quantityText(value: number | null): string | null {
  return value === null ? null : String(value);
}

function toCollectionItem(ctx: RequestContext, row: ListRow, itemsCount: number, total: number): CategoryListCollectionItem {
  const type = CATEGORY_TYPES.find((candidate) => candidate.id === row.categoryType);
  const isSystem = row.systemKey !== null;
  return {
    Id: row.id, CategoryListId: row.id, AuditId: row.auditId, IsSystem: isSystem, CategoryTypeId: String(row.categoryType), CategoryTypeName: type?.name ?? '',
    Name: row.name, Description: row.description, IsPublic: row.isPublic, ObjectTypeId: String(row.categoryType), ObjectType: type?.objectType ?? '',
    ItemsCount: itemsCount, Actions: isSystem ? rowActions(ctx.isStaff).filter((action) => action !== 'Delete') : rowActions(ctx.isStaff),
    IsReadOnly: !ctx.isStaff, HideDelete: isSystem || !ctx.isStaff, IsStaff: ctx.isStaff, TotalRecordAvailable: total,
  };
}
