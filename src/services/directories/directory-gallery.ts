import type { RequestContext } from '../../core/context.js';
import { BadInput } from '../../core/errors.js';
import { inTransaction } from '../../core/data/records.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';
import type { DirectoryGalleryImage } from '../../schema/directories.js';
import { imageUrl } from '../images/images.js';
import { editableListing } from './directory-listings.js';

/*
 * A directory listing's gallery: the images uploaded to folder DirectoryGallery with the listing's
 * DirectoryContactId as objectid (`POST /api/images/upload/directorygallery/{id}`: staff, or the
 * listed contact; images.ts checks the listing), in their order (`image.sort_order`; a new one
 * goes last), with their captions (changed like any image's: `POST /api/images/image/{imageid}`;
 * removed with `DELETE /api/images/image/{imageid}`). The public listing shows them as
 * GalleryImages and GalleryImageDetails; at most GALLERY_LIMIT of them are read.
 */

export const GALLERY_SOURCE = 'DirectoryGallery';
/** The most images a gallery answers (and may be ordered by). */
export const GALLERY_LIMIT = 100;

interface GalleryRow {
  id: number; caption: string | null; short_description: string | null; width: number; height: number; sort_order: number;
}

/** The listing's gallery in order (one statement). */
export async function galleryOf(ctx: RequestContext, directoryContactId: number): Promise<DirectoryGalleryImage[]> {
  const rows = await tenantSql(ctx).all<GalleryRow>(
    `select id, caption, short_description, width, height, sort_order from image
      where ${tenantIs()} and source_type = ? and source_id = ? order by sort_order, id limit ${GALLERY_LIMIT}`, [GALLERY_SOURCE, directoryContactId]);
  return rows.map((row, index) => ({
    ImageId: row.id, Url: imageUrl(row.id), Caption: row.caption, ShortDescription: row.short_description, Width: row.width, Height: row.height, SortOrder: index + 1,
  }));
}

/** `GET /api/directory/listings/{directorycontactid}/gallery`: for staff and the listed contact. */
export async function listingGallery(ctx: RequestContext, directoryContactId: number): Promise<DirectoryGalleryImage[]> {
  return galleryOf(ctx, await editableListing(ctx, directoryContactId));
}

/**
 * `POST /api/directory/listings/{directorycontactid}/gallery/order`: the gallery's images in the
 * order given, which must name each of them once (400). Runs under a lock on the listing's row,
 * so two reorders of one gallery follow each other.
 */
export function reorderListingGallery(ctx: RequestContext, directoryContactId: number, imageIds: number[]): Promise<DirectoryGalleryImage[]> {
  return inTransaction(ctx, async () => {
    const listingId = await editableListing(ctx, directoryContactId);
    const sql = tenantSql(ctx);
    await sql.all(`select id from directory_listing where id = ? and ${tenantIs()} for update`, [listingId]);
    const current = await sql.all<{ id: number }>(`select id from image where ${tenantIs()} and source_type = ? and source_id = ?`, [GALLERY_SOURCE, listingId]);
    const given = new Set(imageIds);
    if (given.size !== imageIds.length || given.size !== current.length || current.some((image) => !given.has(image.id))) {
      throw BadInput.field('imageIds', `must name each image of the gallery once (${current.map((image) => image.id).sort((a, b) => a - b).join(', ') || 'none'})`);
    }
    await sql.run(
      `update image set sort_order = wanted.position, updated_at = now() from unnest(?::int[]) with ordinality as wanted(id, position)
        where image.id = wanted.id and ${tenantIs('image')} and image.source_type = ? and image.source_id = ?`,
      [`{${imageIds.join(',')}}`, GALLERY_SOURCE, listingId]);
    return galleryOf(ctx, listingId);
  });
}
