import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { TenantOwned } from './base.js';
import { StoredFile } from './file.js';
import { Login } from './login.js';

/**
 * An image (documented model Image): an uploaded original file, kept unchanged, and the
 * rendition that is served (the original cropped, trimmed to the usage's aspect ratio and
 * resized to fit it). `rendition` is null when the original is served as it is.
 */
@Entity({ tableName: 'image' })
@Index({ properties: ['tenant', 'sourceType', 'sourceId'] })
export class StoredImage extends TenantOwned {
  @ManyToOne(() => StoredFile, { index: true })
  file!: StoredFile;

  @ManyToOne(() => StoredFile, { nullable: true, index: true, deleteRule: 'no action' })
  rendition: StoredFile | null = null;

  /** ImageUsageId: whose rules (maximum size, aspect ratio) the rendition follows. */
  @Property({ length: 64, nullable: true })
  usage: string | null = null;

  /** What the image belongs to: a folder type's SourceType (`Contact`, `StoreItem`, ...) and the record id (0: not attached yet). */
  @Property({ length: 32, nullable: true })
  sourceType: string | null = null;

  @Property({ type: 'integer', nullable: true })
  sourceId: number | null = null;

  /** Its place among the images of its record, where their order matters (a directory listing's gallery: 1, 2, …). */
  @Property({ type: 'integer', default: 0 })
  sortOrder: Opt<number> = 0;

  @Property({ type: 'integer', nullable: true })
  cropX: number | null = null;

  @Property({ type: 'integer', nullable: true })
  cropY: number | null = null;

  @Property({ type: 'integer', nullable: true })
  cropWidth: number | null = null;

  @Property({ type: 'integer', nullable: true })
  cropHeight: number | null = null;

  /** ForceAspect as saved: `true`, `false`, a ratio (`16:9`, `1.5`), or null (the usage's default). */
  @Property({ length: 32, nullable: true })
  forceAspect: string | null = null;

  @Property({ length: 1000, nullable: true })
  caption: string | null = null;

  @Property({ length: 500, nullable: true })
  shortDescription: string | null = null;

  @Property({ length: 255 })
  name!: string;

  /** Dimensions of what is served (the rendition, or the original as displayed). */
  @Property({ type: 'integer' })
  width!: number;

  @Property({ type: 'integer' })
  height!: number;

  @ManyToOne(() => Login, { nullable: true, deleteRule: 'set null' })
  uploadedBy: Login | null = null;
}
