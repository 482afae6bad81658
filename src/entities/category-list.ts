import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantOwned, Versioned } from './base.js';

/**
 * The kinds of record a category list classifies (the documented CategoryTypeId, read as the
 * number or the name): its items are the categories a record of that kind can be given.
 */
export const CATEGORY_TYPES = [
  { id: 1, name: 'Contact', objectType: 'Contact' },
  { id: 2, name: 'Public contact', objectType: 'Contact' },
  { id: 3, name: 'Product', objectType: 'StoreItem' },
  { id: 4, name: 'Project', objectType: 'Project' },
  { id: 5, name: 'Certification', objectType: 'Certification' },
  { id: 6, name: 'Sales', objectType: 'SalesOpportunity' },
] as const;

export type CategoryTypeId = (typeof CATEGORY_TYPES)[number]['id'];

export const CategoryType = {
  Contact: 1, PublicContact: 2, Product: 3, Project: 4, Certification: 5, Sales: 6,
} as const satisfies Record<string, CategoryTypeId>;

/**
 * A list of categories of one category type ("Industries" for contacts, "Product categories" for
 * the store). A system list (`systemKey` set, seeded per tenant) cannot be deleted or renamed;
 * `systemKey` is unique per tenant, so seeding twice adds nothing. The flags say who sees and
 * edits a record's categories of this list and how many it must or may have.
 */
@Entity()
@Index({ properties: ['tenant', 'categoryType'] })
@Unique({ properties: ['tenant', 'systemKey'] })
export class CategoryList extends Versioned {
  @Property({ type: 'smallint' })
  categoryType!: CategoryTypeId;

  @Property({ length: 200 })
  name!: string;

  @Property({ type: 'text', nullable: true })
  description: string | null = null;

  /** Set on the lists every tenant has (IsSystem); null on the tenant's own. */
  @Property({ length: 40, nullable: true })
  systemKey: string | null = null;

  @Property({ type: 'boolean', default: true })
  isActive: Opt<boolean> = true;

  @Property({ type: 'boolean', default: false })
  isPublic: Opt<boolean> = false;

  @Property({ type: 'boolean', default: false })
  isMemberViewable: Opt<boolean> = false;

  @Property({ type: 'boolean', default: false })
  isMemberEditable: Opt<boolean> = false;

  @Property({ type: 'boolean', default: false })
  isRequired: Opt<boolean> = false;

  @Property({ type: 'integer', nullable: true })
  minQuantity: number | null = null;

  @Property({ type: 'integer', nullable: true })
  maxQuantity: number | null = null;
}

/**
 * One category of a list: what other areas (contacts, the store, directories) attach to their
 * records by id. Items are saved with their list (the list's AuditId guards them); deleting a
 * list deletes its items.
 */
@Entity()
@Index({ properties: ['list', 'sortOrder'] })
export class CategoryItem extends TenantOwned {
  @ManyToOne(() => CategoryList, { deleteRule: 'cascade' })
  list!: CategoryList;

  @Property({ length: 200 }) name!: string;
  @Property({ type: 'text', nullable: true }) description: string | null = null;
  @Property({ type: 'boolean', default: true }) isActive: Opt<boolean> = true;
  @Property({ type: 'integer', default: 0 }) sortOrder: Opt<number> = 0;
}
