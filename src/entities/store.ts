import type { Opt } from '@mikro-orm/core';
import { Check, Entity, Index, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantOwned, Versioned } from './base.js';
import { Invoice, SaleableItem } from './commerce.js';
import { Contact } from './contact.js';
import { StoredFile } from './file.js';
import { StoredImage } from './image.js';

/*
 * The online store. Amounts are numeric(12,2) (strings here; src/core/money.ts computes).
 * Inventory counts (`remaining`) are only ever moved by one conditional UPDATE (checkout,
 * receipts), never by read-assign-flush, so no concurrent purchase is lost or oversold.
 */

/**
 * The four documented variants (the path segment 0–3), read from their fields:
 * 0 a physical product (sub-items, a contact, shipping), 1 a digital download (a file, its
 * expiry, an active-membership requirement), 2 a voucher of a voucher type, 3 an item whose
 * purchase shows an information message (a service, a donation, a ticket-like purchase).
 */
export const STORE_ITEM_VARIANTS = ['Product', 'Download', 'Voucher', 'Information'] as const;
export type StoreItemVariant = 0 | 1 | 2 | 3;

/** InventoryTrackingMethodTypeId: 0 none, 1 the item's quantity, 2 each sub-item's quantity. */
export const TRACKING_METHODS = ['None', 'Quantity', 'SubItem'] as const;

/** What a voucher is worth: an exact amount of money, or a percentage of the invoice it pays. */
export const VOUCHER_VALUE_KINDS = ['amount', 'percent'] as const;
export type VoucherValueKind = (typeof VOUCHER_VALUE_KINDS)[number];

/** A kind of voucher the store sells (variant 2 items name one): its value and how long a voucher of it is valid. */
@Entity()
export class VoucherType extends Versioned {
  @Property({ length: 200 })
  name!: string;

  @Property({ type: 'string', length: 16 })
  valueKind!: VoucherValueKind;

  /** An amount (2 decimals) or a percentage (0 < value <= 100, 2 decimals), by `valueKind`. */
  @Property({ type: 'decimal', precision: 12, scale: 2 })
  value!: string;

  /** Days a voucher stays valid from the day it is issued (that day included); null: no end. */
  @Property({ type: 'integer', nullable: true })
  validityDays: number | null = null;

  /** Inactive: items of it are not sold; vouchers already issued stay valid. */
  @Property({ type: 'boolean' })
  isActive: Opt<boolean> = true;
}

@Entity()
@Index({ properties: ['tenant', 'variant', 'displayOrder'] })
@Check({ name: 'store_item_remaining_check', expression: 'remaining >= 0' }) // the last line of defence against overselling
export class StoreItem extends Versioned {
  @Property({ type: 'smallint' })
  variant!: StoreItemVariant;

  @Property({ length: 200 })
  name!: string;

  /** Display settings: a JSON object kept as text (so any text the client sent is storable). */
  @Property({ type: 'text', nullable: true })
  settingsJson: string | null = null;

  @Property({ type: 'decimal', precision: 12, scale: 2 })
  price!: string;

  @Property({ type: 'boolean' })
  showAvailableQuantity: Opt<boolean> = false;

  @Property({ type: 'boolean' })
  hasManualTracking: Opt<boolean> = false;

  @Property({ type: 'smallint' })
  trackingMethod: Opt<number> = 0;

  /** Units left (tracking method 1); null when not tracked. Moved only by conditional UPDATEs. */
  @Property({ type: 'integer', nullable: true })
  remaining: number | null = null;

  @ManyToOne(() => SaleableItem, { nullable: true, index: true, deleteRule: 'set null' })
  saleableItem: SaleableItem | null = null;

  @Property({ length: 100, nullable: true })
  accountingClassId: string | null = null;

  /** The category item the item is filed under: a key (migration 0036; the item cannot be deleted while used), read as a plain id. */
  @Property({ type: 'integer', nullable: true })
  categoryItemId: number | null = null;

  /** MembershipType ids the item is offered to (a membership add-on when not empty). */
  @Property({ type: 'json' })
  membershipTypes: Opt<number[]> = [];

  /** MembershipTypes is not empty: the item is a membership add-on (a column, so lists filter on it). */
  @Property({ type: 'boolean' })
  membershipAddon: Opt<boolean> = false;

  @Property({ type: 'text', nullable: true })
  description: string | null = null;

  @Property({ length: 500, nullable: true })
  shortDescription: string | null = null;

  @Property({ type: 'date', nullable: true })
  availableDate: string | null = null;

  @Property({ type: 'date', nullable: true })
  endDate: string | null = null;

  @Property({ type: 'boolean' })
  isActive: Opt<boolean> = true;

  @Property({ type: 'integer' })
  minimumQuantity: Opt<number> = 1;

  @Property({ type: 'boolean' })
  allowBackorder: Opt<boolean> = false;

  @Property({ type: 'integer' })
  displayOrder: Opt<number> = 0;

  // Variant 0: a physical product.
  @ManyToOne(() => Contact, { nullable: true, index: true, deleteRule: 'set null' })
  contact: Contact | null = null;

  @Property({ type: 'boolean' })
  shippingNotAvailable: Opt<boolean> = false;

  // Variant 1: a digital download.
  @ManyToOne(() => StoredFile, { nullable: true, index: true, deleteRule: 'no action' })
  downloadFile: StoredFile | null = null;

  @Property({ type: 'date', nullable: true })
  fileExpirationDate: string | null = null;

  @Property({ type: 'boolean' })
  requireActiveMembership: Opt<boolean> = false;

  // Variant 2: a voucher of a voucher type (required for that variant; deleting a type in use is a 409).
  @ManyToOne(() => VoucherType, { nullable: true, index: true, deleteRule: 'no action' })
  voucherType: VoucherType | null = null;

  // Variant 3: an information message shown after purchase.
  @Property({ type: 'text', nullable: true })
  infoMessage: string | null = null;

  /** Set when a deleted item had orders: kept for them, hidden everywhere else. */
  @Property({ type: 'datetime', nullable: true })
  retiredAt: Date | null = null;
}

/** A sub-item (size, colour…) of a product, with its own price and, tracking method 2, its own count. */
@Entity()
@Check({ name: 'store_sub_item_remaining_check', expression: 'remaining >= 0' })
export class StoreSubItem extends TenantOwned {
  @ManyToOne(() => StoreItem, { index: true, deleteRule: 'cascade' })
  storeItem!: StoreItem;

  @Property({ length: 200 })
  name!: string;

  /** Null: the item's price. */
  @Property({ type: 'decimal', precision: 12, scale: 2, nullable: true })
  price: string | null = null;

  @Property({ type: 'integer', nullable: true })
  remaining: number | null = null;

  @Property({ type: 'integer' })
  displayOrder: Opt<number> = 0;
}

/** An inventory receipt: units bought in at a price (StoreItemInventory). */
@Entity()
export class StoreItemInventory extends TenantOwned {
  @ManyToOne(() => StoreItem, { index: true, deleteRule: 'cascade' })
  storeItem!: StoreItem;

  @ManyToOne(() => StoreSubItem, { nullable: true, index: true, deleteRule: 'cascade' })
  subItem: StoreSubItem | null = null;

  @Property({ type: 'date' })
  purchaseDate!: string;

  @Property({ type: 'decimal', precision: 12, scale: 2 })
  purchasePrice!: string;

  @Property({ type: 'integer' })
  quantity!: number;
}

/** An image of an item's gallery (the images area keeps the image; this its place in the gallery). */
@Entity()
@Unique({ properties: ['image'] })
export class StoreItemImage extends TenantOwned {
  @ManyToOne(() => StoreItem, { index: true, deleteRule: 'cascade' })
  storeItem!: StoreItem;

  @ManyToOne(() => StoredImage, { deleteRule: 'cascade' })
  image!: StoredImage;

  @Property({ length: 200, nullable: true })
  title: string | null = null;

  @Property({ type: 'integer' })
  galleryOrder: Opt<number> = 0;
}

export const ORDER_STATUSES = ['Pending', 'Paid', 'Shipped', 'Completed', 'Cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** A purchase (StoreOrder). The rates it was priced with are kept, so its totals can always be recomputed. */
@Entity()
@Index({ properties: ['tenant', 'purchaseDate'] })
export class StoreOrder extends Versioned {
  @ManyToOne(() => Contact, { index: true, deleteRule: 'no action' })
  contact!: Contact;

  @Property({ length: 200, nullable: true })
  contactName: string | null = null;

  @Property({ length: 254, nullable: true })
  emailAddress: string | null = null;

  @Property({ length: 40, nullable: true })
  phoneNumber: string | null = null;

  @Property({ type: 'datetime' })
  purchaseDate!: Date;

  @Property({ length: 200, nullable: true }) shipToCompanyName: string | null = null;
  @Property({ length: 200, nullable: true }) shipToContactName: string | null = null;
  @Property({ length: 200, nullable: true }) address1: string | null = null;
  @Property({ length: 200, nullable: true }) address2: string | null = null;
  @Property({ length: 100, nullable: true }) city: string | null = null;
  @Property({ length: 8, nullable: true }) countryId: string | null = null;
  @Property({ length: 100, nullable: true }) country: string | null = null;
  @Property({ length: 100, nullable: true }) stateProvince: string | null = null;
  @Property({ length: 20, nullable: true }) postalCode: string | null = null;

  /** Ship or Pickup (no shipping charge). */
  @Property({ length: 16 })
  shippingOption!: string;

  @Property({ type: 'string', length: 16 })
  status: Opt<OrderStatus> = 'Pending';

  @Property({ type: 'text', nullable: true })
  notes: string | null = null;

  /** Tax percentage (e.g. 8.25) and shipping rules as they were at checkout. */
  @Property({ type: 'decimal', precision: 7, scale: 4 })
  taxRate!: string;

  @Property({ type: 'decimal', precision: 12, scale: 2 })
  shippingFlatRate!: string;

  @Property({ type: 'decimal', precision: 12, scale: 2 })
  shippingPerItem!: string;

  @Property({ type: 'boolean' })
  exemptTaxOnShipping!: boolean;

  @Property({ type: 'boolean' })
  taxShippingOnNonTaxable!: boolean;

  @Property({ type: 'decimal', precision: 12, scale: 2 })
  subtotal!: string;

  @Property({ type: 'decimal', precision: 12, scale: 2 })
  shippingAmount!: string;

  @Property({ type: 'decimal', precision: 12, scale: 2 })
  taxAmount!: string;

  @Property({ type: 'decimal', precision: 12, scale: 2 })
  grandTotal!: string;

  @ManyToOne(() => Invoice, { nullable: true, index: true, deleteRule: 'no action' })
  invoice: Invoice | null = null;
}

/** One line of an order: what was bought, at the server's price. */
@Entity()
export class StoreOrderLine extends TenantOwned {
  @ManyToOne(() => StoreOrder, { index: true, deleteRule: 'cascade' })
  order!: StoreOrder;

  @ManyToOne(() => StoreItem, { index: true, deleteRule: 'no action' })
  storeItem!: StoreItem;

  @ManyToOne(() => StoreSubItem, { nullable: true, index: true, deleteRule: 'set null' })
  subItem: StoreSubItem | null = null;

  @Property({ length: 420 })
  name!: string;

  @Property({ type: 'integer' })
  quantity!: number;

  /** Units of `quantity` not in stock at checkout (AllowBackorder items only). */
  @Property({ type: 'integer' })
  backordered: Opt<number> = 0;

  @Property({ type: 'decimal', precision: 12, scale: 2 })
  unitPrice!: string;

  @Property({ type: 'decimal', precision: 12, scale: 2 })
  amount!: string;

  @Property({ type: 'boolean' })
  taxable!: boolean;

  @Property({ type: 'boolean' })
  shipped!: boolean;
}

/** The right to download an item's file, bought with an order; deleting it revokes access. */
@Entity()
export class StoreDownloadPurchase extends TenantOwned {
  @ManyToOne(() => StoreOrder, { index: true, deleteRule: 'cascade' })
  order!: StoreOrder;

  @ManyToOne(() => StoreItem, { index: true, deleteRule: 'no action' })
  storeItem!: StoreItem;

  @ManyToOne(() => Contact, { index: true, deleteRule: 'cascade' })
  contact!: Contact;

  @ManyToOne(() => StoredFile, { index: true, deleteRule: 'no action' })
  file!: StoredFile;

  /** The last day the file may be downloaded (the item's FileExpirationDate at purchase); null: no end. */
  @Property({ type: 'date', nullable: true })
  expiresOn: string | null = null;

  @Property({ type: 'boolean' })
  requireActiveMembership!: boolean;

  @Property({ type: 'integer' })
  downloadCount: Opt<number> = 0;
}

/** The store's settings, one row per tenant. */
@Entity()
@Unique({ properties: ['tenant'] })
export class StoreSettings extends Versioned {
  @Property({ length: 2048, nullable: true }) staffUrl: string | null = null;
  @Property({ length: 2048, nullable: true }) entireUrl: string | null = null;
  @Property({ type: 'text', nullable: true }) storeDescription: string | null = null;
  @Property({ length: 100, nullable: true }) paymentGatewayId: string | null = null;
  @Property({ type: 'boolean' }) enableAdditionalNotes: Opt<boolean> = false;
  @Property({ type: 'boolean' }) requirePhone: Opt<boolean> = false;
  @Property({ type: 'boolean' }) exemptTaxOnShipping: Opt<boolean> = false;
  @Property({ type: 'boolean' }) includeNonTaxableItemsInTaxableShipping: Opt<boolean> = false;
  @Property({ type: 'integer' }) width: Opt<number> = 1200;
  @Property({ type: 'integer' }) height: Opt<number> = 1200;
  @Property({ type: 'decimal', precision: 7, scale: 4 }) taxRate: Opt<string> = '0.0000';
  @Property({ type: 'decimal', precision: 12, scale: 2 }) shippingFlatRate: Opt<string> = '0.00';
  @Property({ type: 'decimal', precision: 12, scale: 2 }) shippingPerItem: Opt<string> = '0.00';
}

/**
 * A voucher issued when an order of a voucher item (variant 2) is paid: one per unit bought
 * (`orderLine` + `sequence` is unique, so a retried or raced payment issues nothing twice). Its
 * `code` is the bearer secret that redeems it, once: `redeemedAt` is set by one conditional UPDATE.
 */
@Entity()
@Unique({ properties: ['tenant', 'code'] })
@Unique({ properties: ['orderLine', 'sequence'] })
export class Voucher extends TenantOwned {
  /** Random and unguessable (see services/store/vouchers.ts). */
  @Property({ length: 32 })
  code!: string;

  @ManyToOne(() => Contact, { index: true, deleteRule: 'no action' })
  contact!: Contact;

  @ManyToOne(() => VoucherType, { index: true, deleteRule: 'no action' })
  voucherType!: VoucherType;

  @ManyToOne(() => StoreOrder, { index: true, deleteRule: 'no action' })
  order!: StoreOrder;

  @ManyToOne(() => StoreOrderLine, { deleteRule: 'no action' })
  orderLine!: StoreOrderLine;

  /** Which unit of the line's quantity (1…quantity). */
  @Property({ type: 'integer' })
  sequence!: number;

  /** The type's value when issued: a later change of the type does not change vouchers already sold. */
  @Property({ type: 'string', length: 16 })
  valueKind!: VoucherValueKind;

  @Property({ type: 'decimal', precision: 12, scale: 2 })
  value!: string;

  @Property({ type: 'datetime' })
  issuedAt!: Date;

  /** The last day it may be redeemed; null: no end. */
  @Property({ type: 'date', nullable: true })
  expiresOn: string | null = null;

  @Property({ type: 'datetime', nullable: true })
  redeemedAt: Date | null = null;

  /** The invoice the voucher paid, and how much of it. */
  @ManyToOne(() => Invoice, { nullable: true, index: true, deleteRule: 'no action' })
  redeemedInvoice: Invoice | null = null;

  @Property({ type: 'decimal', precision: 12, scale: 2, nullable: true })
  redeemedAmount: string | null = null;
}
