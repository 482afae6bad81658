import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, OneToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantOwned, Versioned } from './base.js';
import { Calendar } from './calendar.js';
import { Contact } from './contact.js';

/**
 * The chapter settings of an organization contact (one-to-one). A chapter is an organization
 * `Contact` whose `parent` is the tenant's top-level organization or another chapter; its id —
 * the documented ChapterId, also the calendars' GroupId — is the contact's id.
 *
 * The tenant's top-level organization is the organization contact whose Chapter row has
 * `isTopLevel` (at most one per tenant: a partial unique index); it has no parent and is made on
 * demand, named after the tenant, the first time the hierarchy is needed.
 *
 * `name` repeats the contact's name (both written by the chapter save) so that lists order by
 * it; `nameKey` and `numberKey` are the folded forms the likely-duplicate rule compares.
 */
@Entity()
@Index({ properties: ['tenant', 'nameKey'] })
@Index({ properties: ['tenant', 'numberKey'] })
@Unique({ name: 'chapter_one_top_level_per_tenant', expression: 'create unique index "chapter_one_top_level_per_tenant" on "chapter" ("tenant_id") where "is_top_level"' })
export class Chapter extends Versioned {
  @OneToOne(() => Contact, { owner: true, deleteRule: 'cascade' })
  contact!: Contact;

  @Property({ type: 'boolean', default: false })
  isTopLevel: Opt<boolean> = false;

  @Property({ length: 200 })
  name!: string;

  @Property({ length: 200 })
  nameKey!: string;

  @Property({ length: 50, nullable: true })
  number: string | null = null;

  @Property({ length: 50, nullable: true })
  numberKey: string | null = null;

  @Property({ type: 'text', nullable: true })
  description: string | null = null;

  /** The documented OrganizationContactId: the person who is the chapter's main contact. */
  @ManyToOne(() => Contact, { nullable: true, deleteRule: 'set null', index: true })
  organizationContact: Contact | null = null;

  @ManyToOne(() => Calendar, { nullable: true, deleteRule: 'set null', index: true })
  primaryCalendar: Calendar | null = null;

  @Property({ type: 'text', nullable: true })
  calendarDescription: string | null = null;

  /** Groups belong to an area not built yet: their ids are kept as given. (The chapter's directory is `directory.chapter_id`.) */
  @Property({ length: 64, nullable: true })
  groupTypeId: string | null = null;

  @Property({ length: 64, nullable: true })
  primaryGroupId: string | null = null;

  @Property({ length: 64, nullable: true })
  paymentGatewayId: string | null = null;

  @Property({ length: 64, nullable: true })
  paymentGatewayType: string | null = null;

  /** Contact ids of the chapter's owners (people who administer it). */
  @Property({ type: 'json' })
  owners: Opt<number[]> = [];

  /** Postal codes whose contacts `assignzipcodes` links to this chapter (normalized: upper case, no spaces). */
  @Property({ type: 'json' })
  postalCodes: Opt<string[]> = [];

  @Property({ type: 'boolean', default: false })
  isDefaultPostalCodeEmpty: Opt<boolean> = false;

  @Property({ type: 'json', nullable: true })
  affiliateTenant: Opt<Record<string, unknown>> | null = null;

  @Property({ type: 'boolean', default: false })
  allowChapterTenantEditing: Opt<boolean> = false;
}

/**
 * A contact's membership of a chapter (the contact-chapter link). At most one link per contact is
 * primary — a partial unique index — and every change of the primary runs under a lock on the
 * contact's row, so a contact with links always has exactly one primary.
 */
@Entity()
@Unique({ properties: ['contact', 'chapter'] })
@Unique({ name: 'contact_chapter_one_primary', expression: 'create unique index "contact_chapter_one_primary" on "contact_chapter" ("contact_id") where "is_primary"' })
export class ContactChapter extends TenantOwned {
  @ManyToOne(() => Contact, { deleteRule: 'cascade' })
  contact!: Contact;

  /** The chapter's organization contact. */
  @ManyToOne(() => Contact, { deleteRule: 'cascade', index: true })
  chapter!: Contact;

  @Property({ type: 'boolean', default: false })
  isPrimary: Opt<boolean> = false;
}

export type ZipCodeRunState = 'queued' | 'running' | 'completed' | 'failed';

/**
 * One run of `contactchapter/assignzipcodes`: its progress, kept so staff can follow it and so a
 * restarted job resumes after `lastContactId`.
 */
@Entity()
@Index({ properties: ['tenant', 'createdAt'] })
export class ChapterZipCodeRun extends TenantOwned {
  @Property({ type: 'string', length: 16 })
  state: Opt<ZipCodeRunState> = 'queued';

  @Property({ type: 'integer', default: 0 })
  totalContacts: Opt<number> = 0;

  @Property({ type: 'integer', default: 0 })
  processedContacts: Opt<number> = 0;

  @Property({ type: 'integer', default: 0 })
  linksCreated: Opt<number> = 0;

  @Property({ type: 'integer', default: 0 })
  primariesSet: Opt<number> = 0;

  @Property({ type: 'integer', default: 0 })
  failedContacts: Opt<number> = 0;

  /** The first contacts that could not be processed (at most 100), for a look by staff. */
  @Property({ type: 'json' })
  failedContactIds: Opt<number[]> = [];

  /** Contacts up to this id are done (the job resumes after it). */
  @Property({ type: 'integer', default: 0 })
  lastContactId: Opt<number> = 0;

  @Property({ type: 'text', nullable: true })
  error: string | null = null;

  @Property({ type: 'datetime', nullable: true })
  finishedAt: Date | null = null;
}
