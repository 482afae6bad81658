import { Entity, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantOwned } from './base.js';
import { Login } from './login.js';

/** Where the bytes of a file content live: its row, an S3 object, or its `file_content_chunk` rows (contents written as a stream). */
export type FileStorageKind = 'database' | 's3' | 'chunks';

/**
 * The bytes of one distinct content of a tenant (one row per SHA-256 per tenant, however many
 * files carry it). With the database store the bytes are in `bytes`; with S3 they are in the
 * object named by `storageKey`. Read the bytes only through the file service.
 */
@Entity({ tableName: 'file_content' })
@Unique({ properties: ['tenant', 'sha256'] })
export class FileContent extends TenantOwned {
  @Property({ length: 64 })
  sha256!: string;

  @Property({ type: 'integer' })
  size!: number;

  @Property({ type: 'string', length: 16 })
  storage!: FileStorageKind;

  /** The bytes (database store only). Lazy: never loaded with the entity. */
  @Property({ type: 'blob', nullable: true, lazy: true })
  bytes: Buffer | null = null;

  /** The object key (S3 store only); unique per content row, so a re-upload never reuses a key being deleted. */
  @Property({ length: 400, nullable: true })
  storageKey: string | null = null;
}

/**
 * One piece of a content written as a stream (report results): pieces are written and read one
 * at a time, in `seq` order, so neither writing nor serving the content holds it whole.
 */
@Entity({ tableName: 'file_content_chunk' })
export class FileContentChunk {
  @ManyToOne(() => FileContent, { primary: true, deleteRule: 'cascade' })
  content!: FileContent;

  @PrimaryKey({ type: 'integer', autoincrement: false })
  seq!: number;

  @Property({ type: 'blob', lazy: true })
  bytes!: Buffer;
}

/**
 * One stored file: a name, a media type and an uploader over a content. Other records attach
 * files with a `@ManyToOne(() => StoredFile)`; the file service finds those references from the
 * ORM metadata and never deletes a file something still refers to.
 */
@Entity({ tableName: 'stored_file' })
@Index({ properties: ['purpose', 'createdAt'] })
export class StoredFile extends TenantOwned {
  @Property({ length: 255 })
  name!: string;

  @Property({ length: 100 })
  mediaType!: string;

  @Property({ type: 'integer' })
  size!: number;

  @Property({ length: 64 })
  sha256!: string;

  /** What the file is for (`images`, `image-renditions`, ...): which endpoints may serve it. */
  @Property({ length: 32 })
  purpose!: string;

  /** Pixel dimensions (as displayed, i.e. after EXIF orientation) for images; null otherwise. */
  @Property({ type: 'integer', nullable: true })
  width: number | null = null;

  @Property({ type: 'integer', nullable: true })
  height: number | null = null;

  @ManyToOne(() => FileContent, { index: true })
  content!: FileContent;

  @ManyToOne(() => Login, { nullable: true, deleteRule: 'set null' })
  uploadedBy: Login | null = null;
}
