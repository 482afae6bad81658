import { Collection, type Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, OneToMany, Property, Unique } from '@mikro-orm/decorators/legacy';
import { Versioned, TenantOwned } from './base.js';
import { Contact } from './contact.js';
import { StoredFile } from './file.js';
import { Login } from './login.js';

/** What a custom report reports on (a report's reportTypeId). */
export const REPORT_TYPES = ['contacts', 'memberships', 'event-registrations'] as const;

/**
 * A report of the tenant's catalog (the documented ReportCollection). System reports are seeded
 * per tenant under a `systemKey` (unique per tenant, so seeding twice adds nothing) and cannot be
 * deleted; custom reports are added by staff, private to their creator when `isPrivateForUser`.
 * `reportTypeId` says what running the report produces (see services/reporting/report-sources.ts).
 */
@Entity()
@Unique({ properties: ['tenant', 'systemKey'] })
@Index({ properties: ['tenant', 'name'] })
export class Report extends Versioned {
  @Property({ length: 64, nullable: true })
  systemKey: string | null = null;

  @Property({ length: 200 })
  name!: string;

  @Property({ type: 'text', nullable: true })
  description: string | null = null;

  @Property({ length: 64 })
  reportTypeId!: string;

  @Property({ length: 64 })
  categoryId!: string;

  @Property({ type: 'boolean' })
  isSystem: Opt<boolean> = false;

  @Property({ type: 'boolean' })
  isPrivateForUser: Opt<boolean> = false;

  /** A report about one contact (offered on the contact record: contactreports). */
  @Property({ type: 'boolean' })
  appliesToContact: Opt<boolean> = false;

  @ManyToOne(() => Login, { nullable: true, deleteRule: 'set null' })
  createdBy: Login | null = null;

  @Property({ type: 'datetime', nullable: true })
  lastUsed: Date | null = null;

  /** Who marked it a favorite (for the IsFavorite criteria: no column). */
  @OneToMany(() => ReportFavorite, (favorite) => favorite.report)
  favorites = new Collection<ReportFavorite>(this);
}

/** A report a login marked as a favorite (one row per report and login). */
@Entity()
@Unique({ properties: ['report', 'login'] })
export class ReportFavorite extends TenantOwned {
  @ManyToOne(() => Report, { deleteRule: 'cascade' })
  report!: Report;

  @ManyToOne(() => Login, { deleteRule: 'cascade', index: true })
  login!: Login;
}

export type ReportRunState = 'queued' | 'running' | 'completed' | 'failed';

/**
 * One run of a report: stored `queued` by the request, queued as a pg-boss job by the worker's
 * pump (`enqueuedAt`), then `running` with its progress, `completed` with the CSV file, or
 * `failed` after its last attempt.
 */
@Entity()
@Index({ properties: ['state', 'enqueuedAt'] })
export class ReportRun extends TenantOwned {
  @ManyToOne(() => Report, { deleteRule: 'cascade', index: true })
  report!: Report;

  @ManyToOne(() => Login, { nullable: true, deleteRule: 'set null' })
  requestedBy: Login | null = null;

  /** For a report about one contact: that contact. */
  @ManyToOne(() => Contact, { nullable: true, deleteRule: 'cascade' })
  contact: Contact | null = null;

  @Property({ type: 'string', length: 16 })
  state: Opt<ReportRunState> = 'queued';

  /** Percent done, 0 to 100. */
  @Property({ type: 'integer' })
  progress: Opt<number> = 0;

  @Property({ type: 'integer', nullable: true })
  rowsTotal: number | null = null;

  @Property({ type: 'integer' })
  rowsWritten: Opt<number> = 0;

  /** Rows that could not be written (a poison row is skipped and counted, not fatal). */
  @Property({ type: 'integer' })
  rowsSkipped: Opt<number> = 0;

  @Property({ type: 'integer' })
  attempts: Opt<number> = 0;

  @Property({ type: 'text', nullable: true })
  error: string | null = null;

  @ManyToOne(() => StoredFile, { nullable: true })
  file: StoredFile | null = null;

  @Property({ type: 'datetime', nullable: true })
  enqueuedAt: Date | null = null;

  @Property({ type: 'datetime', nullable: true })
  startedAt: Date | null = null;

  @Property({ type: 'datetime', nullable: true })
  finishedAt: Date | null = null;
}
