import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { TenantOwned } from './base.js';
import { Login } from './login.js';

/** A single-use sign-in link token; only its SHA-256 is stored. */
@Entity()
export class MagicLinkToken extends TenantOwned {

  @ManyToOne(() => Login, { deleteRule: 'cascade', index: true })
  login!: Login;

  @Property({ length: 64, unique: true })
  tokenHash!: string;

  /** Which portal the link signs in to (the `type` of requestmagiclink). */
  @Property({ length: 32 })
  loginType!: string;

  @Property({ type: 'datetime' })
  expiresAt!: Date;

  @Property({ type: 'datetime', nullable: true })
  usedAt: Date | null = null;
}

/**
 * One magic-link request for one address, known or not (keyed by the address's SHA-256, so
 * unknown addresses are not kept in clear). Used for the per-address rate limit.
 */
@Entity()
@Index({ properties: ['addressHash', 'requestedAt'] })
export class SignInRequest {

  @PrimaryKey({ autoincrement: true })
  id!: number;

  @Property({ length: 64 })
  addressHash!: string;

  @Property({ type: 'datetime', defaultRaw: 'now()' })
  requestedAt: Opt<Date> = new Date();
}
