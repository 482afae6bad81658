import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { TenantOwned, Versioned } from './base.js';
import { BenefitPackage } from './benefit-package.js';
import { SaleableItem } from './commerce.js';
import { Contact } from './contact.js';
import type { CustomFieldValues } from './custom-field.js';

/** How a type's terms run: `rolling` from the day a member starts, `fixed` to the end of the tenant's period (e.g. the calendar year). */
export type MembershipPeriodType = 'rolling' | 'fixed';

/** A kind of membership a tenant sells (e.g. "Corporate", "Individual"). */
@Entity()
export class MembershipType extends Versioned {
  @Property({ length: 200 })
  name!: string;

  @Property({ type: 'text', nullable: true })
  description: string | null = null;

  @Property({ type: 'boolean' })
  isActive: Opt<boolean> = true;

  /** Days after a membership's end date it still counts as in good standing (see `good_through`). */
  @Property({ type: 'integer' })
  graceDays: Opt<number> = 0;

  /** The benefits members of this type get (a package in use cannot be deleted). */
  @ManyToOne(() => BenefitPackage, { nullable: true, index: true, deleteRule: 'no action' })
  benefitPackage: BenefitPackage | null = null;

  /** Length of a term in months; null: open-ended terms (no end date). */
  @Property({ type: 'integer', nullable: true })
  durationMonths: number | null = 12;

  @Property({ type: 'string', length: 16 })
  periodType: Opt<MembershipPeriodType> = 'rolling';

  /** A fixed period's first month (1–12) and day: periods start there every `durationMonths`. */
  @Property({ type: 'integer', nullable: true })
  fixedStartMonth: number | null = null;

  @Property({ type: 'integer', nullable: true })
  fixedStartDay: number | null = null;

  /** The price of a term (exact; null: the saleable item's price, or nothing to bill). */
  @Property({ type: 'decimal', precision: 12, scale: 2, nullable: true })
  price: string | null = null;

  /** What an invoice for a term of this type sells (its price when the type and level have none). */
  @ManyToOne(() => SaleableItem, { nullable: true, index: true, deleteRule: 'no action' })
  saleableItem: SaleableItem | null = null;
}

/** A tier within a membership type (e.g. "Gold"), ordered by `sortOrder`. */
@Entity()
export class MembershipLevel extends TenantOwned {
  @ManyToOne(() => MembershipType, { deleteRule: 'cascade', index: true })
  membershipType!: MembershipType;

  @Property({ length: 200 })
  name!: string;

  @Property({ type: 'integer' })
  sortOrder: Opt<number> = 0;

  /** The benefits members at this level get, instead of the type's (a package in use cannot be deleted). */
  @ManyToOne(() => BenefitPackage, { nullable: true, index: true, deleteRule: 'no action' })
  benefitPackage: BenefitPackage | null = null;

  /** The price of a term at this level, instead of the type's (exact; null: the type's). */
  @Property({ type: 'decimal', precision: 12, scale: 2, nullable: true })
  price: string | null = null;
}

export type MembershipStatus = 'pending' | 'active' | 'lapsed' | 'cancelled';

/** A contact's membership of a type (and optionally a level) for a period. */
@Entity()
// The dashboards compare each contact's memberships of a type in start order (new, renewed, dropped).
@Index({ properties: ['tenant', 'contact', 'membershipType', 'startDate'] })
// The list's CustomFieldFilters are containment tests (`@>`) served by this index.
@Index({ name: 'membership_custom_fields_index', expression: 'create index "membership_custom_fields_index" on "membership" using gin ("custom_fields" jsonb_path_ops)' })
export class Membership extends Versioned {

  @ManyToOne(() => Contact, { deleteRule: 'cascade', index: true })
  contact!: Contact;

  @ManyToOne(() => MembershipType, { index: true })
  membershipType!: MembershipType;

  @ManyToOne(() => MembershipLevel, { nullable: true })
  membershipLevel: MembershipLevel | null = null;

  /**
   * The first day of membership (CiviCRM's "member since"): a renewal carries it over from the
   * term it follows. Left out on insert, a database trigger (migration 0037) fills it in: the
   * join date of the contact's term of the same type that ends the day before, else the start.
   */
  @Property({ type: 'date' })
  joinDate: Opt<string> | null = null;

  @Property({ type: 'date' })
  startDate!: string;

  @Property({ type: 'date', nullable: true })
  endDate: string | null = null;

  @Property({ type: 'string', length: 16 })
  status!: MembershipStatus;

  /**
   * The last day this membership counts as in good standing: end date + the type's grace days,
   * null when open-ended. Kept by a database trigger (migration 0033) whoever writes the row;
   * read it, never write it. The one rule that uses it: `services/memberships/good-standing.ts`.
   */
  @Property({ type: 'date', nullable: true })
  goodThrough: Opt<string> | null = null;

  /** Why staff cancelled the term. */
  @Property({ length: 500, nullable: true })
  cancelReason: string | null = null;

  /** Staff set the status by hand: the lapse job leaves this row alone. */
  @Property({ type: 'boolean' })
  statusOverride: Opt<boolean> = false;

  /** The values of the tenant's custom fields for memberships, keyed by field key (services/custom-fields). */
  @Property({ type: 'json', defaultRaw: `'{}'` })
  customFields: Opt<CustomFieldValues> = {};
}
