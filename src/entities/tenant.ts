import type { Opt } from '@mikro-orm/core';
import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

/** An association (customer of the platform). Its `key` is the public, URL-safe name of the tenant. */
@Entity()
export class Tenant {

  @PrimaryKey({ autoincrement: true })
  id!: number;

  @Property({ length: 64, unique: true })
  key!: string;

  @Property({ length: 200 })
  name!: string;

  /** The tenant's primary domain (member portal host name). */
  @Property({ length: 253, nullable: true })
  domain: string | null = null;

  @Property({ length: 2048, nullable: true })
  logoUrl: string | null = null;

  @Property({ length: 500, nullable: true })
  logoShortDescription: string | null = null;

  @Property({ type: 'datetime', defaultRaw: 'now()' })
  createdAt: Opt<Date> = new Date();
}
