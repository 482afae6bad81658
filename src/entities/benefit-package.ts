import type { Opt } from '@mikro-orm/core';
import { Entity, Index, Property } from '@mikro-orm/decorators/legacy';
import { Versioned } from './base.js';

/** One benefit of a package (what a member gets), kept with the package. */
export interface BenefitItem {
  BenefitItemId: number;
  Name: string;
  Description: string | null;
  /** An inactive item stays on the package for the record but is not offered (nor copied as active). */
  IsActive: boolean;
}

/**
 * A package of member benefits, assigned to membership types and levels (their
 * `benefitPackage`), active between two optional dates. `nameKey` is the name folded for the
 * likely-duplicate check.
 */
@Entity()
@Index({ properties: ['tenant', 'nameKey'] })
export class BenefitPackage extends Versioned {
  @Property({ length: 200 })
  name!: string;

  @Property({ length: 200 })
  nameKey!: string;

  @Property({ type: 'text', nullable: true })
  description: string | null = null;

  @Property({ type: 'date', nullable: true })
  activeFrom: string | null = null;

  @Property({ type: 'date', nullable: true })
  activeTo: string | null = null;

  @Property({ type: 'json' })
  items: Opt<BenefitItem[]> = [];
}

/** The likely-duplicate form of a package name: case and all whitespace ignored. */
export function benefitPackageNameKey(name: string): string {
  return name.replace(/\s+/g, '').toLowerCase();
}
