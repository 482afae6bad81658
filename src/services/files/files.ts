import { createHash, randomUUID } from 'node:crypto';
import { ForeignKeyConstraintViolationException, ReferenceKind } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { loadConfig, type Config } from '../../core/config.js';
import type { RequestContext } from '../../core/context.js';
import { NotFound, ServiceUnavailable } from '../../core/errors.js';
import type { JobDefinition } from '../../core/runtime/jobs.js';
import { readOr404, whenCommitted } from '../../core/data/records.js';
import { StoredFile, type FileStorageKind } from '../../entities/file.js';
import { TENANT, tenantIs, tenantSql } from '../../core/data/tenant-sql.js';

/**
 * The file service: every area that keeps uploaded bytes (images, store downloads, document
 * templates, social feed files) stores them here and refers to the file by its id (FileId).
 *
 * - `storeFile` keeps bytes as a new file of the caller's tenant: name, media type, size,
 *   SHA-256, purpose and uploader. Identical bytes are kept once per tenant (`file_content`).
 * - `findFile` reads a file's record (404 for another tenant's file, or a purpose not asked for).
 * - `readFile` answers its bytes.
 * - `releaseFiles` deletes files nothing refers to any more: a reference is any
 *   `@ManyToOne(() => StoredFile)` of any entity, found from the ORM metadata.
 *
 * Where the bytes live is the `BlobStore`: PostgreSQL by default (so every instance of the
 * service sees them with no shared disk), or an S3-compatible object store (`FILE_STORAGE=s3`).
 * Each content row records its own storage, so switching the setting keeps older files readable.
 */

/** A stored file as the services see it. */
export interface FileRecord {
  id: number;
  name: string;
  mediaType: string;
  size: number;
  sha256: string;
  purpose: string;
  width: number | null;
  height: number | null;
  createdAt: Date;
}

export interface NewFile {
  name: string;
  mediaType: string;
  bytes: Buffer;
  /** What the file is for; the endpoints that serve files check it (`images`, `image-renditions`, ...). */
  purpose: string;
  width?: number | null;
  height?: number | null;
}

/** Where bytes live. A content row keeps either the bytes (database) or the key of an object (s3). */
export interface BlobStore {
  readonly kind: FileStorageKind;
  /** Keeps the bytes of a new content; answers what its row holds. */
  save(tenantId: number, sha256: string, bytes: Buffer): Promise<{ bytes: Buffer | null; storageKey: string | null }>;
  /** The bytes of an object this store saved. */
  load(storageKey: string): Promise<Buffer>;
  /** Removes objects this store saved (after their rows are gone). */
  remove(storageKeys: string[]): Promise<void>;
}

/** Bytes in the `file_content` row itself. */
class DatabaseBlobStore implements BlobStore {
  readonly kind = 'database' as const;
  async save(_tenantId: number, _sha256: string, bytes: Buffer) {
    return { bytes, storageKey: null };
  }
  async load(): Promise<Buffer> {
    throw new Error('database contents are read with their row');
  }
  async remove(): Promise<void> {}
}

const databaseStore = new DatabaseBlobStore();
const s3Stores = new WeakMap<Config, BlobStore>();

/** The store new contents go to under this configuration (S3 clients are made once per configuration). */
export function blobStoreFor(config: Config): Promise<BlobStore> {
  return config.FILE_STORAGE === 's3' ? s3StoreFor(config) : Promise.resolve(databaseStore);
}

/**
 * The S3 store of this configuration. The AWS SDK is loaded on first use (it is a third of the
 * server's memory at start, and most deployments keep files in PostgreSQL).
 */
async function s3StoreFor(config: Config): Promise<BlobStore> {
  let store = s3Stores.get(config);
  if (!store) {
    if (!config.S3_BUCKET) throw new ServiceUnavailable('Files kept in S3 cannot be read: S3 is not configured.');
    const { S3BlobStore } = await import('./s3-blob-store.js');
    store = s3Stores.get(config) ?? new S3BlobStore(config);
    s3Stores.set(config, store);
  }
  return store;
}

const FILE_FIELDS = ['id', 'name', 'mediaType', 'size', 'sha256', 'purpose', 'width', 'height', 'createdAt'] as const;

/** Stores bytes as a new file of the caller's tenant (content kept once per tenant) and answers its record. */
export function storeFile(ctx: RequestContext, file: NewFile): Promise<FileRecord> {
  return storeTenantFile(ctx.em, { tenantId: ctx.tenantId, uploadedBy: ctx.caller?.loginId ?? null, config: ctx.app.config, log: ctx.app.log }, file);
}

/** Whose file a file stored outside a request is (demo data, the command line), and where its bytes go. */
export interface FileOwner {
  tenantId: number;
  uploadedBy: number | null;
  config: Config;
  log?: { warn(details: object, message: string): void };
}

/** `storeFile` without a request: stores bytes as a new file of `owner.tenantId` with `em`. */
export async function storeTenantFile(em: EntityManager, owner: FileOwner, file: NewFile): Promise<FileRecord> {
  const { tenantId } = owner;
  const sha256 = createHash('sha256').update(file.bytes).digest('hex');
  const store = await blobStoreFor(owner.config);
  const { record, duplicateKey } = await em.transactional(async (em) => {
    const sql = tenantSql({ em, tenantId });
    // FOR KEY SHARE: a concurrent release cannot delete the content this file is about to use.
    const existing = async () => (await sql.all<{ id: number }>(
      `select id from file_content where ${tenantIs()} and sha256 = ? for key share`, [sha256]))[0]?.id;
    let contentId = await existing();
    let duplicateKey: string | null = null;
    if (contentId === undefined) {
      const saved = await store.save(tenantId, sha256, file.bytes);
      const inserted = await sql.all<{ id: number }>(
        `insert into file_content (tenant_id, sha256, size, storage, bytes, storage_key) values (${TENANT}, ?, ?, ?, ?, ?)
         on conflict (tenant_id, sha256) do nothing returning id`,
        [sha256, file.bytes.length, store.kind, saved.bytes, saved.storageKey]);
      contentId = inserted[0]?.id;
      if (contentId === undefined) {
        // The same bytes were stored concurrently: use that content and drop our copy.
        duplicateKey = saved.storageKey;
        contentId = await existing();
      }
    }
    return { record: await createStoredFile(em, owner, file, { size: file.bytes.length, sha256, contentId }), duplicateKey };
  });
  if (duplicateKey) await store.remove([duplicateKey]).catch((error: unknown) => owner.log?.warn({ err: error }, 'could not remove a duplicate object'));
  return record;
}

/** The stored_file row of a content just kept, as its record. */
async function createStoredFile(em: EntityManager, owner: FileOwner, file: Omit<NewFile, 'bytes'>, content: { size: number; sha256: string; contentId: number }): Promise<FileRecord> {
  const stored = em.create(StoredFile, {
    tenant: owner.tenantId,
    name: file.name,
    mediaType: file.mediaType,
    size: content.size,
    sha256: content.sha256,
    purpose: file.purpose,
    width: file.width ?? null,
    height: file.height ?? null,
    content: content.contentId,
    uploadedBy: owner.uploadedBy,
  });
  await em.persist(stored).flush();
  return toRecord(stored);
}

/**
 * Pieces of a content written as a stream are this large, the last one smaller (one row of `file_content_chunk`
 * each): small enough that a piece and its hex form on the wire stay below V8's large-object size,
 * so they are young garbage, collected at once, not old-space garbage that piles up until a full
 * collection (256 KiB pieces grew the server by 86 MB serving a 14 MB CSV).
 */
const CHUNK_BYTES = 32 * 1024;
/** Pieces read per statement when serving a content written as a stream. */
const CHUNKS_PER_READ = 16;

/**
 * A new file written piece by piece (a report's CSV), so that producing it never holds it whole:
 * `open` it on an EntityManager inside a transaction, `write` text as it is made, `finish` it.
 * The pieces live in PostgreSQL (`file_content_chunk`) whatever FILE_STORAGE says; a rolled-back
 * transaction leaves none behind. Identical bytes already kept for the tenant are used instead.
 */
export class StreamedFileWriter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private pieces = 0;
  private size = 0;
  private readonly hash = createHash('sha256');

  private constructor(private readonly em: EntityManager, private readonly owner: FileOwner, private readonly contentId: number) {}

  static async open(em: EntityManager, owner: FileOwner): Promise<StreamedFileWriter> {
    // The SHA-256 is known only at the end: until then the row carries a unique placeholder.
    const [row] = await tenantSql({ em, tenantId: owner.tenantId }).all<{ id: number }>(
      `insert into file_content (tenant_id, sha256, size, storage) values (${TENANT}, ?, 0, 'chunks') returning id`, [`pending-${randomUUID()}`]);
    return new StreamedFileWriter(em, owner, row.id);
  }

  async write(text: string | Buffer): Promise<void> {
    const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    while (this.pendingBytes >= CHUNK_BYTES) await this.writePiece();
  }

  async finish(file: Omit<NewFile, 'bytes'>): Promise<FileRecord> {
    await this.writePiece();
    const sha256 = this.hash.digest('hex');
    const [existing] = await tenantSql({ em: this.em, tenantId: this.owner.tenantId }).all<{ id: number }>(
      `select id from file_content where ${tenantIs()} and sha256 = ? for key share`, [sha256]);
    if (existing) await this.em.execute('delete from file_content where id = ?', [this.contentId]);
    else await this.em.execute('update file_content set sha256 = ?, size = ? where id = ?', [sha256, this.size, this.contentId]);
    return createStoredFile(this.em, this.owner, file, { size: this.size, sha256, contentId: existing?.id ?? this.contentId });
  }

  /**
   * Writes the next piece: CHUNK_BYTES of what is pending (at most; the rest at the end). Exactly
   * that size, not "at least": an upload arrives in 64 KiB socket reads, and a 64 KiB piece's hex
   * form is a large object (in the statement written and in the rows read back). The piece is a
   * view of what was written (copied only to join pieces smaller than it): every copy is malloc'd
   * memory that stays allocated until V8 next collects.
   */
  private async writePiece(): Promise<void> {
    if (this.pendingBytes === 0) return;
    const pending = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes);
    const piece = pending.subarray(0, CHUNK_BYTES);
    const rest = pending.subarray(piece.length);
    this.pending = rest.length ? [rest] : [];
    this.pendingBytes = rest.length;
    this.hash.update(piece);
    this.size += piece.length;
    await this.em.execute('insert into file_content_chunk (content_id, seq, bytes) values (?, ?, ?)', [this.contentId, this.pieces++, piece]);
  }
}

/** The record of a file of the caller's tenant; 404 when there is none or its purpose is not among `purposes`. */
export function findFile(ctx: RequestContext, fileId: number, purposes?: readonly string[]): Promise<FileRecord> {
  return readOr404(ctx, StoredFile, FILE_FIELDS, fileId, 'The file', purposes && { purpose: { $in: [...purposes] } });
}

/** The bytes of a file found with `findFile`, whole: for files of a bounded size (uploads); stream the others with `fileChunks`. */
export async function readFile(ctx: RequestContext, file: Pick<FileRecord, 'id'>): Promise<Buffer> {
  const pieces: Buffer[] = [];
  for await (const piece of fileChunks(ctx, file)) pieces.push(piece);
  return pieces.length === 1 ? pieces[0] : Buffer.concat(pieces);
}

/** The bytes of a file found with `findFile`, piece by piece: a content written as a stream is read one piece at a time. */
export async function* fileChunks(ctx: RequestContext, file: Pick<FileRecord, 'id'>): AsyncGenerator<Buffer> {
  const sql = tenantSql(ctx);
  const [row] = await sql.all<{ content_id: number; storage: FileStorageKind; bytes: Buffer | null; storage_key: string | null }>(
    `select c.id as content_id, c.storage, case when c.storage = 'database' then c.bytes end as bytes, c.storage_key
     from stored_file f join file_content c on c.id = f.content_id where f.id = ? and ${tenantIs('f')}`, [file.id]);
  if (!row) throw new NotFound('The file');
  if (row.storage === 'database') {
    yield row.bytes ?? Buffer.alloc(0);
  } else if (row.storage === 's3') {
    yield await (await s3StoreFor(ctx.app.config)).load(row.storage_key!);
  } else {
    for (let seq = 0; ;) {
      const pieces = await sql.all<{ bytes: Buffer }>(
        'select bytes from file_content_chunk where content_id = ? and seq >= ? order by seq limit ?', [row.content_id, seq, CHUNKS_PER_READ]);
      for (const piece of pieces) yield piece.bytes;
      if (pieces.length < CHUNKS_PER_READ) return;
      seq += CHUNKS_PER_READ;
    }
  }
}

/**
 * Deletes those of `fileIds` (files of the caller's tenant) that nothing refers to, then the
 * contents no file carries any more, then their objects in the object store. Runs in its own
 * transaction (a savepoint of the caller's, whose commit the objects then wait for); call it
 * after the change that dropped the references.
 */
export async function releaseFiles(ctx: RequestContext, fileIds: readonly (number | null | undefined)[]): Promise<void> {
  const ids = [...new Set(fileIds.filter((id): id is number => typeof id === 'number'))];
  if (!ids.length) return;
  let keys: string[];
  try {
    ({ keys } = await ctx.em.transactional((em) => deleteUnreferenced(em, { tenantId: ctx.tenantId, fileIds: ids })));
  } catch (error) {
    // A file or content got a new reference while being released: it is in use, so it stays.
    if (error instanceof ForeignKeyConstraintViolationException) return;
    throw error;
  }
  // Inside a larger transaction (a write under an Idempotency-Key) the objects go once it commits: it may still roll back.
  if (keys.length) await whenCommitted(ctx, async () => (await s3StoreFor(ctx.app.config)).remove(keys));
}

/**
 * The purge of files that were uploaded but never used (an upload whose image was never saved),
 * once they are a day old; daily.
 */
export const purgeUnusedFilesJob: JobDefinition = {
  name: 'files-purge-unused',
  cron: '37 3 * * *',
  async handle(orm: MikroORM) {
    await purgeUnusedFiles(orm, loadConfig(), '1 day');
  },
};

/** Deletes unreferenced files of the given purposes older than `age` (a PostgreSQL interval), in every tenant; answers how many. */
export async function purgeUnusedFiles(orm: MikroORM, config: Config, age: string, purposes: readonly string[] = UNUSED_FILE_PURPOSES): Promise<number> {
  const em = orm.em.fork({ clear: true, useContext: false });
  const candidates = await em.getConnection().execute<{ id: number }[]>(
    `select id from stored_file where purpose in (${purposes.map(() => '?').join(', ')}) and created_at < now() - ?::interval order by id`, [...purposes, age]);
  let purged = 0;
  for (let start = 0; start < candidates.length; start += 500) {
    const fileIds = candidates.slice(start, start + 500).map((row) => row.id);
    try {
      const { deleted, keys } = await em.transactional((tx) => deleteUnreferenced(tx, { fileIds }));
      if (keys.length) await (await s3StoreFor(config)).remove(keys);
      purged += deleted;
    } catch (error) {
      if (!(error instanceof ForeignKeyConstraintViolationException)) throw error; // referenced meanwhile: next run
    }
  }
  return purged;
}

/** Purposes whose files are purged when unused: areas that upload first and attach later add theirs. */
export const UNUSED_FILE_PURPOSES: string[] = ['images', 'image-renditions', 'store-downloads', 'document-templates', 'report-results', 'scheduled-billing-downloads', 'contact-imports'];

/**
 * Deletes the unreferenced files among `fileIds` (of one tenant, or any when `tenantId` is
 * absent) and the contents left without a file; answers how many files went and the object
 * keys to remove.
 */
async function deleteUnreferenced(em: EntityManager, scope: { tenantId?: number; fileIds: number[] }): Promise<{ deleted: number; keys: string[] }> {
  const connection = em.getDriver().getConnection();
  const tx: unknown = em.getTransactionContext();
  const notReferenced = fileReferences(em)
    .map(({ table, column }) => `not exists (select 1 from "${table}" r where r."${column}" = f.id)`)
    .join(' and ');
  // One tenant's files (a request), or any tenant's (the housekeeping sweep, on the cross-tenant path).
  const deleteFiles = (tenantClause: string) => `delete from stored_file f where f.id in (${scope.fileIds.map(() => '?').join(', ')}) ${tenantClause}
     ${notReferenced ? `and ${notReferenced}` : ''} returning f.content_id`;
  const deleted = scope.tenantId === undefined
    ? await connection.execute<{ content_id: number }[]>(deleteFiles(''), scope.fileIds, 'all', tx)
    : await tenantSql({ em, tenantId: scope.tenantId }).all<{ content_id: number }>(deleteFiles(`and ${tenantIs('f')}`), scope.fileIds);
  const contentIds = [...new Set(deleted.map((row) => row.content_id))];
  if (!contentIds.length) return { deleted: 0, keys: [] };
  const contents = await connection.execute<{ storage_key: string | null }[]>(
    `delete from file_content c where c.id in (${contentIds.map(() => '?').join(', ')})
     and not exists (select 1 from stored_file f where f.content_id = c.id) returning c.storage_key`, contentIds, 'all', tx);
  return { deleted: deleted.length, keys: contents.flatMap((row) => (row.storage_key ? [row.storage_key] : [])) };
}

/** Every column that refers to a stored file: the many-to-one (and owning one-to-one) properties targeting StoredFile. */
function fileReferences(em: EntityManager): { table: string; column: string }[] {
  const references: { table: string; column: string }[] = [];
  for (const meta of em.getMetadata()) {
    for (const prop of meta.props) {
      const owning = prop.kind === ReferenceKind.MANY_TO_ONE || (prop.kind === ReferenceKind.ONE_TO_ONE && prop.owner);
      if (owning && prop.targetMeta?.class === StoredFile) references.push({ table: meta.tableName, column: prop.fieldNames[0] });
    }
  }
  return references;
}

function toRecord(file: StoredFile): FileRecord {
  return {
    id: file.id, name: file.name, mediaType: file.mediaType, size: file.size, sha256: file.sha256, purpose: file.purpose,
    width: file.width, height: file.height, createdAt: file.createdAt,
  };
}
