import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../core/context.js';
import { calendarDay, todayUtc } from '../../core/dates.js';
import { BadInput, Conflict, NotFound } from '../../core/errors.js';
import { allOf, idOf, leanRows } from '../../core/data/lean-read.js';
import { listQuery, defineList } from '../../core/data/list-query.js';
import { money, parseMoney, sumMoney, toMoneyNumber, toMoneyString, type Money } from '../../core/money.js';
import { inTransaction, readOr404, saveRecord } from '../../core/data/records.js';
import { Invoice, InvoiceLine, Payment, SaleableItem, type SaleableItemType } from '../../entities/commerce.js';
import { Contact } from '../../entities/contact.js';
import type { Tenant } from '../../entities/tenant.js';
import type { ListOptionsInput } from '../../schema/common.js';
import type {
  Invoice as InvoiceView, InvoiceFilterInput, InvoiceInput, InvoiceLine as InvoiceLineView, InvoicePayment, InvoicePaymentInput, SaleableItem as SaleableItemView, SaleableItemInput,
} from '../../schema/commerce.js';
import { TENANT, tenantIs, tenantSql } from '../../core/data/tenant-sql.js';
import { emitWebhookEvent } from '../webhooks/events.js';
import { settlePaidInvoice } from './paid-invoices.js';

/** The sourceKey prefix of a store order's invoice (`store-order:<order id>`). */
const STORE_ORDER_SOURCE = 'store-order:';

/*
 * The shared selling model. Areas that sell (store, events, scheduled billing) call
 * `createInvoice` inside their own transaction with server-side prices; staff read invoices and
 * manage saleable items through GraphQL. Decisions: invoice numbers count up per tenant under an
 * advisory lock (no gaps from concurrent requests, one writer at a time per tenant); a
 * `sourceKey` makes billing the same thing twice impossible (unique per tenant, and the existing
 * invoice is answered instead of a second one).
 */

const ITEM_NOUN = 'The saleable item';
const INVOICE_NOUN = 'The invoice';
const ITEM_FIELDS = ['id', 'name', 'itemType', 'price', 'accountingClass', 'taxable', 'isActive', 'auditId'] as const;
const INVOICE_FIELDS = ['id', 'number', 'contact', 'invoiceDate', 'dueDate', 'status', 'total', 'amountPaid', 'source', 'memo', 'auditId'] as const;
type InvoiceRow = Pick<Invoice, (typeof INVOICE_FIELDS)[number]>;

const itemList = defineList(SaleableItem, {
  operations: ['Query.saleableItems'],
  orderBy: { Name: 'name', SaleableItemId: 'id', ItemType: 'itemType', Price: 'price' },
  defaultOrder: 'Name',
  search: ['name', 'accountingClass'],
});

const invoiceList = defineList(Invoice, {
  operations: ['Query.invoices'],
  orderBy: { InvoiceNumber: 'number', InvoiceDate: 'invoiceDate', DueDate: 'dueDate', Total: 'total', Status: 'status' },
  defaultOrder: 'InvoiceNumber desc',
  search: ['memo', 'source'],
  dates: 'invoiceDate',
}, 'many');

export async function listSaleableItems(ctx: RequestContext, options: ListOptionsInput | null | undefined): Promise<SaleableItemView[]> {
  const { rows } = await listQuery(ctx, SaleableItem, itemList, options, { fields: ITEM_FIELDS });
  return rows.map(toSaleableItemView);
}

export async function getSaleableItem(ctx: RequestContext, saleableItemId: number): Promise<SaleableItemView> {
  return toSaleableItemView(await readOr404(ctx, SaleableItem, ITEM_FIELDS, saleableItemId, ITEM_NOUN));
}

export async function saveSaleableItem(ctx: RequestContext, saleableItemId: number, input: SaleableItemInput): Promise<SaleableItemView> {
  const fields = {
    name: input.Name.trim(),
    itemType: input.ItemType as SaleableItemType,
    price: toMoneyString(parseMoney(input.Price, 'Price')),
    accountingClass: input.AccountingClass?.trim() || null,
    taxable: input.Taxable ?? false,
    isActive: input.IsActive ?? true,
  };
  if (!fields.name) throw BadInput.field('Name', 'must not be empty');
  return toSaleableItemView(await saveRecord(ctx, SaleableItem, { id: saleableItemId, auditId: input.AuditId }, fields, ITEM_NOUN));
}

/** A line to bill: its price comes from the server (the saleable item's price unless the selling area priced it). */
export interface InvoiceLineDraft {
  saleableItemId?: number | null;
  description: string;
  quantity: number;
  unitPrice: Money | string;
}

export interface InvoiceDraft {
  contactId: number;
  lines: readonly InvoiceLineDraft[];
  /** The area raising it: `store`, `events`, `scheduled-billing`, ... */
  source: string;
  /** What is billed, unique per tenant: the same key never bills twice. */
  sourceKey?: string | null;
  /** yyyy-mm-dd; today (UTC) when absent. */
  invoiceDate?: string;
  /** yyyy-mm-dd; the invoice date when absent. */
  dueDate?: string;
  memo?: string | null;
}

/**
 * Raises an invoice in the caller's transaction (or its own): lines priced exactly, the total
 * their sum, the next number of the tenant. With a `sourceKey` already billed, answers that
 * invoice and `created: false` instead — so a retried or raced billing bills once.
 */
export async function createInvoice(ctx: RequestContext, draft: InvoiceDraft): Promise<{ invoice: Invoice; created: boolean }> {
  if (draft.lines.length === 0) throw BadInput.field('Lines', 'an invoice needs at least one line');
  const tenantId = ctx.tenantId;
  return inTransaction(ctx, async () => {
    // One writer at a time per tenant: the number below and the sourceKey check cannot interleave.
    await tenantSql({ em: ctx.em, tenantId }).run(`SELECT pg_advisory_xact_lock(${TENANT}, hashtext(?))`, ['invoice-number']);
    if (draft.sourceKey) {
      const existing = await ctx.em.findOne(Invoice, { sourceKey: draft.sourceKey });
      if (existing) return { invoice: existing, created: false };
    }
    const [{ next }] = await tenantSql({ em: ctx.em, tenantId }).all<{ next: number }>(`SELECT coalesce(max(number), 0) + 1 AS next FROM invoice WHERE ${tenantIs()}`, []);
    const lines = draft.lines.map((line, index) => {
      if (!Number.isInteger(line.quantity) || line.quantity < 1) throw BadInput.field(`Lines[${index}].Quantity`, 'must be a whole number of at least 1');
      const unitPrice = money(line.unitPrice);
      return { ...line, lineNumber: index + 1, unitPrice: toMoneyString(unitPrice), amount: toMoneyString(unitPrice.times(line.quantity)) };
    });
    const invoiceDate = draft.invoiceDate ?? todayUtc();
    const invoice = ctx.em.create(Invoice, {
      tenant: tenantId, number: next, contact: draft.contactId, invoiceDate, dueDate: draft.dueDate ?? invoiceDate,
      total: toMoneyString(sumMoney(lines.map((line) => line.amount))), source: draft.source, sourceKey: draft.sourceKey ?? null, memo: draft.memo ?? null,
    });
    for (const line of lines) {
      ctx.em.create(InvoiceLine, {
        tenant: tenantId, invoice, lineNumber: line.lineNumber, saleableItem: line.saleableItemId ?? null,
        description: line.description.slice(0, 500), quantity: line.quantity, unitPrice: line.unitPrice, amount: line.amount,
      });
    }
    await ctx.em.flush();
    await emitWebhookEvent(ctx, 'invoice.issued', {
      InvoiceId: invoice.id, Number: invoice.number, ContactId: draft.contactId, Total: invoice.total, InvoiceDate: invoice.invoiceDate, DueDate: invoice.dueDate, Source: invoice.source,
    });
    return { invoice, created: true };
  });
}

/**
 * Records money received (negative: a refund) and moves the invoice's paid amount and status in
 * one UPDATE, so concurrent payments add up and none is lost; the payment that settles the
 * invoice also moves what it billed (`settlePaidInvoice`), in the same transaction. A void invoice takes no payment (409);
 * a payment beyond the balance is refused (400).
 */
export async function recordPayment(
  ctx: RequestContext, invoiceId: number, payment: { amount: Money; method: string; reference?: string | null; paidAt?: Date },
): Promise<void> {
  const tenantId = ctx.tenantId;
  const amount = toMoneyString(payment.amount);
  await inTransaction(ctx, async () => {
    const updated = await tenantSql({ em: ctx.em, tenantId }).all<{ id: number; number: number; contact_id: number; total: string; source_key: string | null; settled: boolean }>(
      `UPDATE invoice SET amount_paid = amount_paid + ?::numeric,
         status = CASE WHEN amount_paid + ?::numeric >= total THEN 'paid' ELSE 'open' END,
         audit_id = audit_id + 1, updated_at = now()
       WHERE id = ? AND ${tenantIs()} AND status <> 'void' AND amount_paid + ?::numeric BETWEEN 0 AND total
       RETURNING id, number, contact_id, total, source_key, (status = 'paid' AND amount_paid - ?::numeric < total) AS settled`, [amount, amount, invoiceId, amount, amount]);
    if (updated.length === 0) {
      const [row] = await leanRows(ctx.reader, Invoice, { fields: ['status'], where: { id: invoiceId }, limit: 1 });
      if (!row) throw new NotFound(INVOICE_NOUN);
      if (row.status === 'void') throw new Conflict('A void invoice takes no payment.');
      throw BadInput.field('Amount', 'must not take the amount paid below zero or above the total');
    }
    ctx.em.create(Payment, { tenant: tenantId, invoice: invoiceId, amount, paidAt: payment.paidAt ?? new Date(), method: payment.method, reference: payment.reference ?? null });
    await ctx.em.flush();
    const [invoice] = updated;
    // Only the payment that takes the invoice from open to paid moves what it billed.
    if (!invoice.settled) return;
    await emitWebhookEvent(ctx, 'invoice.paid', { InvoiceId: invoice.id, Number: invoice.number, ContactId: invoice.contact_id, Total: invoice.total });
    if (!invoice.source_key) return;
    await settlePaidInvoice(ctx, { id: invoice.id, contactId: invoice.contact_id, sourceKey: invoice.source_key });
    // A store order is paid when its invoice is (the store's own handler moves the order).
    if (invoice.source_key.startsWith(STORE_ORDER_SOURCE)) {
      await emitWebhookEvent(ctx, 'order.paid', { OrderId: Number(invoice.source_key.slice(STORE_ORDER_SOURCE.length)), InvoiceId: invoice.id, ContactId: invoice.contact_id, Total: invoice.total });
    }
  });
}

/**
 * Voids an invoice nothing was paid on, in one UPDATE (a payment racing it either lands first and
 * the void is refused, or finds the invoice void). Answers whether it was voided: an invoice with
 * money received stays open for staff to refund first (a negative payment), then void.
 */
export async function voidInvoice(ctx: RequestContext, invoiceId: number): Promise<boolean> {
  const voided = await tenantSql(ctx).all<{ id: number }>(
    `UPDATE invoice SET status = 'void', audit_id = audit_id + 1, updated_at = now() WHERE id = ? AND ${tenantIs()} AND status = 'open' AND amount_paid = 0 RETURNING id`,
    [invoiceId],
  );
  return voided.length === 1;
}

/**
 * What an invoice stops billing when the thing it billed is cancelled in full: every payment on it
 * is refunded (one negative payment of the amount paid, `method` refund) and the invoice voided, in
 * the caller's transaction. Answers the amount refunded; a void invoice is left as it is.
 */
export async function refundAndVoidInvoice(ctx: RequestContext, invoiceId: number, reference: string): Promise<Money> {
  return inTransaction(ctx, async () => {
    // The row locked first: a payment arriving now lands before the refund reads what was paid, or after the void (refused).
    const [invoice] = await tenantSql(ctx).all<{ status: string; amount_paid: string }>(`SELECT status, amount_paid FROM invoice WHERE id = ? AND ${tenantIs()} FOR UPDATE`, [invoiceId]);
    if (!invoice || invoice.status === 'void') return money(0);
    const paid = money(invoice.amount_paid);
    if (paid.greaterThan(0)) await recordPayment(ctx, invoiceId, { amount: paid.negated(), method: 'refund', reference });
    await tenantSql(ctx).run(`UPDATE invoice SET status = 'void', audit_id = audit_id + 1, updated_at = now() WHERE id = ? AND ${tenantIs()} AND amount_paid = 0`, [invoiceId]);
    return paid;
  });
}

/**
 * What an invoice stops billing when part of what it billed is cancelled: a credit line of
 * −`amount` lowers its total, money paid beyond the new total is refunded (a negative payment,
 * `method` refund), and an invoice the credit leaves paid in full moves what it billed as a payment
 * would (`settlePaidInvoice`), all in the caller's transaction. A void invoice takes no credit.
 * Answers the amount refunded.
 */
export async function creditInvoice(ctx: RequestContext, invoiceId: number, credit: { description: string; amount: Money; reference: string }): Promise<Money> {
  const amount = toMoneyString(credit.amount);
  return inTransaction(ctx, async () => {
    const [invoice] = await tenantSql(ctx).all<{ id: number; contact_id: number; source_key: string | null; amount_paid: string; total: string; settled: boolean }>(
      `UPDATE invoice SET total = total - ?::numeric,
         status = CASE WHEN amount_paid >= total - ?::numeric THEN 'paid' ELSE 'open' END,
         audit_id = audit_id + 1, updated_at = now()
       WHERE id = ? AND ${tenantIs()} AND status <> 'void' AND total - ?::numeric >= 0
       RETURNING id, contact_id, source_key, amount_paid, total, (status = 'paid' AND amount_paid < total + ?::numeric) AS settled`, [amount, amount, invoiceId, amount, amount]);
    if (!invoice) return money(0);
    const [{ next }] = await tenantSql(ctx).all<{ next: number }>(`SELECT coalesce(max(line_number), 0) + 1 AS next FROM invoice_line WHERE ${tenantIs()} AND invoice_id = ?`, [invoiceId]);
    ctx.em.create(InvoiceLine, {
      tenant: ctx.tenantId, invoice: invoiceId, lineNumber: next, description: credit.description.slice(0, 500), quantity: 1,
      unitPrice: toMoneyString(credit.amount.negated()), amount: toMoneyString(credit.amount.negated()),
    });
    await ctx.em.flush();
    const overpaid = money(invoice.amount_paid).minus(invoice.total);
    if (overpaid.greaterThan(0)) await recordPayment(ctx, invoiceId, { amount: overpaid.negated(), method: 'refund', reference: credit.reference });
    if (invoice.settled && invoice.source_key) await settlePaidInvoice(ctx, { id: invoice.id, contactId: invoice.contact_id, sourceKey: invoice.source_key });
    return overpaid.greaterThan(0) ? overpaid : money(0);
  });
}

export async function listInvoices(ctx: RequestContext, filter: InvoiceFilterInput | null | undefined): Promise<InvoiceView[]> {
  const where = allOf<Invoice>(filter?.ContactId ? { contact: filter.ContactId } : null, filter?.Status ? { status: filter.Status } : null);
  const { rows } = await listQuery(ctx, Invoice, invoiceList, filter, { fields: INVOICE_FIELDS, where });
  return Promise.all(rows.map((row) => toInvoiceView(ctx, row)));
}

export async function getInvoice(ctx: RequestContext, invoiceId: number): Promise<InvoiceView> {
  return toInvoiceView(ctx, await readOr404(ctx, Invoice, INVOICE_FIELDS, invoiceId, INVOICE_NOUN));
}

/** An invoice staff raise by hand: each line at its saleable item's price unless staff price it. */
export async function raiseInvoice(ctx: RequestContext, input: InvoiceInput): Promise<InvoiceView> {
  await readOr404(ctx, Contact, ['id'], input.ContactId, 'The contact');
  const loader = ctx.loaders.byId(SaleableItem);
  const lines = await Promise.all(input.Lines.map(async (line, index) => {
    const item = await loader.load(line.SaleableItemId);
    if (!item) throw BadInput.field(`Lines[${index}].SaleableItemId`, 'names no saleable item');
    const unitPrice = line.UnitPrice == null ? money(item.price) : parseMoney(line.UnitPrice, `Lines[${index}].UnitPrice`);
    return { saleableItemId: item.id, description: line.Description?.trim() || item.name, quantity: line.Quantity, unitPrice };
  }));
  const dueDate = input.DueDate ? calendarDay(input.DueDate, 'DueDate') : undefined;
  const { invoice } = await createInvoice(ctx, { contactId: input.ContactId, lines, source: 'staff', dueDate, memo: input.Memo?.trim() || null });
  return getInvoice(ctx, invoice.id);
}

/**
 * Records a payment and answers the invoice as that payment left it: read in the payment's own
 * transaction, so of two payments racing on one invoice each answers its own outcome (read after
 * the commit, both could answer the second one's).
 */
export async function payInvoice(ctx: RequestContext, invoiceId: number, input: InvoicePaymentInput): Promise<InvoiceView> {
  const amount = parseMoney(input.Amount, 'Amount', { allowNegative: true });
  return inTransaction(ctx, async () => {
    await recordPayment(ctx, invoiceId, { amount, method: input.Method.trim(), reference: input.Reference ?? null });
    return getInvoice(ctx, invoiceId);
  });
}

/** Demo: one saleable item and one invoice to a demo contact, part paid. */
export async function seedCommerce(em: EntityManager, tenant: Tenant, marker: string): Promise<void> {
  const item = em.create(SaleableItem, { tenant, name: `Annual dues ${marker}`, itemType: 'membership', price: '150.00', accountingClass: `Dues ${marker}` });
  const contact = em.create(Contact, { tenant, kind: 'person', firstName: 'Invoiced', lastName: marker });
  const invoice = em.create(Invoice, {
    tenant, number: 1, contact, invoiceDate: '2026-01-15', dueDate: '2026-02-15', total: '150.00', amountPaid: '50.00', source: 'staff', memo: `Dues ${marker}`,
  });
  em.create(InvoiceLine, { tenant, invoice, lineNumber: 1, saleableItem: item, description: `Annual dues ${marker}`, quantity: 1, unitPrice: '150.00', amount: '150.00' });
  em.create(Payment, { tenant, invoice, amount: '50.00', paidAt: new Date('2026-01-20T10:00:00Z'), method: 'check', reference: marker });
  await em.flush();
}

function toSaleableItemView(row: Pick<SaleableItem, (typeof ITEM_FIELDS)[number]>): SaleableItemView {
  return {
    SaleableItemId: row.id, Name: row.name, ItemType: row.itemType, Price: toMoneyNumber(row.price), AccountingClass: row.accountingClass,
    Taxable: row.taxable, IsActive: row.isActive, AuditId: row.auditId,
  };
}

async function toInvoiceView(ctx: RequestContext, row: InvoiceRow): Promise<InvoiceView> {
  const [lines, payments] = await Promise.all([invoiceLinesLoader(ctx).load(row.id), invoicePaymentsLoader(ctx).load(row.id)]);
  return {
    InvoiceId: row.id, InvoiceNumber: row.number, ContactId: idOf(row.contact), InvoiceDate: row.invoiceDate, DueDate: row.dueDate, Status: row.status,
    Total: toMoneyNumber(row.total), AmountPaid: toMoneyNumber(row.amountPaid), Balance: toMoneyNumber(money(row.total).minus(row.amountPaid)),
    Source: row.source, Memo: row.memo, Lines: lines, Payments: payments, AuditId: row.auditId,
  };
}

function invoiceLinesLoader(ctx: RequestContext) {
  return ctx.loaders.custom<number, InvoiceLineView[]>('invoice-lines', async (em, invoiceIds) => {
    const rows = await leanRows(em, InvoiceLine, {
      fields: ['invoice', 'lineNumber', 'saleableItem', 'description', 'quantity', 'unitPrice', 'amount'],
      where: { invoice: { $in: [...invoiceIds] } },
      orderBy: [{ invoice: 'asc', lineNumber: 'asc' }],
    });
    return groupBy(invoiceIds, rows, (row) => idOf(row.invoice), (row) => ({
      LineNumber: row.lineNumber, SaleableItemId: idOf(row.saleableItem), Description: row.description, Quantity: row.quantity,
      UnitPrice: toMoneyNumber(row.unitPrice), Amount: toMoneyNumber(row.amount),
    }));
  });
}

function invoicePaymentsLoader(ctx: RequestContext) {
  return ctx.loaders.custom<number, InvoicePayment[]>('invoice-payments', async (em, invoiceIds) => {
    const rows = await leanRows(em, Payment, {
      fields: ['id', 'invoice', 'amount', 'paidAt', 'method', 'reference'],
      where: { invoice: { $in: [...invoiceIds] } },
      orderBy: [{ invoice: 'asc', id: 'asc' }],
    });
    return groupBy(invoiceIds, rows, (row) => idOf(row.invoice), (row) => ({
      PaymentId: row.id, Amount: toMoneyNumber(row.amount), PaidAt: new Date(row.paidAt).toISOString(), Method: row.method, Reference: row.reference,
    }));
  });
}

/** Rows grouped under the keys asked for, in key order (a DataLoader batch's answer). */
function groupBy<K, R, V>(keys: readonly K[], rows: readonly R[], keyOf: (row: R) => K, view: (row: R) => V): V[][] {
  const groups = new Map<K, V[]>(keys.map((key) => [key, []]));
  for (const row of rows) groups.get(keyOf(row))?.push(view(row));
  return keys.map((key) => groups.get(key) ?? []);
}
