import type { RequiredEntityData } from '@mikro-orm/core';
import { Decimal } from 'decimal.js';
import type { RequestContext } from '../../core/context.js';
import { optionalCalendarDay } from '../../core/dates.js';
import { BadInput, Conflict, NotFound } from '../../core/errors.js';
import { allOf, idOf, leanRows } from '../../core/data/lean-read.js';
import { listQuery, parseListOptions, MAX_PAGE_SIZE, defineList } from '../../core/data/list-query.js';
import { money, parseMoney, toMoneyNumber, toMoneyString } from '../../core/money.js';
import { assertCurrentVersion, findOr404, inTransaction, readOr404 } from '../../core/data/records.js';
import { CategoryItem } from '../../entities/category-list.js';
import { SaleableItem } from '../../entities/commerce.js';
import { Contact } from '../../entities/contact.js';
import { MembershipType } from '../../entities/membership.js';
import {
  STORE_ITEM_VARIANTS, StoreItem, StoreItemImage, StoreItemInventory, StoreSettings, StoreSubItem, TRACKING_METHODS, type StoreItemVariant,
} from '../../entities/store.js';
import { listResult, lookupChoices, rowActions, type ListResultOf, type LookupChoiceInt } from '../../schema/common.js';
import type {
  StoreImageOrderInput, StoreItemBase, StoreItemBaseInput, StoreItemInventoryInput, StoreItemInventoryView, StoreItemOrderEntry, StoreItemOrderEntryInput,
  StoreItemPurchaseHistory, StoreItemV0, StoreItemV0Input, StoreItemV1, StoreItemV1Input, StoreItemV2, StoreItemV2Input, StoreItemV3, StoreItemV3Input,
  StoreListCriteria, StoreListFilterInput, StorePreImageInput, StorePreImageResult, StoreSettingsInput, StoreSettingsView, StoreSubItemInput, StoreSubItemView,
} from '../../schema/store.js';
import { STORE_ITEM_TYPE_RULE } from '../../schema/store.js';
import { findFile, releaseFiles } from '../files/files.js';
import { deleteImage, getImage, imageUrl, saveImage } from '../images/images.js';
import { assertActiveVoucherType } from './vouchers.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';

/*
 * Store items, their sub-items, gallery, inventory receipts and the store settings.
 * Decisions where the documents are silent:
 * - Variants (path segment 0–3): 0 Product (physical: sub-items, a contact, shipping), 1 Download
 *   (a file, an expiry, an active-membership requirement), 2 Voucher (a voucher type), 3
 *   Information (InfoMessage shown after purchase). GET or save of an item under another
 *   variant's path is 404.
 * - Staff manage everything; any signed-in login lists and reads items (members see active ones).
 * - A membership add-on is an item offered to membership types (MembershipTypes not empty).
 * - Stock (`remaining`) is set once when tracking starts (InventoryRemaining of the save) and then
 *   moves only by receipts (adding) and checkout (reserving), each one conditional UPDATE: a save
 *   never writes it, so no sale made while staff edit the item is lost.
 * - Delete: an item nothing was bought of is erased (with its gallery); one with orders or
 *   download purchases is retired (`retiredAt`, inactive): hidden from lists, reads and checkout,
 *   kept for its orders. Either way it answers 404 afterwards.
 * - Category items are not on main: CategoryItemId is a plain integer. VoucherTypeId must name an
 *   active voucher type of the tenant (services/store/vouchers.ts; 400 naming VoucherTypeId).
 */

export const STORE_DOWNLOAD_PURPOSE = 'store-downloads';
const NOUN = 'The store item';
const VARIANT_NAMES = STORE_ITEM_VARIANTS;

const ITEM_FIELDS = [
  'id', 'variant', 'name', 'settingsJson', 'price', 'showAvailableQuantity', 'hasManualTracking', 'trackingMethod', 'remaining', 'saleableItem',
  'accountingClassId', 'categoryItemId', 'membershipTypes', 'description', 'shortDescription', 'availableDate', 'endDate', 'isActive', 'minimumQuantity',
  'allowBackorder', 'displayOrder', 'contact', 'shippingNotAvailable', 'downloadFile', 'fileExpirationDate', 'requireActiveMembership', 'voucherType',
  'infoMessage', 'auditId',
] as const;
type ItemRow = Pick<StoreItem, (typeof ITEM_FIELDS)[number]>;

const itemList = defineList(StoreItem, {
  operations: ['Query.storeItems', 'Query.storeMembershipAddons'],
  orderBy: { DisplayOrder: 'displayOrder', ProductName: 'name', Price: 'price', StoreItemId: 'id' },
  defaultOrder: 'DisplayOrder',
  search: ['name', 'shortDescription'],
});

/** What callers may reach: never a retired item; members only active ones. */
function visible(ctx: RequestContext): object {
  return ctx.isStaff ? { retiredAt: null } : { retiredAt: null, isActive: true };
}

// ---------------------------------------------------------------------------------------------
// Lists and lookups.

/** POST /api/store/storeitems and /api/store/membership/addons: one page of items, with the total. */
export async function listStoreItems(
  ctx: RequestContext, filter: StoreListFilterInput | null | undefined, addonsOnly: boolean,
): Promise<ListResultOf<StoreItemOrderEntry, StoreListCriteria>> {
  ctx.requireCaller();
  const list = parseListOptions(filter, itemList, '');
  const variant = filter?.StoreItemType?.trim() ? STORE_ITEM_TYPE_RULE.parse(filter.StoreItemType, 'StoreItemType') : null;
  const criteria = filter?.Criteria ? { IsActive: null, ContactId: null, PurchaseStatusId: null, StoreItemId: null, ...filter.Criteria } : null;
  const where = allOf<StoreItem>(
    visible(ctx),
    addonsOnly ? { membershipAddon: true } : null,
    variant === null ? null : { variant },
    criteria?.IsActive == null ? null : { isActive: criteria.IsActive },
  );
  const { rows, total } = await listQuery(ctx, StoreItem, itemList, list, { fields: ITEM_FIELDS, where, total: true });
  const subItems = await subItemsOf(ctx, rows.map((row) => row.id));
  const criteriaItems = lookupChoices(VARIANT_NAMES.map((name, id) => ({ id, name, selected: id === variant })));
  return listResult({ criteria, criteriaItems, total: total ?? 0, results: rows.map((row) => toOrderEntry(ctx, row, subItems.get(row.id) ?? [])) });
}

/** GET /api/store/lookup/storeitems and …/membership/addons: the items as choices (at most 1000, display order). */
export async function storeItemLookup(ctx: RequestContext, addonsOnly: boolean): Promise<LookupChoiceInt[]> {
  ctx.requireCaller();
  const where = allOf<StoreItem>(visible(ctx), addonsOnly ? { membershipAddon: true } : null);
  const { rows } = await listQuery(ctx, StoreItem, itemList, { Take: String(MAX_PAGE_SIZE) }, { fields: ['id', 'name', 'variant'], where });
  return lookupChoices(rows.map((row) => ({ id: row.id, name: row.name, extraData: VARIANT_NAMES[row.variant] })));
}

type SubItemRow = Pick<StoreSubItem, 'id' | 'storeItem' | 'name' | 'price' | 'remaining' | 'displayOrder'>;

/** The sub-items of a page of items: one statement. */
async function subItemsOf(ctx: RequestContext, itemIds: number[]): Promise<Map<number, SubItemRow[]>> {
  const byItem = new Map<number, SubItemRow[]>();
  if (itemIds.length === 0) return byItem;
  const rows = await leanRows(ctx.reader, StoreSubItem, {
    fields: ['id', 'storeItem', 'name', 'price', 'remaining', 'displayOrder'], where: { storeItem: { $in: itemIds } }, orderBy: [{ displayOrder: 'asc' }, { id: 'asc' }],
  });
  for (const row of rows) byItem.set(idOf(row.storeItem), [...(byItem.get(idOf(row.storeItem)) ?? []), row]);
  return byItem;
}

/** Units left: the item's count, or the sum over its sub-items (method 2); null when not tracked. */
function inventoryRemaining(item: Pick<StoreItem, 'trackingMethod' | 'remaining'>, subItems: SubItemRow[]): string | null {
  if (item.trackingMethod === 1) return item.remaining === null ? null : String(item.remaining);
  if (item.trackingMethod === 2) return String(subItems.reduce((sum, sub) => sum + (sub.remaining ?? 0), 0));
  return null;
}

function toOrderEntry(ctx: RequestContext, row: ItemRow, subItems: SubItemRow[]): StoreItemOrderEntry {
  const prices = [money(row.price), ...subItems.flatMap((sub) => (sub.price === null ? [] : [money(sub.price)]))];
  const min = Decimal.min(...prices);
  const max = Decimal.max(...prices);
  return {
    StoreItemId: row.id, ParentStoreItemId: null, HasSubItems: subItems.length > 0, ProductName: row.name, ItemType: String(row.variant),
    InventoryTrackingMethodTypeId: String(row.trackingMethod), ItemTypeStr: VARIANT_NAMES[row.variant], SettingJson: row.settingsJson, Settings: row.settingsJson,
    Category: row.categoryItemId === null ? null : String(row.categoryItemId), Price: toMoneyNumber(row.price),
    MinPrice: toMoneyString(min), MaxPrice: toMoneyString(max), PriceDescription: min.equals(max) ? toMoneyString(min) : `${toMoneyString(min)} – ${toMoneyString(max)}`,
    InventoryRemaining: inventoryRemaining(row, subItems), IsActive: row.isActive, DisplayOrder: String(row.displayOrder), Actions: rowActions(ctx.isStaff),
  };
}

/** An integer array as a PostgreSQL array literal ('{1,2,3}'), bound as one parameter (the driver would spread a JS array). */
function intArray(values: readonly number[]): string {
  return `{${values.map((value) => Math.trunc(value)).join(',')}}`;
}

/** POST …/storeitems/saveorder and …/membership/addons/saveorder: display order in one UPDATE (ids of other tenants, or not add-ons there, change nothing). */
export async function saveStoreItemOrder(ctx: RequestContext, entries: StoreItemOrderEntryInput[], addonsOnly: boolean): Promise<boolean> {
  if (entries.length > MAX_PAGE_SIZE) throw BadInput.field('body', `must hold at most ${MAX_PAGE_SIZE} entries`);
  if (entries.length === 0) return true;
  const ids = entries.map((entry) => entry.StoreItemId);
  const orders = entries.map((entry, index) => (entry.DisplayOrder?.trim() ? Number(entry.DisplayOrder) : index + 1));
  await tenantSql(ctx).all(
    `UPDATE store_item s SET display_order = v.display_order, updated_at = now()
       FROM unnest(?::int[], ?::int[]) AS v(id, display_order)
      WHERE s.id = v.id AND ${tenantIs('s')} AND s.retired_at IS NULL ${addonsOnly ? 'AND s.membership_addon' : ''}`, [intArray(ids), intArray(orders)]);
  return true;
}

// ---------------------------------------------------------------------------------------------
// One item, by variant.

type ItemView = StoreItemV0 | StoreItemV1 | StoreItemV2 | StoreItemV3;

export async function getStoreItem(ctx: RequestContext, variant: 0, storeItemId: number): Promise<StoreItemV0>;
export async function getStoreItem(ctx: RequestContext, variant: 1, storeItemId: number): Promise<StoreItemV1>;
export async function getStoreItem(ctx: RequestContext, variant: 2, storeItemId: number): Promise<StoreItemV2>;
export async function getStoreItem(ctx: RequestContext, variant: 3, storeItemId: number): Promise<StoreItemV3>;
/** GET /api/store/storeitems/{n}/{storeitemid}: 404 for an item of another variant. */
export async function getStoreItem(ctx: RequestContext, variant: StoreItemVariant, storeItemId: number): Promise<ItemView> {
  ctx.requireCaller();
  const row = await readOr404(ctx, StoreItem, ITEM_FIELDS, storeItemId, NOUN, allOf<StoreItem>(visible(ctx), { variant }));
  const [subItems, images, contact] = await Promise.all([
    subItemsOf(ctx, [row.id]).then((map) => map.get(row.id) ?? []),
    galleryOf(ctx, row.id),
    row.contact ? ctx.loaders.byId(Contact).load(idOf(row.contact)) : Promise.resolve(null),
  ]);
  const base: StoreItemBase = {
    StoreItemId: row.id, Name: row.name, ItemType: VARIANT_NAMES[row.variant], SettingsJson: row.settingsJson, Settings: row.settingsJson,
    Price: toMoneyNumber(row.price), ShowAvailableQuantity: row.showAvailableQuantity, HasManualTracking: row.hasManualTracking, HasSubItems: subItems.length > 0,
    InventoryTrackingMethodTypeId: String(row.trackingMethod), InventoryRemaining: inventoryRemaining(row, subItems),
    SaleableItemId: row.saleableItem ? String(idOf(row.saleableItem)) : null, AccountingClassId: row.accountingClassId,
    CategoryItemId: row.categoryItemId === null ? null : String(row.categoryItemId), MembershipTypes: row.membershipTypes,
    HasMembershipTypesChosen: row.membershipTypes.length > 0, Description: row.description, ShortDescription: row.shortDescription,
    AvailableDate: row.availableDate, EndDate: row.endDate, IsActive: row.isActive, MinimumQuantity: String(row.minimumQuantity),
    TrackInventory: row.trackingMethod !== 0, AllowBackorder: row.allowBackorder, Images: images, AuditId: row.auditId,
  };
  switch (row.variant) {
    case 0: return {
      ...base, Contact: contact ? contactName(contact) : null, ShippingNotAvailable: row.shippingNotAvailable,
      ContactId: row.contact ? String(idOf(row.contact)) : null, SubItems: subItems.map(toSubItemView),
    };
    case 1: return {
      ...base, PostSubmitDownloadFile: row.downloadFile ? String(idOf(row.downloadFile)) : null,
      FileExpirationDate: row.fileExpirationDate, RequireActiveMembership: row.requireActiveMembership,
    };
    case 2: return { ...base, VoucherTypeId: row.voucherType ? idOf(row.voucherType) : null };
    default: return { ...base, InfoMessage: row.infoMessage };
  }
}

export function contactName(contact: Pick<Contact, 'name' | 'firstName' | 'lastName'>): string | null {
  return contact.name || [contact.firstName, contact.lastName].filter(Boolean).join(' ') || null;
}

function toSubItemView(row: SubItemRow): StoreSubItemView {
  return { StoreSubItemId: row.id, Name: row.name, Price: row.price === null ? null : toMoneyNumber(row.price), InventoryRemaining: row.remaining === null ? null : String(row.remaining) };
}

/** GET /api/store/storeitems/{storeitemid}/subitems. */
export async function storeItemSubItems(ctx: RequestContext, storeItemId: number): Promise<LookupChoiceInt[]> {
  ctx.requireCaller();
  await readOr404(ctx, StoreItem, ['id'], storeItemId, NOUN, visible(ctx) as never);
  const subItems = (await subItemsOf(ctx, [storeItemId])).get(storeItemId) ?? [];
  return lookupChoices(subItems.map((sub) => ({ id: sub.id, name: sub.name, extraData: sub.price })));
}

// ---------------------------------------------------------------------------------------------
// Saves.

type ItemInput = StoreItemV0Input | StoreItemV1Input | StoreItemV2Input | StoreItemV3Input;

/** POST /api/store/storeitems/{n}/save: creates (StoreItemId 0) or updates an item of that variant, by its own rules. */
export async function saveStoreItem(ctx: RequestContext, variant: StoreItemVariant, input: ItemInput): Promise<ItemView> {
  const fields = await commonFields(ctx, input);
  const method = fields.trackingMethod;
  if (method === 2 && variant !== 0) throw BadInput.field('InventoryTrackingMethodTypeId', 'tracking per sub-item is for products (variant 0) only');
  Object.assign(fields, await variantFields(ctx, variant, input));
  const subItems = variant === 0 ? (input as StoreItemV0Input).SubItems : undefined;
  if (subItems?.some((sub) => sub.Price != null)) subItems.forEach((sub, index) => sub.Price != null && parseMoney(sub.Price, `SubItems[${index}].Price`));
  const opening = input.InventoryRemaining?.trim() ? Number(input.InventoryRemaining) : 0;

  const id = await inTransaction(ctx, async () => {
    const current = input.StoreItemId
      ? await findOr404(ctx, StoreItem, input.StoreItemId, NOUN, { variant, retiredAt: null })
      : null;
    if (current) assertCurrentVersion(current, input.AuditId);
    const item = current ?? ctx.em.create(StoreItem, { tenant: ctx.tenantId, variant, ...fields } as RequiredEntityData<StoreItem>);
    if (current) ctx.em.assign(current, fields);
    // Stock is set when tracking starts, never overwritten by a save (see the header).
    if (method === 1 && item.remaining === null) item.remaining = opening;
    await ctx.em.persist(item).flush();
    if (subItems) await replaceSubItems(ctx, item, subItems);
    if (method === 2 && !(await ctx.em.count(StoreSubItem, { storeItem: item.id }))) {
      throw BadInput.field('InventoryTrackingMethodTypeId', 'tracking per sub-item needs sub-items');
    }
    return item.id;
  });
  return getStoreItem(ctx, variant as 0, id);
}

async function commonFields(ctx: RequestContext, input: StoreItemBaseInput) {
  const availableDate = optionalCalendarDay(input.AvailableDate, 'AvailableDate');
  const endDate = optionalCalendarDay(input.EndDate, 'EndDate');
  // EndDate not before AvailableDate: the input's rule (schema/store.ts).
  const minimumQuantity = input.MinimumQuantity?.trim() ? Number(input.MinimumQuantity) : 1;
  if (minimumQuantity < 1) throw BadInput.field('MinimumQuantity', 'must be at least 1');
  const saleableItemId = input.SaleableItemId?.trim() ? Number(input.SaleableItemId) : null;
  if (saleableItemId !== null && !(await ctx.loaders.byId(SaleableItem).load(saleableItemId))) throw BadInput.field('SaleableItemId', 'names no saleable item');
  const categoryItemId = input.CategoryItemId?.trim() ? Number(input.CategoryItemId) : null;
  if (categoryItemId !== null && !(await ctx.loaders.byId(CategoryItem).load(categoryItemId))) throw BadInput.field('CategoryItemId', 'names no category item');
  const membershipTypes = [...new Set(input.MembershipTypes ?? [])];
  if (membershipTypes.length) {
    const found = await leanRows(ctx.reader, MembershipType, { fields: ['id'], where: { id: { $in: membershipTypes } } });
    if (found.length !== membershipTypes.length) throw BadInput.field('MembershipTypes', 'names a membership type that does not exist');
  }
  return {
    name: input.Name.trim(),
    settingsJson: settingsText(input),
    price: toMoneyString(parseMoney(input.Price, 'Price')),
    showAvailableQuantity: input.ShowAvailableQuantity ?? false,
    hasManualTracking: input.HasManualTracking ?? false,
    trackingMethod: input.InventoryTrackingMethodTypeId?.trim() ? Number(input.InventoryTrackingMethodTypeId) : 0,
    saleableItem: saleableItemId,
    accountingClassId: input.AccountingClassId?.trim() || null,
    categoryItemId,
    membershipTypes,
    membershipAddon: membershipTypes.length > 0,
    description: input.Description ?? null,
    shortDescription: input.ShortDescription ?? null,
    availableDate,
    endDate,
    isActive: input.IsActive ?? true,
    minimumQuantity,
    allowBackorder: input.AllowBackorder ?? false,
  } as Record<string, unknown> & { trackingMethod: number };
}

/** Settings wins over SettingsJson (the same text); kept as sent, blank as none. */
function settingsText(input: StoreItemBaseInput): string | null {
  const text = input.Settings ?? input.SettingsJson;
  return text?.trim() ? text : null;
}

/** Each variant's own fields and rules. */
async function variantFields(ctx: RequestContext, variant: StoreItemVariant, input: ItemInput): Promise<Record<string, unknown>> {
  switch (variant) {
    case 0: {
      const product = input as StoreItemV0Input;
      const contactId = product.ContactId?.trim() ? Number(product.ContactId) : null;
      if (contactId !== null && !(await ctx.loaders.byId(Contact).load(contactId))) throw BadInput.field('ContactId', 'names no contact');
      return { contact: contactId, shippingNotAvailable: product.ShippingNotAvailable ?? false };
    }
    case 1: {
      const download = input as StoreItemV1Input;
      const fileId = Number(download.PostSubmitDownloadFile);
      try {
        await findFile(ctx, fileId, [STORE_DOWNLOAD_PURPOSE]);
      } catch (error) {
        if (error instanceof NotFound) throw BadInput.field('PostSubmitDownloadFile', 'names no uploaded download file (POST /api/store/downloadfiles/upload)');
        throw error;
      }
      return {
        downloadFile: fileId, fileExpirationDate: optionalCalendarDay(download.FileExpirationDate, 'FileExpirationDate'),
        requireActiveMembership: download.RequireActiveMembership ?? false,
      };
    }
    case 2: {
      const voucherTypeId = (input as StoreItemV2Input).VoucherTypeId;
      await assertActiveVoucherType(ctx, voucherTypeId, 'VoucherTypeId');
      return { voucherType: voucherTypeId };
    }
    default: return { infoMessage: (input as StoreItemV3Input).InfoMessage.trim() };
  }
}

/** The sub-items as sent: known ids updated, new ones added (with their opening stock), the rest removed. */
async function replaceSubItems(ctx: RequestContext, item: StoreItem, given: StoreSubItemInput[]): Promise<void> {
  const current = await ctx.em.find(StoreSubItem, { storeItem: item.id });
  const byId = new Map(current.map((sub) => [sub.id, sub]));
  const kept = new Set<number>();
  given.forEach((sub, index) => {
    const fields = { name: sub.Name.trim(), price: sub.Price == null ? null : toMoneyString(sub.Price), displayOrder: index + 1 };
    const existing = sub.StoreSubItemId ? byId.get(sub.StoreSubItemId) : undefined;
    if (existing) {
      ctx.em.assign(existing, fields);
      kept.add(existing.id);
    } else {
      const opening = sub.InventoryRemaining?.trim() ? Number(sub.InventoryRemaining) : 0;
      ctx.em.create(StoreSubItem, { tenant: ctx.tenantId, storeItem: item, ...fields, remaining: item.trackingMethod === 2 ? opening : null });
    }
  });
  for (const sub of current) if (!kept.has(sub.id)) ctx.em.remove(sub);
  await ctx.em.flush();
}

// ---------------------------------------------------------------------------------------------
// Delete.

/** DELETE /api/store/storeitems/{storeitemid}: erased when nothing was bought of it, else retired (see the header). */
export async function deleteStoreItem(ctx: RequestContext, storeItemId: number): Promise<number> {
  const tenantId = ctx.tenantId;
  const outcome = await inTransaction(ctx, async () => {
    const images = await leanRows(ctx.reader, StoreItemImage, { fields: ['image'], where: { storeItem: storeItemId } });
    const erased = await tenantSql({ em: ctx.em, tenantId }).all<{ download_file_id: number | null }>(
      `DELETE FROM store_item s WHERE s.id = ? AND ${tenantIs('s')} AND s.retired_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM store_order_line l WHERE l.store_item_id = s.id)
          AND NOT EXISTS (SELECT 1 FROM store_download_purchase d WHERE d.store_item_id = s.id)
        RETURNING s.download_file_id`, [storeItemId]);
    if (erased.length) return { erased: true, images: images.map((row) => idOf(row.image)), file: erased[0].download_file_id };
    const retired = await tenantSql({ em: ctx.em, tenantId }).all<{ id: number }>(
      `UPDATE store_item SET retired_at = now(), is_active = false, audit_id = audit_id + 1, updated_at = now()
        WHERE id = ? AND ${tenantIs()} AND retired_at IS NULL RETURNING id`, [storeItemId]);
    if (!retired.length) throw new NotFound(NOUN);
    return { erased: false, images: [], file: null };
  });
  // The gallery's images go with an erased item (the images area releases their files).
  for (const imageId of outcome.images) await deleteImage(ctx, imageId).catch((error: unknown) => { if (!(error instanceof NotFound)) throw error; });
  if (outcome.file) await releaseFiles(ctx, [outcome.file]);
  return storeItemId;
}

// ---------------------------------------------------------------------------------------------
// Gallery (pre-images).

type GalleryRow = Pick<StoreItemImage, 'id' | 'image' | 'title' | 'galleryOrder'>;

async function galleryRows(ctx: RequestContext, storeItemId: number): Promise<GalleryRow[]> {
  return leanRows(ctx.reader, StoreItemImage, { fields: ['id', 'image', 'title', 'galleryOrder'], where: { storeItem: storeItemId }, orderBy: [{ galleryOrder: 'asc' }, { id: 'asc' }] });
}

/** The gallery of an item, in order: two statements whatever its size. */
async function galleryOf(ctx: RequestContext, storeItemId: number): Promise<StorePreImageResult[]> {
  const rows = await galleryRows(ctx, storeItemId);
  if (!rows.length) return [];
  const images = await tenantSql(ctx).all<{ id: number; file_id: number; caption: string | null; short_description: string | null }>(
    `SELECT id, file_id, caption, short_description FROM image WHERE ${tenantIs()} AND id = ANY(?::int[])`, [intArray(rows.map((row) => idOf(row.image)))]);
  const byId = new Map(images.map((image) => [image.id, image]));
  return rows.flatMap((row, index) => {
    const image = byId.get(idOf(row.image));
    return image ? [{
      ImageId: image.id, Url: imageUrl(image.id), Title: row.title, Caption: image.caption, ShortDescription: image.short_description,
      FileId: image.file_id, GalleryOrder: index + 1,
    }] : [];
  });
}

async function galleryItem(ctx: RequestContext, storeItemId: number): Promise<void> {
  await readOr404(ctx, StoreItem, ['id'], storeItemId, NOUN, { retiredAt: null });
}

/**
 * POST /api/store/{storeitemid}/preimage/{imageid}/{fileid}: imageid 0 attaches the uploaded file
 * (POST /api/images/upload) as a new gallery image, unless OldImageId names one to replace; an
 * image of the gallery (imageid or OldImageId) is replaced by fileid (0 keeps its file) with the
 * crop and texts sent. OldFileId, when given, must still be the replaced image's file (409).
 */
export async function saveStorePreImage(ctx: RequestContext, storeItemId: number, imageId: number, fileId: number, input: StorePreImageInput): Promise<StorePreImageResult> {
  await galleryItem(ctx, storeItemId);
  const targetId = imageId || input.OldImageId || 0;
  const shape = {
    Caption: input.Caption ?? null, ShortDescription: input.ShortDescription ?? null,
    ...(input.CropWidth && input.CropHeight
      ? { CropX: input.CropX ?? 0, CropY: input.CropY ?? 0, CropWidth: String(input.CropWidth), CropHeight: String(input.CropHeight) }
      : {}),
  };
  if (targetId) {
    const [link] = await leanRows(ctx.reader, StoreItemImage, { fields: ['id'], where: { storeItem: storeItemId, image: targetId }, limit: 1 });
    if (!link) throw new NotFound('The image of this store item');
    if (input.OldFileId && (await getImage(ctx, targetId)).FileId !== input.OldFileId) throw new Conflict('The image was replaced meanwhile (OldFileId is no longer its file).');
    await saveImage(ctx, targetId, { ...shape, ...(fileId ? { FileId: fileId } : {}) });
    if (input.Title !== undefined) await ctx.em.nativeUpdate(StoreItemImage, { id: link.id, tenant: ctx.tenantId }, { title: input.Title });
    return (await galleryOf(ctx, storeItemId)).find((image) => image.ImageId === targetId) ?? notInGallery();
  }
  if (!fileId) throw BadInput.field('fileid', 'is required to attach a new image (upload it with POST /api/images/upload first)');
  const image = await saveImage(ctx, 0, { ...shape, FileId: fileId, SourceType: 'StoreItem', SourceId: storeItemId, ImageUsageId: 'StoreItem' });
  try {
    await inTransaction(ctx, async () => {
      const rows = await galleryRows(ctx, storeItemId);
      const wanted = input.GalleryOrder?.trim() ? Number(input.GalleryOrder) : rows.length + 1;
      ctx.em.create(StoreItemImage, { tenant: ctx.tenantId, storeItem: storeItemId, image: image.ImageId, title: input.Title ?? null, galleryOrder: wanted });
      await ctx.em.flush();
    });
  } catch (error) {
    await deleteImage(ctx, image.ImageId); // the item went meanwhile: leave no orphan image
    throw error;
  }
  return (await galleryOf(ctx, storeItemId)).find((entry) => entry.ImageId === image.ImageId) ?? notInGallery();
}

function notInGallery(): never {
  throw new NotFound('The image of this store item');
}

/** DELETE /api/store/{storeitemid}/preimage/{imageid}: removes the image (and its files) from the gallery. */
export async function deleteStorePreImage(ctx: RequestContext, storeItemId: number, imageId: number): Promise<number> {
  await galleryItem(ctx, storeItemId);
  const [link] = await leanRows(ctx.reader, StoreItemImage, { fields: ['id'], where: { storeItem: storeItemId, image: imageId }, limit: 1 });
  if (!link) throw new NotFound('The image of this store item');
  return deleteImage(ctx, imageId);
}

/** POST /api/store/{storeitemid}/preimage/order: the images named first (by GalleryOrder, else as listed), the others after, as they were. */
export async function orderStorePreImages(ctx: RequestContext, storeItemId: number, entries: StoreImageOrderInput[]): Promise<boolean> {
  await galleryItem(ctx, storeItemId);
  if (entries.length > 1000) throw BadInput.field('body', 'must hold at most 1000 entries');
  await inTransaction(ctx, async () => {
    const rows = await galleryRows(ctx, storeItemId);
    const known = new Set(rows.map((row) => idOf(row.image)));
    entries.forEach((entry, index) => { if (!known.has(entry.ImageId)) throw BadInput.field(`[${index}].ImageId`, 'is not an image of this store item'); });
    const named = entries.map((entry, index) => ({ id: entry.ImageId, order: entry.GalleryOrder ?? index + 1, index }))
      .sort((a, b) => a.order - b.order || a.index - b.index).map((entry) => entry.id);
    const ordered = [...new Set(named), ...rows.map((row) => idOf(row.image)).filter((id) => !named.includes(id))];
    await tenantSql(ctx).all(
      `UPDATE store_item_image g SET gallery_order = v.position, updated_at = now()
         FROM unnest(?::int[]) WITH ORDINALITY AS v(image_id, position)
        WHERE g.image_id = v.image_id AND g.store_item_id = ? AND ${tenantIs('g')}`, [intArray(ordered), storeItemId]);
  });
  return true;
}

// ---------------------------------------------------------------------------------------------
// Inventory.

/** GET /api/store/inventory/{storeitemid}/storeitempurchasehistory: the latest 1000 purchases, newest first. */
export async function storeItemPurchaseHistory(ctx: RequestContext, storeItemId: number): Promise<StoreItemPurchaseHistory> {
  await readOr404(ctx, StoreItem, ['id'], storeItemId, NOUN);
  const rows = await tenantSql(ctx).all<{
    order_id: number; purchase_date: string; contact_id: number; contact_name: string | null; sub_name: string | null;
    quantity: number; backordered: number; unit_price: string; amount: string; status: string;
  }>(
    `SELECT l.order_id, to_char(o.purchase_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS purchase_date, o.contact_id, o.contact_name, s.name AS sub_name, l.quantity, l.backordered, l.unit_price, l.amount, o.status
       FROM store_order_line l JOIN store_order o ON o.id = l.order_id LEFT JOIN store_sub_item s ON s.id = l.sub_item_id
      WHERE ${tenantIs('l')} AND l.store_item_id = ? ORDER BY o.purchase_date DESC, l.id DESC LIMIT 1000`, [storeItemId]);
  return {
    StoreItemId: storeItemId,
    Items: rows.map((row) => ({
      StorePurchaseId: row.order_id, PurchaseDate: row.purchase_date, ContactId: row.contact_id, ContactName: row.contact_name,
      SubItemName: row.sub_name, Quantity: row.quantity, Backordered: row.backordered, UnitPrice: toMoneyNumber(row.unit_price), Amount: toMoneyNumber(row.amount),
      PurchaseStatusId: row.status,
    })),
  };
}

/** GET /api/store/inventory/{storeiteminventoryid}: one receipt, with what is available now. */
export async function getStoreItemInventory(ctx: RequestContext, inventoryId: number): Promise<StoreItemInventoryView> {
  const row = await readOr404(ctx, StoreItemInventory, ['id', 'storeItem', 'subItem', 'purchaseDate', 'purchasePrice', 'quantity'], inventoryId, 'The inventory receipt');
  const itemId = idOf(row.storeItem);
  const [item, subItems] = await Promise.all([
    readOr404(ctx, StoreItem, ['trackingMethod', 'remaining'], itemId, NOUN),
    subItemsOf(ctx, [itemId]).then((map) => map.get(itemId) ?? []),
  ]);
  const sub = row.subItem ? subItems.find((candidate) => candidate.id === idOf(row.subItem)) : undefined;
  return {
    StoreItemInventoryId: row.id, StoreItemId: itemId, HasSubItems: subItems.length > 0, StoreSubItemId: row.subItem ? String(idOf(row.subItem)) : null,
    PurchaseDate: row.purchaseDate, PurchasePrice: toMoneyNumber(row.purchasePrice), Quantity: row.quantity,
    QuantityAvailable: Math.max(0, sub ? sub.remaining ?? 0 : Number(inventoryRemaining(item, subItems) ?? 0)),
  };
}

/** An inventory receipt (GraphQL only): recorded, and its units added to the tracked count in one UPDATE. */
export async function saveStoreItemInventory(ctx: RequestContext, input: StoreItemInventoryInput): Promise<StoreItemInventoryView> {
  const purchaseDate = optionalCalendarDay(input.PurchaseDate, 'PurchaseDate')!;
  const purchasePrice = toMoneyString(parseMoney(input.PurchasePrice, 'PurchasePrice'));
  const id = await inTransaction(ctx, async () => {
    const item = await readOr404(ctx, StoreItem, ['id', 'trackingMethod'], input.StoreItemId, NOUN, { retiredAt: null });
    if (item.trackingMethod === 0) throw BadInput.field('StoreItemId', `the item's inventory is not tracked (${TRACKING_METHODS[0]})`);
    let table = 'store_item';
    let rowId = item.id;
    if (item.trackingMethod === 2) {
      if (!input.StoreSubItemId) throw BadInput.field('StoreSubItemId', 'is required: the item is tracked per sub-item');
      await readOr404(ctx, StoreSubItem, ['id'], input.StoreSubItemId, 'The sub-item', { storeItem: item.id }).catch(() => {
        throw BadInput.field('StoreSubItemId', 'is not a sub-item of this item');
      });
      table = 'store_sub_item';
      rowId = input.StoreSubItemId;
    }
    await tenantSql(ctx).all(`UPDATE ${table} SET remaining = coalesce(remaining, 0) + ?, updated_at = now() WHERE id = ? AND ${tenantIs()}`, [input.Quantity, rowId]);
    const receipt = ctx.em.create(StoreItemInventory, {
      tenant: ctx.tenantId, storeItem: item.id, subItem: item.trackingMethod === 2 ? rowId : null, purchaseDate, purchasePrice, quantity: input.Quantity,
    });
    await ctx.em.flush();
    return receipt.id;
  });
  return getStoreItemInventory(ctx, id);
}

// ---------------------------------------------------------------------------------------------
// Settings.

const SETTINGS_FIELDS = [
  'staffUrl', 'entireUrl', 'storeDescription', 'paymentGatewayId', 'enableAdditionalNotes', 'requirePhone', 'exemptTaxOnShipping',
  'includeNonTaxableItemsInTaxableShipping', 'width', 'height', 'taxRate', 'shippingFlatRate', 'shippingPerItem', 'auditId',
] as const;
export type SettingsRow = Pick<StoreSettings, (typeof SETTINGS_FIELDS)[number]>;

const DEFAULT_SETTINGS: SettingsRow = {
  staffUrl: null, entireUrl: null, storeDescription: null, paymentGatewayId: null, enableAdditionalNotes: false, requirePhone: false,
  exemptTaxOnShipping: false, includeNonTaxableItemsInTaxableShipping: false, width: 1200, height: 1200, taxRate: '0.0000',
  shippingFlatRate: '0.00', shippingPerItem: '0.00', auditId: 0,
};

/** The tenant's settings, or the defaults (AuditId 0) before the first save. */
export async function storeSettingsRow(ctx: RequestContext): Promise<SettingsRow> {
  const [row] = await leanRows(ctx.reader, StoreSettings, { fields: [...SETTINGS_FIELDS], where: {}, limit: 1 });
  return row ?? DEFAULT_SETTINGS;
}

export async function getStoreSettings(ctx: RequestContext): Promise<StoreSettingsView> {
  ctx.requireCaller();
  return toSettingsView(await storeSettingsRow(ctx));
}

/** POST /api/store/storesettings: fields left out keep their value; the first save creates the row (a concurrent second one is 409). */
export async function saveStoreSettings(ctx: RequestContext, input: StoreSettingsInput): Promise<StoreSettingsView> {
  const changes: Partial<StoreSettings> = {};
  const set = <K extends keyof StoreSettings>(key: K, value: StoreSettings[K] | undefined | null, fallback?: StoreSettings[K]) => {
    if (value !== undefined) changes[key] = (value ?? fallback ?? null) as StoreSettings[K];
  };
  set('staffUrl', input.StaffUrl);
  set('entireUrl', input.EntireUrl);
  set('storeDescription', input.StoreDescription);
  set('paymentGatewayId', input.PaymentGatewayId);
  set('enableAdditionalNotes', input.EnableAdditionalNotes, false);
  set('requirePhone', input.RequirePhone, false);
  set('exemptTaxOnShipping', input.ExemptTaxOnShipping, false);
  set('includeNonTaxableItemsInTaxableShipping', input.IncludeNonTaxableItemsInTaxableShippingAmmount, false);
  set('width', input.Width, 1200);
  set('height', input.Height, 1200);
  if (input.TaxRate != null) changes.taxRate = taxRate(input.TaxRate);
  if (input.ShippingFlatRate != null) changes.shippingFlatRate = toMoneyString(parseMoney(input.ShippingFlatRate, 'ShippingFlatRate'));
  if (input.ShippingPerItem != null) changes.shippingPerItem = toMoneyString(parseMoney(input.ShippingPerItem, 'ShippingPerItem'));
  await inTransaction(ctx, async () => {
    const current = await ctx.em.findOne(StoreSettings, {});
    if (current) {
      assertCurrentVersion(current, input.AuditId);
      ctx.em.assign(current, changes);
    } else {
      if (input.AuditId) throw new Conflict('The settings were never saved: send AuditId 0 or none.');
      ctx.em.create(StoreSettings, { tenant: ctx.tenantId, ...changes });
    }
    await ctx.em.flush();
  });
  return getStoreSettings(ctx);
}

function taxRate(value: number): string {
  const rate = new Decimal(value);
  if (!rate.isFinite() || rate.isNegative() || rate.greaterThan(100)) throw BadInput.field('TaxRate', 'must be a percentage from 0 to 100');
  if (rate.decimalPlaces() > 4) throw BadInput.field('TaxRate', 'must have at most four decimals');
  return rate.toFixed(4);
}

function toSettingsView(row: SettingsRow): StoreSettingsView {
  return {
    StaffUrl: row.staffUrl, EntireUrl: row.entireUrl, StoreDescription: row.storeDescription, PaymentGatewayId: row.paymentGatewayId,
    EnableAdditionalNotes: row.enableAdditionalNotes, RequirePhone: row.requirePhone, ExemptTaxOnShipping: row.exemptTaxOnShipping,
    IncludeNonTaxableItemsInTaxableShippingAmmount: row.includeNonTaxableItemsInTaxableShipping, Width: row.width, Height: row.height,
    TaxRate: new Decimal(row.taxRate).toNumber(), ShippingFlatRate: toMoneyNumber(row.shippingFlatRate), ShippingPerItem: toMoneyNumber(row.shippingPerItem),
    AuditId: row.auditId,
  };
}
