import type { Opt } from '@mikro-orm/core';
import { Entity, Filter, Index, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import { Versioned } from './base.js';
import { Contact } from './contact.js';

/** A free-form JSON value a client stores as it is. */
export type JsonData = object | string | number | boolean | null;

/**
 * How listings of a kind are presented (e.g. "Basic", "Enhanced"). A type that a directory or a
 * listing uses cannot be deleted: the foreign keys say so (409).
 */
@Entity()
export class DirectoryListingType extends Versioned {
  @Property({ length: 200 })
  name!: string;

  @Property({ type: 'text', nullable: true })
  description: string | null = null;

  @Property({ length: 50, nullable: true })
  defaultRank: string | null = null;

  @Property({ length: 200, nullable: true })
  showIndividualDetails: string | null = null;

  /** "false" hides every listing's contact details (e-mail, phone, website, address), whatever the listing's own visibility says. */
  @Property({ length: 200, nullable: true })
  showContactDetails: string | null = null;

  /** "false" hides every listing's custom fields. */
  @Property({ length: 200, nullable: true })
  showCustomFields: string | null = null;

  @Property({ type: 'boolean' }) showRelatedContacts: Opt<boolean> = false;
  @Property({ type: 'boolean' }) showContactsWithMemberships: Opt<boolean> = false;
  @Property({ type: 'boolean' }) showPrimaryContact: Opt<boolean> = false;
  @Property({ type: 'boolean' }) directLinkToDestinationSite: Opt<boolean> = false;
  @Property({ type: 'boolean' }) openLinksInNewTab: Opt<boolean> = false;
  @Property({ type: 'boolean' }) enhancedOnMap: Opt<boolean> = false;
  @Property({ type: 'boolean' }) showRetsDirectoryLinkOption: Opt<boolean> = false;

  @Property({ type: 'json', nullable: true })
  options: JsonData = null;

  @Property({ type: 'text', nullable: true })
  retargeting: string | null = null;
}

/** How a public directory is searched and shown (the documented SearchFilterOptions, a JSON object). */
export interface DirectorySearchSettings {
  ShowPostalCodeFilter: boolean;
  DisplayRadiusSearch: boolean;
  AlphabetizeResults: boolean;
  ShowCategoryImages: boolean;
  ShowRelatedContacts: boolean;
  ShowPrimaryContact: boolean;
  DefaultLayout: string | null;
}

/**
 * A directory of member listings (a chamber's business directory). Deleting one stamps
 * `deletedAt` (and its listings'), so synchronization clients learn of it; the `notDeleted`
 * filter hides it. Category lists are kept as plain ids. `chapterId` is the one link between a
 * chapter and its directory: a chapter has at most one live directory (a partial unique index).
 */
@Entity()
@Filter({ name: 'notDeleted', cond: { deletedAt: null }, default: true })
@Unique({
  name: 'directory_one_per_chapter',
  expression: 'create unique index "directory_one_per_chapter" on "directory" ("chapter_id") where "chapter_id" is not null and "deleted_at" is null',
})
export class Directory extends Versioned {
  @Property({ length: 200 })
  name!: string;

  @Property({ length: 200, nullable: true })
  displayName: string | null = null;

  @Property({ type: 'text', nullable: true })
  description: string | null = null;

  @ManyToOne(() => DirectoryListingType, { nullable: true, index: true, deleteRule: 'no action' })
  listingType: DirectoryListingType | null = null;

  @Property({ type: 'integer' })
  sortOrder: Opt<number> = 0;

  /** The main category list (a CategoryList id; the category lists area is not merged yet). */
  @Property({ type: 'integer', nullable: true })
  categoryListId: number | null = null;

  /** All category lists, in their display order (CatLists). */
  @Property({ type: 'json' })
  categoryListIds: Opt<number[]> = [];

  @Property({ length: 50, nullable: true })
  orderCategoryResults: string | null = null;

  @Property({ type: 'boolean' }) isPublic: Opt<boolean> = false;
  @Property({ type: 'boolean' }) isHub: Opt<boolean> = false;
  @Property({ length: 100, nullable: true }) hubIconCssClass: string | null = null;
  @Property({ type: 'boolean' }) isMultiTenant: Opt<boolean> = false;
  @Property({ type: 'boolean' }) showIsPublicProperty: Opt<boolean> = false;
  @Property({ type: 'boolean' }) inDevelopment: Opt<boolean> = false;

  @Property({ type: 'json' })
  searchSettings!: DirectorySearchSettings;

  /** KeywordSearchOptions as the client sent it (kept and answered; the term search always reads name, keywords and short description). */
  @Property({ type: 'json', nullable: true })
  keywordSearchOptions: JsonData = null;

  /** The directory's own custom fields (free-form JSON as the client sends it). */
  @Property({ type: 'json', nullable: true })
  customFields: JsonData = null;

  /** Membership holders are listed and unlisted automatically (the directories reconcile job). */
  @Property({ type: 'boolean' })
  automaticallyAddRemoveMembers: Opt<boolean> = false;

  /** The membership types whose holders are listed (from adddirectorylistingsbymembershiptype). */
  @Property({ type: 'json' })
  membershipTypeIds: Opt<number[]> = [];

  @Property({ length: 100, nullable: true }) objectTypeId: string | null = null;
  @Property({ length: 100, nullable: true }) searchObjectTypeId: string | null = null;

  /**
   * The chapter the directory belongs to (its ChapterId: the chapter's organization contact id).
   * The only record of the link: a chapter's DirectoryId is read from here, and saving a chapter
   * with a DirectoryId writes here.
   */
  @Property({ type: 'integer', nullable: true, index: true })
  chapterId: number | null = null;

  @Property({ type: 'datetime', nullable: true })
  deletedAt: Date | null = null;
}

/** Which parts of a listing the public may see. */
export interface ListingVisibility {
  Email: boolean;
  Phone: boolean;
  Address: boolean;
  Website: boolean;
  Description: boolean;
  CustomFields: boolean;
}

export type ListingSource = 'manual' | 'membership';

/**
 * A contact listed in a directory. A removed listing keeps its row with `deletedAt` (a tombstone,
 * so `all/{modifiedsince}` reports it); adding the contact again revives it. Name, postal code and
 * coordinates are copied from the contact (and refreshed by the reconcile job) so that a search
 * reads one table through its indexes: trigram on `search_text`, the earth box on the coordinates.
 */
@Entity()
@Unique({ properties: ['directory', 'contact'] })
@Index({ properties: ['tenant', 'updatedAt'] })
@Index({ name: 'directory_listing_search_text_trgm', expression: 'create index "directory_listing_search_text_trgm" on "directory_listing" using gin ("search_text" gin_trgm_ops)' })
@Index({ name: 'directory_listing_name_lower', expression: 'create index "directory_listing_name_lower" on "directory_listing" ("directory_id", lower("name") text_pattern_ops)' })
@Index({ name: 'directory_listing_categories', expression: 'create index "directory_listing_categories" on "directory_listing" using gin ("category_item_ids" jsonb_path_ops)' })
@Index({ name: 'directory_listing_earth', expression: 'create index "directory_listing_earth" on "directory_listing" using gist (ll_to_earth("latitude", "longitude")) where "latitude" is not null' })
export class DirectoryListing extends Versioned {
  @ManyToOne(() => Directory, { deleteRule: 'cascade' })
  directory!: Directory;

  @ManyToOne(() => Contact, { deleteRule: 'cascade', index: true })
  contact!: Contact;

  @ManyToOne(() => DirectoryListingType, { nullable: true, index: true, deleteRule: 'no action' })
  listingType: DirectoryListingType | null = null;

  /**
   * The public identifier of the listing (HashedContactId): random, never derived from an id.
   * (The default is written as PostgreSQL prints it back, so schema comparison sees no change.)
   */
  @Property({ length: 32, defaultRaw: `replace((gen_random_uuid())::text, '-'::text, ''::text)`, unique: true })
  publicKey!: Opt<string>;

  /** The contact's display name when last copied. */
  @Property({ length: 200 })
  name: Opt<string> = '';

  /** Lower-cased name, keywords and short description: what a term search matches (computed by PostgreSQL, so never stale). */
  @Property({
    type: 'text',
    generated: `(lower(name || ' ' || coalesce(keywords, '') || ' ' || coalesce(short_description, ''))) stored`,
  })
  searchText?: string;

  @Property({ type: 'text', nullable: true }) shortDescription: string | null = null;
  @Property({ type: 'text', nullable: true }) description: string | null = null;
  @Property({ type: 'text', nullable: true }) bio: string | null = null;
  @Property({ type: 'text', nullable: true }) highlights: string | null = null;
  @Property({ length: 1000, nullable: true }) keywords: string | null = null;
  @Property({ length: 2048, nullable: true }) website: string | null = null;

  /** Category items (ids of the category lists' items) the listing appears under. */
  @Property({ type: 'jsonb' })
  categoryItemIds: Opt<number[]> = [];

  @Property({ type: 'json', nullable: true })
  customFields: JsonData = null;

  @Property({ type: 'json' })
  visibility!: ListingVisibility;

  /** A hidden listing is kept but never shown publicly. */
  @Property({ type: 'boolean' })
  isVisible: Opt<boolean> = true;

  /** `membership`: added by membership (and removed with it when the directory says so). */
  @Property({ type: 'string', length: 16 })
  source: Opt<ListingSource> = 'manual';

  @Property({ length: 20, nullable: true }) postalCode: string | null = null;
  @Property({ type: 'double', nullable: true }) latitude: number | null = null;
  @Property({ type: 'double', nullable: true }) longitude: number | null = null;

  @Property({ type: 'datetime', nullable: true })
  deletedAt: Date | null = null;
}

export const DEFAULT_VISIBILITY: ListingVisibility = { Email: false, Phone: true, Address: true, Website: true, Description: true, CustomFields: true };

export const DEFAULT_SEARCH_SETTINGS: DirectorySearchSettings = {
  ShowPostalCodeFilter: false, DisplayRadiusSearch: false, AlphabetizeResults: true, ShowCategoryImages: false,
  ShowRelatedContacts: false, ShowPrimaryContact: false, DefaultLayout: null,
};
