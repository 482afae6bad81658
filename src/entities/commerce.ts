import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantOwned, Versioned } from './base.js';
import { Contact } from './contact.js';

/*
 * What every selling area shares (store orders, event registrations, scheduled billing, payment
 * plans, dashboards): what can be sold, the invoices that bill it, and the payments against them.
 * Amounts are numeric(12,2), strings in JavaScript (src/core/money.ts does the arithmetic).
 */

export const SALEABLE_ITEM_TYPES = ['membership', 'event', 'store', 'donation', 'sponsorship', 'fee', 'other'] as const;
export type SaleableItemType = (typeof SALEABLE_ITEM_TYPES)[number];

/** Something the tenant sells, with its list price and the accounting class its revenue goes to. */
@Entity()
export class SaleableItem extends Versioned {
  @Property({ length: 200 })
  name!: string;

  @Property({ type: 'string', length: 32 })
  itemType!: SaleableItemType;

  @Property({ type: 'decimal', precision: 12, scale: 2 })
  price!: string;

  @Property({ length: 100, nullable: true })
  accountingClass: string | null = null;

  @Property({ type: 'boolean' })
  taxable: Opt<boolean> = false;

  @Property({ type: 'boolean' })
  isActive: Opt<boolean> = true;
}

export const INVOICE_STATUSES = ['open', 'paid', 'void'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/**
 * A bill to a contact. `number` counts up per tenant. `sourceKey` names what the invoice bills
 * (`scheduled-billing:12:2026-11-01`, `event-registration:7`, `store-order:3`): it is unique per
 * tenant, so the same thing is never billed twice, whatever races or retries.
 */
@Entity()
@Unique({ properties: ['tenant', 'number'] })
@Unique({ properties: ['tenant', 'sourceKey'] })
@Index({ properties: ['tenant', 'status'] })
export class Invoice extends Versioned {
  @Property({ type: 'integer' })
  number!: number;

  @ManyToOne(() => Contact, { index: true, deleteRule: 'no action' })
  contact!: Contact;

  @Property({ type: 'date' })
  invoiceDate!: string;

  @Property({ type: 'date' })
  dueDate!: string;

  @Property({ type: 'string', length: 16 })
  status: Opt<InvoiceStatus> = 'open';

  @Property({ type: 'decimal', precision: 12, scale: 2 })
  total!: string;

  @Property({ type: 'decimal', precision: 12, scale: 2 })
  amountPaid: Opt<string> = '0.00';

  /** The area that raised it: `store`, `events`, `scheduled-billing`, `staff`. */
  @Property({ length: 32 })
  source!: string;

  @Property({ length: 200, nullable: true })
  sourceKey: string | null = null;

  @Property({ type: 'text', nullable: true })
  memo: string | null = null;
}

/** Something bought in a quantity at a unit price: quantity × unit price = amount, exact. */
export abstract class PricedLine extends TenantOwned {
  @Property({ type: 'integer' })
  quantity!: number;

  @Property({ type: 'decimal', precision: 12, scale: 2 })
  unitPrice!: string;

  @Property({ type: 'decimal', precision: 12, scale: 2 })
  amount!: string;
}

/** One line of an invoice. */
@Entity()
export class InvoiceLine extends PricedLine {
  @ManyToOne(() => Invoice, { index: true, deleteRule: 'cascade' })
  invoice!: Invoice;

  @Property({ type: 'integer' })
  lineNumber!: number;

  @ManyToOne(() => SaleableItem, { nullable: true, index: true, deleteRule: 'no action' })
  saleableItem: SaleableItem | null = null;

  @Property({ length: 500 })
  description!: string;
}

/** Money received against an invoice (a refund is a negative amount). */
@Entity()
export class Payment extends TenantOwned {
  @ManyToOne(() => Invoice, { index: true, deleteRule: 'no action' })
  invoice!: Invoice;

  @Property({ type: 'decimal', precision: 12, scale: 2 })
  amount!: string;

  @Property({ type: 'datetime' })
  paidAt!: Date;

  @Property({ length: 32 })
  method!: string;

  @Property({ length: 200, nullable: true })
  reference: string | null = null;
}
