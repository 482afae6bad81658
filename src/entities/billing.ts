import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantOwned, Versioned } from './base.js';
import { SaleableItem } from './commerce.js';
import { Contact } from './contact.js';
import { StoredFile } from './file.js';
import { Membership, MembershipType } from './membership.js';

/*
 * The billing area: scheduled billing of memberships (schedules, runs and their per-item
 * results, run result downloads), payment gateway accounts with their imported transactions,
 * and payment plans of membership types. Money is numeric(12,2), strings in JavaScript.
 */

export const SCHEDULE_STATUSES = ['active', 'paused', 'ended'] as const;
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];

/**
 * A recurring bill: `amount` of `saleableItem` to `contact` every `frequencyMonths`, next on
 * `nextBillDate`, usually for a membership (absent: a schedule with no membership). Staff keep
 * schedules with `saveBillingSchedule` (services/billing/billing-schedules.ts); a billing run
 * moves `nextBillDate` on (and the version with it). `categoryItemId` (restrict) and `eventId`
 * (set null) are keys, read as plain ids (migration 0036); `groupId` names a contact group, which
 * has no table yet.
 */
@Entity()
@Index({ properties: ['tenant', 'nextBillDate'] })
export class ScheduledBilling extends Versioned {
  @ManyToOne(() => Contact, { index: true, deleteRule: 'cascade' })
  contact!: Contact;

  @ManyToOne(() => Membership, { nullable: true, index: true, deleteRule: 'set null' })
  membership: Membership | null = null;

  @ManyToOne(() => SaleableItem, { index: true, deleteRule: 'no action' })
  saleableItem!: SaleableItem;

  @Property({ length: 500 })
  description!: string;

  @Property({ type: 'decimal', precision: 12, scale: 2 })
  amount!: string;

  @Property({ type: 'integer' })
  frequencyMonths: Opt<number> = 12;

  @Property({ type: 'date' })
  startDate!: string;

  @Property({ type: 'date' })
  nextBillDate!: string;

  @Property({ type: 'string', length: 16 })
  status: Opt<ScheduleStatus> = 'active';

  /** The stored payment method the gateway charges (a token reference, never card data); null: billed by invoice only. */
  @Property({ length: 200, nullable: true })
  paymentProfile: string | null = null;

  @Property({ type: 'integer', nullable: true })
  groupId: number | null = null;

  @Property({ type: 'integer', nullable: true })
  categoryItemId: number | null = null;

  @Property({ type: 'integer', nullable: true })
  eventId: number | null = null;

  @Property({ type: 'json' })
  tags: Opt<string[]> = [];
}

export const RUN_STATES = ['queued', 'running', 'completed', 'failed'] as const;
export type RunState = (typeof RUN_STATES)[number];

/** What a run was asked to do (the documented ScheduledBillingRun, as checked). */
export interface RunParameters {
  /** The ScheduledBillingFilter the run selects with (as a plain object). */
  filter: Record<string, unknown>;
  billDate: string;
  membershipTypeId: number | null;
  membershipLevelId: number | null;
  changeCurrentMembership: boolean;
  createMembership: boolean;
  removeMembership: boolean;
  /** Only these schedules (the ones a preview listed), when given. */
  scheduleIds: number[] | null;
}

/** One scheduled billing run: what it was asked, its progress and its outcome. */
@Entity()
export class ScheduledBillingRunRecord extends TenantOwned {
  @Property({ type: 'json' })
  parameters!: RunParameters;

  @Property({ type: 'string', length: 16 })
  state: Opt<RunState> = 'queued';

  @Property({ type: 'integer' })
  itemCount: Opt<number> = 0;

  @Property({ type: 'integer' })
  processedCount: Opt<number> = 0;

  @Property({ type: 'integer' })
  billedCount: Opt<number> = 0;

  @Property({ type: 'integer' })
  skippedCount: Opt<number> = 0;

  @Property({ type: 'integer' })
  failedCount: Opt<number> = 0;

  @Property({ type: 'decimal', precision: 12, scale: 2 })
  billedAmount: Opt<string> = '0.00';

  /** The login that asked for the run: a key, set null when the login is removed (migration 0036). */
  @Property({ type: 'integer', nullable: true })
  requestedBy: number | null = null;

  @Property({ length: 64, nullable: true })
  jobId: string | null = null;

  @Property({ type: 'datetime', nullable: true })
  startedAt: Date | null = null;

  @Property({ type: 'datetime', nullable: true })
  finishedAt: Date | null = null;

  @Property({ type: 'text', nullable: true })
  error: string | null = null;
}

export const RUN_ITEM_OUTCOMES = ['billed', 'skipped', 'failed'] as const;
export type RunItemOutcome = (typeof RUN_ITEM_OUTCOMES)[number];

/** What a run did with one schedule: billed (its invoice), skipped (billed already: by whom), or failed (why). */
@Entity()
@Unique({ properties: ['run', 'schedule'] })
export class ScheduledBillingRunItem extends TenantOwned {
  @ManyToOne(() => ScheduledBillingRunRecord, { deleteRule: 'cascade' })
  run!: ScheduledBillingRunRecord;

  @ManyToOne(() => ScheduledBilling, { index: true, deleteRule: 'cascade' })
  schedule!: ScheduledBilling;

  @Property({ type: 'date' })
  periodStart!: string;

  @Property({ type: 'string', length: 16 })
  outcome!: RunItemOutcome;

  @Property({ type: 'decimal', precision: 12, scale: 2 })
  amount!: string;

  /** The invoice the run raised: a key; an invoice a run raised is never deleted (restrict, migration 0036). */
  @Property({ type: 'integer', nullable: true })
  invoiceId: number | null = null;

  @Property({ length: 64, nullable: true })
  membershipChange: string | null = null;

  /** The membership term the change starts from, as the run found it (a billed item; null: none). */
  @Property({ type: 'integer', nullable: true })
  membershipId: number | null = null;

  /** The last day of the billed period (a billed item). */
  @Property({ type: 'date', nullable: true })
  periodEnd: string | null = null;

  /** When the membership change was applied: once, when the item's invoice was paid (services/billing/membership-changes.ts). */
  @Property({ type: 'datetime', nullable: true })
  membershipAppliedAt: Date | null = null;

  @Property({ type: 'text', nullable: true })
  reason: string | null = null;
}

/** A requested export of a run's results (the documented PendingFileDownloadResult): the file once ready. */
@Entity()
export class ScheduledBillingDownload extends TenantOwned {
  @ManyToOne(() => ScheduledBillingRunRecord, { deleteRule: 'cascade', index: true })
  run!: ScheduledBillingRunRecord;

  @Property({ type: 'string', length: 16 })
  state: Opt<'pending' | 'ready' | 'failed'> = 'pending';

  @Property({ length: 200 })
  fileName!: string;

  /** The CSV, written piece by piece to the file service. */
  @ManyToOne(() => StoredFile, { nullable: true, index: true })
  file: StoredFile | null = null;

  /** The CSV text of a download written before migration 0032 (still served; new ones use `file`). */
  @Property({ type: 'text', nullable: true })
  content: string | null = null;

  @Property({ length: 64, nullable: true })
  jobId: string | null = null;
}

/** Payment gateway types (PaymentGatewayTypeId): the gateways whose statements can be imported. */
export const PAYMENT_GATEWAY_TYPES = [
  { id: 1, name: 'Stripe' },
  { id: 2, name: 'PayPal' },
  { id: 3, name: 'Authorize.Net' },
  { id: 4, name: 'PlatformPay' },
] as const;
/** The gateway type whose accounts the platform-pay transaction report covers. */
export const PLATFORM_PAY_TYPE_ID = 4;

/** A tenant's (or one of its chapters') merchant account at a payment gateway. */
@Entity()
@Unique({ properties: ['tenant', 'gatewayTypeId', 'accountId'] })
export class PaymentGatewayAccount extends Versioned {
  /** The gateway's own id of the account (`acct_1Nx…`). */
  @Property({ length: 100 })
  accountId!: string;

  @Property({ type: 'integer' })
  gatewayTypeId!: number;

  @Property({ length: 200 })
  name!: string;

  /** The chapter (an organization contact) the account belongs to; null: the tenant's own. A key, set null (migration 0036). */
  @Property({ type: 'integer', nullable: true })
  chapterId: number | null = null;

  /**
   * The gateway credential (API key) staff gave, encrypted with GATEWAY_SECRET_KEY (AES-256-GCM,
   * core/runtime/secrets.ts); null: none set. Write-only: no answer carries it, only whether one is set.
   */
  @Property({ type: 'text', nullable: true, hidden: true, lazy: true })
  secretEncrypted: string | null = null;
}

export const GATEWAY_TRANSACTION_KINDS = ['sale', 'refund', 'dispute', 'dispute_reversal', 'fee', 'transfer', 'transfer_reversal'] as const;
export type GatewayTransactionKind = (typeof GATEWAY_TRANSACTION_KINDS)[number];

/**
 * One movement on a gateway account's balance, imported from the gateway. `amount` and `fee`
 * are signed as they move the balance: a sale is +amount −fee, a refund −amount −fee, a dispute
 * −amount −fee, a dispute reversal +amount +fee (fees returned), a fee −amount, a transfer
 * (payout) −amount, a transfer reversal +amount. So the balance change of any set of
 * transactions is the sum of amount + fee.
 */
@Entity()
@Unique({ properties: ['tenant', 'account', 'gatewayTransactionId'] })
@Index({ properties: ['account', 'occurredAt'] })
@Index({ properties: ['account', 'transferId'] })
export class PaymentGatewayTransaction extends TenantOwned {
  @ManyToOne(() => PaymentGatewayAccount, { deleteRule: 'cascade' })
  account!: PaymentGatewayAccount;

  @Property({ length: 100 })
  gatewayTransactionId!: string;

  @Property({ type: 'string', length: 24 })
  kind!: GatewayTransactionKind;

  @Property({ type: 'decimal', precision: 12, scale: 2 })
  amount!: string;

  @Property({ type: 'decimal', precision: 12, scale: 2 })
  fee: Opt<string> = '0.00';

  @Property({ type: 'datetime' })
  occurredAt!: Date;

  /** The payout (a `transfer` transaction's gateway id) that paid this transaction out. */
  @Property({ length: 100, nullable: true })
  transferId: string | null = null;

  @Property({ length: 500, nullable: true })
  description: string | null = null;
}

/** One payment of a plan's schedule. */
export interface PaymentPlanItem {
  PaymentNumber: number;
  DueDate: string;
  Amount: string;
}

/** A saleable item a plan covers, at its price or the plan's own amount. */
export interface PaymentPlanSaleableItem {
  SaleableItemId: number;
  Amount: string;
}

/**
 * A way to pay a membership type in instalments: `payments` payments, monthly from `startDate`,
 * offered until `endDate`, for some levels (none: all), covering saleable items whose amounts
 * make the total; `items` is the generated schedule (adds up exactly to the total).
 */
@Entity()
export class MembershipTypePaymentPlan extends Versioned {
  @ManyToOne(() => MembershipType, { deleteRule: 'cascade', index: true })
  membershipType!: MembershipType;

  @Property({ length: 200 })
  name!: string;

  @Property({ type: 'integer' })
  payments!: number;

  @Property({ type: 'date' })
  startDate!: string;

  @Property({ type: 'date', nullable: true })
  endDate: string | null = null;

  @Property({ type: 'boolean' })
  showOnApplication: Opt<boolean> = false;

  @Property({ type: 'json' })
  levelIds: Opt<number[]> = [];

  @Property({ type: 'json' })
  saleableItems: Opt<PaymentPlanSaleableItem[]> = [];

  @Property({ type: 'json' })
  items: Opt<PaymentPlanItem[]> = [];
}
