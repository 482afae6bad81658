import type { EntityManager } from '@mikro-orm/postgresql';
import { loadConfig } from '../../core/config.js';
import type { RequestContext } from '../../core/context.js';
import { todayUtc } from '../../core/dates.js';
import { BadInput, Conflict, Forbidden, NotFound } from '../../core/errors.js';
import { allOf, idOf, leanRows } from '../../core/data/lean-read.js';
import { parseListOptions, listQuery, defineList } from '../../core/data/list-query.js';
import { MAX_MONEY, money, sumMoney, toCents, toMoneyNumber, toMoneyString, ZERO, type Money } from '../../core/money.js';
import { assertCurrentVersion, deleteRecord, findOr404, inTransaction, readOr404 } from '../../core/data/records.js';
import { SaleableItem } from '../../entities/commerce.js';
import { Contact } from '../../entities/contact.js';
import { StoredImage } from '../../entities/image.js';
import { Membership } from '../../entities/membership.js';
import { inGoodStandingOn } from '../memberships/good-standing.js';
import {
  ORDER_STATUSES, StoreDownloadPurchase, StoreItem, StoreItemImage, StoreItemInventory, StoreOrder, StoreOrderLine, StoreSettings, StoreSubItem, Voucher, VoucherType, type OrderStatus,
} from '../../entities/store.js';
import type { Tenant } from '../../entities/tenant.js';
import { listResult, lookupChoices, type ListResultOf } from '../../schema/common.js';
import type {
  StoreCheckoutInput, StoreDownloadPurchaseView, StoreListCriteria, StoreListFilterInput, StoreOrderInput, StoreOrderLineView, StoreOrderView,
} from '../../schema/store.js';
import { ORDER_STATUS_RULE } from '../../schema/store.js';
import { findFile, storeFile, storeTenantFile, type FileRecord } from '../files/files.js';
import { IMAGE_PURPOSE } from '../images/images.js';
import { demoPng, imageFacts } from '../images/image-processing.js';
import { createInvoice, voidInvoice } from '../commerce/invoices.js';
import type { PaidInvoice } from '../commerce/paid-invoices.js';
import { contactName, STORE_DOWNLOAD_PURPOSE, storeSettingsRow } from './store-items.js';
import { issueOrderVouchers } from './vouchers.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';

/*
 * Checkout, orders and bought downloads. Decisions where the documents are silent:
 * - Checkout is GraphQL only (`checkoutStoreOrder`; no documented REST operation buys). The
 *   client names items and quantities, never prices: each line is priced from the item (or its
 *   sub-item), shipping and tax come from the store settings, the stock is reserved, and the
 *   order is billed by the shared invoices (sourceKey `store-order:<id>`), all in one transaction.
 * - No overselling: a tracked count only moves by one `UPDATE … WHERE remaining >= n` (locking
 *   the row), so concurrent buyers of the last units cannot take it below zero. An item that
 *   AllowBackorder sells beyond its stock: the count stops at zero and the line records the
 *   back-ordered units.
 * - Shipping: ShippingFlatRate once plus ShippingPerItem per unit of products (variant 0) that
 *   ship, when the order ships (ShippingOption Ship). Tax: TaxRate % of the taxable lines (an
 *   item is taxable unless its SaleableItem says otherwise) plus the taxable shipping — none with
 *   ExemptTaxOnShipping, all of it with IncludeNonTaxableItemsInTaxableShippingAmmount, else the
 *   taxable lines' share of it — rounded once, half up, to cents.
 * - An order keeps the rates it was priced with, so its totals are recomputed (never taken from
 *   a client) on every save and always equal its invoice. Staff change status, shipping details
 *   and notes; cancelling puts the reserved stock back; a cancelled order stays cancelled.
 * - Paid follows the money: the payment that settles the order's invoice moves it Pending → Paid
 *   and issues its vouchers, in the payment's transaction (`storeOrderPaid`, the store's
 *   `paidInvoiceSources`). Staff cannot set Paid (nor Shipped or Completed) on a Pending order by
 *   hand unless its invoice is paid (409 naming PurchaseStatusId: record the payment with
 *   payInvoice; an order paid before this rule existed is moved and its vouchers issued), nor put
 *   a paid order back to Pending. A payment that would settle a cancelled order's invoice (one with money
 *   received is not voided on cancel) is refused (409): the money is for staff to refund.
 * - Members list and read their own orders and downloads; staff everyone's.
 * - A bought download is served at GET /api/store/storedownloads/{id}/file (our route) to its
 *   buyer or staff once its order is paid (Paid, Shipped or Completed; 403 before), until
 *   FileExpirationDate (inclusive) and, where the item requires it, while the buyer holds a
 *   membership in good standing; deleting the purchase revokes it, and so does cancelling the
 *   order (its purchases are deleted: 404, as for any revoked purchase). Cancelling also deletes
 *   the order's vouchers not spent yet.
 */

const ORDER_NOUN = 'The store order';
/** The statuses of an order whose invoice is paid: its downloads are served. */
const PAID_STATUSES: readonly OrderStatus[] = ['Paid', 'Shipped', 'Completed'];
const DOWNLOAD_NOUN = 'The download purchase';

const ORDER_FIELDS = [
  'id', 'contact', 'contactName', 'emailAddress', 'phoneNumber', 'purchaseDate', 'shipToCompanyName', 'shipToContactName', 'address1', 'address2',
  'city', 'countryId', 'country', 'stateProvince', 'postalCode', 'shippingOption', 'status', 'notes', 'subtotal', 'shippingAmount', 'taxAmount',
  'grandTotal', 'invoice', 'auditId',
] as const;
type OrderRow = Pick<StoreOrder, (typeof ORDER_FIELDS)[number]>;
const LINE_FIELDS = ['id', 'order', 'storeItem', 'subItem', 'name', 'quantity', 'backordered', 'unitPrice', 'amount', 'taxable', 'shipped'] as const;
type LineRow = Pick<StoreOrderLine, (typeof LINE_FIELDS)[number]>;

const orderList = defineList(StoreOrder, {
  operations: ['Query.storeOrders'],
  orderBy: { PurchaseDate: 'purchaseDate', StorePurchaseId: 'id', GrandTotal: 'grandTotal', PurchaseStatusId: 'status' },
  defaultOrder: 'PurchaseDate desc',
  search: ['contactName', 'emailAddress', 'notes', 'city'],
  dates: 'purchaseDate',
}, 'many');

const downloadList = defineList(StoreDownloadPurchase, {
  operations: ['Query.storeDownloads'],
  orderBy: { PurchaseDate: 'createdAt', StoreItemDigitalDownloadPurchaseId: 'id' },
  defaultOrder: 'PurchaseDate desc',
  search: ['storeItem.name'],
  dates: 'createdAt',
}, 'many');

/** Members reach only what they bought. */
function ownScope(ctx: RequestContext): { contact: number } | undefined {
  const caller = ctx.requireCaller();
  if (ctx.isStaff) return undefined;
  return { contact: caller.contactId ?? -1 };
}

// ---------------------------------------------------------------------------------------------
// Totals.

export interface Rates {
  taxRate: string;
  shippingFlatRate: string;
  shippingPerItem: string;
  exemptTaxOnShipping: boolean;
  taxShippingOnNonTaxable: boolean;
}

interface PricedLine {
  quantity: number;
  amount: Money | string;
  taxable: boolean;
  shipped: boolean;
}

/** The order's totals from its lines and rates, exact (see the header for the rules). */
export function orderTotals(lines: readonly PricedLine[], rates: Rates, ships: boolean) {
  const subtotal = sumMoney(lines.map((line) => line.amount));
  const taxableSubtotal = sumMoney(lines.filter((line) => line.taxable).map((line) => line.amount));
  const shippedUnits = lines.filter((line) => line.shipped).reduce((sum, line) => sum + line.quantity, 0);
  const shipping = ships && shippedUnits > 0 ? money(rates.shippingFlatRate).plus(money(rates.shippingPerItem).times(shippedUnits)) : ZERO;
  let taxableShipping: Money = ZERO;
  if (!rates.exemptTaxOnShipping && !shipping.isZero()) {
    taxableShipping = rates.taxShippingOnNonTaxable || subtotal.isZero() ? shipping : shipping.times(taxableSubtotal).dividedBy(subtotal);
  }
  const tax = toCents(taxableSubtotal.plus(taxableShipping).times(rates.taxRate).dividedBy(100));
  return { subtotal, shipping: toCents(shipping), tax, grandTotal: subtotal.plus(toCents(shipping)).plus(tax) };
}

// ---------------------------------------------------------------------------------------------
// Checkout.

const CHECKOUT_ITEM_FIELDS = [
  'id', 'variant', 'name', 'price', 'trackingMethod', 'isActive', 'availableDate', 'endDate', 'minimumQuantity', 'allowBackorder',
  'shippingNotAvailable', 'saleableItem', 'membershipTypes', 'downloadFile', 'fileExpirationDate', 'requireActiveMembership', 'voucherType',
] as const;

/** The cart as checked out: lines of the same item and sub-item added up, in a fixed order (so row locks are taken in one order). */
function mergedLines(input: StoreCheckoutInput) {
  const merged = new Map<string, { itemId: number; subItemId: number | null; quantity: number; index: number }>();
  input.Items.forEach((line, index) => {
    const key = `${line.StoreItemId}:${line.StoreSubItemId ?? 0}`;
    const existing = merged.get(key);
    if (existing) existing.quantity += line.Quantity;
    else merged.set(key, { itemId: line.StoreItemId, subItemId: line.StoreSubItemId ?? null, quantity: line.Quantity, index });
  });
  return [...merged.values()].sort((a, b) => a.itemId - b.itemId || (a.subItemId ?? 0) - (b.subItemId ?? 0));
}

/** GraphQL `checkoutStoreOrder`: prices, reserves, records and bills a cart in one transaction (see the header). */
export async function checkoutStoreOrder(ctx: RequestContext, input: StoreCheckoutInput): Promise<StoreOrderView> {
  const caller = ctx.requireCaller();
  const contactId = ctx.isStaff ? input.ContactId : caller.contactId;
  if (!contactId) throw BadInput.field('ContactId', ctx.isStaff ? 'is required: whom staff sell to' : 'is missing: your login has no contact to buy for');
  const contact = await ctx.loaders.byId(Contact).load(contactId);
  if (!contact) throw BadInput.field('ContactId', 'names no contact');
  const lines = mergedLines(input);
  const ships = (input.ShippingOption ?? 'ship').toLowerCase() === 'ship';
  const settings = await storeSettingsRow(ctx);
  if (settings.requirePhone && !input.PhoneNumber?.trim() && !contact.phone) throw BadInput.field('PhoneNumber', 'is required by the store');
  const day = todayUtc();

  const orderId = await inTransaction(ctx, async () => {
    const items = new Map((await leanRows(ctx.reader, StoreItem, {
      fields: [...CHECKOUT_ITEM_FIELDS], where: { id: { $in: lines.map((line) => line.itemId) }, retiredAt: null },
    })).map((item) => [item.id, item]));
    const subItemIds = lines.flatMap((line) => (line.subItemId ? [line.subItemId] : []));
    const subItems = new Map((subItemIds.length
      ? await leanRows(ctx.reader, StoreSubItem, { fields: ['id', 'storeItem', 'name', 'price'], where: { id: { $in: subItemIds } } })
      : []).map((sub) => [sub.id, sub]));
    const withSubItems = new Set((await leanRows(ctx.reader, StoreSubItem, { fields: ['storeItem'], where: { storeItem: { $in: [...items.keys()] } } })).map((sub) => idOf(sub.storeItem)));
    const saleable = await ctx.loaders.byId(SaleableItem).loadMany([...new Set([...items.values()].flatMap((item) => (item.saleableItem ? [idOf(item.saleableItem)] : [])))]);
    const taxableOf = new Map(saleable.flatMap((entry) => (entry && !(entry instanceof Error) ? [[entry.id, entry.taxable] as const] : [])));
    await assertMayBuy(ctx, contactId, [...items.values()].filter((item) => item.membershipTypes.length > 0));
    const voucherTypeIds = [...new Set([...items.values()].flatMap((item) => (item.voucherType ? [idOf(item.voucherType)] : [])))];
    const activeVoucherTypes = new Set(voucherTypeIds.length
      ? (await leanRows(ctx.reader, VoucherType, { fields: ['id'], where: { id: { $in: voucherTypeIds }, isActive: true } })).map((type) => type.id)
      : []);

    const priced = [];
    for (const line of lines) {
      const field = `Items[${line.index}]`;
      const item = items.get(line.itemId);
      if (!item || !item.isActive) throw BadInput.field(`${field}.StoreItemId`, 'names no item for sale');
      if ((item.availableDate && item.availableDate > day) || (item.endDate && item.endDate < day)) throw BadInput.field(`${field}.StoreItemId`, 'is not on sale today');
      if (line.quantity < item.minimumQuantity) throw BadInput.field(`${field}.Quantity`, `must be at least ${item.minimumQuantity} for ${item.name}`);
      const sub = line.subItemId ? subItems.get(line.subItemId) : undefined;
      if (line.subItemId && (!sub || idOf(sub.storeItem) !== item.id)) throw BadInput.field(`${field}.StoreSubItemId`, 'is not a sub-item of the item');
      if (!line.subItemId && withSubItems.has(item.id)) throw BadInput.field(`${field}.StoreSubItemId`, `is required: choose one of the sub-items of ${item.name}`);
      if (item.variant === 1 && !item.downloadFile) throw BadInput.field(`${field}.StoreItemId`, 'has no file to download yet');
      if (item.variant === 2 && !(item.voucherType && activeVoucherTypes.has(idOf(item.voucherType)))) throw BadInput.field(`${field}.StoreItemId`, 'sells vouchers of an inactive voucher type');
      const backordered = await reserve(ctx, item, sub?.id ?? null, line.quantity, field);
      const unitPrice = money(sub?.price ?? item.price);
      priced.push({
        item, sub, quantity: line.quantity, backordered, unitPrice, amount: unitPrice.times(line.quantity),
        taxable: item.saleableItem ? taxableOf.get(idOf(item.saleableItem)) ?? true : true,
        shipped: item.variant === 0 && !item.shippingNotAvailable,
      });
    }
    const rates: Rates = {
      taxRate: settings.taxRate, shippingFlatRate: settings.shippingFlatRate, shippingPerItem: settings.shippingPerItem,
      exemptTaxOnShipping: settings.exemptTaxOnShipping, taxShippingOnNonTaxable: settings.includeNonTaxableItemsInTaxableShipping,
    };
    const totals = orderTotals(priced, rates, ships);
    if (totals.grandTotal.greaterThan(MAX_MONEY)) throw BadInput.field('Items', `the order total would exceed ${MAX_MONEY.toFixed(2)}`);
    const order = ctx.em.create(StoreOrder, {
      tenant: ctx.tenantId, contact: contactId, contactName: input.ContactName?.trim() || contactName(contact), emailAddress: input.EmailAddress?.trim() || contact.email,
      phoneNumber: input.PhoneNumber?.trim() || contact.phone, purchaseDate: new Date(), ...shippingFields(input), shippingOption: ships ? 'Ship' : 'Pickup',
      notes: input.Notes?.trim() || null, ...rates, subtotal: toMoneyString(totals.subtotal), shippingAmount: toMoneyString(totals.shipping),
      taxAmount: toMoneyString(totals.tax), grandTotal: toMoneyString(totals.grandTotal),
    });
    for (const line of priced) {
      ctx.em.create(StoreOrderLine, {
        tenant: ctx.tenantId, order, storeItem: line.item.id, subItem: line.sub?.id ?? null, name: line.sub ? `${line.item.name} – ${line.sub.name}` : line.item.name,
        quantity: line.quantity, backordered: line.backordered, unitPrice: toMoneyString(line.unitPrice), amount: toMoneyString(line.amount),
        taxable: line.taxable, shipped: line.shipped,
      });
      if (line.item.variant === 1 && line.item.downloadFile) {
        ctx.em.create(StoreDownloadPurchase, {
          tenant: ctx.tenantId, order, storeItem: line.item.id, contact: contactId, file: idOf(line.item.downloadFile),
          expiresOn: line.item.fileExpirationDate, requireActiveMembership: line.item.requireActiveMembership,
        });
      }
    }
    await ctx.em.flush();
    const invoiceLines = priced.map((line) => ({
      saleableItemId: line.item.saleableItem ? idOf(line.item.saleableItem) : null, description: line.sub ? `${line.item.name} – ${line.sub.name}` : line.item.name,
      quantity: line.quantity, unitPrice: line.unitPrice,
    }));
    if (!totals.shipping.isZero()) invoiceLines.push({ saleableItemId: null, description: 'Shipping', quantity: 1, unitPrice: totals.shipping });
    if (!totals.tax.isZero()) invoiceLines.push({ saleableItemId: null, description: 'Tax', quantity: 1, unitPrice: totals.tax });
    const { invoice } = await createInvoice(ctx, { contactId, lines: invoiceLines, source: 'store', sourceKey: `store-order:${order.id}`, memo: `Store order ${order.id}` });
    order.invoice = invoice;
    await ctx.em.flush();
    return order.id;
  });
  return getStoreOrder(ctx, orderId);
}

/**
 * Takes `quantity` units off a tracked count in one statement that locks the row and re-reads it
 * after any concurrent buyer: without AllowBackorder it changes nothing unless enough are left
 * (409), with it the count stops at zero. Answers the back-ordered units.
 */
async function reserve(
  ctx: RequestContext, item: Pick<StoreItem, 'id' | 'name' | 'trackingMethod' | 'allowBackorder'>, subItemId: number | null, quantity: number, field: string,
): Promise<number> {
  if (item.trackingMethod === 0) return 0;
  const table = item.trackingMethod === 2 ? 'store_sub_item' : 'store_item';
  const rowId = item.trackingMethod === 2 ? subItemId : item.id;
  if (rowId === null) throw BadInput.field(`${field}.StoreSubItemId`, 'is required: the item is counted per sub-item');
  const rows = await tenantSql(ctx).all<{ before: number }>(
    `WITH old AS (SELECT id, remaining FROM ${table} WHERE id = ? AND ${tenantIs()} AND remaining IS NOT NULL FOR UPDATE)
     UPDATE ${table} t SET remaining = greatest(old.remaining - ?, 0), updated_at = now()
       FROM old WHERE t.id = old.id AND (old.remaining >= ? OR ?::boolean)
     RETURNING old.remaining AS before`, [rowId, quantity, quantity, item.allowBackorder]);
  if (rows.length === 0) {
    const [left] = await tenantSql(ctx).all<{ remaining: number | null }>(`SELECT remaining FROM ${table} WHERE id = ? AND ${tenantIs()}`, [rowId]);
    if (left && left.remaining === null) return 0; // counting starts with the first receipt
    throw new Conflict(`Only ${left?.remaining ?? 0} of ${item.name} left.`, [{ field: `${field}.Quantity`, message: `only ${left?.remaining ?? 0} left` }]);
  }
  return Math.max(0, quantity - rows[0].before);
}

/** Items offered to membership types are for contacts holding a membership of one of them in good standing. */
async function assertMayBuy(ctx: RequestContext, contactId: number, restricted: Pick<StoreItem, 'name' | 'membershipTypes'>[]): Promise<void> {
  if (restricted.length === 0) return;
  const types = new Set((await activeMemberships(ctx, contactId)).map((membership) => idOf(membership.membershipType)));
  const refused = restricted.find((item) => !item.membershipTypes.some((type) => types.has(type)));
  if (refused) throw new Forbidden(`${refused.name} is offered only to members of its membership types.`);
}

/** The contact's memberships in good standing today (the one rule, services/memberships/good-standing.ts). */
function activeMemberships(ctx: RequestContext, contactId: number) {
  return leanRows(ctx.reader, Membership, { fields: ['membershipType'], where: { contact: contactId, ...inGoodStandingOn(todayUtc()) } });
}

function shippingFields(input: StoreCheckoutInput | StoreOrderInput) {
  const text = (value: string | null | undefined) => value?.trim() || null;
  return {
    shipToCompanyName: text(input.ShipToCompanyName), shipToContactName: text(input.ShipToContactName), address1: text(input.Address1), address2: text(input.Address2),
    city: text(input.City), countryId: text(input.CountryId), country: text(input.Country), stateProvince: text(input.StateProvince), postalCode: text(input.PostalCode),
  };
}

// ---------------------------------------------------------------------------------------------
// Orders.

/** POST /api/store/storeorders: one page of orders with the total; members see their own. */
export async function listStoreOrders(ctx: RequestContext, filter: StoreListFilterInput | null | undefined): Promise<ListResultOf<StoreOrderView, StoreListCriteria>> {
  const scope = ownScope(ctx);
  const list = parseListOptions(filter, orderList, '');
  const criteria = filter?.Criteria ? { IsActive: null, ContactId: null, PurchaseStatusId: null, StoreItemId: null, ...filter.Criteria } : null;
  const status = criteria?.PurchaseStatusId?.trim() ? ORDER_STATUS_RULE.parse(criteria.PurchaseStatusId, 'Criteria.PurchaseStatusId') : null;
  const where = allOf<StoreOrder>(scope, criteria?.ContactId ? { contact: criteria.ContactId } : null, status ? { status } : null);
  const { rows, total } = await listQuery(ctx, StoreOrder, orderList, list, { fields: ORDER_FIELDS, where, total: true });
  const lines = await linesOf(ctx, rows.map((row) => row.id));
  const contacts = await ctx.loaders.byId(Contact).loadMany([...new Set(rows.map((row) => idOf(row.contact)))]);
  const modelItems = lookupChoices(contacts.flatMap((contact) => (contact && !(contact instanceof Error) ? [{ id: contact.id, name: contactName(contact), extraData: contact.email }] : [])));
  const criteriaItems = lookupChoices(ORDER_STATUSES.map((name, id) => ({ id, name, selected: name === status })));
  return listResult({ criteria, criteriaItems, total: total ?? 0, modelItems, results: rows.map((row) => toOrderView(row, lines.get(row.id) ?? [])) });
}

async function linesOf(ctx: RequestContext, orderIds: number[]): Promise<Map<number, LineRow[]>> {
  const byOrder = new Map<number, LineRow[]>();
  if (!orderIds.length) return byOrder;
  const rows = await leanRows(ctx.reader, StoreOrderLine, { fields: [...LINE_FIELDS], where: { order: { $in: orderIds } }, orderBy: [{ id: 'asc' }] });
  for (const row of rows) byOrder.set(idOf(row.order), [...(byOrder.get(idOf(row.order)) ?? []), row]);
  return byOrder;
}

/** GET /api/store/storeorders/{storepurchaseid}. */
export async function getStoreOrder(ctx: RequestContext, orderId: number): Promise<StoreOrderView> {
  const row = await readOr404(ctx, StoreOrder, ORDER_FIELDS, orderId, ORDER_NOUN, ownScope(ctx));
  return toOrderView(row, (await linesOf(ctx, [row.id])).get(row.id) ?? []);
}

/**
 * POST /api/store/storeorders/{storepurchaseid}: status, shipping details and notes (fields left
 * out keep their value); the totals are recomputed from the lines and the order's own rates.
 */
export async function updateStoreOrder(ctx: RequestContext, orderId: number, input: StoreOrderInput): Promise<StoreOrderView> {
  const status = input.PurchaseStatusId?.trim() ? ORDER_STATUS_RULE.parse(input.PurchaseStatusId, 'PurchaseStatusId') : null;
  await inTransaction(ctx, async () => {
    const order = await findOr404(ctx, StoreOrder, orderId, ORDER_NOUN);
    assertCurrentVersion(order, input.AuditId);
    if (status && order.status === 'Cancelled' && status !== 'Cancelled') throw new Conflict('A cancelled order cannot be reopened; place a new order.');
    const cancelling = status === 'Cancelled' && order.status !== 'Cancelled';
    const markingPaid = status !== null && order.status === 'Pending' && PAID_STATUSES.includes(status);
    // A payment settling the invoice locks the invoice, then the order: these take them in the same order (no deadlock),
    // and the invoice's status cannot move meanwhile.
    const invoice = (cancelling || markingPaid) && order.invoice
      ? await tenantSql(ctx).get<{ status: string }>(`SELECT status FROM invoice WHERE id = ? AND ${tenantIs()} FOR UPDATE`, [idOf(order.invoice)])
      : undefined;
    if (status) assertStatusChange(order.status, status, invoice?.status === 'paid');
    const given = shippingFields(input);
    const changes: Partial<StoreOrder> = {};
    for (const [key, value] of Object.entries(given) as [keyof typeof given, string | null][]) {
      const inputKey = (key.charAt(0).toUpperCase() + key.slice(1)) as keyof StoreOrderInput;
      if (input[inputKey] !== undefined) changes[key] = value;
    }
    if (input.ContactName !== undefined) changes.contactName = input.ContactName?.trim() || null;
    if (input.EmailAddress !== undefined) changes.emailAddress = input.EmailAddress?.trim() || null;
    if (input.PhoneNumber !== undefined) changes.phoneNumber = input.PhoneNumber?.trim() || null;
    if (input.Notes !== undefined) changes.notes = input.Notes?.trim() || null;
    if (status) changes.status = status;
    const lines = (await linesOf(ctx, [order.id])).get(order.id) ?? [];
    const totals = orderTotals(lines, {
      taxRate: order.taxRate, shippingFlatRate: order.shippingFlatRate, shippingPerItem: order.shippingPerItem,
      exemptTaxOnShipping: order.exemptTaxOnShipping, taxShippingOnNonTaxable: order.taxShippingOnNonTaxable,
    }, order.shippingOption === 'Ship');
    Object.assign(changes, {
      subtotal: toMoneyString(totals.subtotal), shippingAmount: toMoneyString(totals.shipping), taxAmount: toMoneyString(totals.tax), grandTotal: toMoneyString(totals.grandTotal),
    });
    ctx.em.assign(order, changes);
    // Forces the versioned UPDATE even when nothing changed, so a concurrent save of the same version is a 409.
    order.updatedAt = new Date();
    await ctx.em.flush();
    if (cancelling) {
      await releaseStock(ctx, lines);
      // An unpaid order's invoice is voided with it; money already received is for staff to refund.
      if (order.invoice) await voidInvoice(ctx, idOf(order.invoice));
      // Its downloads and unspent vouchers are revoked (spent ones stay, with the payments they made).
      await ctx.em.nativeDelete(StoreDownloadPurchase, { order: order.id });
      await ctx.em.nativeDelete(Voucher, { order: order.id, redeemedAt: null });
    }
    // An order whose invoice was paid before payments moved orders (or is paid, whatever the order says) gets its vouchers now.
    if (markingPaid) await issueOrderVouchers(ctx, order.id, idOf(order.contact));
  });
  return getStoreOrder(ctx, orderId);
}

/**
 * What staff may set by hand: Paid follows the payment of the order's invoice (storeOrderPaid),
 * so a Pending order becomes Paid, Shipped or Completed by hand only when its invoice is paid, and
 * a paid one does not go back to Pending. 409 naming PurchaseStatusId.
 */
function assertStatusChange(from: OrderStatus, to: OrderStatus, invoicePaid: boolean): void {
  if (from === 'Pending' && PAID_STATUSES.includes(to) && !invoicePaid) {
    throw new Conflict('The order is not paid: record the payment of its invoice (payInvoice) and the order becomes Paid.', [
      { field: 'PurchaseStatusId', message: `cannot be ${to} before the order's invoice is paid` },
    ]);
  }
  if (PAID_STATUSES.includes(from) && to === 'Pending') {
    throw new Conflict('The order is paid: it cannot go back to Pending.', [{ field: 'PurchaseStatusId', message: 'cannot be Pending once the order is paid' }]);
  }
}

/**
 * The store's paid-invoice handler (`store-order:<id>`), in the payment's transaction: the order
 * moves Pending → Paid (its version moves on, so a staff save of the old version is a 409) and its
 * vouchers are issued. A settlement after a refund finds it paid already and issues nothing new;
 * a cancelled order refuses the payment (409).
 */
export async function storeOrderPaid(ctx: RequestContext, invoice: PaidInvoice, sourceId: string): Promise<void> {
  const orderId = Number(sourceId);
  const moved = await tenantSql(ctx).all<{ id: number }>(
    `UPDATE store_order SET status = 'Paid', audit_id = audit_id + 1, updated_at = now() WHERE id = ? AND ${tenantIs()} AND status = 'Pending' RETURNING id`, [orderId]);
  if (moved.length === 0) {
    const [order] = await leanRows(ctx.em, StoreOrder, { fields: ['status'], where: { id: orderId }, limit: 1 });
    if (!order) return;
    if (order.status === 'Cancelled') throw new Conflict(`Store order ${orderId} was cancelled: its invoice takes no payment that settles it; refund what was received instead.`);
  }
  await issueOrderVouchers(ctx, orderId, invoice.contactId);
}

/** A cancelled order's reserved (not back-ordered) units go back to their counts. */
async function releaseStock(ctx: RequestContext, lines: LineRow[]): Promise<void> {
  for (const line of lines) {
    const units = line.quantity - line.backordered;
    if (units <= 0) continue;
    const [item] = await leanRows(ctx.reader, StoreItem, { fields: ['trackingMethod'], where: { id: idOf(line.storeItem) }, limit: 1 });
    if (!item || item.trackingMethod === 0) continue;
    const [table, rowId] = item.trackingMethod === 2 ? ['store_sub_item', line.subItem ? idOf(line.subItem) : null] : ['store_item', idOf(line.storeItem)];
    if (rowId === null) continue;
    await tenantSql(ctx).all(`UPDATE ${table} SET remaining = remaining + ?, updated_at = now() WHERE id = ? AND ${tenantIs()} AND remaining IS NOT NULL`, [units, rowId]);
  }
}

function toOrderView(row: OrderRow, lines: LineRow[]): StoreOrderView {
  return {
    StorePurchaseId: row.id, ShippingAddressId: null, ContactName: row.contactName, EmailAddress: row.emailAddress, PhoneNumber: row.phoneNumber,
    PurchaseDate: new Date(row.purchaseDate).toISOString(), ShipToCompanyName: row.shipToCompanyName, ShipToContactName: row.shipToContactName,
    Address1: row.address1, Address2: row.address2, City: row.city, CountryId: row.countryId, Country: row.country, StateProvince: row.stateProvince,
    PostalCode: row.postalCode, ShippingOption: row.shippingOption, PurchaseStatusId: row.status, Notes: row.notes,
    OrderStoreItemList: lines.map(toLineView), ShippingAmount: toMoneyNumber(row.shippingAmount), TaxAmount: toMoneyNumber(row.taxAmount),
    GrandTotal: toMoneyNumber(row.grandTotal), Subtotal: toMoneyNumber(row.subtotal), InvoiceId: row.invoice ? idOf(row.invoice) : null,
    ContactId: idOf(row.contact), AuditId: row.auditId,
  };
}

function toLineView(line: LineRow): StoreOrderLineView {
  return {
    StoreOrderLineId: line.id, StoreItemId: idOf(line.storeItem), StoreSubItemId: line.subItem ? idOf(line.subItem) : null, ProductName: line.name,
    Quantity: line.quantity, Backordered: line.backordered, UnitPrice: toMoneyNumber(line.unitPrice), Amount: toMoneyNumber(line.amount), Taxable: line.taxable,
  };
}

// ---------------------------------------------------------------------------------------------
// Downloads.

const DOWNLOAD_FIELDS = ['id', 'order', 'storeItem', 'contact', 'file', 'expiresOn', 'requireActiveMembership', 'downloadCount', 'createdAt'] as const;
type DownloadRow = Pick<StoreDownloadPurchase, (typeof DOWNLOAD_FIELDS)[number]>;

export function storeDownloadUrl(purchaseId: number): string {
  return `/api/store/storedownloads/${purchaseId}/file`;
}

/** POST /api/store/storedownloads: one page of bought downloads with the total; members see their own. */
export async function listStoreDownloads(ctx: RequestContext, filter: StoreListFilterInput | null | undefined): Promise<ListResultOf<StoreDownloadPurchaseView, StoreListCriteria>> {
  const scope = ownScope(ctx);
  const list = parseListOptions(filter, downloadList, '');
  const criteria = filter?.Criteria ? { IsActive: null, ContactId: null, PurchaseStatusId: null, StoreItemId: null, ...filter.Criteria } : null;
  const where = allOf<StoreDownloadPurchase>(scope, criteria?.ContactId ? { contact: criteria.ContactId } : null, criteria?.StoreItemId ? { storeItem: criteria.StoreItemId } : null);
  const { rows, total } = await listQuery(ctx, StoreDownloadPurchase, downloadList, list, { fields: DOWNLOAD_FIELDS, where, total: true });
  const [items, contacts] = await Promise.all([
    ctx.loaders.byId(StoreItem).loadMany([...new Set(rows.map((row) => idOf(row.storeItem)))]),
    ctx.loaders.byId(Contact).loadMany([...new Set(rows.map((row) => idOf(row.contact)))]),
  ]);
  const names = new Map(items.flatMap((item) => (item && !(item instanceof Error) ? [[item.id, item.name] as const] : [])));
  const people = new Map(contacts.flatMap((contact) => (contact && !(contact instanceof Error) ? [[contact.id, contactName(contact)] as const] : [])));
  const modelItems = lookupChoices([...people].map(([id, name]) => ({ id, name })));
  const day = todayUtc();
  return listResult({
    criteria, total: total ?? 0, modelItems,
    results: rows.map((row) => toDownloadView(row, names.get(idOf(row.storeItem)) ?? '', people.get(idOf(row.contact)) ?? null, day)),
  });
}

function toDownloadView(row: DownloadRow, productName: string, buyer: string | null, day: string): StoreDownloadPurchaseView {
  return {
    StoreItemDigitalDownloadPurchaseId: row.id, StoreItemId: idOf(row.storeItem), StorePurchaseId: idOf(row.order), ProductName: productName,
    ContactId: idOf(row.contact), ContactName: buyer, PurchaseDate: new Date(row.createdAt).toISOString(), FileExpirationDate: row.expiresOn,
    IsExpired: row.expiresOn !== null && row.expiresOn < day, RequireActiveMembership: row.requireActiveMembership, DownloadCount: row.downloadCount,
    DownloadUrl: storeDownloadUrl(row.id),
  };
}

/** DELETE /api/store/storedownloads/{id}: revokes the download (the purchase row goes; the order stays). */
export function deleteStoreDownload(ctx: RequestContext, purchaseId: number): Promise<number> {
  return deleteRecord(ctx, StoreDownloadPurchase, purchaseId, null, DOWNLOAD_NOUN);
}

/**
 * The file of a bought download, for its buyer or staff: 404 for a revoked or another's purchase
 * (a cancelled order's too), 403 before its order is paid, once the link expired (after
 * FileExpirationDate) or, where required, without a membership in good standing. Counts the download.
 */
export async function storeDownloadFile(ctx: RequestContext, purchaseId: number): Promise<FileRecord> {
  const row = await readOr404(ctx, StoreDownloadPurchase, DOWNLOAD_FIELDS, purchaseId, DOWNLOAD_NOUN, ownScope(ctx));
  const [order] = await leanRows(ctx.reader, StoreOrder, { fields: ['status'], where: { id: idOf(row.order) }, limit: 1 });
  if (!order || order.status === 'Cancelled') throw new NotFound(DOWNLOAD_NOUN);
  if (!PAID_STATUSES.includes(order.status)) throw new Forbidden('The order is not paid yet: the download is served once its invoice is paid.');
  if (row.expiresOn !== null && row.expiresOn < todayUtc()) throw new Forbidden(`The download link expired on ${row.expiresOn}.`);
  if (row.requireActiveMembership && (await activeMemberships(ctx, idOf(row.contact))).length === 0) {
    throw new Forbidden('The download needs a membership in good standing.');
  }
  const file = await findFile(ctx, idOf(row.file), [STORE_DOWNLOAD_PURPOSE]);
  await ctx.em.nativeUpdate(StoreDownloadPurchase, { id: row.id, tenant: ctx.tenantId }, { downloadCount: row.downloadCount + 1 });
  return file;
}

/** POST /api/store/downloadfiles/upload: keeps the bytes of a file to sell (staff); answers its FileId. */
export async function uploadStoreDownloadFile(
  ctx: RequestContext, upload: { filename: string | null; bytes: Buffer; mediaType: string },
): Promise<{ FileId: number; Name: string; MediaType: string; Size: number; Sha256: string }> {
  ctx.requireRole('staff');
  const name = (upload.filename ?? 'download').replace(/[^\p{L}\p{N}._ -]/gu, '_').slice(0, 200) || 'download';
  const file = await storeFile(ctx, { name, mediaType: upload.mediaType, bytes: upload.bytes, purpose: STORE_DOWNLOAD_PURPOSE });
  return { FileId: file.id, Name: file.name, MediaType: file.mediaType, Size: file.size, Sha256: file.sha256 };
}

// ---------------------------------------------------------------------------------------------
// Demo data.

/**
 * Demo store for a new tenant: one item of each variant (a product with sub-items, stock, a
 * receipt and a gallery image; a download; a voucher; an information item), settings, and an
 * order of the product and the download with its download purchase.
 */
export async function seedStore(em: EntityManager, tenant: Tenant, marker: string): Promise<void> {
  const owner = { tenantId: tenant.id, uploadedBy: null, config: loadConfig() };
  const buyer = em.create(Contact, { tenant, kind: 'person', firstName: 'Store', lastName: `Buyer ${marker}`, email: 'buyer@example.org' });
  em.create(StoreSettings, { tenant, storeDescription: `${marker} shop`, taxRate: '8.2500', shippingFlatRate: '5.00', shippingPerItem: '1.00' });
  const product = em.create(StoreItem, {
    tenant, variant: 0, name: `${marker} T-shirt`, price: '20.00', trackingMethod: 2, contact: buyer, description: `${marker} cotton`,
  });
  const medium = em.create(StoreSubItem, { tenant, storeItem: product, name: `${marker} Medium`, remaining: 10, displayOrder: 1 });
  em.create(StoreSubItem, { tenant, storeItem: product, name: `${marker} Large`, price: '22.00', remaining: 5, displayOrder: 2 });
  em.create(StoreItemInventory, { tenant, storeItem: product, subItem: medium, purchaseDate: '2026-01-10', purchasePrice: '7.50', quantity: 12 });
  const pdf = await storeTenantFile(em, owner, { name: 'guide.pdf', mediaType: 'application/pdf', bytes: Buffer.from(`%PDF-1.4 ${marker}`), purpose: STORE_DOWNLOAD_PURPOSE });
  const download = em.create(StoreItem, {
    tenant, variant: 1, name: `${marker} Member guide`, price: '9.99', downloadFile: pdf.id, fileExpirationDate: '2099-12-31', requireActiveMembership: false,
  });
  const giftVoucher = em.create(VoucherType, { tenant, name: `${marker} Gift voucher`, valueKind: 'amount', value: '50.00', validityDays: 365 });
  em.create(StoreItem, { tenant, variant: 2, name: `${marker} Gift voucher`, price: '50.00', voucherType: giftVoucher });
  em.create(StoreItem, { tenant, variant: 3, name: `${marker} Donation`, price: '25.00', infoMessage: `${marker} thank you` });

  const bytes = await demoPng(24, 24, '#d33');
  const facts = await imageFacts(bytes);
  const file = await storeTenantFile(em, owner, { name: 'shirt.png', mediaType: facts.mediaType, bytes, purpose: IMAGE_PURPOSE, width: facts.width, height: facts.height });
  await em.flush();
  const image = em.create(StoredImage, {
    tenant, file: file.id, name: file.name, width: facts.width, height: facts.height, usage: 'StoreItem', sourceType: 'StoreItem', sourceId: product.id,
    caption: `${marker} shirt front`,
  });
  em.create(StoreItemImage, { tenant, storeItem: product, image, title: `${marker} Front`, galleryOrder: 1 });

  const order = em.create(StoreOrder, {
    tenant, contact: buyer, contactName: `Store Buyer ${marker}`, emailAddress: 'buyer@example.org', purchaseDate: new Date('2026-02-01T10:00:00Z'),
    city: `${marker} City`, shippingOption: 'Ship', status: 'Paid', notes: `${marker} gift wrap`, taxRate: '8.2500', shippingFlatRate: '5.00', shippingPerItem: '1.00',
    exemptTaxOnShipping: false, taxShippingOnNonTaxable: false, subtotal: '29.99', shippingAmount: '6.00', taxAmount: '2.97', grandTotal: '38.96',
  });
  em.create(StoreOrderLine, { tenant, order, storeItem: product, subItem: medium, name: `${marker} T-shirt – Medium`, quantity: 1, unitPrice: '20.00', amount: '20.00', taxable: true, shipped: true });
  em.create(StoreOrderLine, { tenant, order, storeItem: download, name: `${marker} Member guide`, quantity: 1, unitPrice: '9.99', amount: '9.99', taxable: true, shipped: false });
  em.create(StoreDownloadPurchase, { tenant, order, storeItem: download, contact: buyer, file: pdf.id, expiresOn: '2099-12-31', requireActiveMembership: false });
  await em.flush();
}
