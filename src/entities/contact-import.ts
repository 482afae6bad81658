import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantOwned } from './base.js';
import { Contact } from './contact.js';
import { StoredFile } from './file.js';
import { Login } from './login.js';

export type ContactImportState = 'uploaded' | 'queued' | 'running' | 'completed' | 'cancelled' | 'failed';

/**
 * One uploaded file of people, organizations and memberships to import (services/imports): its
 * preview (headers, first rows, row count — read while the upload streamed in), the mapping and
 * key a start chose, and the run's checkpoint. `rowsDone` moves in the same transaction as each
 * batch's writes, so a run cut off anywhere resumes after the last committed row. A dry run and
 * the import itself are runs of the same row (`dryRun` says which ran last).
 */
@Entity()
@Index({ properties: ['state', 'enqueuedAt'] })
export class ContactImport extends TenantOwned {
  @ManyToOne(() => StoredFile)
  file!: StoredFile;

  @ManyToOne(() => Login, { nullable: true, deleteRule: 'set null' })
  requestedBy: Login | null = null;

  @Property({ length: 255 })
  fileName!: string;

  @Property({ type: 'string', length: 1 })
  delimiter!: string;

  @Property({ type: 'json' })
  headers!: string[];

  /** The first rows, as read, for the preview. */
  @Property({ type: 'json' })
  sampleRows!: string[][];

  /** Data rows of the file (the header row not counted). */
  @Property({ type: 'integer' })
  rowsTotal!: number;

  @Property({ type: 'string', length: 16 })
  state: Opt<ContactImportState> = 'uploaded';

  @Property({ type: 'boolean' })
  dryRun: Opt<boolean> = false;

  /** Column header → field, as the last start gave it. */
  @Property({ type: 'json', nullable: true })
  mapping: Record<string, string> | null = null;

  @Property({ type: 'string', length: 16, nullable: true })
  matchOn: string | null = null;

  /** The checkpoint: data rows settled by committed batches. */
  @Property({ type: 'integer' })
  rowsDone: Opt<number> = 0;

  @Property({ type: 'integer' })
  created: Opt<number> = 0;

  @Property({ type: 'integer' })
  updated: Opt<number> = 0;

  @Property({ type: 'integer' })
  unchanged: Opt<number> = 0;

  @Property({ type: 'integer' })
  rejected: Opt<number> = 0;

  @Property({ type: 'integer' })
  attempts: Opt<number> = 0;

  @Property({ type: 'text', nullable: true })
  error: string | null = null;

  @Property({ type: 'datetime', nullable: true })
  enqueuedAt: Date | null = null;

  @Property({ type: 'datetime', nullable: true })
  startedAt: Date | null = null;

  @Property({ type: 'datetime', nullable: true })
  finishedAt: Date | null = null;
}

export type ImportRowOutcome = 'created' | 'updated' | 'unchanged' | 'rejected';

/**
 * The outcome of one data row of a run: every row of a dry run, the rejected rows of an import
 * (with their cells as read, for the report of rejected rows). Unique per import, run kind and
 * row, so a batch replayed after a restart writes each outcome once.
 */
@Entity()
@Unique({ properties: ['contactImport', 'dryRun', 'rowNumber'] })
export class ContactImportRow extends TenantOwned {
  @ManyToOne(() => ContactImport, { deleteRule: 'cascade' })
  contactImport!: ContactImport;

  @Property({ type: 'boolean' })
  dryRun!: boolean;

  /** 1 is the first data row (the header row is not counted). */
  @Property({ type: 'integer' })
  rowNumber!: number;

  @Property({ type: 'string', length: 16 })
  outcome!: ImportRowOutcome;

  @Property({ type: 'text', nullable: true })
  reason: string | null = null;

  @Property({ type: 'integer', nullable: true })
  contactId: number | null = null;

  @Property({ type: 'json', nullable: true })
  cells: string[] | null = null;
}

/**
 * A contact's identifier in the system it was imported from (unique per tenant): what an import
 * matching on ExternalId finds, and what the export writes back.
 */
@Entity()
@Unique({ properties: ['tenant', 'externalId'] })
export class ContactExternalId extends TenantOwned {
  @ManyToOne(() => Contact, { deleteRule: 'cascade', unique: true })
  contact!: Contact;

  @Property({ length: 100 })
  externalId!: string;
}

/**
 * A contact as a dry run would have left it so far (migration 0049): a real contact it changed
 * (`contactId` its id), or one it would have created (a negative id of the dry run's own). `state`
 * is services/imports/dry-run.ts's; the key columns are what a later batch looks it up by.
 */
@Entity()
@Unique({ properties: ['contactImport', 'contactId'] })
export class ContactImportDryContact extends TenantOwned {
  @ManyToOne(() => ContactImport, { deleteRule: 'cascade' })
  contactImport!: ContactImport;

  @Property({ type: 'integer' })
  contactId!: number;

  @Property({ length: 100, nullable: true })
  externalId: string | null = null;

  @Property({ length: 64, nullable: true })
  nationalId: string | null = null;

  @Property({ length: 254, nullable: true })
  emailKey: string | null = null;

  @Property({ length: 200, nullable: true })
  organizationKey: string | null = null;

  @Property({ type: 'json' })
  state!: unknown;
}
