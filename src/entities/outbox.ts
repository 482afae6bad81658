import type { Opt } from '@mikro-orm/core';
import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { TenantOwned } from './base.js';

/** Where a message is: waiting for its delivery job, queued, sent, or failed (with `lastError`). */
export type OutboxStatus = 'pending' | 'queued' | 'sent' | 'failed';

/**
 * An e-mail to deliver, written in the transaction of the change that sends it; the e-mail
 * delivery jobs (services/mail/email-delivery.ts) send it and record how it went. Once sent, the
 * body is emptied: it may hold a credential (a sign-in link).
 */
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

  @Property({ type: 'string', length: 16 })
  status: Opt<OutboxStatus> = 'pending';

  @Property({ type: 'integer' })
  attempts: Opt<number> = 0;

  @Property({ length: 500, nullable: true })
  lastError: string | null = null;
}
