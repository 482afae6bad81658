import { Entity, Filter, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { TenantOwned } from './base.js';

export type ContactKind = 'person' | 'organization';

/** One postal address of a contact, kept as JSON on the contact. */
export interface PostalAddress {
  kind?: string;
  line1?: string;
  line2?: string;
  city?: string;
  region?: string;
  postalCode?: string;
  country?: string;
}

/**
 * A person or an organization. Chapters are organizations with a parent organization, which
 * gives the organization hierarchy; a person's current organization is `organization`.
 * Deleting a contact only stamps `deletedAt` (the `notDeleted` filter hides it).
 */
@Entity()
@Filter({ name: 'notDeleted', cond: { deletedAt: null }, default: true })
@Index({ properties: ['tenant', 'lastName', 'firstName'] })
@Index({ name: 'contact_tenant_id_email_lower_index', expression: 'create index "contact_tenant_id_email_lower_index" on "contact" ("tenant_id", lower("email"))' })
export class Contact extends TenantOwned {

  @Property({ type: 'string', length: 16 })
  kind!: ContactKind;

  @Property({ length: 100, nullable: true })
  firstName: string | null = null;

  @Property({ length: 100, nullable: true })
  lastName: string | null = null;

  /** Organization name, or a person's display name when set. */
  @Property({ length: 200, nullable: true })
  name: string | null = null;

  @Property({ length: 100, nullable: true })
  title: string | null = null;

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

  /** Partner (national organization) identifier, used by partner synchronization. */
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

  /** Set when mail to `email` hard-bounced or was reported as spam (provider callbacks): send no more. */
  @Property({ type: 'datetime', nullable: true })
  emailSuppressedAt: Date | null = null;

  /** Why: `hard_bounce` or `spam_report`. */
  @Property({ length: 32, nullable: true })
  emailSuppressionReason: string | null = null;
}

/** The display name: an organization's name, or a person's first and last name. */
export function displayName(contact: Pick<Contact, 'kind' | 'name' | 'firstName' | 'lastName'>): string {
  if (contact.kind === 'organization' || contact.name) return contact.name ?? '';
  return [contact.firstName, contact.lastName].filter(Boolean).join(' ');
}
