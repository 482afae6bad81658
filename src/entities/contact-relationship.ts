import type { Opt } from '@mikro-orm/core';
import { Entity, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import { Versioned } from './base.js';
import { Contact } from './contact.js';

/**
 * A person's relationship with an organization (both contacts): the person's role there, and
 * whether the person is the organization's primary contact. One relationship per pair; at most
 * one primary contact per organization — a partial unique index, and every change of the primary
 * runs under a lock on the organization's contact row (services/relationships/relationships.ts).
 * A person's current organization stays `contact.organization`, which these relationships set.
 */
@Entity()
@Unique({ properties: ['person', 'organization'] })
@Unique({
  name: 'contact_relationship_one_primary',
  expression: 'create unique index "contact_relationship_one_primary" on "contact_relationship" ("organization_id") where "is_primary"',
})
export class ContactRelationship extends Versioned {
  @ManyToOne(() => Contact, { deleteRule: 'cascade' })
  person!: Contact;

  @ManyToOne(() => Contact, { deleteRule: 'cascade', index: true })
  organization!: Contact;

  /** The person's role at the organization ("Owner", "Billing contact", ...): BillingContactInfo.ContactRoles. */
  @Property({ length: 100, nullable: true })
  role: string | null = null;

  @Property({ type: 'boolean', default: false })
  isPrimary: Opt<boolean> = false;
}
