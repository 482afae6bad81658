import { Entity, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { TenantOwned } from './base.js';
import { Login } from './login.js';

export type CredentialKind = 'session' | 'api_key';

/**
 * A bearer credential: a session (from a magic link, always expiring) or a named API key
 * (for partner integrations, optional expiry). Only the SHA-256 of the token is stored.
 */
@Entity()
export class Credential extends TenantOwned {

  @ManyToOne(() => Login, { deleteRule: 'cascade', index: true })
  login!: Login;

  @Property({ type: 'string', length: 16 })
  kind!: CredentialKind;

  /** An API key's name; null for sessions. */
  @Property({ length: 100, nullable: true })
  name: string | null = null;

  @Property({ length: 64, unique: true })
  tokenHash!: string;

  @Property({ type: 'datetime', nullable: true })
  expiresAt: Date | null = null;

  @Property({ type: 'datetime', nullable: true })
  revokedAt: Date | null = null;

  @Property({ type: 'datetime', nullable: true })
  lastUsedAt: Date | null = null;
}
