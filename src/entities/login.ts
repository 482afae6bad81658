import { Entity, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantOwned } from './base.js';
import { Contact } from './contact.js';

/** `partner`: a login whose API key an external partner uses for partner synchronization (/api/partnersync). */
export const ROLES = ['staff', 'member', 'partner'] as const;
export type Role = (typeof ROLES)[number];

/** Someone who can sign in to one tenant. E-mail addresses are stored lower-case. */
@Entity()
@Unique({ properties: ['tenant', 'email'] })
export class Login extends TenantOwned {

  @Property({ length: 254 })
  email!: string;

  @ManyToOne(() => Contact, { nullable: true, deleteRule: 'set null' })
  contact: Contact | null = null;

  @Property({ type: 'text[]' })
  roles!: Role[];

  @Property({ type: 'datetime', nullable: true })
  lastSignInAt: Date | null = null;

  /** Set when the login may no longer sign in (its contact was archived); its credentials were revoked then. */
  @Property({ type: 'datetime', nullable: true })
  disabledAt: Date | null = null;
}
