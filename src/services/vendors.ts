import type { RequestContext } from '../core/context.js';
import { assertCurrentVersion } from '../core/concurrency.js';
import { NotFound } from '../core/errors.js';
import { leanRows } from '../core/lean-read.js';
import { parseListOptions, toFindOptions, type ListOptions, type ListSpec } from '../core/list-query.js';
import { Vendor, vendorNameKey } from '../entities/vendor.js';
import { PotentialDuplicateEntry, rowActions } from '../schema/common.js';
import { VendorAddEdit, VendorCollectionItem, type VendorAddEditInput } from '../schema/vendors.js';

const vendorList: ListSpec<Vendor> = {
  orderBy: { Name: 'name', WebsiteUrl: 'websiteUrl', VendorId: 'id' },
  defaultOrder: 'Name',
  search: ['name', 'websiteUrl'],
};

/** Only the columns a vendor view needs (lists skip timestamps). */
const VENDOR_FIELDS = ['id', 'name', 'websiteUrl', 'auditId'] as const;

export async function listVendors(ctx: RequestContext, options: string | null | undefined): Promise<VendorCollectionItem[]> {
  return queryVendors(ctx, parseListOptions(options, vendorList));
}

/** Vendors whose name or website contains `text` (case-insensitive); `options` pages and orders them. */
export async function searchVendors(ctx: RequestContext, text: string | null | undefined, options: string | null | undefined): Promise<VendorCollectionItem[]> {
  return queryVendors(ctx, { ...parseListOptions(options, vendorList), filter: text?.trim() || null });
}

async function queryVendors(ctx: RequestContext, list: ListOptions): Promise<VendorCollectionItem[]> {
  const { where, orderBy, limit, offset } = toFindOptions(list, vendorList);
  const vendors = await leanRows(ctx.em, Vendor, { fields: [...VENDOR_FIELDS], where, orderBy, limit, offset });
  return vendors.map((vendor) => toCollectionItem(ctx, vendor));
}

export async function getVendor(ctx: RequestContext, vendorId: number): Promise<VendorAddEdit> {
  const [vendor] = await leanRows(ctx.em, Vendor, { fields: [...VENDOR_FIELDS], where: { id: vendorId }, limit: 1 });
  if (!vendor) throw new NotFound('The vendor');
  return { VendorId: vendor.id, Name: vendor.name, WebsiteUrl: vendor.websiteUrl, AuditId: vendor.auditId };
}

/** Create-or-update: VendorId 0 or absent creates, an existing id updates, an unknown id is 404. */
export async function saveVendor(ctx: RequestContext, input: VendorAddEditInput): Promise<VendorCollectionItem> {
  const fields = { name: input.Name.trim(), nameKey: vendorNameKey(input.Name), websiteUrl: input.WebsiteUrl || null };
  let vendor: Vendor;
  if (input.VendorId) {
    vendor = await findVendor(ctx, input.VendorId);
    assertCurrentVersion(vendor, input.AuditId);
    ctx.em.assign(vendor, fields);
  } else {
    vendor = ctx.em.create(Vendor, { tenant: ctx.tenantId, ...fields });
  }
  await ctx.em.persist(vendor).flush();
  return toCollectionItem(ctx, vendor);
}

/** Deletes a vendor and answers its id; with `auditId`, only if it is still that version. */
export async function deleteVendor(ctx: RequestContext, vendorId: number, auditId: number | null | undefined): Promise<number> {
  const vendor = await findVendor(ctx, vendorId);
  assertCurrentVersion(vendor, auditId);
  await ctx.em.remove(vendor).flush();
  return vendorId;
}

/** Vendors (other than the one being edited) whose name equals `name`, ignoring case and whitespace. */
export async function findDuplicateVendors(ctx: RequestContext, input: VendorAddEditInput): Promise<PotentialDuplicateEntry[]> {
  const duplicates = await leanRows(ctx.em, Vendor, {
    fields: [...VENDOR_FIELDS],
    where: { nameKey: vendorNameKey(input.Name), ...(input.VendorId ? { id: { $ne: input.VendorId } } : {}) },
    orderBy: [{ id: 'asc' }],
    limit: 100,
  });
  return duplicates.map((vendor) => ({ Id: vendor.id, Name: vendor.name, Description: vendor.websiteUrl }));
}

async function findVendor(ctx: RequestContext, vendorId: number): Promise<Vendor> {
  const vendor = await ctx.em.findOne(Vendor, { id: vendorId });
  if (!vendor) throw new NotFound('The vendor');
  return vendor;
}

function toCollectionItem(ctx: RequestContext, vendor: Pick<Vendor, 'id' | 'name' | 'websiteUrl'>): VendorCollectionItem {
  return { VendorId: vendor.id, Name: vendor.name, WebsiteUrl: vendor.websiteUrl, Actions: rowActions(ctx.caller?.roles.includes('staff') ?? false) };
}
