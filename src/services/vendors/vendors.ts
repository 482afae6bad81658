import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../core/context.js';
import { rowFrom } from '../../core/data/lean-read.js';
import { listQuery, defineList } from '../../core/data/list-query.js';
import { deleteRecord, likelyDuplicates, readOr404, saveRecord } from '../../core/data/records.js';
import type { Tenant } from '../../entities/tenant.js';
import { Vendor, vendorNameKey } from '../../entities/vendor.js';
import { PotentialDuplicateEntry, rowActions, withRowActions, type ListOptionsInput } from '../../schema/common.js';
import { VendorAddEdit, VendorCollectionItem, type VendorAddEditInput } from '../../schema/vendors.js';

const vendorList = defineList(Vendor, {
  operations: ['Query.vendors'],
  orderBy: { Name: 'name', WebsiteUrl: 'websiteUrl', VendorId: 'id' },
  defaultOrder: 'Name',
  search: ['name', 'websiteUrl'],
}, 'many');

/** Only the columns a vendor view needs (lists skip timestamps). */
const VENDOR_FIELDS = ['id', 'name', 'websiteUrl', 'auditId'] as const;

/** A vendor list row under the keys of VendorCollectionItem: read as the list answers it, and a saved vendor answered the same way. */
const VENDOR_ROW = { VendorId: 'id', Name: 'name', WebsiteUrl: 'websiteUrl' } as const;

/** One page of vendors; with `text`, only those whose name or website contains it (case-insensitive). */
export async function listVendors(ctx: RequestContext, options: ListOptionsInput | null | undefined, text?: string | null): Promise<VendorCollectionItem[]> {
  const { rows } = await listQuery(ctx, Vendor, vendorList, text?.trim() ? { ...options, Filter: text } : options, { fields: VENDOR_ROW });
  return withRowActions(ctx.isStaff, rows);
}

export async function getVendor(ctx: RequestContext, vendorId: number): Promise<VendorAddEdit> {
  const vendor = await readOr404(ctx, Vendor, VENDOR_FIELDS, vendorId, 'The vendor');
  return { VendorId: vendor.id, Name: vendor.name, WebsiteUrl: vendor.websiteUrl, AuditId: vendor.auditId };
}

/** Create-or-update: VendorId 0 or absent creates, an existing id updates, an unknown id is 404. */
export async function saveVendor(ctx: RequestContext, input: VendorAddEditInput): Promise<VendorCollectionItem> {
  const fields = { name: input.Name.trim(), nameKey: vendorNameKey(input.Name), websiteUrl: input.WebsiteUrl || null };
  const vendor = await saveRecord(ctx, Vendor, { id: input.VendorId, auditId: input.AuditId }, fields, 'The vendor');
  return toCollectionItem(ctx, vendor);
}

/** Deletes a vendor and answers its id; with `auditId`, only if it is still that version. */
export function deleteVendor(ctx: RequestContext, vendorId: number, auditId: number | null | undefined): Promise<number> {
  return deleteRecord(ctx, Vendor, vendorId, auditId, 'The vendor');
}

/** Vendors (other than the one being edited) whose name equals `name`, ignoring case and whitespace. */
export async function findDuplicateVendors(ctx: RequestContext, input: VendorAddEditInput): Promise<PotentialDuplicateEntry[]> {
  const duplicates = await likelyDuplicates(ctx, Vendor, vendorNameKey(input.Name), input.VendorId, ['name', 'websiteUrl']);
  return duplicates.map((vendor) => ({ Id: vendor.id, Name: vendor.name, Description: vendor.websiteUrl }));
}

/** Demo vendors for a new tenant. */
export async function seedVendors(em: EntityManager, tenant: Tenant, marker: string): Promise<void> {
  for (const [name, websiteUrl] of [['Acme Catering', 'https://catering.example'], ['Bright Print Co', 'https://print.example'], ['Civic Venues', null]] as const) {
    em.create(Vendor, { tenant, name: `${marker}${name}`, nameKey: vendorNameKey(`${marker}${name}`), websiteUrl });
  }
  await em.flush();
}

function toCollectionItem(ctx: RequestContext, vendor: Pick<Vendor, 'id' | 'name' | 'websiteUrl'>): VendorCollectionItem {
  return { ...rowFrom(vendor, VENDOR_ROW), Actions: rowActions(ctx.isStaff) };
}
