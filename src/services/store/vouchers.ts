import { randomInt } from 'node:crypto';
import type { RequestContext } from '../../core/context.js';
import { todayUtc } from '../../core/dates.js';
import { BadInput, Conflict, NotFound } from '../../core/errors.js';
import { leanRows } from '../../core/data/lean-read.js';
import { defineList, listQuery } from '../../core/data/list-query.js';
import { money, parseMoney, toCents, toMoneyNumber, toMoneyString, type Money } from '../../core/money.js';
import { deleteRecord, inTransaction, saveRecord } from '../../core/data/records.js';
import { TENANT, tenantIs, tenantSql } from '../../core/data/tenant-sql.js';
import { StoreItem, Voucher, VoucherType, type VoucherValueKind } from '../../entities/store.js';
import type { ListOptionsInput } from '../../schema/common.js';
import type { BillingVoucher, VoucherRedemption, VoucherTypeInput, VoucherTypeView } from '../../schema/vouchers.js';
import { recordPayment } from '../commerce/invoices.js';

/*
 * Voucher types and the vouchers a paid order of a voucher item (StoreItemV2) issues.
 * Decisions where the documents are silent:
 * - A voucher type is worth an exact amount of money (ValueType amount) or a percentage of the
 *   invoice it pays (percent, at most 100), and is valid ValidityDays days from its issue (the day
 *   of issue included; none: no end). Deleting a type is refused (409) while store items name it
 *   or vouchers of it exist: deactivate it instead (its items are then not sold; vouchers already
 *   issued stay valid, with the value they were issued at).
 * - Vouchers are issued when the order's invoice is paid in full (never at checkout), one per
 *   unit, to the buyer; (order line, unit) is unique, so a retried payment, or a refund and a
 *   second settlement, issues nothing twice.
 * - A code is 16 characters of a 32-letter alphabet (80 random bits, `crypto.randomInt`), unique
 *   per tenant; it is a bearer secret: whoever holds it may spend it, so it is shown only to its
 *   holder and staff (BillingContactInfo.Vouchers).
 * - Redeeming = the voucher pays an invoice (a payment of method `voucher`), once and in full: it
 *   pays its value (percent: that share of the invoice total, to the cent), never more than the
 *   balance; what is left of its value is not kept. The voucher is claimed by one conditional
 *   UPDATE (`redeemed_at IS NULL`), so of concurrent redemptions of one code exactly one wins and
 *   the others are 409. The invoice row is locked first, so the amount is computed on a balance no
 *   other payment moves meanwhile.
 * - The documents imply one place to spend them: public event registration, whose billing contact
 *   (BillingContactInfo) lists them; BillingInfo.VoucherCode pays the registration's invoice. Staff
 *   spend one on any invoice (a store order's too) with `redeemVoucher`.
 */

const TYPE_NOUN = 'The voucher type';
const TYPE_FIELDS = ['id', 'name', 'valueKind', 'value', 'validityDays', 'isActive', 'auditId'] as const;
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const CODE_LENGTH = 16;

const voucherTypeList = defineList(VoucherType, {
  operations: ['Query.voucherTypes'],
  orderBy: { Name: 'name', VoucherTypeId: 'id', Value: 'value' },
  defaultOrder: 'Name',
  search: ['name'],
});

export async function listVoucherTypes(ctx: RequestContext, options: ListOptionsInput | null | undefined): Promise<VoucherTypeView[]> {
  const { rows } = await listQuery(ctx, VoucherType, voucherTypeList, options, { fields: TYPE_FIELDS });
  return rows.map(toVoucherTypeView);
}

export async function saveVoucherType(ctx: RequestContext, voucherTypeId: number, input: VoucherTypeInput): Promise<VoucherTypeView> {
  const valueKind = input.ValueType as VoucherValueKind;
  const value = parseMoney(input.Value, 'Value');
  const fields = {
    name: input.Name.trim(), valueKind, value: toMoneyString(value), validityDays: input.ValidityDays ?? null, isActive: input.IsActive ?? true,
  };
  return toVoucherTypeView(await saveRecord(ctx, VoucherType, { id: voucherTypeId, auditId: input.AuditId }, fields, TYPE_NOUN));
}

/** 409 while store items name the type or vouchers of it exist (the foreign keys back this up under a race). */
export async function deleteVoucherType(ctx: RequestContext, voucherTypeId: number, auditId: number): Promise<number> {
  const [[item], [voucher]] = await Promise.all([
    leanRows(ctx.reader, StoreItem, { fields: ['id'], where: { voucherType: voucherTypeId }, limit: 1 }),
    leanRows(ctx.reader, Voucher, { fields: ['id'], where: { voucherType: voucherTypeId }, limit: 1 }),
  ]);
  if (item) throw new Conflict(`Store item ${item.id} sells vouchers of this type: deactivate the type (IsActive false) instead.`);
  if (voucher) throw new Conflict('Vouchers of this type have been issued: deactivate the type (IsActive false) instead.');
  return deleteRecord(ctx, VoucherType, voucherTypeId, auditId, TYPE_NOUN);
}

/** A store item's VoucherTypeId must name an active voucher type of the tenant (400 naming `field`). */
export async function assertActiveVoucherType(ctx: RequestContext, voucherTypeId: number, field: string): Promise<void> {
  const [type] = await leanRows(ctx.reader, VoucherType, { fields: ['isActive'], where: { id: voucherTypeId }, limit: 1 });
  if (!type) throw BadInput.field(field, 'names no voucher type');
  if (!type.isActive) throw BadInput.field(field, 'names an inactive voucher type');
}

// ---------------------------------------------------------------------------------------------
// Issuing.

function newCode(): string {
  let code = '';
  for (let index = 0; index < CODE_LENGTH; index++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/**
 * In the payment's transaction: the vouchers of a paid order, one per unit of each line of a
 * voucher item, to the buyer. Units already issued are skipped (ON CONFLICT), so calling it again
 * issues nothing.
 */
export async function issueOrderVouchers(ctx: RequestContext, orderId: number, contactId: number): Promise<void> {
  const lines = await tenantSql(ctx).all<{ id: number; quantity: number; voucher_type_id: number }>(
    `SELECT l.id, l.quantity, i.voucher_type_id FROM store_order_line l JOIN store_item i ON i.id = l.store_item_id AND ${tenantIs('i')}
      WHERE l.order_id = ? AND ${tenantIs('l')} AND i.voucher_type_id IS NOT NULL ORDER BY l.id`, [orderId]);
  const today = todayUtc();
  for (const line of lines) {
    const codes = Array.from({ length: line.quantity }, newCode);
    await tenantSql(ctx).run(
      `INSERT INTO voucher (tenant_id, code, contact_id, voucher_type_id, order_id, order_line_id, sequence, value_kind, value, issued_at, expires_on)
       SELECT ${TENANT}, unit.code, ?, t.id, ?, ?, unit.sequence, t.value_kind, t.value, now(),
              CASE WHEN t.validity_days IS NULL THEN NULL ELSE ?::date + t.validity_days - 1 END
         FROM unnest(?::text[]) WITH ORDINALITY AS unit(code, sequence) JOIN voucher_type t ON t.id = ? AND ${tenantIs('t')}
       ON CONFLICT (order_line_id, sequence) DO NOTHING`, [contactId, orderId, line.id, today, `{${codes.join(',')}}`, line.voucher_type_id]);
  }
}

/** The vouchers a contact holds and may still spend today (BillingContactInfo.Vouchers), soonest to expire first. */
export async function vouchersHeldBy(ctx: RequestContext, contactId: number): Promise<BillingVoucher[]> {
  const rows = await tenantSql(ctx).all<{ id: number; code: string; voucher_type_id: number; name: string; value_kind: string; value: string; issued_at: Date; expires_on: string | null }>(
    `SELECT v.id, v.code, v.voucher_type_id, t.name, v.value_kind, v.value, v.issued_at, to_char(v.expires_on, 'YYYY-MM-DD') AS expires_on
       FROM voucher v JOIN voucher_type t ON t.id = v.voucher_type_id AND ${tenantIs('t')}
      WHERE ${tenantIs('v')} AND v.contact_id = ? AND v.redeemed_at IS NULL AND (v.expires_on IS NULL OR v.expires_on >= ?::date)
      ORDER BY v.expires_on NULLS LAST, v.id LIMIT 100`, [contactId, todayUtc()]);
  return rows.map((row) => ({
    VoucherId: row.id, Code: row.code, VoucherTypeId: row.voucher_type_id, Name: row.name, ValueType: row.value_kind, Value: toMoneyNumber(row.value),
    IssuedAt: new Date(row.issued_at).toISOString(), ExpiresOn: row.expires_on,
  }));
}

// ---------------------------------------------------------------------------------------------
// Redeeming.

/** A code as people type it: any case, spaces and dashes ignored. */
function normalizedCode(code: string): string {
  return code.replace(/[\s-]/g, '').toUpperCase();
}

/**
 * Spends the voucher `code` on an invoice, in the caller's transaction (or its own): see the
 * header. `field` names the code in errors (400: no such voucher or expired; 409: redeemed
 * already, or the invoice is void or paid).
 */
export async function redeemVoucher(ctx: RequestContext, code: string, invoiceId: number, field = 'Code'): Promise<VoucherRedemption> {
  const wanted = normalizedCode(code);
  if (!wanted) throw BadInput.field(field, 'must not be blank');
  return inTransaction(ctx, async () => {
    const invoice = await tenantSql(ctx).get<{ total: string; amount_paid: string; status: string }>(
      `SELECT total, amount_paid, status FROM invoice WHERE id = ? AND ${tenantIs()} FOR UPDATE`, [invoiceId]);
    if (!invoice) throw new NotFound('The invoice');
    if (invoice.status === 'void') throw new Conflict('A void invoice takes no payment.');
    const balance = money(invoice.total).minus(invoice.amount_paid);
    if (!balance.greaterThan(0)) throw new Conflict('The invoice is paid already.');
    const today = todayUtc();
    const claimed = await tenantSql(ctx).get<{ id: number; value_kind: VoucherValueKind; value: string }>(
      `UPDATE voucher SET redeemed_at = now(), redeemed_invoice_id = ?, updated_at = now()
        WHERE code = ? AND ${tenantIs()} AND redeemed_at IS NULL AND (expires_on IS NULL OR expires_on >= ?::date)
        RETURNING id, value_kind, value`, [invoiceId, wanted, today]);
    if (!claimed) throw await whyNotRedeemable(ctx, wanted, field);
    const worth: Money = claimed.value_kind === 'percent' ? toCents(money(invoice.total).times(claimed.value).dividedBy(100)) : money(claimed.value);
    const amount = worth.lessThan(balance) ? worth : balance;
    await ctx.em.nativeUpdate(Voucher, { id: claimed.id }, { redeemedAmount: toMoneyString(amount) });
    await recordPayment(ctx, invoiceId, { amount, method: 'voucher', reference: `Voucher ${claimed.id}` });
    return { VoucherId: claimed.id, InvoiceId: invoiceId, Amount: toMoneyNumber(amount), InvoiceStatus: amount.equals(balance) ? 'paid' : 'open' };
  });
}

async function whyNotRedeemable(ctx: RequestContext, code: string, field: string): Promise<Error> {
  const [voucher] = await leanRows(ctx.em, Voucher, { fields: ['redeemedAt', 'expiresOn'], where: { code }, limit: 1 });
  if (!voucher) return BadInput.field(field, 'names no voucher');
  if (voucher.redeemedAt) return new Conflict('The voucher was redeemed already.', [{ field, message: 'was redeemed already' }]);
  return BadInput.field(field, `expired on ${voucher.expiresOn ?? ''}`);
}

function toVoucherTypeView(row: Pick<VoucherType, (typeof TYPE_FIELDS)[number]>): VoucherTypeView {
  return {
    VoucherTypeId: row.id, Name: row.name, ValueType: row.valueKind, Value: toMoneyNumber(row.value), ValidityDays: row.validityDays, IsActive: row.isActive,
    AuditId: row.auditId,
  };
}
