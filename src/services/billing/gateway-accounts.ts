import type { RequestContext } from '../../core/context.js';
import { BadInput, Conflict } from '../../core/errors.js';
import { defineList, listQuery } from '../../core/data/list-query.js';
import { deleteRecord, inTransaction, readOr404, saveRecord } from '../../core/data/records.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';
import { SecretBox } from '../../core/runtime/secrets.js';
import { PaymentGatewayAccount } from '../../entities/billing.js';
import type { ListOptionsInput } from '../../schema/common.js';
import { SECRET_NEEDS_KEY, type PaymentGatewayAccountInput, type PaymentGatewayAccountView } from '../../schema/payment-gateways.js';
import { gatewayName } from './payment-gateways.js';

/*
 * Payment gateway accounts kept by staff (decided where the documents are silent):
 * - An account is the gateway's account id of a gateway type (unique per tenant: a second one is
 *   409), a name, and the chapter it belongs to (a chapter of the tenant, by its ChapterId; none:
 *   the tenant's own). The documented /api/paymentgateway/account/… reads and both lookups find
 *   it by AccountId and PaymentGatewayTypeId like an imported one.
 * - Its credential (Secret) is write-only: sealed with GATEWAY_SECRET_KEY (AES-256-GCM, bound to
 *   the tenant) before it is stored, never read back by any operation, never logged (the audit
 *   trail redacts the column); answers say only HasSecret. Without a configured key a credential
 *   is refused (400 naming Secret). Nothing compares it; whatever charges cards later opens it.
 * - Deleting one is refused (409) while it has imported transactions, or a chapter
 *   (chapter.payment_gateway_id) or the store settings (store_settings.payment_gateway_id) name
 *   it — by its record id (the lookups' Id) or its gateway account id, as those free-text fields
 *   have held either.
 */

const NOUN = 'The payment gateway account';
const FIELDS = ['id', 'accountId', 'gatewayTypeId', 'name', 'chapterId', 'secretEncrypted', 'auditId'] as const;

const accountList = defineList(PaymentGatewayAccount, {
  operations: ['Query.paymentGatewayAccounts'],
  orderBy: { Name: 'name', GatewayAccountId: 'id', AccountId: 'accountId', PaymentGatewayTypeId: 'gatewayTypeId' },
  defaultOrder: 'Name',
  search: ['name', 'accountId'],
});

export async function listGatewayAccounts(ctx: RequestContext, options: ListOptionsInput | null | undefined): Promise<PaymentGatewayAccountView[]> {
  const { rows } = await listQuery(ctx, PaymentGatewayAccount, accountList, options, { fields: FIELDS });
  return rows.map(toView);
}

export async function getGatewayAccount(ctx: RequestContext, gatewayAccountId: number): Promise<PaymentGatewayAccountView> {
  return toView(await readOr404(ctx, PaymentGatewayAccount, FIELDS, gatewayAccountId, NOUN));
}

/** Creates (gatewayAccountId 0) or updates an account; a Secret given is sealed before it is stored. */
export async function saveGatewayAccount(ctx: RequestContext, gatewayAccountId: number, input: PaymentGatewayAccountInput): Promise<PaymentGatewayAccountView> {
  const name = input.Name.trim();
  if (!name) throw BadInput.field('Name', 'must not be empty');
  const chapterId = input.ChapterId ?? null;
  if (chapterId !== null) {
    const [chapter] = await tenantSql(ctx).all<{ id: number }>(
      `SELECT ch.id FROM chapter ch JOIN contact c ON c.id = ch.contact_id WHERE ch.contact_id = ? AND ${tenantIs('ch')} AND c.deleted_at IS NULL`, [chapterId]);
    if (!chapter) throw BadInput.field('ChapterId', 'names no chapter');
  }
  const fields = {
    accountId: input.AccountId, gatewayTypeId: input.PaymentGatewayTypeId, name, chapterId,
    ...sealedSecret(ctx, input.Secret),
  };
  const saved = await saveRecord(ctx, PaymentGatewayAccount, { id: gatewayAccountId, auditId: input.AuditId }, fields, NOUN);
  return getGatewayAccount(ctx, saved.id);
}

/** The secret column's change: none when absent (or null), cleared when empty, else the sealed credential. */
function sealedSecret(ctx: RequestContext, secret: string | null | undefined): { secretEncrypted?: string | null } {
  if (secret == null) return {};
  if (secret === '') return { secretEncrypted: null };
  const box = SecretBox.fromKey(ctx.app.config.GATEWAY_SECRET_KEY);
  // The input's rule refused it already (schema/payment-gateways.ts); the guard keeps the box non-null.
  if (!box) throw BadInput.field('Secret', SECRET_NEEDS_KEY);
  return { secretEncrypted: box.seal(secret, gatewaySecretContext(ctx.tenantId)) };
}

/** What a sealed gateway credential is bound to: its tenant. */
export function gatewaySecretContext(tenantId: number): string {
  return `payment-gateway:${tenantId}`;
}

/** Deletes an account nothing uses (409 while transactions, chapters or the store settings do); answers its id. */
export async function deleteGatewayAccount(ctx: RequestContext, gatewayAccountId: number, auditId: number | null | undefined): Promise<number> {
  return inTransaction(ctx, async () => {
    // Locked first, so a use recorded meanwhile is seen by the check (or waits for the delete).
    const [account] = await tenantSql(ctx).all<{ id: number; account_id: string }>(
      `SELECT id, account_id FROM payment_gateway_account WHERE id = ? AND ${tenantIs()} FOR UPDATE`, [gatewayAccountId]);
    if (account) {
      const names = [String(account.id), account.account_id];
      const [use] = await tenantSql(ctx).all<{ use: string }>(
        `SELECT 'transactions' AS use FROM payment_gateway_transaction t WHERE t.account_id = ? AND ${tenantIs('t')}
         UNION ALL SELECT 'chapters' FROM chapter ch WHERE ch.payment_gateway_id IN (?, ?) AND ${tenantIs('ch')}
         UNION ALL SELECT 'store settings' FROM store_settings s WHERE s.payment_gateway_id IN (?, ?) AND ${tenantIs('s')}
         LIMIT 1`, [account.id, ...names, ...names]);
      if (use) throw new Conflict(`The payment gateway account is in use (${use.use}); it cannot be deleted.`);
    }
    return deleteRecord(ctx, PaymentGatewayAccount, gatewayAccountId, auditId, NOUN);
  });
}

function toView(row: Pick<PaymentGatewayAccount, (typeof FIELDS)[number]>): PaymentGatewayAccountView {
  return {
    GatewayAccountId: row.id, AccountId: row.accountId, PaymentGatewayTypeId: row.gatewayTypeId, PaymentGatewayTypeName: gatewayName(row.gatewayTypeId),
    Name: row.name, ChapterId: row.chapterId, HasSecret: row.secretEncrypted !== null, AuditId: row.auditId,
  };
}
