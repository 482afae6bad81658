import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { FLAG_RULE, RuledArg } from '../core/argument-rules.js';
import type { RequestContext } from '../core/context.js';
import {
  ChapterAddEdit, ChapterAddEditInput, ChapterCollection, ChapterContactSelect, ChapterZipCodeAssignment, ContactChapterAddEdit, ContactChapterAddEditInput,
} from '../schema/chapters.js';
import { ListOptionsInput, LookupChoiceInt } from '../schema/common.js';
import { LookupChoiceNullable } from '../schema/lookup-choice-nullable.js';
import * as links from '../services/chapters/chapter-links.js';
import * as zipCodes from '../services/chapters/chapter-zip-codes.js';
import * as chapters from '../services/chapters/chapters.js';

@Resolver()
export class ChapterResolver {
  @Authorized()
  @Query(() => [ChapterCollection], { description: 'The chapters, one page at a time (OrderBy OrganizationName, ChapterId, ChapterNumber; Filter matches name and number).' })
  chapters(@Ctx() ctx: RequestContext, @Arg('options', () => ListOptionsInput, { nullable: true }) options?: ListOptionsInput | null) {
    return chapters.listChapters(ctx, options);
  }

  @Authorized('staff')
  @Query(() => ChapterAddEdit, { description: 'One chapter, for editing.' })
  chapter(@Ctx() ctx: RequestContext, @Arg('chapterId', () => Int) chapterId: number) {
    return chapters.getChapter(ctx, chapterId);
  }

  @Authorized('staff')
  @Mutation(() => ChapterCollection, { description: 'Creates (chapterId 0) or updates a chapter; a likely duplicate (same name or number) is 409 unless forceSave, a cycle in the hierarchy is 400.' })
  saveChapter(
    @Ctx() ctx: RequestContext,
    @Arg('chapterId', () => Int) chapterId: number,
    @Arg('forceSave', () => Boolean) forceSave: boolean,
    @Arg('input', () => ChapterAddEditInput) input: ChapterAddEditInput,
  ) {
    return chapters.saveChapter(ctx, chapterId, forceSave, input);
  }

  @Authorized('staff')
  @Mutation(() => Int, { description: 'Deletes a chapter without child chapters (409 otherwise) and its contact links; answers its id.' })
  deleteChapter(
    @Ctx() ctx: RequestContext,
    @Arg('chapterId', () => Int) chapterId: number,
    @Arg('auditId', () => Int, { nullable: true, description: 'When given, the delete is refused (409) unless the chapter is still this version.' }) auditId?: number | null,
  ) {
    return chapters.deleteChapter(ctx, chapterId, auditId);
  }

  @Authorized()
  @Query(() => [LookupChoiceInt], { description: 'Every chapter (Id: ChapterId).' })
  chaptersLookup(@Ctx() ctx: RequestContext) {
    return chapters.chaptersLookup(ctx);
  }

  @Authorized()
  @Query(() => [LookupChoiceInt], { description: 'The possible parents of a chapter: the top-level organization first, then the chapters; chapterId (our addition) leaves out that chapter and those below it.' })
  parentChapterLookup(@Ctx() ctx: RequestContext, @Arg('chapterId', () => Int, { nullable: true }) chapterId?: number | null) {
    return chapters.parentChapterLookup(ctx, chapterId);
  }

  @Authorized()
  @Query(() => [LookupChoiceInt], { description: "The chapters below the caller's current organization (the top level when the caller has none)." })
  childChaptersLookup(@Ctx() ctx: RequestContext) {
    return chapters.childChaptersLookup(ctx);
  }

  @Authorized()
  @Query(() => [LookupChoiceNullable], { description: "The chapters below the caller's current organization, as LookupChoiceNullable." })
  childChapterIdsLookup(@Ctx() ctx: RequestContext) {
    return chapters.childChapterIdsLookup(ctx);
  }

  @Authorized()
  @Query(() => [LookupChoiceNullable], { description: "The chapters below the caller's current organization, after a \"Top level\" choice with a null Id when includeTopLevelSelection." })
  membershipTypeOptionChildChapterIds(@Ctx() ctx: RequestContext, @Arg('includeTopLevelSelection', () => Boolean) includeTopLevelSelection: boolean) {
    return chapters.membershipTypeOptionChildChapterIds(ctx, includeTopLevelSelection);
  }

  @Authorized()
  @Query(() => [ChapterContactSelect], { description: 'The chapters with their own PaymentGatewayId; includeParent "true" puts the top-level organization first.' })
  chapterContactsLookup(@Ctx() ctx: RequestContext, @RuledArg('includeParent', FLAG_RULE) includeParent: boolean) {
    return chapters.chapterContactsLookup(ctx, includeParent);
  }

  @Authorized()
  @Query(() => [ChapterContactSelect], { description: 'The top-level organization and every chapter, with the PaymentGatewayId membership payments go through (its own, else its nearest ancestor\'s).' })
  chaptersForMembershipLookup(@Ctx() ctx: RequestContext) {
    return chapters.chaptersForMembershipLookup(ctx);
  }

  @Authorized()
  @Query(() => [ChapterContactSelect], { description: "The chapters the caller's own contact belongs to (primary first), with the PaymentGatewayId membership payments go through." })
  chaptersForMembershipContactsLookup(@Ctx() ctx: RequestContext) {
    return chapters.chaptersForMembershipOfCaller(ctx);
  }

  @Authorized('staff')
  @Mutation(() => Boolean, { description: "Links a contact to a chapter (again: no change); MarkAsPrimary, or the contact's first chapter, makes it primary." })
  linkContactChapter(@Ctx() ctx: RequestContext, @Arg('input', () => ContactChapterAddEditInput) input: ContactChapterAddEditInput) {
    return links.linkContactChapter(ctx, input);
  }

  @Authorized()
  @Query(() => ContactChapterAddEdit, { description: "A contact's primary chapter (staff: any contact; a member: its own)." })
  contactChapter(@Ctx() ctx: RequestContext, @Arg('contactId', () => Int) contactId: number) {
    return links.getContactChapter(ctx, contactId);
  }

  @Authorized()
  @Query(() => [ChapterContactSelect], { description: "A contact's chapters, primary first (staff: any contact; a member: its own)." })
  contactChapterLookup(@Ctx() ctx: RequestContext, @Arg('contactId', () => Int) contactId: number) {
    return links.contactChapterLookup(ctx, contactId);
  }

  @Authorized('staff')
  @Mutation(() => Boolean, { description: 'Unlinks a contact from a chapter; when it was the primary, the oldest other chapter becomes primary.' })
  deleteContactChapter(@Ctx() ctx: RequestContext, @Arg('contactId', () => Int) contactId: number, @Arg('chapterId', () => Int) chapterId: number) {
    return links.deleteContactChapter(ctx, contactId, chapterId);
  }

  @Authorized('staff')
  @Mutation(() => Boolean, { description: "Makes the link the contact's primary chapter (the previous primary stops being one, atomically)." })
  markContactChapterPrimary(@Ctx() ctx: RequestContext, @Arg('contactId', () => Int) contactId: number, @Arg('chapterId', () => Int) chapterId: number) {
    return links.markContactChapterPrimary(ctx, contactId, chapterId);
  }

  @Authorized('staff')
  @Mutation(() => ChapterZipCodeAssignment, {
    description: 'Starts linking contacts to chapters by the postal code of their primary address (a background job; a run already under way is answered instead). Follow it with chapterZipCodeAssignment.',
  })
  assignChapterZipCodes(@Ctx() ctx: RequestContext) {
    return zipCodes.requestZipCodeAssignment(ctx);
  }

  @Authorized('staff')
  @Query(() => ChapterZipCodeAssignment, { description: 'GraphQL only: the progress of a postal code assignment run (the latest without runId).' })
  chapterZipCodeAssignment(@Ctx() ctx: RequestContext, @Arg('runId', () => Int, { nullable: true }) runId?: number | null) {
    return zipCodes.zipCodeAssignment(ctx, runId);
  }
}
