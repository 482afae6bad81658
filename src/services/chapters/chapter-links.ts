import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../core/context.js';
import { BadInput, NotFound } from '../../core/errors.js';
import { idOf, leanRows } from '../../core/data/lean-read.js';
import { inTransaction } from '../../core/data/records.js';
import { Chapter, ContactChapter } from '../../entities/chapter.js';
import type { ChapterContactSelect, ContactChapterAddEdit, ContactChapterAddEditInput } from '../../schema/chapters.js';
import { TENANT, tenantIs, tenantSql } from '../../core/data/tenant-sql.js';

/*
 * Contact-chapter links (decided where the documents are silent):
 * - Staff link, unlink and mark; a member may read its own contact's chapters (another contact
 *   is not found for a member).
 * - Exactly one primary chapter per contact that has chapters: a contact's first chapter becomes
 *   primary; marking another moves it; unlinking the primary passes it to the oldest other link.
 *   Every change of the primary locks the contact's row first (`SELECT … FOR UPDATE`), so two
 *   concurrent changes run one after the other, and a partial unique index (one primary per
 *   contact) backs that up.
 * - Linking an existing link again changes nothing (and still marks it primary when asked).
 */

const LINK = 'The contact-chapter link';

/** `POST /api/chapters/contactchapter`: links the contact to the chapter. */
export function linkContactChapter(ctx: RequestContext, input: ContactChapterAddEditInput): Promise<boolean> {
  if (input.ContactId === input.ChapterId) throw BadInput.field('ChapterId', 'must be another organization than the contact');
  return inTransaction(ctx, async () => {
    await lockContact(ctx, input.ContactId);
    const [chapter] = await leanRows(ctx.reader, Chapter, { fields: ['id'], where: { isTopLevel: false, contact: { id: input.ChapterId, deletedAt: null } }, limit: 1 });
    if (!chapter) throw new NotFound('The chapter');
    await tenantSql(ctx).run(
      `INSERT INTO contact_chapter (tenant_id, contact_id, chapter_id, is_primary) VALUES (${TENANT}, ?, ?, false)
       ON CONFLICT (contact_id, chapter_id) DO NOTHING`, [input.ContactId, input.ChapterId]);
    const [primary] = await leanRows(ctx.reader, ContactChapter, { fields: ['id'], where: { contact: input.ContactId, isPrimary: true }, limit: 1 });
    if (input.MarkAsPrimary || !primary) await setPrimary(ctx, input.ContactId, input.ChapterId);
    return true;
  });
}

/** `GET /api/chapters/contactchapter/{contactid}`: the contact's primary chapter. */
export async function getContactChapter(ctx: RequestContext, contactId: number): Promise<ContactChapterAddEdit> {
  await readableContact(ctx, contactId);
  const [primary] = await leanRows(ctx.reader, ContactChapter, { fields: ['chapter'], where: { contact: contactId, isPrimary: true }, limit: 1 });
  const chapterId = primary ? idOf(primary.chapter) : null;
  return { ContactId: contactId, ChapterId: chapterId, MarkAsPrimary: chapterId !== null, ContactHasPrimary: chapterId !== null };
}

/** `GET /api/chapters/contactchapter/lookup/{contactid}`: the contact's chapters, primary first, then by name. */
export async function contactChapterLookup(ctx: RequestContext, contactId: number): Promise<ChapterContactSelect[]> {
  await readableContact(ctx, contactId);
  const rows = await tenantSql(ctx).all<{ id: number; name: string; payment_gateway_id: string | null }>(
    `SELECT ch.contact_id AS id, ch.name, ch.payment_gateway_id
       FROM contact_chapter l JOIN chapter ch ON ch.contact_id = l.chapter_id AND ch.tenant_id = l.tenant_id
       JOIN contact o ON o.id = ch.contact_id AND o.deleted_at IS NULL
      WHERE ${tenantIs('l')} AND l.contact_id = ?
      ORDER BY l.is_primary DESC, ch.name, ch.contact_id LIMIT 1000`, [contactId]);
  return rows.map((row) => ({ Id: row.id, Name: row.name, PaymentGatewayId: row.payment_gateway_id }));
}

/** `DELETE /api/chapters/contactchapter/delete/{contactid}/{chapterid}`: unlinks; the primary passes on when it was this one. */
export function deleteContactChapter(ctx: RequestContext, contactId: number, chapterId: number): Promise<boolean> {
  return inTransaction(ctx, async () => {
    await lockContact(ctx, contactId);
    const removed = await tenantSql(ctx).all<{ is_primary: boolean }>(
      `DELETE FROM contact_chapter WHERE ${tenantIs()} AND contact_id = ? AND chapter_id = ? RETURNING is_primary`, [contactId, chapterId]);
    if (removed.length === 0) throw new NotFound(LINK);
    if (removed[0].is_primary) await promotePrimaries(ctx.em, ctx.tenantId, [contactId]);
    return true;
  });
}

/** `POST /api/chapters/contactchapter/markasprimary/{contactid}/{chapterid}`: makes the link primary, the others not. */
export function markContactChapterPrimary(ctx: RequestContext, contactId: number, chapterId: number): Promise<boolean> {
  return inTransaction(ctx, async () => {
    await lockContact(ctx, contactId);
    await setPrimary(ctx, contactId, chapterId);
    return true;
  });
}

/**
 * Gives each of `contactIds` that has links but no primary its oldest link as primary (after the
 * primary link was removed). The caller holds the contacts' locks or the chapter lock.
 */
export async function promotePrimaries(em: EntityManager, tenantId: number, contactIds: number[]): Promise<number> {
  if (contactIds.length === 0) return 0;
  const result = await runStatement(em, tenantId, `UPDATE contact_chapter SET is_primary = true, updated_at = now() WHERE id IN (
       SELECT DISTINCT ON (l.contact_id) l.id FROM contact_chapter l
        WHERE ${tenantIs('l')} AND l.contact_id = ANY(?::int[])
          AND NOT EXISTS (SELECT 1 FROM contact_chapter p WHERE p.contact_id = l.contact_id AND p.is_primary)
        ORDER BY l.contact_id, l.id)`, [intArray(contactIds)]);
  return result;
}

/** Runs a write statement in `tenantId`'s scope on `em` (inside its transaction, if any) and answers how many rows it changed. */
export async function runStatement(em: EntityManager, tenantId: number, sql: string, params: unknown[]): Promise<number> {
  return (await tenantSql({ em, tenantId }).run(sql, params)).affectedRows;
}

/** A PostgreSQL int[] literal of ids (bound as one parameter, `ANY(?::int[])`). */
export function intArray(ids: number[]): string {
  return `{${ids.map((id) => Math.trunc(id)).join(',')}}`;
}

/** Clears the contact's other primary, then marks this link (404 when there is no such link); the contact is locked. */
async function setPrimary(ctx: RequestContext, contactId: number, chapterId: number): Promise<void> {
  const [link] = await leanRows(ctx.reader, ContactChapter, { fields: ['id'], where: { contact: contactId, chapter: chapterId }, limit: 1 });
  if (!link) throw new NotFound(LINK);
  await tenantSql(ctx).run(`UPDATE contact_chapter SET is_primary = false, updated_at = now() WHERE ${tenantIs()} AND contact_id = ? AND is_primary AND id <> ?`, [contactId, link.id]);
  await tenantSql(ctx).run(`UPDATE contact_chapter SET is_primary = true, updated_at = now() WHERE id = ? AND ${tenantIs()} AND NOT is_primary`, [link.id]);
}

/** Locks the contact's row for this transaction (404 when it is not a live contact of the tenant). */
async function lockContact(ctx: RequestContext, contactId: number): Promise<void> {
  const rows = await tenantSql(ctx).all(`SELECT id FROM contact WHERE id = ? AND ${tenantIs()} AND deleted_at IS NULL FOR UPDATE`, [contactId]);
  if (rows.length === 0) throw new NotFound('The contact');
}

/** Staff read any contact's chapters, a member only its own contact's (another is not found). */
async function readableContact(ctx: RequestContext, contactId: number): Promise<void> {
  if (!ctx.isStaff && ctx.caller?.contactId !== contactId) throw new NotFound('The contact');
  const rows = await tenantSql(ctx).all(`SELECT id FROM contact WHERE id = ? AND ${tenantIs()} AND deleted_at IS NULL`, [contactId]);
  if (rows.length === 0) throw new NotFound('The contact');
}
