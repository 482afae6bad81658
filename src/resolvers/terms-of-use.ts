import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../core/context.js';
import { LookupChoiceInt } from '../schema/common.js';
import {
  TermsAcceptanceListResult, TermsOfUseAddEdit, TermsOfUseAddEditInput, TermsOfUseCollectionItem, TermsOfUseView, TermsUsersResponse,
  TermsUsersResponseInput, UserTermsAcceptanceFilterInput,
} from '../schema/terms-of-use.js';
import * as terms from '../services/terms-of-use.js';
import { OPTIONS_DESCRIPTION } from './shared.js';

const ACCEPTANCE_OPTIONS = `${OPTIONS_DESCRIPTION} Also LoginTypes (["staff","member"]) and Criteria ({TermsOfUseId, IsAccepted, LoginId, ContactId}). OrderBy: ActionDate (default, newest first), TermUserResponseId, TermsOfUseId, LoginId, ContactId, IsAccepted, UserLoginTypeId.`;

@Resolver()
export class TermsOfUseResolver {
  @Authorized('staff')
  @Query(() => [TermsOfUseCollectionItem], { description: 'The terms of use, one page at a time (OrderBy Name, TermsOfUseId, LoginType).' })
  termsOfUseList(@Ctx() ctx: RequestContext, @Arg('options', () => String, { nullable: true, description: OPTIONS_DESCRIPTION }) options?: string | null) {
    return terms.listTermsOfUse(ctx, options);
  }

  @Authorized('staff')
  @Query(() => TermsOfUseAddEdit, { description: 'One terms of use, for editing.' })
  termsOfUse(@Ctx() ctx: RequestContext, @Arg('termsofuseid', () => Int) termsOfUseId: number) {
    return terms.getTermsOfUse(ctx, termsOfUseId);
  }

  @Authorized('staff')
  @Mutation(() => TermsOfUseCollectionItem, {
    description: 'Creates (termsofuseid 0) or updates terms of use. A changed text starts a new text revision: whoever accepted an earlier text is asked again (AboutMe), and the accepted text stays readable as OriginalDescription.',
  })
  saveTermsOfUse(
    @Ctx() ctx: RequestContext,
    @Arg('termsofuseid', () => Int, { description: '0 creates; otherwise the terms to update (wins over the body id).' }) termsOfUseId: number,
    @Arg('input', () => TermsOfUseAddEditInput) input: TermsOfUseAddEditInput,
  ) {
    return terms.saveTermsOfUse(ctx, termsOfUseId, input);
  }

  @Authorized('staff')
  @Mutation(() => Int, { description: 'Deletes (hides) terms of use if auditid is still their version (else 409); the responses to them are kept. Answers the id.' })
  deleteTermsOfUse(@Ctx() ctx: RequestContext, @Arg('termsofuseid', () => Int) termsOfUseId: number, @Arg('auditid', () => Int) auditId: number) {
    return terms.deleteTermsOfUse(ctx, termsOfUseId, auditId);
  }

  @Authorized('staff')
  @Query(() => TermsOfUseAddEdit, { description: "The tenant's current back-office (staff) terms: the newest ones; a blank model with TermsOfUseId 0 when there are none." })
  backOfficeTermsOfUse(@Ctx() ctx: RequestContext) {
    return terms.backOfficeTerms(ctx);
  }

  @Authorized('staff')
  @Query(() => [LookupChoiceInt], { description: 'Every terms of use as a choice: ExtraData is the LoginType, IsSelected marks the current terms of each login type.' })
  termsOfUseLookup(@Ctx() ctx: RequestContext) {
    return terms.termsLookup(ctx);
  }

  @Authorized()
  @Query(() => TermsOfUseView, { description: 'The current text of terms of use, to read before accepting (any signed-in login).' })
  termsOfUseView(@Ctx() ctx: RequestContext, @Arg('termsofuseid', () => Int) termsOfUseId: number) {
    return terms.viewTermsOfUse(ctx, termsOfUseId);
  }

  @Authorized()
  @Mutation(() => TermsUsersResponse, {
    description: 'Records the caller accepting or declining terms of use; the time, IP address and browser come from the request. Back-office terms: staff logins only.',
  })
  takeTermsOfUseAction(@Ctx() ctx: RequestContext, @Arg('input', () => TermsUsersResponseInput) input: TermsUsersResponseInput) {
    return terms.takeAction(ctx, input);
  }

  @Authorized('staff')
  @Query(() => TermsAcceptanceListResult, { description: 'Responses to the member hub terms, one page, with the total count (options).' })
  hubTermsAcceptances(@Ctx() ctx: RequestContext, @Arg('options', () => String, { nullable: true, description: ACCEPTANCE_OPTIONS }) options?: string | null) {
    return terms.acceptancesFromOptions(ctx, 'hub', options);
  }

  @Authorized('staff')
  @Query(() => TermsAcceptanceListResult, { description: 'Responses to the member hub terms, one page, with the total count (UserTermsAcceptanceFilter).' })
  hubTermsAcceptancesFiltered(@Ctx() ctx: RequestContext, @Arg('filter', () => UserTermsAcceptanceFilterInput, { nullable: true }) filter?: UserTermsAcceptanceFilterInput | null) {
    return terms.acceptancesFromFilter(ctx, 'hub', filter);
  }

  @Authorized('staff')
  @Query(() => TermsAcceptanceListResult, { description: 'Responses to the back-office terms, one page, with the total count (options).' })
  staffTermsAcceptances(@Ctx() ctx: RequestContext, @Arg('options', () => String, { nullable: true, description: ACCEPTANCE_OPTIONS }) options?: string | null) {
    return terms.acceptancesFromOptions(ctx, 'staff', options);
  }

  @Authorized('staff')
  @Query(() => TermsAcceptanceListResult, { description: 'Responses to the back-office terms, one page, with the total count (UserTermsAcceptanceFilter).' })
  staffTermsAcceptancesFiltered(@Ctx() ctx: RequestContext, @Arg('filter', () => UserTermsAcceptanceFilterInput, { nullable: true }) filter?: UserTermsAcceptanceFilterInput | null) {
    return terms.acceptancesFromFilter(ctx, 'staff', filter);
  }
}
