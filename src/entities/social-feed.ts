import { Entity, Index, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantOwned } from './base.js';
import { Contact } from './contact.js';

/**
 * A reference to a stored file attached to a post. The file service does not exist yet (issue
 * "Images and files"): until it does, these references are kept as given and not checked.
 */
export interface SocialFeedFileRef {
  FileId: number;
  Name: string;
}

/**
 * A post on the tenant's social feed: a message, a link, a sanitized video embed and/or file
 * references. `contact` is the poster (the caller's contact when it was created).
 */
@Entity()
export class SocialFeed extends TenantOwned {

  @ManyToOne(() => Contact, { nullable: true, deleteRule: 'set null', index: true })
  contact: Contact | null = null;

  /** Opaque references the documents do not describe further; stored as given. */
  @Property({ length: 64, nullable: true })
  membershipActivationId: string | null = null;

  @Property({ length: 64, nullable: true })
  contentItemId: string | null = null;

  @Property({ length: 64, nullable: true })
  socialFeedTypeId: string | null = null;

  @Property({ length: 2048, nullable: true })
  url: string | null = null;

  @Property({ type: 'text', nullable: true })
  messageText: string | null = null;

  /** Only ever a sanitized iframe from an allowed video host (services/social-feeds/social-feeds.ts). */
  @Property({ type: 'text', nullable: true })
  embedCodeHtml: string | null = null;

  @Property({ type: 'json', defaultRaw: `'[]'` })
  files: SocialFeedFileRef[] = [];
}

/** A comment on a post; `contact` is who wrote it, `createdAt` is the documented CommentDate. */
@Entity()
@Index({ properties: ['socialFeed', 'createdAt'] })
export class SocialFeedComment extends TenantOwned {

  @ManyToOne(() => SocialFeed, { deleteRule: 'cascade' })
  socialFeed!: SocialFeed;

  @ManyToOne(() => Contact, { nullable: true, deleteRule: 'set null', index: true })
  contact: Contact | null = null;

  @Property({ type: 'text' })
  commentText!: string;
}

/** One contact liking one post: the unique constraint makes a like idempotent. */
@Entity()
@Unique({ properties: ['socialFeed', 'contact'] })
export class SocialFeedLike extends TenantOwned {

  @ManyToOne(() => SocialFeed, { deleteRule: 'cascade' })
  socialFeed!: SocialFeed;

  @ManyToOne(() => Contact, { deleteRule: 'cascade', index: true })
  contact!: Contact;
}
