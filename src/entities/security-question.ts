import type { Opt } from '@mikro-orm/core';
import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

/** A question offered for account recovery; shared by all tenants. */
@Entity()
export class SecurityQuestion {
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @Property({ length: 200 })
  name!: string;

  @Property({ type: 'integer' })
  sortOrder: Opt<number> = 0;
}
