import type { RequestContext } from '../../core/context.js';
import { BadInput, Conflict } from '../../core/errors.js';
import { leanRows } from '../../core/data/lean-read.js';
import { TENANT, tenantIs, tenantSql } from '../../core/data/tenant-sql.js';
import { Directory } from '../../entities/directory.js';

/*
 * The one link between a chapter and its directory: `directory.chapter_id` (the chapter's
 * organization contact id). A chapter has at most one live directory (a partial unique index);
 * `directories/chapters/{chapterid}` lists it and the chapter's DirectoryId names it, both read
 * from that column, and both the chapter save (DirectoryId) and the directory save (ChapterId)
 * write it.
 *
 * Moving a chapter to another directory (a chapter save whose DirectoryId differs from the
 * chapter's directory) moves its contacts' listings: the live listings of the chapter's linked
 * contacts (contact-chapter links) in the previous directory are copied to the new one (content,
 * categories and visibility; the new directory's listing type), reviving a removed listing there.
 * With RemoveContactsFromPreviousDirectory they are removed from the previous directory
 * (tombstoned, so synchronization clients see them go); without it they stay listed there too.
 * Unlinking (no DirectoryId) with the flag removes them from the previous directory.
 */

/** The chapter's live directory, or null. */
export async function chapterDirectoryId(ctx: RequestContext, chapterId: number): Promise<number | null> {
  const [row] = await leanRows(ctx.reader, Directory, { fields: ['id'], where: { chapterId }, limit: 1 });
  return row?.id ?? null;
}

export interface ChapterDirectoryChange {
  /** DirectoryId as saved: the chapter's directory from now on (null: none). */
  directoryId: number | null;
  /** PreviousDirectoryId as sent: when given, it must be the chapter's directory before the save (409 otherwise). */
  previousDirectoryId: number | null;
  /** RemoveContactsFromPreviousDirectory. */
  removeContacts: boolean;
}

/** Points the chapter at `change.directoryId` and moves its contacts' listings; runs in the chapter save's transaction. */
export async function linkChapterDirectory(ctx: RequestContext, chapterId: number, change: ChapterDirectoryChange): Promise<void> {
  const sql = tenantSql(ctx);
  const [current] = await sql.all<{ id: number }>(
    `select id from directory where chapter_id = ? and ${tenantIs()} and deleted_at is null for update`, [chapterId]);
  const previous = current?.id ?? null;
  if (change.previousDirectoryId !== null && change.previousDirectoryId !== previous) {
    throw new Conflict('PreviousDirectoryId is not the chapter\'s directory (it was changed since it was read).', [
      { field: 'PreviousDirectoryId', message: `the chapter's directory is ${previous ?? 'none'}` },
    ]);
  }
  if (change.directoryId === previous) return;
  if (change.directoryId !== null) {
    const [target] = await sql.all<{ chapter_id: number | null }>(
      `select chapter_id from directory where id = ? and ${tenantIs()} and deleted_at is null for update`, [change.directoryId]);
    if (!target) throw BadInput.field('DirectoryId', 'is not a directory');
    if (target.chapter_id !== null) throw directoryTaken(target.chapter_id, 'DirectoryId');
  }
  const relink = `update directory set chapter_id = ?, updated_at = now(), audit_id = audit_id + 1 where id = ? and ${tenantIs()}`;
  if (previous !== null) await sql.run(relink, [null, previous]);
  if (change.directoryId !== null) await sql.run(relink, [chapterId, change.directoryId]);
  if (previous !== null) await moveChapterListings(ctx, chapterId, previous, change.directoryId, change.removeContacts);
}

/** A directory save's ChapterId: a live chapter without another live directory (400 / 409). */
export async function checkDirectoryChapter(ctx: RequestContext, directoryId: number, chapterId: number): Promise<void> {
  const [chapter] = await tenantSql(ctx).all<{ directory_id: number | null }>(
    `select (select d.id from directory d where d.chapter_id = ch.contact_id and ${tenantIs('d')} and d.deleted_at is null and d.id <> ? limit 1) as directory_id
       from chapter ch join contact c on c.id = ch.contact_id and c.deleted_at is null where ch.contact_id = ? and ${tenantIs('ch')}`, [directoryId, chapterId]);
  if (!chapter) throw BadInput.field('ChapterId', 'is not a chapter');
  if (chapter.directory_id !== null) throw new Conflict(`The chapter has a directory already (DirectoryId ${chapter.directory_id}).`, [{ field: 'ChapterId', message: `has DirectoryId ${chapter.directory_id}` }]);
}

/** A chapter that is deleted keeps no directory. */
export async function unlinkChapterDirectory(ctx: RequestContext, chapterId: number): Promise<void> {
  await tenantSql(ctx).run(`update directory set chapter_id = null, updated_at = now(), audit_id = audit_id + 1 where chapter_id = ? and ${tenantIs()}`, [chapterId]);
}

function directoryTaken(chapterId: number, field: string): Conflict {
  return new Conflict(`The directory belongs to another chapter (ChapterId ${chapterId}).`, [{ field, message: `belongs to ChapterId ${chapterId}` }]);
}

/** Copies the chapter's contacts' listings from `from` to `to` (when any), and removes them from `from` when asked. */
async function moveChapterListings(ctx: RequestContext, chapterId: number, from: number, to: number | null, remove: boolean): Promise<void> {
  const sql = tenantSql(ctx);
  const chapterContacts = `select cc.contact_id from contact_chapter cc where ${tenantIs('cc')} and cc.chapter_id = ?`;
  if (to !== null) {
    await sql.run(
      `insert into directory_listing (tenant_id, directory_id, contact_id, listing_type_id, name, short_description, description, bio, highlights, keywords, website,
                                      category_item_ids, custom_fields, visibility, is_visible, source, postal_code, latitude, longitude)
       select ${TENANT}, d.id, l.contact_id, d.listing_type_id, l.name, l.short_description, l.description, l.bio, l.highlights, l.keywords, l.website,
              l.category_item_ids, l.custom_fields, l.visibility, l.is_visible, 'manual', l.postal_code, l.latitude, l.longitude
         from directory_listing l join directory d on d.id = ? and ${tenantIs('d')}
        where ${tenantIs('l')} and l.directory_id = ? and l.deleted_at is null and l.contact_id in (${chapterContacts})
       on conflict (directory_id, contact_id) do update set deleted_at = null, updated_at = now(), audit_id = directory_listing.audit_id + 1
        where directory_listing.deleted_at is not null`,
      [to, from, chapterId]);
  }
  if (remove) {
    await sql.run(
      `update directory_listing set deleted_at = now(), updated_at = now(), audit_id = audit_id + 1
        where ${tenantIs()} and directory_id = ? and deleted_at is null and contact_id in (${chapterContacts})`, [from, chapterId]);
  }
}
