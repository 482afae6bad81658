import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { TenantOwned } from './base.js';

/** A message waiting to be delivered (e-mail). Nothing here sends mail yet; a sender drains it. */
@Entity()
export class OutboxMessage extends TenantOwned {

  @Property({ length: 32 })
  channel!: 'email';

  @Property({ length: 254 })
  recipient!: string;

  @Property({ length: 200 })
  subject!: string;

  @Property({ type: 'text' })
  body!: string;

  @Property({ type: 'datetime', nullable: true })
  sentAt: Date | null = null;
}
