import { Arg, Args, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { RuledArg } from '../core/argument-rules.js';
import type { RequestContext } from '../core/context.js';
import { ListOptionsInput, LookupChoiceInt } from '../schema/common.js';
import { FileDownload } from '../schema/file-download.js';
import {
  AccountMonthArgs, AccountTransactionsArgs, MonthlyStatement, PaymentGatewayAccountInput, PaymentGatewayAccountView, PaymentGatewayTransactionImportInput,
  PaymentGatewayTransactionImportResult, TransferDetails, Transfers, Transactions,
} from '../schema/payment-gateways.js';
import { PaymentPlanAddEdit, PaymentPlanAddEditInput, PaymentPlanCollectionItem, PaymentPlans } from '../schema/payment-plans.js';
import {
  BillingSchedule, BillingScheduleInput, PendingFileDownloadResult, ScheduledBillingFilterInput, ScheduledBillingHistory, ScheduledBillingHistoryItem, ScheduledBillingListResult, ScheduledBillingRun,
  ScheduledBillingRunInput, ScheduledBillingRunItemView,
} from '../schema/scheduled-billing.js';
import * as schedules from '../services/billing/billing-schedules.js';
import * as accounts from '../services/billing/gateway-accounts.js';
import * as gateways from '../services/billing/payment-gateways.js';
import * as plans from '../services/billing/payment-plans.js';
import * as billing from '../services/billing/scheduled-billing.js';

@Resolver()
export class ScheduledBillingResolver {
  @Authorized('staff')
  @Query(() => ScheduledBillingListResult, { description: 'Billing schedules matching a ScheduledBillingFilter, one page at a time.' })
  scheduledBillingItems(@Ctx() ctx: RequestContext, @Arg('filter', () => ScheduledBillingFilterInput, { nullable: true }) filter?: ScheduledBillingFilterInput | null) {
    return billing.listSchedules(ctx, filter);
  }

  @Authorized('staff')
  @Query(() => FileDownload, { description: `Every schedule matching the filter (at most ${billing.EXPORT_LIMIT}) as a CSV file. REST answers the file itself.` })
  scheduledBillingExport(@Ctx() ctx: RequestContext, @Arg('filter', () => ScheduledBillingFilterInput, { nullable: true }) filter?: ScheduledBillingFilterInput | null) {
    return billing.exportSchedules(ctx, filter);
  }

  @Authorized('staff')
  @Query(() => ScheduledBillingRun, { description: `What a run would bill (count, total, membership changes, the first ${billing.PREVIEW_ITEM_LIMIT} items), changing nothing.` })
  scheduledBillingRunSetup(@Ctx() ctx: RequestContext, @Arg('input', () => ScheduledBillingRunInput) input: ScheduledBillingRunInput) {
    return billing.previewRun(ctx, input);
  }

  @Authorized('staff')
  @Mutation(() => ScheduledBillingHistoryItem, { description: 'Starts a run as a background job; answers the run (REST: 200 with an empty body). Follow it in the run history.' })
  runScheduledBilling(@Ctx() ctx: RequestContext, @Arg('input', () => ScheduledBillingRunInput) input: ScheduledBillingRunInput) {
    return billing.startRun(ctx, input);
  }

  @Authorized('staff')
  @Query(() => ScheduledBillingHistory, { description: 'The runs, newest first (default 100; options pages them).' })
  scheduledBillingRunHistory(@Ctx() ctx: RequestContext, @Arg('options', () => ListOptionsInput, { nullable: true }) options?: ListOptionsInput | null) {
    return billing.runHistory(ctx, options);
  }

  @Authorized('staff')
  @Query(() => [ScheduledBillingRunItemView], { description: 'GraphQL only: what a run did with each schedule (billed, skipped, failed and why).' })
  scheduledBillingRunItems(@Ctx() ctx: RequestContext, @Arg('systemJobId', () => Int) systemJobId: number) {
    return billing.runItems(ctx, systemJobId);
  }

  @Authorized('staff')
  @Mutation(() => PendingFileDownloadResult, { description: 'Starts writing a run\'s results as a CSV file; fetch it with scheduledBillingDownloadFile (REST: GET .../run/history/download/file/{pendingdownloadfileid}).' })
  requestScheduledBillingRunDownload(@Ctx() ctx: RequestContext, @Arg('systemJobId', () => Int) systemJobId: number) {
    return billing.requestRunDownload(ctx, systemJobId);
  }

  @Authorized('staff')
  @Query(() => FileDownload, { description: 'A prepared run results file (409 while it is being prepared). Not in the API documents: completes run/history/download.' })
  scheduledBillingDownloadFile(@Ctx() ctx: RequestContext, @Arg('pendingDownloadFileId', () => Int) pendingDownloadFileId: number) {
    return billing.runDownloadFile(ctx, pendingDownloadFileId);
  }

  @Authorized('staff')
  @Query(() => BillingSchedule, { description: 'One billing schedule with its AuditId (the list is scheduledBillingItems).' })
  billingSchedule(@Ctx() ctx: RequestContext, @Arg('scheduledBillingId', () => Int) scheduledBillingId: number) {
    return schedules.getBillingSchedule(ctx, scheduledBillingId);
  }

  @Authorized('staff')
  @Mutation(() => BillingSchedule, { description: 'Creates (scheduledBillingId 0) or updates a billing schedule; Status pauses, resumes or ends it (ended is final).' })
  saveBillingSchedule(
    @Ctx() ctx: RequestContext,
    @Arg('scheduledBillingId', () => Int) scheduledBillingId: number,
    @Arg('input', () => BillingScheduleInput) input: BillingScheduleInput,
  ) {
    return schedules.saveBillingSchedule(ctx, scheduledBillingId, input);
  }

  @Authorized('staff')
  @Mutation(() => Int, { description: 'Deletes a billing schedule no run has billed (409 for one with run history: end it instead); answers its id.' })
  deleteBillingSchedule(
    @Ctx() ctx: RequestContext,
    @Arg('scheduledBillingId', () => Int) scheduledBillingId: number,
    @Arg('auditId', () => Int, { nullable: true, description: 'When given, the delete is refused (409) unless the schedule is still this version.' }) auditId?: number | null,
  ) {
    return schedules.deleteBillingSchedule(ctx, scheduledBillingId, auditId);
  }
}

@Resolver()
export class PaymentGatewayResolver {
  @Authorized('staff')
  @Query(() => TransferDetails, { description: 'The transactions one payout paid out.' })
  paymentGatewayTransferDetails(
    @Ctx() ctx: RequestContext,
    @Arg('accountId', () => String) accountId: string,
    @Arg('id', () => String) id: string,
    @Arg('paymentGatewayTypeId', () => Int) paymentGatewayTypeId: number,
    @RuledArg('date', gateways.TRANSFER_DATE_RULE) date: string,
  ) {
    return gateways.transferDetails(ctx, { accountId, id, paymentGatewayTypeId, date });
  }

  @Authorized('staff')
  @Query(() => MonthlyStatement, { description: 'The monthly statement of an account (AccountId, PaymentGatewayTypeId, Month, Year).' })
  paymentGatewayMonthlyStatement(@Ctx() ctx: RequestContext, @Args(() => AccountMonthArgs) args: AccountMonthArgs) {
    return gateways.monthlyStatement(ctx, args);
  }

  @Authorized('staff')
  @Query(() => Transactions, { description: `An account's transactions on Date or from StartDate to EndDate (at most ${gateways.TRANSACTION_LIMIT}); an absent StartDate or EndDate leaves that side open, an EndDate before StartDate answers none.` })
  paymentGatewayTransactions(@Ctx() ctx: RequestContext, @Args(() => AccountTransactionsArgs) args: AccountTransactionsArgs) {
    return gateways.accountTransactions(ctx, args);
  }

  @Authorized('staff')
  @Query(() => Transfers, { description: 'The payouts of an account in a month.' })
  paymentGatewayTransfers(@Ctx() ctx: RequestContext, @Args(() => AccountMonthArgs) args: AccountMonthArgs) {
    return gateways.monthTransfers(ctx, args);
  }

  @Authorized('staff')
  @Query(() => [LookupChoiceInt], { description: 'The accounts of the PlatformPay gateway (ExtraData: JSON {AccountId, PaymentGatewayTypeId}).' })
  platformPayTransactionReportLookup(@Ctx() ctx: RequestContext) {
    return gateways.gatewayAccountLookup(ctx, true);
  }

  @Authorized('staff')
  @Query(() => [LookupChoiceInt], { description: 'The tenant\'s payment gateway accounts (ExtraData: JSON {AccountId, PaymentGatewayTypeId}).' })
  paymentGatewayLookup(@Ctx() ctx: RequestContext) {
    return gateways.gatewayAccountLookup(ctx, false);
  }

  @Authorized('staff')
  @Query(() => [PaymentGatewayAccountView], { description: 'The tenant\'s payment gateway accounts, one page at a time (their credentials never).' })
  paymentGatewayAccounts(@Ctx() ctx: RequestContext, @Arg('options', () => ListOptionsInput, { nullable: true }) options?: ListOptionsInput | null) {
    return accounts.listGatewayAccounts(ctx, options);
  }

  @Authorized('staff')
  @Query(() => PaymentGatewayAccountView, { description: 'One payment gateway account (HasSecret says whether a credential is stored; it is never returned).' })
  paymentGatewayAccount(@Ctx() ctx: RequestContext, @Arg('gatewayAccountId', () => Int) gatewayAccountId: number) {
    return accounts.getGatewayAccount(ctx, gatewayAccountId);
  }

  @Authorized('staff')
  @Mutation(() => PaymentGatewayAccountView, { description: 'Creates (gatewayAccountId 0) or updates a payment gateway account; a Secret is stored encrypted and never returned.' })
  savePaymentGatewayAccount(
    @Ctx() ctx: RequestContext,
    @Arg('gatewayAccountId', () => Int) gatewayAccountId: number,
    @Arg('input', () => PaymentGatewayAccountInput) input: PaymentGatewayAccountInput,
  ) {
    return accounts.saveGatewayAccount(ctx, gatewayAccountId, input);
  }

  @Authorized('staff')
  @Mutation(() => Int, { description: 'Deletes a payment gateway account (409 while transactions, chapters or the store settings use it); answers its id.' })
  deletePaymentGatewayAccount(
    @Ctx() ctx: RequestContext,
    @Arg('gatewayAccountId', () => Int) gatewayAccountId: number,
    @Arg('auditId', () => Int, { nullable: true, description: 'When given, the delete is refused (409) unless the account is still this version.' }) auditId?: number | null,
  ) {
    return accounts.deleteGatewayAccount(ctx, gatewayAccountId, auditId);
  }

  @Authorized('staff')
  @Mutation(() => PaymentGatewayTransactionImportResult, {
    description: 'GraphQL only: imports a gateway account\'s transactions (the account is created when new). Idempotent: a transaction id already imported is left as it was.',
  })
  importPaymentGatewayTransactions(@Ctx() ctx: RequestContext, @Arg('input', () => PaymentGatewayTransactionImportInput) input: PaymentGatewayTransactionImportInput) {
    return gateways.importTransactions(ctx, input);
  }
}

@Resolver()
export class PaymentPlanResolver {
  @Authorized('staff')
  @Query(() => PaymentPlanAddEdit, { description: 'The template for copying a payment plan (id 0, "Copy of …").' })
  paymentPlanCopyTemplate(
    @Ctx() ctx: RequestContext,
    @Arg('membershipTypeId', () => Int) membershipTypeId: number,
    @Arg('membershipTypePaymentPlanId', () => String) membershipTypePaymentPlanId: string,
  ) {
    return plans.paymentPlanCopyTemplate(ctx, membershipTypeId, membershipTypePaymentPlanId);
  }

  @Authorized()
  @Query(() => PaymentPlanAddEdit, { description: 'One payment plan of a membership type, for editing ("0": a blank plan).' })
  paymentPlan(
    @Ctx() ctx: RequestContext,
    @Arg('membershipTypeId', () => Int) membershipTypeId: number,
    @Arg('membershipTypePaymentPlanId', () => String) membershipTypePaymentPlanId: string,
  ) {
    return plans.getPaymentPlan(ctx, membershipTypeId, membershipTypePaymentPlanId);
  }

  @Authorized('staff')
  @Mutation(() => PaymentPlanCollectionItem, { description: 'Creates (membershipTypePaymentPlanId 0) or updates a payment plan; its schedule is generated.' })
  savePaymentPlan(
    @Ctx() ctx: RequestContext,
    @Arg('membershipTypeId', () => Int) membershipTypeId: number,
    @Arg('membershipTypePaymentPlanId', () => Int) membershipTypePaymentPlanId: number,
    @Arg('input', () => PaymentPlanAddEditInput) input: PaymentPlanAddEditInput,
  ) {
    return plans.savePaymentPlan(ctx, membershipTypeId, membershipTypePaymentPlanId, input);
  }

  @Authorized('staff')
  @Mutation(() => Int, { description: 'Deletes a payment plan; answers its id.' })
  deletePaymentPlan(
    @Ctx() ctx: RequestContext,
    @Arg('membershipTypeId', () => Int) membershipTypeId: number,
    @Arg('membershipTypePaymentPlanId', () => Int) membershipTypePaymentPlanId: number,
    @Arg('auditId', () => Int, { nullable: true, description: 'When given, the delete is refused (409) unless the plan is still this version.' }) auditId?: number | null,
  ) {
    return plans.deletePaymentPlan(ctx, membershipTypeId, membershipTypePaymentPlanId, auditId);
  }

  @Authorized()
  @Query(() => PaymentPlans, { description: 'The payment plans of a membership type.' })
  paymentPlans(@Ctx() ctx: RequestContext, @Arg('membershipTypeId', () => Int) membershipTypeId: number) {
    return plans.listPaymentPlans(ctx, membershipTypeId);
  }
}
