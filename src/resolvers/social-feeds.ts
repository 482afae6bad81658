import { Arg, Authorized, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../core/context.js';
import {
  SocialFeedAddEdit, SocialFeedAddEditInput, SocialFeedCollectionItem, SocialFeedComment, SocialFeedCommentInput,
} from '../schema/social-feeds.js';
import { ListOptionsInput } from '../schema/common.js';
import * as feeds from '../services/social-feeds/social-feeds.js';

const FEED_OPTIONS = 'Default order: newest first (SocialFeedId desc); OrderBy: SocialFeedId, SocialFeedTypeId; Filter matches MessageText and Url.';
const COMMENT_OPTIONS = 'Default order: oldest first (CommentDate); OrderBy: CommentDate, SocialFeedCommentId; Filter matches CommentText.';

@Resolver()
export class SocialFeedResolver {
  @Authorized()
  @Query(() => [SocialFeedCollectionItem], { description: "The tenant's social feed posts, newest first, one page at a time." })
  socialFeeds(@Ctx() ctx: RequestContext, @Arg('options', () => ListOptionsInput, { nullable: true, description: FEED_OPTIONS }) options?: ListOptionsInput | null) {
    return feeds.listSocialFeeds(ctx, options);
  }

  @Authorized()
  @Query(() => SocialFeedAddEdit, { description: 'One post, for editing.' })
  socialFeed(@Ctx() ctx: RequestContext, @Arg('socialFeedId', () => Int) socialFeedId: number) {
    return feeds.getSocialFeed(ctx, socialFeedId);
  }

  @Authorized()
  @Mutation(() => SocialFeedCollectionItem, {
    description: 'Creates (id 0) a post by the caller\'s contact, or updates one (its author or staff; others 403). The id argument wins over SocialFeedId.',
  })
  saveSocialFeed(
    @Ctx() ctx: RequestContext,
    @Arg('input', () => SocialFeedAddEditInput) input: SocialFeedAddEditInput,
    @Arg('socialFeedId', () => Int, { nullable: true, description: 'The post to update; 0 creates. When absent, SocialFeedId of the input.' }) socialFeedId?: number | null,
  ) {
    return feeds.saveSocialFeed(ctx, socialFeedId, input);
  }

  @Authorized()
  @Mutation(() => Boolean, { description: 'The caller likes the post (idempotent: one like per contact).' })
  likeSocialFeed(@Ctx() ctx: RequestContext, @Arg('socialFeedId', () => Int) socialFeedId: number) {
    return feeds.likeSocialFeed(ctx, socialFeedId);
  }

  @Authorized()
  @Mutation(() => Boolean, { description: "Withdraws the caller's like of the post (idempotent)." })
  unlikeSocialFeed(@Ctx() ctx: RequestContext, @Arg('socialFeedId', () => Int) socialFeedId: number) {
    return feeds.unlikeSocialFeed(ctx, socialFeedId);
  }

  @Authorized()
  @Query(() => [SocialFeedComment], { description: 'The comments of a post, oldest first, one page at a time.' })
  socialFeedComments(
    @Ctx() ctx: RequestContext,
    @Arg('socialFeedId', () => Int) socialFeedId: number,
    @Arg('options', () => ListOptionsInput, { nullable: true, description: COMMENT_OPTIONS }) options?: ListOptionsInput | null,
  ) {
    return feeds.listComments(ctx, socialFeedId, options);
  }

  @Authorized()
  @Query(() => SocialFeedComment, { description: 'One comment of a post.' })
  socialFeedComment(
    @Ctx() ctx: RequestContext,
    @Arg('socialFeedId', () => Int) socialFeedId: number,
    @Arg('socialFeedCommentId', () => Int) commentId: number,
  ) {
    return feeds.getComment(ctx, socialFeedId, commentId);
  }

  @Authorized()
  @Mutation(() => SocialFeedComment, {
    description: "Creates (id 0) a comment by the caller's contact, or updates one (its author or staff; others 403). The id arguments win over the input's.",
  })
  saveSocialFeedComment(
    @Ctx() ctx: RequestContext,
    @Arg('socialFeedId', () => Int) socialFeedId: number,
    @Arg('input', () => SocialFeedCommentInput) input: SocialFeedCommentInput,
    @Arg('socialFeedCommentId', () => Int, { nullable: true, description: 'The comment to update; 0 creates. When absent, SocialFeedCommentId of the input.' }) commentId?: number | null,
  ) {
    return feeds.saveComment(ctx, socialFeedId, commentId, input);
  }
}

/** The computed fields of a listed post, each through a per-request DataLoader. */
@Resolver(() => SocialFeedCollectionItem)
export class SocialFeedItemFields {
  @FieldResolver(() => String, { nullable: true })
  ContactName(@Root() item: SocialFeedCollectionItem, @Ctx() ctx: RequestContext) {
    return feeds.contactName(ctx, item.ContactId === null ? null : Number(item.ContactId));
  }

  @FieldResolver(() => Int)
  CommentsCount(@Root() item: SocialFeedCollectionItem, @Ctx() ctx: RequestContext) {
    return feeds.commentsCount(ctx, item.SocialFeedId);
  }
}

@Resolver(() => SocialFeedAddEdit)
export class SocialFeedAddEditFields {
  @FieldResolver(() => String, { nullable: true })
  ContactName(@Root() post: SocialFeedAddEdit, @Ctx() ctx: RequestContext) {
    return feeds.contactName(ctx, post.ContactId === null ? null : Number(post.ContactId));
  }
}

@Resolver(() => SocialFeedComment)
export class SocialFeedCommentFields {
  @FieldResolver(() => String, { nullable: true })
  CommentByContact(@Root() comment: SocialFeedComment, @Ctx() ctx: RequestContext) {
    return feeds.contactName(ctx, comment.CommentBy);
  }
}

/** Every resolver class of the area, for its manifest. */
export const socialFeedResolvers = [SocialFeedResolver, SocialFeedItemFields, SocialFeedAddEditFields, SocialFeedCommentFields] as const;
