import type { RequestContext } from '../../core/context.js';
import { Conflict, NotFound, staleAuditId } from '../../core/errors.js';
import { addDays, todayUtc } from '../../core/dates.js';
import { inTransaction, whenCommitted } from '../../core/data/records.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';
import type { ContactArchived } from '../../schema/contacts.js';
import type { ContactKind } from '../../entities/contact.js';
import { emitWebhookEvent } from '../webhooks/events.js';
import { contactEventType } from './contacts.js';
import { cancelRegistrationsOfContact } from '../events/registration-changes.js';
import { updateStoreOrder } from '../store/store-orders.js';

/*
 * Archiving a contact (its soft delete), in one transaction that either does all of it or
 * nothing (decided with the memberships and money helpers, CORE-DECISIONS):
 * - Refused (409, with the reason) for a chapter's organization (delete the chapter instead), and
 *   for an organization that still has people or child organizations.
 * - Its logins are disabled and their credentials revoked: on this instance at once (the
 *   credential cache is cleared on commit), on the others on the database's notification.
 * - Its pending and active memberships are cancelled, ending the day before today (never before
 *   their start − 1, and never later than they already ended).
 * - Its billing schedules end.
 * - Its pending store orders are cancelled through the store's own path (stock back, invoice voided).
 * - Its contact-chapter links are removed. (A chapter organization is refused above, so no other
 *   contact loses a primary chapter here.)
 * - Its directory listings are removed by the directory reconcile (its next run), as for any
 *   deleted contact; paid orders, invoices, payments and past registrations are kept.
 * - Its registrations for events not yet ended are cancelled as staff cancel them
 *   (`cancelRegistrationsOfContact`: seats back, invoices credited or refunded and voided).
 * The contact row is locked first, so a partner update or staff save racing the archive either
 * commits before it (then a stale AuditId here is a 409) or finds it archived (409 / stale).
 */

const NOUN = 'The contact';

/** Archives a live contact at `auditId` and answers what it did; 404 when archived already or not the tenant's, 409 stale or refused. */
export async function archiveContact(ctx: RequestContext, contactId: number, auditId: number): Promise<ContactArchived> {
  return inTransaction(ctx, async () => {
    const sql = tenantSql(ctx);
    const contact = await sql.get<{ kind: string; audit_id: number }>(
      `SELECT kind, audit_id FROM contact WHERE id = ? AND ${tenantIs()} AND deleted_at IS NULL FOR UPDATE`, [contactId]);
    if (!contact) throw new NotFound(NOUN);
    if (contact.audit_id !== auditId) throw staleAuditId();
    await refuseLinkedOrganization(ctx, contactId);

    const logins = await sql.run(`UPDATE login SET disabled_at = now(), updated_at = now() WHERE ${tenantIs()} AND contact_id = ? AND disabled_at IS NULL`, [contactId]);
    const credentials = await sql.run(`UPDATE credential SET revoked_at = now(), updated_at = now()
      WHERE ${tenantIs()} AND revoked_at IS NULL AND login_id IN (SELECT id FROM login WHERE ${tenantIs()} AND contact_id = ?)`, [contactId]);
    // The notification reaches every instance's cache after the commit; this one must not answer from it even for a moment.
    if (credentials.affectedRows) await whenCommitted(ctx, async () => ctx.app.credentials.forgetAll());

    const yesterday = addDays(todayUtc(), -1);
    const memberships = await sql.run(`UPDATE membership SET status = 'cancelled', updated_at = now(), audit_id = audit_id + 1,
        end_date = GREATEST(LEAST(coalesce(end_date, ?::date), ?::date), start_date - 1)
      WHERE ${tenantIs()} AND contact_id = ? AND status IN ('pending', 'active')`, [yesterday, yesterday, contactId]);
    const schedules = await sql.run(`UPDATE scheduled_billing SET status = 'ended', updated_at = now(), audit_id = audit_id + 1 WHERE ${tenantIs()} AND contact_id = ? AND status <> 'ended'`, [contactId]);
    const orders = await sql.all<{ id: number }>(`SELECT id FROM store_order WHERE ${tenantIs()} AND contact_id = ? AND status = 'Pending' ORDER BY id`, [contactId]);
    for (const order of orders) await updateStoreOrder(ctx, order.id, { PurchaseStatusId: 'Cancelled' });
    const registrations = await cancelRegistrationsOfContact(ctx, contactId);
    const links = await sql.run(`DELETE FROM contact_chapter WHERE ${tenantIs()} AND contact_id = ?`, [contactId]);

    const archived = await sql.get<{ audit_id: number }>(`UPDATE contact SET deleted_at = clock_timestamp(), updated_at = clock_timestamp(), audit_id = audit_id + 1
      WHERE id = ? AND ${tenantIs()} RETURNING audit_id`, [contactId]);
    const kind = contact.kind as ContactKind;
    await emitWebhookEvent(ctx, contactEventType(kind, 'deleted'), { ContactId: contactId, Kind: kind });
    return {
      ContactId: contactId, AuditId: archived!.audit_id, LoginsDisabled: logins.affectedRows, CredentialsRevoked: credentials.affectedRows,
      MembershipsCancelled: memberships.affectedRows, BillingSchedulesEnded: schedules.affectedRows, StoreOrdersCancelled: orders.map((order) => order.id),
      ChapterLinksRemoved: links.affectedRows, EventRegistrationsCancelled: registrations,
    };
  });
}

/** 409 for a chapter organization, or an organization that people or child organizations still point at. */
async function refuseLinkedOrganization(ctx: RequestContext, contactId: number): Promise<void> {
  const links = await tenantSql(ctx).get<{ chapter: boolean; people: number; children: number }>(`SELECT
      EXISTS (SELECT 1 FROM chapter WHERE ${tenantIs()} AND contact_id = ?) AS chapter,
      (SELECT count(*)::int FROM contact WHERE ${tenantIs()} AND organization_id = ? AND deleted_at IS NULL) AS people,
      (SELECT count(*)::int FROM contact WHERE ${tenantIs()} AND parent_id = ? AND deleted_at IS NULL) AS children`, [contactId, contactId, contactId]);
  if (links?.chapter) throw new Conflict('The contact is a chapter\'s organization; delete the chapter instead.', [{ field: 'ContactId', message: 'is a chapter' }]);
  if (links && (links.people || links.children)) {
    throw new Conflict('The organization still has people or child organizations; move or archive them first.', [
      { field: 'ContactId', message: `has ${links.people} people and ${links.children} child organizations` },
    ]);
  }
}
