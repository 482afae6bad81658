import { Entity, Filter, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { Versioned } from './base.js';
import type { CustomFieldValues } from './custom-field.js';

export type ContactKind = 'person' | 'organization';

/** One postal address of a contact, kept as JSON on the contact. */
export interface PostalAddress {
  kind?: string;
  /** The contact's primary address (staff-managed contacts keep it first in the list). */
  isPrimary?: boolean;
  line1?: string;
  line2?: string;
  city?: string;
  region?: string;
  postalCode?: string;
  country?: string;
}

/** One e-mail address of a contact (the primary one is also `email`). */
export interface ContactEmail {
  address: string;
  kind: string | null;
  isPrimary: boolean;
}

/** One phone number of a contact (the primary one is also `phone`). */
export interface ContactPhone {
  number: string;
  kind: string | null;
  isPrimary: boolean;
}

/** One website of a contact. */
export interface ContactWebsite {
  url: string;
  kind: string | null;
  isPrimary: boolean;
}

/** NationalID is unique among a tenant's live contacts (an archived contact's may be taken by another; restoring it then is a 409). */
export const NATIONAL_ID_UNIQUE = 'create unique index "contact_national_id_unique" on "contact" ("tenant_id", "national_id") where "national_id" is not null and "deleted_at" is null';

/**
 * A person or an organization. Chapters are organizations with a parent organization, which
 * gives the organization hierarchy; a person's current organization is `organization`.
 * Deleting a contact only stamps `deletedAt` (the `notDeleted` filter hides it): staff call it
 * archiving (services/contacts). `auditId` moves on with every change, whoever makes it; code that
 * updates a contact by SQL bumps it too.
 */
@Entity()
@Filter({ name: 'notDeleted', cond: { deletedAt: null }, default: true })
@Index({ properties: ['tenant', 'lastName', 'firstName'] })
@Index({ name: 'contact_tenant_id_email_lower_index', expression: 'create index "contact_tenant_id_email_lower_index" on "contact" ("tenant_id", lower("email"))' })
@Index({ name: 'contact_national_id_unique', expression: NATIONAL_ID_UNIQUE })
@Index({ name: 'contact_person_name_index', expression: 'create index "contact_person_name_index" on "contact" ("tenant_id", lower(trim("last_name")), lower(trim("first_name"))) where "deleted_at" is null' })
@Index({ name: 'contact_organization_name_index', expression: 'create index "contact_organization_name_index" on "contact" ("tenant_id", lower(trim("name"))) where "deleted_at" is null' })
// The lists' CustomFieldFilters are containment tests (`@>`) served by this index.
@Index({ name: 'contact_custom_fields_index', expression: 'create index "contact_custom_fields_index" on "contact" using gin ("custom_fields" jsonb_path_ops)' })
export class Contact extends Versioned {

  @Property({ type: 'string', length: 16 })
  kind!: ContactKind;

  @Property({ length: 100, nullable: true })
  firstName: string | null = null;

  @Property({ length: 100, nullable: true })
  lastName: string | null = null;

  @Property({ length: 20, nullable: true })
  prefix: string | null = null;

  @Property({ length: 100, nullable: true })
  middleName: string | null = null;

  @Property({ length: 40, nullable: true })
  suffix: string | null = null;

  /** Organization name, or a person's display name when set. */
  @Property({ length: 200, nullable: true })
  name: string | null = null;

  @Property({ length: 100, nullable: true })
  title: string | null = null;

  @Property({ length: 200, nullable: true })
  jobTitle: string | null = null;

  @Property({ length: 254, nullable: true })
  email: string | null = null;

  @Property({ length: 254, nullable: true })
  secondaryEmail: string | null = null;

  @Property({ length: 40, nullable: true })
  phone: string | null = null;

  @Property({ length: 40, nullable: true })
  mobilePhone: string | null = null;

  @Property({ type: 'json', nullable: true })
  addresses: PostalAddress[] | null = null;

  /** Every e-mail address, the primary one included (null: only `email`, as other areas write it). */
  @Property({ type: 'json', nullable: true })
  emails: ContactEmail[] | null = null;

  /** Every phone number, the primary one included (null: only `phone`/`mobilePhone`). */
  @Property({ type: 'json', nullable: true })
  phones: ContactPhone[] | null = null;

  @Property({ type: 'json', nullable: true })
  websites: ContactWebsite[] | null = null;

  @Property({ type: 'boolean', default: false })
  isTaxExempt: Opt<boolean> = false;

  @Property({ length: 64, nullable: true })
  taxExemptNumber: string | null = null;

  /** Partner (national organization) identifier, used by partner synchronization; unique among the tenant's live contacts. */
  @Property({ length: 64, nullable: true })
  nationalId: string | null = null;

  /** State-level partner identifier. */
  @Property({ length: 64, nullable: true })
  stateId: string | null = null;

  @Property({ length: 2048, nullable: true })
  logoUrl: string | null = null;

  @Property({ length: 500, nullable: true })
  logoShortDescription: string | null = null;

  /** Parent organization: for a chapter, the organization it belongs to. */
  @ManyToOne(() => Contact, { nullable: true, deleteRule: 'set null', index: true })
  parent: Contact | null = null;

  /** A person's current organization. */
  @ManyToOne(() => Contact, { nullable: true, deleteRule: 'set null', index: true })
  organization: Contact | null = null;

  @Property({ type: 'datetime', nullable: true })
  deletedAt: Date | null = null;

  /** The values of the tenant's custom fields for people or organizations, keyed by field key (services/custom-fields). */
  @Property({ type: 'json', defaultRaw: `'{}'` })
  customFields: Opt<CustomFieldValues> = {};

  /** Set when mail to `email` hard-bounced or was reported as spam (provider callbacks): send no more. */
  @Property({ type: 'datetime', nullable: true })
  emailSuppressedAt: Date | null = null;

  /** Why: `hard_bounce` or `spam_report`. */
  @Property({ length: 32, nullable: true })
  emailSuppressionReason: string | null = null;

  /** What the staff list orders by: the organization's (or display) name, else last and first name, lower case (computed by PostgreSQL). */
  @Property({ type: 'text', generated: `(lower(coalesce(nullif(name, ''), coalesce(last_name, '') || ' ' || coalesce(first_name, '')))) stored` })
  sortName?: string;

  /** What the staff list's Filter matches: names and the primary e-mail, lower case (computed by PostgreSQL). */
  @Property({
    type: 'text',
    generated: `(lower(coalesce(name, '') || ' ' || coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(email, ''))) stored`,
  })
  searchText?: string;
}

/** The display name: an organization's name, or a person's first and last name. */
export function displayName(contact: Pick<Contact, 'kind' | 'name' | 'firstName' | 'lastName'>): string {
  if (contact.kind === 'organization' || contact.name) return contact.name ?? '';
  return [contact.firstName, contact.lastName].filter(Boolean).join(' ');
}
