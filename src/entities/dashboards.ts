import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { Versioned } from './base.js';
import { Contact } from './contact.js';
import { Login } from './login.js';

/*
 * The records the dashboard's project and sales widgets count. The documents describe only the
 * widgets, not these records, so they are small and managed through GraphQL only (staff).
 */

export const PROJECT_STATUSES = ['planned', 'active', 'completed', 'cancelled'] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];

/** A piece of work the association's staff run (a campaign, an event build, a website). */
@Entity({ tableName: 'dashboard_project' })
@Index({ properties: ['tenant', 'startDate'] })
@Index({ properties: ['tenant', 'completedDate'] })
export class DashboardProject extends Versioned {
  @Property({ length: 200 })
  name!: string;

  @Property({ type: 'text', nullable: true })
  description: string | null = null;

  @Property({ type: 'string', length: 16 })
  status: Opt<ProjectStatus> = 'planned';

  /** When the project began (the "new projects" widgets count by it). */
  @Property({ type: 'date' })
  startDate!: string;

  @Property({ type: 'date', nullable: true })
  dueDate: string | null = null;

  /** Set exactly when the status is `completed` (the "completed" widgets count by it). */
  @Property({ type: 'date', nullable: true })
  completedDate: string | null = null;

  /** The staff login responsible. */
  @ManyToOne(() => Login, { nullable: true, deleteRule: 'set null', index: true })
  manager: Login | null = null;
}

export const SALES_STAGES = ['lead', 'qualified', 'proposal', 'negotiation', 'won', 'lost'] as const;
export type SalesStage = (typeof SALES_STAGES)[number];
/** The stages of an opportunity still being worked. */
export const OPEN_SALES_STAGES: readonly SalesStage[] = ['lead', 'qualified', 'proposal', 'negotiation'];

/** A prospective sale (sponsorship, exhibit space, advertising, a corporate membership) and who works it. */
@Entity({ tableName: 'dashboard_sales_opportunity' })
@Index({ properties: ['tenant', 'stage', 'closedDate'] })
export class DashboardSalesOpportunity extends Versioned {
  @Property({ length: 200 })
  name!: string;

  /** The prospect. */
  @ManyToOne(() => Contact, { nullable: true, deleteRule: 'set null', index: true })
  contact: Contact | null = null;

  /** The sales person: a login of the tenant. */
  @ManyToOne(() => Login, { nullable: true, deleteRule: 'set null', index: true })
  salesPerson: Login | null = null;

  @Property({ type: 'string', length: 16 })
  stage: Opt<SalesStage> = 'lead';

  /** The expected (open) or agreed (won) value. */
  @Property({ type: 'decimal', precision: 12, scale: 2 })
  amount!: string;

  @Property({ type: 'date' })
  openedDate!: string;

  /** Set exactly when the stage is `won` or `lost`. */
  @Property({ type: 'date', nullable: true })
  closedDate: string | null = null;
}
