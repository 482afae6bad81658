import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, OneToOne, Property } from '@mikro-orm/decorators/legacy';
import { TenantOwned, Versioned } from './base.js';
import { Contact, type ContactKind } from './contact.js';

/**
 * The partner's view of one of our contacts (partner synchronization): its partner identifiers,
 * the PartnerAudit fields our Contact has no column for, and the order stamps that make applying
 * the partner's transactions idempotent and order-safe.
 *
 * Order stamps: each part of the record remembers the partner's `ChangedAt` and `TransactionId`
 * of the last transaction applied to it — the record's data (`data*`), its affiliation (StateID,
 * Affiliation, parent: `affiliation*`) and its deletion (`deleted*`). A transaction changes a part
 * only when its (ChangedAt, TransactionId) is greater than that part's stamp and than the
 * deletion's, so a late, older message never overwrites newer state, whatever order they arrive in.
 *
 * `contactSyncedAt` is the contact's `updated_at` as the last partner transaction left it: a
 * contact whose `updated_at` (or `deleted_at`) is later was changed by us since, and only such
 * changes go out in the change feed, so the partner's own changes are not echoed back.
 */
@Entity()
@Index({ properties: ['tenant', 'stateId'] })
@Index({
  name: 'partner_record_tenant_id_national_id_unique',
  expression: 'create unique index "partner_record_tenant_id_national_id_unique" on "partner_record" ("tenant_id", "national_id") where "national_id" is not null',
})
export class PartnerRecord extends Versioned {
  @OneToOne(() => Contact, { owner: true, deleteRule: 'cascade', unique: true })
  contact!: Contact;

  @Property({ type: 'string', length: 16 })
  kind!: ContactKind;

  /** The partner's national identifier (unique in the tenant); null for a record only a state affiliate has sent yet. */
  @Property({ type: 'integer', nullable: true })
  nationalId: number | null = null;

  @Property({ length: 64, nullable: true })
  stateId: string | null = null;

  /** The ContactType text the partner sent (given back as sent). */
  @Property({ length: 64, nullable: true })
  contactType: string | null = null;

  @Property({ length: 200, nullable: true })
  affiliation: string | null = null;

  @Property({ type: 'integer', nullable: true })
  parentNationalId: number | null = null;

  /** The PartnerAudit fields Contact has no column for (URL, social links, extra phones, …), by documented name. */
  @Property({ type: 'json' })
  details: Opt<Record<string, string | null>> = {};

  @Property({ type: 'datetime', nullable: true })
  dataChangedAt: Date | null = null;

  @Property({ length: 100, nullable: true })
  dataTransactionId: string | null = null;

  @Property({ type: 'datetime', nullable: true })
  affiliationChangedAt: Date | null = null;

  @Property({ length: 100, nullable: true })
  affiliationTransactionId: string | null = null;

  /** The partner's ChangedAt of the last deletion it sent (kept after a newer upsert undeletes the record). */
  @Property({ type: 'datetime', nullable: true })
  deletedChangedAt: Date | null = null;

  @Property({ length: 100, nullable: true })
  deletedTransactionId: string | null = null;

  /** Whether the contact is deleted because the partner deleted it (a newer upsert undoes that; our own deletion it does not). */
  @Property({ type: 'boolean', default: false })
  deletedByPartner: Opt<boolean> = false;

  @Property({ type: 'datetime', nullable: true })
  contactSyncedAt: Date | null = null;
}

/** One period of a record's affiliation (state, affiliation, parent), from the partner's ChangedAt on: the move history. */
@Entity()
export class PartnerAffiliation extends TenantOwned {
  @ManyToOne(() => PartnerRecord, { deleteRule: 'cascade', index: true })
  record!: PartnerRecord;

  @Property({ length: 64, nullable: true })
  stateId: string | null = null;

  @Property({ length: 200, nullable: true })
  affiliation: string | null = null;

  @Property({ type: 'integer', nullable: true })
  parentNationalId: number | null = null;

  /** The partner's ChangedAt of the transaction that started this period. */
  @Property({ type: 'datetime' })
  validFrom!: Date;

  @Property({ length: 100 })
  transactionId!: string;

  /** upsert or move. */
  @Property({ length: 16 })
  cause!: string;
}

/** What became of a received partner transaction. */
export const PARTNER_OUTCOMES = ['received', 'applied', 'stale', 'duplicate', 'failed'] as const;
export type PartnerOutcome = (typeof PARTNER_OUTCOMES)[number];

/**
 * Every partner transaction received, stored before it is applied (state `received`), then
 * marked `applied`, `stale` (older than what we hold: changed nothing), `duplicate` (its
 * TransactionId was applied before: changed nothing) or `failed` (with the reason).
 */
@Entity()
@Index({ properties: ['tenant', 'transactionId'] })
@Index({ properties: ['tenant', 'createdAt'] })
export class PartnerTransactionLog extends TenantOwned {
  /** organization/upsert, person/move, … */
  @Property({ length: 32 })
  operation!: string;

  @Property({ type: 'boolean' })
  isNational!: boolean;

  @Property({ length: 100, nullable: true })
  transactionId: string | null = null;

  @Property({ type: 'datetime', nullable: true })
  changedAt: Date | null = null;

  @Property({ type: 'integer', nullable: true })
  nationalId: number | null = null;

  @Property({ length: 64, nullable: true })
  stateId: string | null = null;

  @ManyToOne(() => Contact, { nullable: true, deleteRule: 'set null', index: true })
  contact: Contact | null = null;

  @Property({ length: 16 })
  outcome!: PartnerOutcome;

  @Property({ type: 'text', nullable: true })
  reason: string | null = null;

  /** The transaction as received. */
  @Property({ type: 'json' })
  payload!: Record<string, unknown>;

  @Property({ type: 'datetime', nullable: true })
  settledAt: Date | null = null;
}
