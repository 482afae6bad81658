import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../core/context.js';
import { ListOptionsInput } from '../schema/common.js';
import {
  MembershipCancelInput, MembershipFilterInput, MembershipInput, MembershipRenewInput, MembershipResult, MembershipTypeAddEdit, MembershipTypeInput, MembershipTypeResult,
  MembershipView,
} from '../schema/memberships.js';
import * as types from '../services/memberships/membership-types.js';
import * as memberships from '../services/memberships/memberships.js';

@Resolver()
export class MembershipResolver {
  @Authorized('staff')
  @Query(() => MembershipTypeResult, { description: 'The membership types, one page, with the count of all matching ones.' })
  membershipTypes(@Ctx() ctx: RequestContext, @Arg('options', () => ListOptionsInput, { nullable: true }) options?: ListOptionsInput | null) {
    return types.listMembershipTypes(ctx, options);
  }

  @Authorized('staff')
  @Query(() => MembershipTypeAddEdit, { description: 'One membership type with its levels.' })
  membershipType(@Ctx() ctx: RequestContext, @Arg('membershipTypeId', () => Int) membershipTypeId: number) {
    return types.getMembershipType(ctx, membershipTypeId);
  }

  @Authorized('staff')
  @Mutation(() => MembershipTypeAddEdit, { description: 'Creates (membershipTypeId 0) or updates a membership type with its levels; a removed level still in use answers 409.' })
  saveMembershipType(@Ctx() ctx: RequestContext, @Arg('membershipTypeId', () => Int) membershipTypeId: number, @Arg('input', () => MembershipTypeInput) input: MembershipTypeInput) {
    return types.saveMembershipType(ctx, membershipTypeId, input);
  }

  @Authorized('staff')
  @Mutation(() => Int, { description: 'Deletes a membership type nothing uses, at the given AuditId; 409 naming what uses it (deactivate it instead). Answers its id.' })
  deleteMembershipType(@Ctx() ctx: RequestContext, @Arg('membershipTypeId', () => Int) membershipTypeId: number, @Arg('auditId', () => Int) auditId: number) {
    return types.deleteMembershipType(ctx, membershipTypeId, auditId);
  }

  @Authorized('staff')
  @Query(() => MembershipResult, { description: 'Membership terms by contact, type, level, status or good standing on a day; one page with the count of all matching ones.' })
  memberships(@Ctx() ctx: RequestContext, @Arg('filter', () => MembershipFilterInput, { nullable: true }) filter?: MembershipFilterInput | null) {
    return memberships.listMemberships(ctx, filter);
  }

  @Authorized('staff')
  @Query(() => MembershipView, { description: 'One membership term.' })
  membership(@Ctx() ctx: RequestContext, @Arg('membershipId', () => Int) membershipId: number) {
    return memberships.getMembership(ctx, membershipId);
  }

  @Authorized('staff')
  @Mutation(() => MembershipView, { description: 'Enrols a contact (membershipId 0: a pending term unless Status active; BillIt raises its invoice) or changes a term.' })
  saveMembership(@Ctx() ctx: RequestContext, @Arg('membershipId', () => Int) membershipId: number, @Arg('input', () => MembershipInput) input: MembershipInput) {
    return memberships.saveMembership(ctx, membershipId, input);
  }

  @Authorized('staff')
  @Mutation(() => MembershipView, { description: 'Staff approval: a pending term becomes active (409 for any other status or a stale AuditId).' })
  activateMembership(@Ctx() ctx: RequestContext, @Arg('membershipId', () => Int) membershipId: number, @Arg('auditId', () => Int) auditId: number) {
    return memberships.activateMembership(ctx, membershipId, auditId);
  }

  @Authorized('staff')
  @Mutation(() => MembershipView, { description: 'Renews the newest active or lapsed term: answers the new term, starting the day after it ends (pending until paid when billed).' })
  renewMembership(
    @Ctx() ctx: RequestContext, @Arg('membershipId', () => Int) membershipId: number, @Arg('auditId', () => Int) auditId: number,
    @Arg('input', () => MembershipRenewInput, { nullable: true }) input?: MembershipRenewInput | null,
  ) {
    return memberships.renewMembership(ctx, membershipId, auditId, input);
  }

  @Authorized('staff')
  @Mutation(() => MembershipView, { description: 'Cancels a term (final): its end date becomes the day before the effective date; its unpaid invoice is voided.' })
  cancelMembership(
    @Ctx() ctx: RequestContext, @Arg('membershipId', () => Int) membershipId: number, @Arg('auditId', () => Int) auditId: number,
    @Arg('input', () => MembershipCancelInput, { nullable: true }) input?: MembershipCancelInput | null,
  ) {
    return memberships.cancelMembership(ctx, membershipId, auditId, input);
  }
}
