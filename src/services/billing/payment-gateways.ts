import type { EntityManager } from '@mikro-orm/postgresql';
import { DAY_RULE, textRule } from '../../core/argument-rules.js';
import type { RequestContext } from '../../core/context.js';
import { instantBound } from '../../core/dates.js';
import { BadInput, NotFound } from '../../core/errors.js';
import { leanRows } from '../../core/data/lean-read.js';
import { money, parseMoney, toMoneyNumber, toMoneyString } from '../../core/money.js';
import { inTransaction } from '../../core/data/records.js';
import {
  PAYMENT_GATEWAY_TYPES, PLATFORM_PAY_TYPE_ID, PaymentGatewayAccount, PaymentGatewayTransaction, type GatewayTransactionKind,
} from '../../entities/billing.js';
import type { Tenant } from '../../entities/tenant.js';
import { lookupChoices, type LookupChoiceInt } from '../../schema/common.js';
import type {
  AccountMonthArgs, AccountTransactionsArgs, GatewayAccountArgs, MonthlyStatement, PaymentGatewayTransactionImportInput, PaymentGatewayTransactionImportResult,
  PaymentGatewayTransactionItem, TransferDetails, Transfers, Transactions,
} from '../../schema/payment-gateways.js';
import { TENANT, tenantIs, tenantSql } from '../../core/data/tenant-sql.js';

/*
 * Payment gateway accounts (decided where the documents are silent): transactions enter through
 * the GraphQL-only `importPaymentGatewayTransactions` (idempotent per gateway transaction id: a
 * unique index and INSERT … ON CONFLICT DO NOTHING). Amounts are stored signed as they move the
 * account's balance (entities/billing.ts), so every figure is a SQL aggregate and the statement
 * reconciles by construction: SummaryMonthlyBalance = sum(amount + fee) of the month's
 * transactions = NetActivity − (transfers − transfer reversals). Months are UTC. A payout's own
 * fee is imported as a `fee` transaction (a transfer carries none), so transfers are exactly the
 * money paid out. The statement, transfers and transactions are read by AccountId (the gateway's
 * id) and PaymentGatewayTypeId; an unknown pair is 404. Both lookups list the tenant's accounts
 * (Id: the account's record id, Name "<name> (<gateway>)", ExtraData JSON {AccountId,
 * PaymentGatewayTypeId}); the platform-pay report lookup only those of the PlatformPay gateway.
 */

const ACCOUNT_NOUN = 'The payment gateway account';
/** The most transactions one Transactions or TransferDetails read answers. */
export const TRANSACTION_LIMIT = 5000;

/** How each kind moves the balance: the sign of its amount, and of its fee (charged, or returned on a dispute reversal). */
const SIGNS: Record<GatewayTransactionKind, { amount: 1 | -1; fee: 1 | -1 }> = {
  sale: { amount: 1, fee: -1 },
  refund: { amount: -1, fee: -1 },
  dispute: { amount: -1, fee: -1 },
  dispute_reversal: { amount: 1, fee: 1 },
  fee: { amount: -1, fee: -1 },
  transfer: { amount: -1, fee: -1 },
  transfer_reversal: { amount: 1, fee: -1 },
};

/** The account named by its gateway id and gateway type, or 404. */
async function findAccount(ctx: RequestContext, key: GatewayAccountArgs): Promise<{ id: number; accountId: string; gatewayTypeId: number }> {
  const [account] = await leanRows(ctx.reader, PaymentGatewayAccount, {
    fields: ['id', 'accountId', 'gatewayTypeId'], where: { accountId: key.accountId, gatewayTypeId: key.paymentGatewayTypeId }, limit: 1,
  });
  if (!account) throw new NotFound(ACCOUNT_NOUN);
  return account;
}

/** [start, end) of a UTC month (AccountMonthArgs checked the month and year). */
function monthBounds(month: number, year: number): [Date, Date] {
  const start = new Date(Date.UTC(2000, month - 1, 1));
  start.setUTCFullYear(year);
  const end = new Date(start);
  end.setUTCMonth(end.getUTCMonth() + 1);
  return [start, end];
}

export async function monthlyStatement(ctx: RequestContext, args: AccountMonthArgs): Promise<MonthlyStatement> {
  const [start, end] = monthBounds(args.month, args.year);
  const account = await findAccount(ctx, args);
  const [row] = await tenantSql(ctx).all<Record<string, string>>(
    `SELECT
       count(*) FILTER (WHERE kind = 'sale') AS sales_count,
       coalesce(sum(amount) FILTER (WHERE kind = 'sale'), 0) AS sales_amount,
       coalesce(-sum(fee) FILTER (WHERE kind = 'sale'), 0) AS sales_fees,
       count(*) FILTER (WHERE kind = 'refund') AS refund_count,
       coalesce(-sum(amount) FILTER (WHERE kind = 'refund'), 0) AS refund_amount,
       coalesce(-sum(fee) FILTER (WHERE kind = 'refund'), 0) AS refund_fees,
       count(*) FILTER (WHERE kind = 'dispute') AS dispute_count,
       coalesce(-sum(amount) FILTER (WHERE kind = 'dispute'), 0) AS dispute_amount,
       coalesce(-sum(fee) FILTER (WHERE kind = 'dispute'), 0) AS dispute_fees,
       count(*) FILTER (WHERE kind = 'dispute_reversal') AS reversal_count,
       coalesce(sum(amount) FILTER (WHERE kind = 'dispute_reversal'), 0) AS reversal_amount,
       coalesce(sum(fee) FILTER (WHERE kind = 'dispute_reversal'), 0) AS reversal_fees,
       coalesce(sum(amount + fee) FILTER (WHERE kind NOT IN ('transfer', 'transfer_reversal')), 0) AS net_activity,
       count(*) FILTER (WHERE kind = 'transfer') AS transfer_count,
       coalesce(-sum(amount) FILTER (WHERE kind = 'transfer'), 0) AS transfer_amount,
       coalesce(sum(amount) FILTER (WHERE kind = 'transfer_reversal'), 0) AS transfer_reversal_amount,
       coalesce(-sum(amount + fee) FILTER (WHERE kind IN ('transfer', 'transfer_reversal')), 0) AS less_transfers,
       coalesce(sum(amount + fee), 0) AS balance
     FROM payment_gateway_transaction
     WHERE ${tenantIs()} AND account_id = ? AND occurred_at >= ? AND occurred_at < ?`, [account.id, start, end]);
  const count = (key: string) => Number(row[key]);
  const amount = (key: string) => toMoneyNumber(row[key]);
  return {
    AccountId: account.accountId, PaymentGatewayTypeId: String(account.gatewayTypeId), Month: args.month, Year: args.year,
    SalesCount: count('sales_count'), SalesAmount: amount('sales_amount'), SalesFeesAmount: amount('sales_fees'),
    RefundCount: count('refund_count'), RefundAmount: amount('refund_amount'), RefundFeesAmount: amount('refund_fees'),
    DisputeCount: count('dispute_count'), DisputeAmount: amount('dispute_amount'), DisputeFeesAmount: amount('dispute_fees'),
    DisputeReversalCount: count('reversal_count'), DisputeReversalAmount: amount('reversal_amount'), DisputeReversalFeesReturnedAmount: amount('reversal_fees'),
    NetActivity: amount('net_activity'),
    TransfersCount: count('transfer_count'), TransfersAmount: amount('transfer_amount'), TransferReversalsAmount: amount('transfer_reversal_amount'),
    SummaryNetActivity: amount('net_activity'), SummaryLessTransfers: amount('less_transfers'), SummaryMonthlyBalance: amount('balance'),
  };
}

export async function monthTransfers(ctx: RequestContext, args: AccountMonthArgs): Promise<Transfers> {
  const [start, end] = monthBounds(args.month, args.year);
  const account = await findAccount(ctx, args);
  const rows = await tenantSql(ctx).all<{ gateway_transaction_id: string; occurred_at: Date; amount: string; reversed: boolean; transaction_count: string }>(
    `SELECT t.gateway_transaction_id, t.occurred_at, -t.amount AS amount,
            coalesce(paid.reversed, false) AS reversed, coalesce(paid.transaction_count, 0) AS transaction_count
     FROM payment_gateway_transaction t
     LEFT JOIN LATERAL (
       SELECT bool_or(kind = 'transfer_reversal') AS reversed, count(*) FILTER (WHERE kind NOT IN ('transfer', 'transfer_reversal')) AS transaction_count
       FROM payment_gateway_transaction p
       WHERE p.tenant_id = t.tenant_id AND p.account_id = t.account_id AND p.transfer_id = t.gateway_transaction_id
     ) paid ON true
     WHERE ${tenantIs('t')} AND t.account_id = ? AND t.kind = 'transfer' AND t.occurred_at >= ? AND t.occurred_at < ?
     ORDER BY t.occurred_at, t.id`, [account.id, start, end]);
  return {
    AccountId: account.accountId, PaymentGatewayTypeId: String(account.gatewayTypeId), Month: args.month, Year: args.year,
    Transfers: rows.map((row) => ({
      TransferId: row.gateway_transaction_id, Date: new Date(row.occurred_at).toISOString(), Amount: toMoneyNumber(row.amount),
      Reversed: row.reversed, TransactionCount: Number(row.transaction_count),
    })),
  };
}

/** The `{date}` of a transfer's path: answered as given. */
export const TRANSFER_DATE_RULE = textRule(40);

export async function transferDetails(
  ctx: RequestContext, args: { accountId: string; id: string; paymentGatewayTypeId: number; date: string },
): Promise<TransferDetails> {
  const account = await findAccount(ctx, args);
  const transfers = await leanRows(ctx.reader, PaymentGatewayTransaction, {
    fields: ['kind'], where: { account: account.id, $or: [{ gatewayTransactionId: args.id, kind: 'transfer' }, { transferId: args.id, kind: 'transfer_reversal' }] },
  });
  if (!transfers.some((row) => row.kind === 'transfer')) throw new NotFound('The transfer');
  const transactions = await transactionRows(ctx, { account: account.id, transferId: args.id, kind: { $nin: ['transfer', 'transfer_reversal'] } });
  return {
    AccountId: account.accountId, Id: args.id, PaymentGatewayTypeId: account.gatewayTypeId, Date: args.date,
    DisAllowPrint: transfers.some((row) => row.kind === 'transfer_reversal'), Transactions: transactions,
  };
}

export async function accountTransactions(ctx: RequestContext, args: AccountTransactionsArgs): Promise<Transactions> {
  // The texts were checked (AccountTransactionsArgs): the days they name.
  const day = args.date ? DAY_RULE.parse(args.date, 'date') : null;
  const first = args.startDate ? DAY_RULE.parse(args.startDate, 'startDate') : day;
  const last = args.endDate ? DAY_RULE.parse(args.endDate, 'endDate') : day;
  const account = await findAccount(ctx, args);
  // An open end is unbounded; a range that ends before it starts holds no day (no parameter
  // depends on another, so that every combination the document allows is answered).
  const end = last && new Date(last);
  end?.setUTCDate(end.getUTCDate() + 1);
  return {
    AccountId: account.accountId, PaymentGatewayTypeId: account.gatewayTypeId, Date: args.date ?? null, StartDate: args.startDate ?? null, EndDate: args.endDate ?? null,
    Transactions: await transactionRows(ctx, { account: account.id, ...(first || end ? { occurredAt: { ...(first && instantBound('$gte', first)), ...(end && instantBound('$lt', end)) } } : {}) }),
  };
}

async function transactionRows(ctx: RequestContext, where: object): Promise<PaymentGatewayTransactionItem[]> {
  const rows = await leanRows(ctx.reader, PaymentGatewayTransaction, {
    fields: ['gatewayTransactionId', 'kind', 'occurredAt', 'amount', 'fee', 'transferId', 'description'],
    where, orderBy: [{ occurredAt: 'asc', id: 'asc' }], limit: TRANSACTION_LIMIT,
  });
  return rows.map((row) => ({
    TransactionId: row.gatewayTransactionId, Type: row.kind, Date: new Date(row.occurredAt).toISOString(), Amount: toMoneyNumber(row.amount),
    Fee: toMoneyNumber(row.fee), Net: toMoneyNumber(money(row.amount).plus(row.fee)), TransferId: row.transferId, Description: row.description,
  }));
}

export async function gatewayAccountLookup(ctx: RequestContext, platformPayOnly: boolean): Promise<LookupChoiceInt[]> {
  const rows = await leanRows(ctx.reader, PaymentGatewayAccount, {
    fields: ['id', 'name', 'accountId', 'gatewayTypeId'], where: platformPayOnly ? { gatewayTypeId: PLATFORM_PAY_TYPE_ID } : {},
    orderBy: [{ name: 'asc' }, { id: 'asc' }], limit: 1000,
  });
  return lookupChoices(rows.map((row) => ({
    id: row.id, name: `${row.name} (${gatewayName(row.gatewayTypeId)})`, extraData: JSON.stringify({ AccountId: row.accountId, PaymentGatewayTypeId: row.gatewayTypeId }),
  })));
}

export function gatewayName(typeId: number): string {
  return PAYMENT_GATEWAY_TYPES.find((type) => type.id === typeId)?.name ?? `Gateway ${typeId}`;
}

/**
 * Imports transactions of one account (created when new): each at most once per gateway
 * transaction id, whatever retries or concurrent imports (unique index, ON CONFLICT DO NOTHING).
 */
export async function importTransactions(ctx: RequestContext, input: PaymentGatewayTransactionImportInput): Promise<PaymentGatewayTransactionImportResult> {
  const rows = input.Transactions.map((item, index) => {
    const field = (name: string) => `Transactions[${index}].${name}`;
    const kind = item.Type as GatewayTransactionKind;
    const amount = parseMoney(item.Amount, field('Amount'));
    const fee = item.Fee == null ? money(0) : parseMoney(item.Fee, field('Fee'));
    if ((kind === 'transfer' || kind === 'transfer_reversal') && !fee.isZero()) throw BadInput.field(field('Fee'), 'must be 0 on a transfer (import a payout fee as a fee transaction)');
    const occurredAt = Date.parse(item.Date);
    if (!/^\d{4}-\d{2}-\d{2}/.test(item.Date) || Number.isNaN(occurredAt) || item.Date < '0001') throw BadInput.field(field('Date'), 'must be an ISO 8601 date-time');
    if (kind === 'transfer_reversal' && !item.TransferId) throw BadInput.field(field('TransferId'), 'must name the reversed transfer');
    return {
      gateway_transaction_id: item.TransactionId, kind, amount: toMoneyString(amount.times(SIGNS[kind].amount)), fee: toMoneyString(fee.times(SIGNS[kind].fee)),
      occurred_at: new Date(occurredAt).toISOString(), transfer_id: item.TransferId ?? null, description: item.Description?.trim() || null,
    };
  });
  const ids = new Set(rows.map((row) => row.gateway_transaction_id));
  if (ids.size !== rows.length) throw BadInput.field('Transactions', 'must not hold one TransactionId twice');
  const tenantId = ctx.tenantId;
  return inTransaction(ctx, async () => {
    const [account] = await tenantSql({ em: ctx.em, tenantId }).all<{ id: number }>(
      `INSERT INTO payment_gateway_account (tenant_id, account_id, gateway_type_id, name, chapter_id, created_at, updated_at)
       VALUES (${TENANT}, ?, ?, ?, ?, now(), now())
       ON CONFLICT (tenant_id, gateway_type_id, account_id)
       DO UPDATE SET name = coalesce(?, payment_gateway_account.name), chapter_id = coalesce(?, payment_gateway_account.chapter_id),
         audit_id = payment_gateway_account.audit_id + 1, updated_at = now()
       RETURNING id`,
      [input.AccountId, input.PaymentGatewayTypeId, input.Name?.trim() || `${gatewayName(input.PaymentGatewayTypeId)} ${input.AccountId}`, input.ChapterId ?? null,
        input.Name?.trim() || null, input.ChapterId ?? null],
    );
    const inserted = rows.length === 0 ? [] : await tenantSql({ em: ctx.em, tenantId }).all<{ id: number }>(
      `INSERT INTO payment_gateway_transaction (tenant_id, account_id, gateway_transaction_id, kind, amount, fee, occurred_at, transfer_id, description, created_at, updated_at)
       SELECT ${TENANT}, ?, t.gateway_transaction_id, t.kind, t.amount, t.fee, t.occurred_at, t.transfer_id, t.description, now(), now()
       FROM json_to_recordset(?::json) AS t(gateway_transaction_id text, kind text, amount numeric, fee numeric, occurred_at timestamptz, transfer_id text, description text)
       ON CONFLICT (tenant_id, account_id, gateway_transaction_id) DO NOTHING
       RETURNING id`,
      [account.id, JSON.stringify(rows)],
    );
    return { AccountId: input.AccountId, Imported: inserted.length, AlreadyImported: rows.length - inserted.length };
  });
}

/** Demo: a Stripe account with a month of transactions. */
export async function seedPaymentGateways(em: EntityManager, tenant: Tenant, marker: string): Promise<void> {
  const account = em.create(PaymentGatewayAccount, { tenant, accountId: 'acct_demo', gatewayTypeId: 1, name: `Main account ${marker}` });
  const at = (day: number) => new Date(Date.UTC(2026, 0, day, 12));
  const rows: [string, GatewayTransactionKind, string, string, number, string | null][] = [
    ['ch_demo_1', 'sale', '100.00', '-3.20', 3, 'po_demo_1'],
    ['re_demo_1', 'refund', '-20.00', '0.00', 5, 'po_demo_1'],
    ['po_demo_1', 'transfer', '-76.80', '0.00', 10, null],
  ];
  for (const [id, kind, amount, fee, day, transferId] of rows) {
    em.create(PaymentGatewayTransaction, { tenant, account, gatewayTransactionId: id, kind, amount, fee, occurredAt: at(day), transferId, description: `Demo ${marker}` });
  }
  await em.flush();
}
