import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { loadConfig } from '../../core/config.js';
import type { RequestContext } from '../../core/context.js';
import { BadInput, Forbidden, NotFound } from '../../core/errors.js';
import { validateInput } from '../../core/requests/graphql-policies.js';
import { deleteReturning, idOf, leanRows } from '../../core/data/lean-read.js';
import { deleteRecordReturning, inTransaction, nextVersion, readOr404, withDuplicateLock } from '../../core/data/records.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';
import { Contact } from '../../entities/contact.js';
import { StoredImage } from '../../entities/image.js';
import { StoreItem } from '../../entities/store.js';
import { Tenant } from '../../entities/tenant.js';
import { CREATE_NEEDS_FILE, Image, ImageAddEditInput, ImageFile, ImageUsage } from '../../schema/images.js';
import { editableListing } from '../directories/directory-listings.js';
import { findFile, readFile, releaseFiles, storeFile, storeTenantFile, type FileRecord } from '../files/files.js';
import { demoPng, imageFacts, imageFileName, inspectImage, planRegion, renderImage, type Crop, type ImageFacts } from './image-processing.js';

/** Purpose of uploaded originals, and of the renditions made from them (see the file service). */
export const IMAGE_PURPOSE = 'images';
export const RENDITION_PURPOSE = 'image-renditions';
/** The files GET /api/images/file/{fileid} serves. */
const SERVED_PURPOSES = [IMAGE_PURPOSE, RENDITION_PURPOSE] as const;

// ---------------------------------------------------------------------------------------------
// Usages: the rules renditions follow. Later areas use these ids.

export interface ImageUsageRule {
  /** ImageUsageId: `StoreItem`, or `StoreItem.Thumbnail` for a secondary variant. */
  id: string;
  maxWidth: number;
  maxHeight: number;
  /** W:H, or null where any shape is fine. */
  aspectRatio: string | null;
}

export const IMAGE_USAGES: readonly ImageUsageRule[] = [
  { id: 'ContactLogo', maxWidth: 400, maxHeight: 400, aspectRatio: '1:1' },
  { id: 'TenantLogo', maxWidth: 600, maxHeight: 200, aspectRatio: null },
  { id: 'StoreItem', maxWidth: 1200, maxHeight: 1200, aspectRatio: '1:1' },
  { id: 'StoreItem.Thumbnail', maxWidth: 300, maxHeight: 300, aspectRatio: '1:1' },
  { id: 'DirectoryGallery', maxWidth: 1600, maxHeight: 1200, aspectRatio: null },
  { id: 'DirectoryGallery.Thumbnail', maxWidth: 400, maxHeight: 300, aspectRatio: '4:3' },
  { id: 'SocialFeed', maxWidth: 1600, maxHeight: 1600, aspectRatio: null },
];

function findUsage(id: string): ImageUsageRule | undefined {
  const wanted = id.trim().toLowerCase();
  return IMAGE_USAGES.find((usage) => usage.id.toLowerCase() === wanted);
}

/** GET /api/images/usage/{imageusageid}?secondary=: the rules of a usage (or of its secondary variant). */
export function imageUsage(imageUsageId: string, secondary: string | null | undefined): ImageUsage {
  const id = secondary?.trim() ? `${imageUsageId}.${secondary.trim()}` : imageUsageId;
  const usage = findUsage(id);
  if (!usage) throw new NotFound('The image usage');
  return { MaxWidth: String(usage.maxWidth), MaxHeight: String(usage.maxHeight), AspectRatio: usage.aspectRatio };
}

// ---------------------------------------------------------------------------------------------
// Folders: what images belong to (`upload/{foldertype}/{objectid}`, SourceType/SourceId).

interface ImageFolder {
  /** The `foldertype` path segment and the SourceType (matched case-insensitively). */
  sourceType: string;
  /** The usage of images uploaded to this folder. */
  usage: string;
  /** Only staff may attach images here. */
  staffOnly: boolean;
  /** The record keeps one image of its usage: attaching another replaces it. */
  single: boolean;
  /** The record's images are kept in an order (`sortOrder`): an image attached to it goes last. */
  ordered?: boolean;
  /**
   * Checks the record exists in the caller's tenant and the caller may attach to it (404 / 403);
   * answers the SourceId to store. Folders of areas not built yet accept any id until their area
   * adds this check.
   */
  target?(ctx: RequestContext, objectId: number): Promise<number>;
  /** Keeps the record's own pointer to its current image (logos read by /api/login/aboutme); runs in the image's transaction. */
  link?(ctx: RequestContext, sourceId: number, image: { url: string; shortDescription: string | null } | null, previousUrl?: string): Promise<void>;
}

const FOLDERS: readonly ImageFolder[] = [
  {
    sourceType: 'Contact', usage: 'ContactLogo', staffOnly: false, single: true,
    async target(ctx, contactId) {
      if (contactId === 0) return 0;
      const [contact] = await leanRows(ctx.reader, Contact, { fields: ['id'], where: { id: contactId }, limit: 1 });
      if (!contact) throw new NotFound('The contact');
      if (!ctx.isStaff && ctx.caller?.contactId !== contactId) throw new Forbidden('Only staff may change the images of another contact.');
      return contactId;
    },
    async link(ctx, contactId, image, previousUrl) {
      const where = { id: contactId, tenant: ctx.tenantId, ...(previousUrl ? { logoUrl: previousUrl } : {}) };
      await ctx.em.nativeUpdate(Contact, where, { logoUrl: image?.url ?? null, logoShortDescription: image?.shortDescription ?? null, auditId: nextVersion() });
    },
  },
  {
    sourceType: 'Tenant', usage: 'TenantLogo', staffOnly: true, single: true,
    async target(ctx, tenantId) {
      if (tenantId !== 0 && tenantId !== ctx.tenantId) throw new NotFound('The tenant');
      return ctx.tenantId;
    },
    async link(ctx, _tenantId, image, previousUrl) {
      const where = { id: ctx.tenantId, ...(previousUrl ? { logoUrl: previousUrl } : {}) };
      await ctx.em.nativeUpdate(Tenant, where, { logoUrl: image?.url ?? null, logoShortDescription: image?.shortDescription ?? null });
    },
  },
  {
    sourceType: 'StoreItem', usage: 'StoreItem', staffOnly: true, single: false,
    async target(ctx, storeItemId) {
      if (storeItemId === 0) return 0;
      const [item] = await leanRows(ctx.reader, StoreItem, { fields: ['id'], where: { id: storeItemId, retiredAt: null }, limit: 1 });
      if (!item) throw new NotFound('The store item');
      return storeItemId;
    },
  },
  {
    // A directory listing's gallery (objectid: its DirectoryContactId), changed by staff or the listed contact.
    sourceType: 'DirectoryGallery', usage: 'DirectoryGallery', staffOnly: false, single: false, ordered: true,
    target: (ctx, listingId) => (listingId === 0 ? Promise.resolve(0) : editableListing(ctx, listingId)),
  },
  { sourceType: 'SocialFeed', usage: 'SocialFeed', staffOnly: false, single: false },
];

function findFolder(name: string): ImageFolder | undefined {
  const wanted = name.trim().toLowerCase();
  return FOLDERS.find((folder) => folder.sourceType.toLowerCase() === wanted);
}

/** The SourceType and SourceId an image may be attached to by this caller (404 / 403 otherwise). */
async function resolveTarget(ctx: RequestContext, folder: ImageFolder, objectId: number): Promise<Target> {
  if (folder.staffOnly && !ctx.isStaff) throw new Forbidden(`Only staff may attach images to ${folder.sourceType} records.`);
  const sourceId = folder.target ? await folder.target(ctx, objectId) : objectId;
  return { folder, sourceId };
}

/**
 * The checks of `POST /api/images/upload/{foldertype}/{objectid}` made before the upload is
 * read: the folder exists (404), the object id is a record id (404) the caller may attach to.
 */
export async function prepareFolderUpload(ctx: RequestContext, folderType: string, objectId: string) {
  ctx.requireCaller();
  const folder = findFolder(folderType);
  if (!folder) throw new NotFound('The image folder');
  if (!/^\d{1,9}$/.test(objectId)) throw new NotFound(`The ${folder.sourceType} record`);
  return resolveTarget(ctx, folder, Number(objectId));
}

// ---------------------------------------------------------------------------------------------
// Uploads.

export interface Upload {
  filename: string | null;
  bytes: Buffer;
}

/** POST /api/images/upload: keeps an image file (original, unchanged) and answers it. */
export async function uploadImageFile(ctx: RequestContext, upload: Upload): Promise<ImageFile> {
  ctx.requireCaller();
  const facts = await inspectImage(upload.bytes);
  return toImageFile(await storeImage(ctx, upload, facts));
}

/** POST /api/images/upload/{foldertype}/{objectid}: keeps the file and makes it an image of the record. */
export async function uploadFolderImage(
  ctx: RequestContext,
  target: Awaited<ReturnType<typeof prepareFolderUpload>>,
  upload: Upload,
  fields: Record<string, string>,
): Promise<Image> {
  const input = await formInput(fields);
  const facts = await inspectImage(upload.bytes);
  // A crop that does not fit is refused before anything is stored.
  const shape = shapeOf(input, usageOf(input.ImageUsageId, target.folder));
  planRegion(facts, { crop: shape.crop, aspect: aspectOf(shape) });
  const file = await storeImage(ctx, upload, facts);
  return createImage(ctx, { ...input, FileId: file.id }, { file, facts, bytes: upload.bytes }, target);
}

function storeImage(ctx: RequestContext, upload: Upload, facts: ImageFacts): Promise<FileRecord> {
  return storeFile(ctx, {
    name: imageFileName(upload.filename, facts), mediaType: facts.mediaType, bytes: upload.bytes,
    purpose: IMAGE_PURPOSE, width: facts.width, height: facts.height,
  });
}

/** Text fields sent with a folder upload (Caption, ShortDescription, crop, ForceAspect, ImageUsageId), checked like ImageAddEdit. */
async function formInput(fields: Record<string, string>): Promise<ImageAddEditInput> {
  const input = new ImageAddEditInput();
  const lower = new Map(Object.entries(fields).map(([key, value]) => [key.toLowerCase(), value]));
  for (const key of ['Caption', 'ShortDescription', 'CropWidth', 'CropHeight', 'ForceAspect', 'ImageUsageId'] as const) {
    const value = lower.get(key.toLowerCase());
    if (value !== undefined) input[key] = value;
  }
  for (const key of ['CropX', 'CropY'] as const) {
    const value = lower.get(key.toLowerCase())?.trim();
    if (value === undefined || value === '') continue;
    if (!/^\d{1,9}$/.test(value)) throw BadInput.field(key, 'must be a non-negative integer');
    input[key] = Number(value);
  }
  await validateInput(input);
  return input;
}

// ---------------------------------------------------------------------------------------------
// Reads.

const IMAGE_FIELDS = [
  'id', 'file', 'rendition', 'usage', 'sourceType', 'sourceId', 'cropX', 'cropY', 'cropWidth', 'cropHeight',
  'forceAspect', 'caption', 'shortDescription', 'name', 'width', 'height', 'uploadedBy',
] as const;

type ImageRow = Pick<StoredImage, (typeof IMAGE_FIELDS)[number]>;

/** One image (the JSON; GraphQL `image`). */
export async function getImage(ctx: RequestContext, imageId: number): Promise<Image> {
  return toImage(await findImageRow(ctx, imageId));
}

/** The file GET /api/images/image/{imageid} serves: the rendition, or the original when it has none. */
export async function imageServedFile(ctx: RequestContext, imageId: number): Promise<FileRecord> {
  const image = await findImageRow(ctx, imageId);
  return findFile(ctx, idOf(image.rendition ?? image.file));
}

/** A file GET /api/images/file/{fileid} may serve (image uploads and renditions of the caller's tenant). */
export async function imageFile(ctx: RequestContext, fileId: number): Promise<FileRecord> {
  ctx.requireCaller();
  return findFile(ctx, fileId, SERVED_PURPOSES);
}

/** The JSON of an uploaded image file (GraphQL `imageFile`). */
export async function getImageFile(ctx: RequestContext, fileId: number): Promise<ImageFile> {
  return toImageFile(await imageFile(ctx, fileId));
}

const IMAGE = 'The image';

function findImageRow(ctx: RequestContext, imageId: number): Promise<ImageRow> {
  ctx.requireCaller();
  return readOr404(ctx, StoredImage, IMAGE_FIELDS, imageId, IMAGE);
}

// ---------------------------------------------------------------------------------------------
// Saves and deletes.

interface Original {
  file: FileRecord;
  facts: ImageFacts;
  bytes: Buffer;
}

/** POST /api/images/image/{imageid}: 0 creates an image from an uploaded FileId; an existing id updates it. */
export async function saveImage(ctx: RequestContext, imageId: number, input: ImageAddEditInput): Promise<Image> {
  ctx.requireCaller();
  if (imageId === 0) {
    CREATE_NEEDS_FILE.check(input); // the resolver checked it; the store's gallery saves come here too
    const original = await loadOriginal(ctx, input.FileId as number);
    const target = input.SourceType ? await targetOf(ctx, input.SourceType, input.SourceId) : null;
    return createImage(ctx, input, original, target);
  }
  return updateImage(ctx, imageId, input);
}

async function loadOriginal(ctx: RequestContext, fileId: number): Promise<Original> {
  const file = await findFile(ctx, fileId, [IMAGE_PURPOSE]);
  const bytes = await readFile(ctx, file);
  return { file, bytes, facts: await imageFacts(bytes) };
}

async function targetOf(ctx: RequestContext, sourceType: string, sourceId: number | null | undefined) {
  const folder = findFolder(sourceType);
  if (!folder) throw BadInput.field('SourceType', `must be one of ${FOLDERS.map((candidate) => candidate.sourceType).join(', ')}`);
  return resolveTarget(ctx, folder, sourceId ?? 0);
}

/** The usage named by ImageUsageId (400 when unknown), else the folder's. */
function usageOf(id: string | null | undefined, folder: ImageFolder | null | undefined): ImageUsageRule | null {
  if (id?.trim()) {
    const usage = findUsage(id);
    if (!usage) throw BadInput.field('ImageUsageId', `must be one of ${IMAGE_USAGES.map((candidate) => candidate.id).join(', ')}`);
    return usage;
  }
  return folder ? findUsage(folder.usage)! : null;
}

/** The rendition-shaping settings of an image, resolved and checked. */
interface Shape {
  usage: ImageUsageRule | null;
  crop: Crop | null;
  forceAspect: string | null;
}

function shapeOf(input: { CropX?: number | null; CropY?: number | null; CropWidth?: string | null; CropHeight?: string | null; ForceAspect?: string | null }, usage: ImageUsageRule | null): Shape {
  const width = pixels(input.CropWidth);
  const height = pixels(input.CropHeight);
  let crop: Crop | null = null;
  if (width || height) {
    if (!width) throw BadInput.field('CropWidth', 'is required with CropHeight');
    if (!height) throw BadInput.field('CropHeight', 'is required with CropWidth');
    crop = { x: input.CropX ?? 0, y: input.CropY ?? 0, width, height };
  }
  return { usage, crop, forceAspect: input.ForceAspect?.trim().toLowerCase() || null };
}

/** "120.5" → 121; empty → 0. */
function pixels(value: string | null | undefined): number {
  return value?.trim() ? Math.round(Number(value)) : 0;
}

/** The aspect ratio a rendition is trimmed to: ForceAspect's ratio, or the usage's unless ForceAspect is false. */
function aspectOf(shape: Shape): number | null {
  const force = shape.forceAspect;
  if (force === 'false') return null;
  const ratio = force && force !== 'true' ? force : shape.usage?.aspectRatio;
  if (!ratio) return null;
  const [width, height = '1'] = ratio.split(':');
  const value = Number(width) / Number(height);
  if (!Number.isFinite(value) || value <= 0) throw BadInput.field('ForceAspect', 'must be a positive ratio');
  return value;
}

async function render(ctx: RequestContext, original: Original, shape: Shape) {
  const rendition = await renderImage(original.bytes, original.facts, {
    crop: shape.crop,
    aspect: aspectOf(shape),
    maxWidth: shape.usage?.maxWidth ?? null,
    maxHeight: shape.usage?.maxHeight ?? null,
  });
  if (!rendition) return { file: null, width: original.facts.width, height: original.facts.height };
  const file = await storeFile(ctx, {
    name: original.file.name, mediaType: original.facts.mediaType, bytes: rendition.bytes,
    purpose: RENDITION_PURPOSE, width: rendition.width, height: rendition.height,
  });
  return { file, width: rendition.width, height: rendition.height };
}

async function createImage(
  ctx: RequestContext,
  input: ImageAddEditInput,
  original: Original,
  target: Target | null,
): Promise<Image> {
  const shape = shapeOf(input, usageOf(input.ImageUsageId, target?.folder));
  const rendered = await render(ctx, original, shape);
  const sortOrder = await nextPosition(ctx, target);
  const { image, released } = await commit(ctx, rendered.file, { target, usage: shape.usage?.id ?? null }, async () => ctx.em.create(StoredImage, {
    tenant: ctx.tenantId,
    file: original.file.id,
    rendition: rendered.file?.id ?? null,
    usage: shape.usage?.id ?? null,
    sourceType: target?.folder.sourceType ?? null,
    sourceId: target?.sourceId ?? null,
    ...cropColumns(shape.crop),
    forceAspect: shape.forceAspect,
    sortOrder,
    caption: input.Caption ?? null,
    shortDescription: input.ShortDescription ?? null,
    name: original.file.name,
    width: rendered.width,
    height: rendered.height,
    uploadedBy: ctx.caller!.loginId,
  }));
  await releaseFiles(ctx, released);
  return toImage(image);
}

async function updateImage(ctx: RequestContext, imageId: number, input: ImageAddEditInput): Promise<Image> {
  // A plain row: the entity itself is read again, locked, in the transaction that changes it.
  const current = await findImageRow(ctx, imageId);
  assertMayChange(ctx, current);

  // Fields left out keep their value; null clears. The image moves only where the caller may attach.
  const keep = <T>(given: T | undefined, value: T): T => (given !== undefined ? given : value);
  const currentFolder = current.sourceType ? findFolder(current.sourceType) ?? null : null;
  let target = currentFolder && current.sourceId !== null ? { folder: currentFolder, sourceId: current.sourceId } : null;
  if (input.SourceType !== undefined || input.SourceId !== undefined) {
    const sourceType = keep(input.SourceType, current.sourceType);
    target = sourceType ? await targetOf(ctx, sourceType, keep(input.SourceId, current.sourceId)) : null;
  }
  const usage = usageOf(keep(input.ImageUsageId, current.usage), target?.folder);
  const shape = shapeOf({
    CropX: keep(input.CropX, current.cropX),
    CropY: keep(input.CropY, current.cropY),
    CropWidth: keep(input.CropWidth, current.cropWidth?.toString()),
    CropHeight: keep(input.CropHeight, current.cropHeight?.toString()),
    ForceAspect: keep(input.ForceAspect, current.forceAspect),
  }, usage);
  const fileId = input.FileId || idOf(current.file);
  const attachedElsewhere = (target?.folder.sourceType ?? null) !== current.sourceType || (target?.sourceId ?? null) !== current.sourceId;

  const changes: Partial<StoredImage> & Record<string, unknown> = {
    usage: shape.usage?.id ?? null,
    sourceType: target?.folder.sourceType ?? null,
    sourceId: target?.sourceId ?? null,
    ...cropColumns(shape.crop),
    forceAspect: shape.forceAspect,
    ...(input.Caption !== undefined ? { caption: input.Caption } : {}),
    ...(input.ShortDescription !== undefined ? { shortDescription: input.ShortDescription } : {}),
    ...(attachedElsewhere ? { sortOrder: await nextPosition(ctx, target) } : {}),
  };
  let rendition: FileRecord | null = null;
  const currentCrop = current.cropWidth ? cropOf(current) : null;
  if (shapeKey(fileId, shape.usage?.id ?? null, shape.forceAspect, shape.crop) !== shapeKey(idOf(current.file), current.usage, current.forceAspect, currentCrop)) {
    const original = await loadOriginal(ctx, fileId);
    const rendered = await render(ctx, original, shape);
    rendition = rendered.file;
    Object.assign(changes, { file: fileId, rendition: rendered.file?.id ?? null, name: original.file.name, width: rendered.width, height: rendered.height });
  }
  const { image, released } = await commit(ctx, rendition, { target, usage: shape.usage?.id ?? null }, async (release) => {
    const image = await ctx.em.findOne(StoredImage, { id: imageId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!image) throw new NotFound(IMAGE); // deleted meanwhile
    const before = { url: imageUrl(image.id), sourceType: image.sourceType, sourceId: image.sourceId, usage: image.usage };
    release(idOf(image.file), idOf(image.rendition));
    ctx.em.assign(image, changes);
    const moved = before.sourceType !== image.sourceType || before.sourceId !== image.sourceId || before.usage !== image.usage;
    // The record it leaves no longer shows it (its logo), unless that already points elsewhere.
    if (moved && before.sourceType && before.sourceId) await findFolder(before.sourceType)?.link?.(ctx, before.sourceId, null, before.url);
    return image;
  });
  await releaseFiles(ctx, released);
  return toImage(image);
}

/** Where an image attached to `target` goes: after the record's images when they are ordered (ties, from concurrent uploads, fall back to the id). */
async function nextPosition(ctx: RequestContext, target: Target | null): Promise<number> {
  if (!target?.folder.ordered || target.sourceId <= 0) return 0;
  const [row] = await tenantSql(ctx).all<{ next: number }>(
    `select coalesce(max(sort_order), 0) + 1 as next from image where ${tenantIs()} and source_type = ? and source_id = ?`, [target.folder.sourceType, target.sourceId]);
  return Number(row?.next ?? 1);
}

/** What a rendition depends on, as one comparable value. */
function shapeKey(fileId: number, usage: string | null, forceAspect: string | null, crop: Crop | null): string {
  return JSON.stringify([fileId, usage, forceAspect, crop && [crop.x, crop.y, crop.width, crop.height]]);
}

function cropOf(image: Pick<StoredImage, 'cropX' | 'cropY' | 'cropWidth' | 'cropHeight'>): Crop {
  return { x: image.cropX ?? 0, y: image.cropY ?? 0, width: image.cropWidth ?? 0, height: image.cropHeight ?? 0 };
}

/** Where an image is attached: a folder and the record's id. */
type Target = { folder: ImageFolder; sourceId: number };

/**
 * Writes an image (`write` creates it, or changes it after locking its row) and what follows from
 * where it belongs, in one transaction: on a single-image record (a logo) the image it replaces is
 * deleted — under a lock on that record, so that of two concurrent uploads the second replaces the
 * first — and the record's pointer follows. Answers the image and the files to release after the
 * commit: those the replaced images and the image's own previous files (`release` in `write`) leave
 * behind. When the write fails, the rendition made for it goes.
 */
async function commit(
  ctx: RequestContext,
  rendition: FileRecord | null,
  place: { target: Target | null; usage: string | null },
  write: (release: (...fileIds: (number | null)[]) => void) => Promise<StoredImage>,
): Promise<{ image: StoredImage; released: (number | null)[] }> {
  const { target, usage } = place;
  const attached = target && target.sourceId > 0 && usage === target.folder.usage ? target : null;
  const released: (number | null)[] = [];
  const work = async () => {
    const image = await write((...fileIds) => released.push(...fileIds));
    await ctx.em.persist(image).flush();
    if (attached?.folder.single) {
      const replaced = await deleteReturning(ctx.em, StoredImage, {
        tenant: ctx.tenantId, sourceType: attached.folder.sourceType, sourceId: attached.sourceId, usage, id: { $ne: image.id },
      }, ['file', 'rendition']);
      for (const other of replaced) released.push(idOf(other.file), idOf(other.rendition));
    }
    if (attached) await attached.folder.link?.(ctx, attached.sourceId, { url: imageUrl(image.id), shortDescription: image.shortDescription });
    return image;
  };
  try {
    const image = attached?.folder.single
      ? await withDuplicateLock(ctx, 'image-folder', `${attached.folder.sourceType}:${attached.sourceId}`, work)
      : await inTransaction(ctx, work);
    const inUse = new Set([idOf(image.file), idOf(image.rendition)]);
    return { image, released: released.filter((id) => !inUse.has(id)) };
  } catch (error) {
    if (rendition) await releaseFiles(ctx, [rendition.id]);
    throw error;
  }
}

/**
 * DELETE /api/images/image/{imageid}: removes the image in one statement (of concurrent deletes
 * exactly one succeeds, the others 404), unlinks it from its record in the same transaction, then
 * releases its files unless something else uses them. Staff or the uploader may delete (403).
 */
export async function deleteImage(ctx: RequestContext, imageId: number): Promise<number> {
  const caller = ctx.requireCaller();
  const scope = ctx.isStaff ? undefined : { uploadedBy: caller.loginId };
  let image: Pick<StoredImage, 'file' | 'rendition'>;
  try {
    image = await inTransaction(ctx, async () => {
      const deleted = await deleteRecordReturning(ctx, StoredImage, ['file', 'rendition', 'sourceType', 'sourceId'], imageId, null, IMAGE, scope);
      const folder = deleted.sourceType ? findFolder(deleted.sourceType) : undefined;
      if (folder && deleted.sourceId) await folder.link?.(ctx, deleted.sourceId, null, imageUrl(imageId));
      return deleted;
    });
  } catch (error) {
    // Not the caller's to delete, or not there at all?
    if (scope && error instanceof NotFound) assertMayChange(ctx, await findImageRow(ctx, imageId));
    throw error;
  }
  await releaseFiles(ctx, [idOf(image.file), idOf(image.rendition)]);
  return imageId;
}

function assertMayChange(ctx: RequestContext, image: Pick<StoredImage, 'uploadedBy'>): void {
  const caller = ctx.requireCaller();
  if (ctx.isStaff || (image.uploadedBy && idOf(image.uploadedBy) === caller.loginId)) return;
  throw new Forbidden('Only staff or the uploader may change this image.');
}

// ---------------------------------------------------------------------------------------------
// Demo data.

/**
 * A demo image for a new tenant: a small banner (a PNG made here) stored through the file
 * service like an upload, with a caption, not yet attached to any record.
 */
export async function seedImages(em: EntityManager, tenant: Tenant, marker: string): Promise<void> {
  const bytes = await demoPng(48, 16, '#2d6cdf');
  const facts = await imageFacts(bytes);
  const file = await storeTenantFile(em, { tenantId: tenant.id, uploadedBy: null, config: loadConfig() }, {
    name: 'gala-banner.png', mediaType: facts.mediaType, bytes, purpose: IMAGE_PURPOSE, width: facts.width, height: facts.height,
  });
  em.create(StoredImage, {
    tenant, file: file.id, name: file.name, width: facts.width, height: facts.height,
    caption: `${marker}Annual gala banner`, shortDescription: `${marker}Blue banner for the annual gala`,
  });
  await em.flush();
}

// ---------------------------------------------------------------------------------------------
// Views.

export function imageUrl(imageId: number): string {
  return `/api/images/image/${imageId}`;
}

export function imageFileUrl(fileId: number): string {
  return `/api/images/file/${fileId}`;
}

function toImage(image: ImageRow | StoredImage): Image {
  return {
    ImageId: image.id,
    FileId: idOf(image.file),
    SourceType: image.sourceType,
    SourceId: image.sourceId,
    Url: imageUrl(image.id),
    CropX: image.cropWidth ? image.cropX : null,
    CropY: image.cropWidth ? image.cropY : null,
    CropHeight: image.cropHeight?.toString() ?? null,
    CropWidth: image.cropWidth?.toString() ?? null,
    Height: String(image.height),
    Width: String(image.width),
    Caption: image.caption,
    ForceAspect: image.forceAspect,
    ShortDescription: image.shortDescription,
    Name: image.name,
    ImageUsageId: image.usage,
  };
}

function toImageFile(file: FileRecord): ImageFile {
  return {
    FileId: file.id, Name: file.name, MediaType: file.mediaType, Size: file.size, Sha256: file.sha256,
    Width: file.width, Height: file.height, Url: imageFileUrl(file.id),
  };
}

function cropColumns(crop: Crop | null) {
  return crop
    ? { cropX: crop.x, cropY: crop.y, cropWidth: crop.width, cropHeight: crop.height }
    : { cropX: null, cropY: null, cropWidth: null, cropHeight: null };
}
