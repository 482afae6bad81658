import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../core/context.js';
import { ListOptionsInput, LookupChoiceInt } from '../schema/common.js';
import {
  TermsAcceptanceListResult, TermsOfUseAddEdit, TermsOfUseAddEditInput, TermsOfUseCollectionItem, TermsOfUseView, TermsUsersResponse,
  TermsUsersResponseInput, UserTermsAcceptanceFilterInput,
} from '../schema/terms-of-use.js';
import * as terms from '../services/terms-of-use/terms-of-use.js';

@Resolver()
export class TermsOfUseResolver {
  @Authorized('staff')
  @Query(() => [TermsOfUseCollectionItem], { description: 'The terms of use, one page at a time (OrderBy Name, TermsOfUseId, LoginType).' })
  termsOfUseList(@Ctx() ctx: RequestContext, @Arg('options', () => ListOptionsInput, { nullable: true }) options?: ListOptionsInput | null) {
    return terms.listTermsOfUse(ctx, options);
  }

  @Authorized('staff')
  @Query(() => TermsOfUseAddEdit, { description: 'One terms of use, for editing.' })
  termsOfUse(@Ctx() ctx: RequestContext, @Arg('termsOfUseId', () => Int) termsOfUseId: number) {
    return terms.getTermsOfUse(ctx, termsOfUseId);
  }

  @Authorized('staff')
  @Mutation(() => TermsOfUseCollectionItem, {
    description: 'Creates (termsOfUseId 0) or updates terms of use. A changed text starts a new text revision: whoever accepted an earlier text is asked again (AboutMe), and the accepted text stays readable as OriginalDescription.',
  })
  saveTermsOfUse(
    @Ctx() ctx: RequestContext,
    @Arg('termsOfUseId', () => Int, { description: '0 creates; otherwise the terms to update (wins over the body id).' }) termsOfUseId: number,
    @Arg('input', () => TermsOfUseAddEditInput) input: TermsOfUseAddEditInput,
  ) {
    return terms.saveTermsOfUse(ctx, termsOfUseId, input);
  }

  @Authorized('staff')
  @Mutation(() => Int, { description: 'Deletes (hides) terms of use if auditId is still their version (else 409); the responses to them are kept. Answers the id.' })
  deleteTermsOfUse(@Ctx() ctx: RequestContext, @Arg('termsOfUseId', () => Int) termsOfUseId: number, @Arg('auditId', () => Int) auditId: number) {
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
  termsOfUseView(@Ctx() ctx: RequestContext, @Arg('termsOfUseId', () => Int) termsOfUseId: number) {
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
  @Query(() => TermsAcceptanceListResult, { description: 'Responses to the member hub terms, one page, with the total count (REST: GET options or the POST body).' })
  hubTermsAcceptances(@Ctx() ctx: RequestContext, @Arg('filter', () => UserTermsAcceptanceFilterInput, { nullable: true }) filter?: UserTermsAcceptanceFilterInput | null) {
    return terms.listAcceptances(ctx, 'hub', filter);
  }

  @Authorized('staff')
  @Query(() => TermsAcceptanceListResult, { description: 'Responses to the back-office terms, one page, with the total count (REST: GET options or the POST body).' })
  staffTermsAcceptances(@Ctx() ctx: RequestContext, @Arg('filter', () => UserTermsAcceptanceFilterInput, { nullable: true }) filter?: UserTermsAcceptanceFilterInput | null) {
    return terms.listAcceptances(ctx, 'staff', filter);
  }
}
