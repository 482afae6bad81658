import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { TenantOwned } from './base.js';
import { Contact } from './contact.js';

/**
 * An e-mail signature of one person (its owner, `contact`). `signatureHtml` is stored already
 * sanitized (services/signatures/signature-html.ts), so every read can hand it out as it is.
 */
@Entity()
@Index({ properties: ['tenant', 'contact'] })
export class Signature extends TenantOwned {
  @Property({ length: 200 })
  name!: string;

  @ManyToOne(() => Contact, { deleteRule: 'cascade' })
  contact!: Contact;

  @Property({ type: 'text', nullable: true })
  signatureHtml: string | null = null;
}
