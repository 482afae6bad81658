import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { Credential } from './credential.js';
import { Tenant } from './tenant.js';

/*
 * What guards requests across instances lives in PostgreSQL, so that every instance of the
 * service shares it: rate-limit counters and idempotency records. Both are read and written with
 * plain SQL on the hot path (src/core/requests/rate-limit.ts, src/core/requests/idempotency.ts); these entities
 * exist for the schema and its migration.
 */

/** Requests one bucket (e.g. a client address on public operations) made in one fixed window. */
@Entity()
export class RateLimitWindow {
  @PrimaryKey({ length: 200 })
  bucket!: string;

  @PrimaryKey({ type: 'datetime' })
  windowStart!: Date;

  @Property({ type: 'integer' })
  count!: number;
}

/**
 * `open`: no response kept yet — whoever holds the record's row lock is running the request, and
 * an unlocked open record is free to run (`running`: the same, as records made before that rule
 * say it); `done`: the response is kept.
 */
export type IdempotencyState = 'open' | 'running' | 'done';

/**
 * The first response to a write sent with an `Idempotency-Key`, per tenant, credential and key,
 * replayed for repeats within 24 hours (Stripe's model). `requestHash` tells a repeat from a
 * different request under the same key (422).
 */
@Entity()
@Unique({ properties: ['tenant', 'credential', 'key'] })
@Index({ properties: ['createdAt'] })
export class IdempotencyRecord {
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @ManyToOne(() => Tenant, { deleteRule: 'cascade' })
  tenant!: Tenant;

  @ManyToOne(() => Credential, { deleteRule: 'cascade', index: true })
  credential!: Credential;

  @Property({ length: 255 })
  key!: string;

  @Property({ length: 64 })
  requestHash!: string;

  @Property({ type: 'string', length: 16 })
  state!: IdempotencyState;

  @Property({ type: 'integer', nullable: true })
  statusCode: number | null = null;

  @Property({ type: 'text', nullable: true })
  responseBody: string | null = null;

  @Property({ length: 100, nullable: true })
  contentType: string | null = null;

  @Property({ type: 'datetime', defaultRaw: 'now()' })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'datetime', defaultRaw: 'now()' })
  updatedAt: Opt<Date> = new Date();
}
