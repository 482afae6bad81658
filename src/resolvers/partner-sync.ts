import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { RuledArg } from '../core/argument-rules.js';
import type { RequestContext } from '../core/context.js';
import { ListOptionsInput } from '../schema/common.js';
import {
  MOVES_ITS_RECORD, PartnerAffiliationItem, PartnerAudit, PartnerChangesPage, PartnerTransactionInput, PartnerTransactionLogItem, PartnerTransactionResult,
} from '../schema/partner-sync.js';
import { alsoKeeping } from '../core/requests/graphql-policies.js';
import * as partner from '../services/partner-sync/partner-sync.js';

const CALLERS = 'A partner API key (a login with the role partner) or staff.';

@Resolver()
export class PartnerSyncResolver {
  @Authorized('partner', 'staff')
  @Mutation(() => PartnerTransactionResult, { description: `Applies a partner organization upsert (create or update, matched by NationalID or, from a state, StateID). ${CALLERS}` })
  upsertPartnerOrganization(@Ctx() ctx: RequestContext, @Arg('transaction', () => PartnerTransactionInput) transaction: PartnerTransactionInput) {
    return partner.applyPartnerTransaction(ctx, 'organization', 'upsert', transaction);
  }

  @Authorized('partner', 'staff')
  @Mutation(() => PartnerTransactionResult, { description: `Applies a partner person upsert. ${CALLERS}` })
  upsertPartnerPerson(@Ctx() ctx: RequestContext, @Arg('transaction', () => PartnerTransactionInput) transaction: PartnerTransactionInput) {
    return partner.applyPartnerTransaction(ctx, 'person', 'upsert', transaction);
  }

  @Authorized('partner', 'staff')
  @Mutation(() => PartnerTransactionResult, { description: `Applies a partner organization move (new StateID, Affiliation, ParentNationalId, ParentAgency); the affiliation history keeps the old one. ${CALLERS}` })
  movePartnerOrganization(@Ctx() ctx: RequestContext, @Arg('transaction', () => PartnerTransactionInput, alsoKeeping(MOVES_ITS_RECORD)) transaction: PartnerTransactionInput) {
    return partner.applyPartnerTransaction(ctx, 'organization', 'move', transaction);
  }

  @Authorized('partner', 'staff')
  @Mutation(() => PartnerTransactionResult, { description: `Applies a partner person move (new affiliation or organization). ${CALLERS}` })
  movePartnerPerson(@Ctx() ctx: RequestContext, @Arg('transaction', () => PartnerTransactionInput, alsoKeeping(MOVES_ITS_RECORD)) transaction: PartnerTransactionInput) {
    return partner.applyPartnerTransaction(ctx, 'person', 'move', transaction);
  }

  @Authorized('partner', 'staff')
  @Mutation(() => PartnerTransactionResult, { description: `Applies a partner organization deletion (a soft delete the change feed does not echo back). REST: \`model\` is the URL-encoded JSON of the PartnerTransaction. ${CALLERS}` })
  deletePartnerOrganization(@Ctx() ctx: RequestContext, @Arg('model', () => PartnerTransactionInput) model: PartnerTransactionInput) {
    return partner.applyPartnerTransaction(ctx, 'organization', 'delete', model);
  }

  @Authorized('partner', 'staff')
  @Mutation(() => PartnerTransactionResult, { description: `Applies a partner person deletion. REST: \`model\` is the URL-encoded JSON of the PartnerTransaction. ${CALLERS}` })
  deletePartnerPerson(@Ctx() ctx: RequestContext, @Arg('model', () => PartnerTransactionInput) model: PartnerTransactionInput) {
    return partner.applyPartnerTransaction(ctx, 'person', 'delete', model);
  }

  @Authorized('partner', 'staff')
  @Query(() => PartnerChangesPage, {
    description: 'Our changes to partner-linked contacts at or after utcDateTime (deletions included; the partner\'s own changes are not echoed back), '
      + `oldest first by (ChangedAt, PlatformID), as PartnerAudit-shaped changes; page with take (default 100, at most 1000) and after (the previous page's NextCursor). ${CALLERS}`,
  })
  partnerChanges(
    @Ctx() ctx: RequestContext,
    @RuledArg('utcDateTime', partner.UTC_DATE_TIME_RULE, { description: 'ISO 8601 instant; no zone means UTC.' }) utcDateTime: string,
    @RuledArg('take', partner.FEED_PAGE_RULE, { nullable: true, type: () => Int }) take?: number | null,
    @RuledArg('after', partner.FEED_CURSOR_RULE, { nullable: true }) after?: ReturnType<typeof partner.FEED_CURSOR_RULE.parse> | null,
  ) {
    return partner.partnerChangesSince(ctx, utcDateTime, take, after);
  }

  @Authorized('partner', 'staff')
  @Query(() => PartnerAudit, { description: `The PartnerAudit view of the (not deleted) contact with that NationalID. ${CALLERS}` })
  partnerContactAudit(@Ctx() ctx: RequestContext, @Arg('nationalId', () => Int) nationalId: number) {
    return partner.partnerContactAudit(ctx, nationalId);
  }

  @Authorized('staff')
  @Query(() => [PartnerTransactionLogItem], {
    description: 'Every partner transaction received and what became of it, newest first (OrderBy ReceivedAt, TransactionLogId, Operation, Outcome, ChangedAt; Filter matches TransactionId, operation, outcome, reason, StateID).',
  })
  partnerTransactions(
    @Ctx() ctx: RequestContext,
    @Arg('options', () => ListOptionsInput, { nullable: true }) options?: ListOptionsInput | null,
    @Arg('outcome', () => String, { nullable: true, description: 'Only received, applied, stale, duplicate or failed ones.' }) outcome?: string | null,
    @Arg('nationalId', () => Int, { nullable: true, description: 'Only those about this NationalID.' }) nationalId?: number | null,
  ) {
    return partner.listPartnerTransactions(ctx, options, outcome, nationalId);
  }

  @Authorized('staff')
  @Query(() => [PartnerAffiliationItem], { description: 'The affiliation history (moves) of the partner record with that NationalID, oldest first (OrderBy ValidFrom, StateID, Affiliation).' })
  partnerAffiliations(
    @Ctx() ctx: RequestContext,
    @Arg('nationalId', () => Int) nationalId: number,
    @Arg('options', () => ListOptionsInput, { nullable: true }) options?: ListOptionsInput | null,
  ) {
    return partner.listPartnerAffiliations(ctx, nationalId, options);
  }
}
