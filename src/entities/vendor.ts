import { Entity, Index, Property } from '@mikro-orm/decorators/legacy';
import { Versioned } from './base.js';

/** A supplier the association works with. `nameKey` is the name folded for duplicate checks. */
@Entity()
@Index({ properties: ['tenant', 'nameKey'] })
export class Vendor extends Versioned {
  @Property({ length: 200 })
  name!: string;

  @Property({ length: 200 })
  nameKey!: string;

  @Property({ length: 2048, nullable: true })
  websiteUrl: string | null = null;
}

/** The duplicate-check form of a vendor name: case and all whitespace ignored. */
export function vendorNameKey(name: string): string {
  return name.replace(/\s+/g, '').toLowerCase();
}
