import { raw } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import sanitizeHtml from 'sanitize-html';
import type { Caller, RequestContext } from '../core/context.js';
import { BadInput, Forbidden, NotFound } from '../core/errors.js';
import { leanRows } from '../core/lean-read.js';
import { parseListOptions, toFindOptions, type ListSpec } from '../core/list-query.js';
import { Contact, displayName } from '../entities/contact.js';
import { SocialFeed, SocialFeedComment, SocialFeedLike, type SocialFeedFileRef } from '../entities/social-feed.js';
import type {
  SocialFeedAddEdit, SocialFeedAddEditInput, SocialFeedCollectionItem, SocialFeedComment as SocialFeedCommentView, SocialFeedCommentInput,
} from '../schema/social-feeds.js';

/*
 * Social feeds: posts, comments and likes, open to every signed-in login of the tenant.
 *
 * Who may do what (the documents are silent; decided here):
 * - anyone signed in reads every post and comment of the tenant;
 * - anyone signed in whose login has a contact creates posts and comments and likes; the author
 *   is always the caller's contact, never a body field (a login without a contact gets 403);
 * - a post or comment is edited only by its author or by staff. Anyone else gets 403: the record
 *   is visible to them anyway, so refusing with 404 would hide nothing. Another tenant's records
 *   are 404, as everywhere. Staff editing someone else's post keep the original author.
 */

/** Hosts whose players may be embedded (exact host names; https only). */
export const EMBED_HOSTS = [
  'www.youtube.com', 'youtube.com', 'www.youtube-nocookie.com',
  'player.vimeo.com',
  'fast.wistia.net',
  'www.loom.com',
] as const;

const feedList: ListSpec<SocialFeed> = {
  orderBy: { SocialFeedId: 'id', SocialFeedTypeId: 'socialFeedTypeId' },
  defaultOrder: 'SocialFeedId desc', // newest first
  search: ['messageText', 'url'],
};

const commentList: ListSpec<SocialFeedComment> = {
  orderBy: { CommentDate: 'createdAt', SocialFeedCommentId: 'id' },
  defaultOrder: 'CommentDate', // oldest first, as a conversation reads
  search: ['commentText'],
};

const LIST_FIELDS = ['id', 'contact', 'membershipActivationId', 'contentItemId', 'socialFeedTypeId', 'files'] as const;
const POST_FIELDS = [...LIST_FIELDS, 'url', 'messageText', 'embedCodeHtml'] as const;
const COMMENT_FIELDS = ['id', 'socialFeed', 'contact', 'commentText', 'createdAt'] as const;

// ---------------------------------------------------------------------------------------------
// Posts

/** The tenant's posts, newest first unless `options` says otherwise. */
export async function listSocialFeeds(ctx: RequestContext, options: string | null | undefined): Promise<SocialFeedCollectionItem[]> {
  const { where, orderBy, limit, offset } = toFindOptions(parseListOptions(options, feedList), feedList);
  const rows = await leanRows(ctx.em, SocialFeed, { fields: [...LIST_FIELDS], where, orderBy, limit, offset });
  return rows.map(toCollectionItem);
}

export async function getSocialFeed(ctx: RequestContext, socialFeedId: number): Promise<SocialFeedAddEdit> {
  const [row] = await leanRows(ctx.em, SocialFeed, { fields: [...POST_FIELDS], where: { id: socialFeedId }, limit: 1 });
  if (!row) throw new NotFound('The post');
  return {
    SocialFeedId: row.id,
    MembershipActivationId: row.membershipActivationId,
    ContactId: idText(row.contact),
    ContentItemId: row.contentItemId,
    SocialFeedTypeId: row.socialFeedTypeId,
    Url: row.url,
    MessageText: row.messageText,
    EmbedCodeHtml: row.embedCodeHtml,
    SocialFeedFileUpload: null,
    SocialFeedFiles: filesOf(row.files),
  };
}

/**
 * Create-or-update: id 0 creates a post by the caller's contact, an existing id updates it (its
 * author or staff only), an unknown id is 404. `SocialFeedFileUpload` is accepted and ignored
 * until uploads exist; `SocialFeedFiles` replaces the attached file references.
 */
export async function saveSocialFeed(ctx: RequestContext, socialFeedId: number | null | undefined, input: SocialFeedAddEditInput): Promise<SocialFeedCollectionItem> {
  const caller = ctx.requireCaller();
  const id = socialFeedId ?? input.SocialFeedId ?? 0;
  const fields = {
    membershipActivationId: blankToNull(input.MembershipActivationId),
    contentItemId: blankToNull(input.ContentItemId),
    socialFeedTypeId: blankToNull(input.SocialFeedTypeId),
    url: blankToNull(input.Url),
    messageText: blankToNull(input.MessageText),
    embedCodeHtml: sanitizeEmbed(input.EmbedCodeHtml),
    files: (input.SocialFeedFiles ?? []).map((file) => ({ FileId: file.FileId, Name: file.Name.trim() })),
  };
  if (!fields.messageText && !fields.url && !fields.embedCodeHtml && fields.files.length === 0) {
    throw BadInput.field('MessageText', 'a post needs a MessageText, a Url, an EmbedCodeHtml or SocialFeedFiles');
  }
  let post: SocialFeed;
  if (id !== 0) {
    post = await findPost(ctx.em, id);
    assertMayEdit(caller, post.contact?.id ?? null, 'post');
    ctx.em.assign(post, fields);
  } else {
    post = ctx.em.create(SocialFeed, { tenant: ctx.tenantId, contact: requireContact(caller, 'post'), ...fields });
  }
  await ctx.em.persist(post).flush();
  return toCollectionItem({ ...fields, id: post.id, contact: post.contact?.id ?? null });
}

/** Records the caller's like of a post; liking twice is one like. */
export async function likeSocialFeed(ctx: RequestContext, socialFeedId: number): Promise<boolean> {
  const caller = ctx.requireCaller();
  await assertPostExists(ctx.em, socialFeedId);
  const contactId = requireContact(caller, 'like');
  await ctx.em.createQueryBuilder(SocialFeedLike)
    .insert({ tenant: caller.tenantId, socialFeed: socialFeedId, contact: contactId })
    .onConflict(['socialFeed', 'contact']).ignore()
    .execute();
  return true;
}

/** Withdraws the caller's like of a post; a post not liked stays not liked. */
export async function unlikeSocialFeed(ctx: RequestContext, socialFeedId: number): Promise<boolean> {
  const caller = ctx.requireCaller();
  await assertPostExists(ctx.em, socialFeedId);
  const contactId = requireContact(caller, 'like');
  await ctx.em.nativeDelete(SocialFeedLike, { socialFeed: socialFeedId, contact: contactId });
  return true;
}

// ---------------------------------------------------------------------------------------------
// Comments

/** The comments of a post, oldest first unless `options` says otherwise. */
export async function listComments(ctx: RequestContext, socialFeedId: number, options: string | null | undefined): Promise<SocialFeedCommentView[]> {
  const list = parseListOptions(options, commentList);
  await assertPostExists(ctx.em, socialFeedId);
  const { where, orderBy, limit, offset } = toFindOptions(list, commentList);
  const rows = await leanRows(ctx.em, SocialFeedComment, {
    fields: [...COMMENT_FIELDS], where: { $and: [where, { socialFeed: socialFeedId }] }, orderBy, limit, offset,
  });
  return rows.map(toCommentView);
}

export async function getComment(ctx: RequestContext, socialFeedId: number, commentId: number): Promise<SocialFeedCommentView> {
  const [row] = await leanRows(ctx.em, SocialFeedComment, { fields: [...COMMENT_FIELDS], where: { id: commentId, socialFeed: socialFeedId }, limit: 1 });
  if (!row) throw new NotFound('The comment');
  return toCommentView(row);
}

/**
 * Create-or-update of a comment on a post: id 0 creates one by the caller's contact, an existing
 * id of this post updates its text (its author or staff only), anything else is 404.
 */
export async function saveComment(ctx: RequestContext, socialFeedId: number, commentId: number | null | undefined, input: SocialFeedCommentInput): Promise<SocialFeedCommentView> {
  const caller = ctx.requireCaller();
  const id = commentId ?? input.SocialFeedCommentId ?? 0;
  const commentText = input.CommentText.trim();
  let comment: SocialFeedComment;
  if (id !== 0) {
    const found = await ctx.em.findOne(SocialFeedComment, { id, socialFeed: socialFeedId });
    if (!found) throw new NotFound('The comment');
    comment = found;
    assertMayEdit(caller, comment.contact?.id ?? null, 'comment');
    comment.commentText = commentText;
  } else {
    await assertPostExists(ctx.em, socialFeedId);
    comment = ctx.em.create(SocialFeedComment, {
      tenant: ctx.tenantId, socialFeed: socialFeedId, contact: requireContact(caller, 'comment'), commentText,
    });
  }
  await ctx.em.persist(comment).flush();
  return toCommentView({ id: comment.id, socialFeed: socialFeedId, contact: comment.contact?.id ?? null, commentText, createdAt: comment.createdAt });
}

// ---------------------------------------------------------------------------------------------
// Per-request loaders for the computed fields (field resolvers in resolvers/social-feeds.ts)

/** A contact's display name, batched per request; null for a missing or deleted contact. */
export function contactName(ctx: RequestContext, contactId: number | null): Promise<string | null> | null {
  if (contactId === null) return null;
  return ctx.loaders.custom<number, string | null>('socialFeeds.contactNames', async (em, ids) => {
    const contacts = await leanRows(em, Contact, { fields: ['id', 'kind', 'name', 'firstName', 'lastName'], where: { id: { $in: [...ids] } } });
    const names = new Map(contacts.map((contact) => [contact.id, displayName(contact) || null]));
    return ids.map((id) => names.get(id) ?? null);
  }).load(contactId);
}

/** How many comments a post has, batched per request (one grouped count for the whole page). */
export function commentsCount(ctx: RequestContext, socialFeedId: number): Promise<number> {
  return ctx.loaders.custom<number, number>('socialFeeds.commentCounts', async (em, ids) => {
    const qb = em.createQueryBuilder(SocialFeedComment, 'c')
      .select(['c.socialFeed', raw('count(*) as comments')])
      .where({ socialFeed: { $in: [...ids] } })
      .groupBy('c.socialFeed');
    await qb.applyFilters();
    const rows = await qb.execute<{ socialFeed: number; comments: string | number }[]>('all', true);
    const counts = new Map(rows.map((row) => [Number(row.socialFeed), Number(row.comments)]));
    return ids.map((id) => counts.get(id) ?? 0);
  }).load(socialFeedId);
}

// ---------------------------------------------------------------------------------------------
// Embeds

const EMBED_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: ['iframe'],
  allowedAttributes: { iframe: ['src', 'width', 'height', 'title', 'frameborder', 'allowfullscreen'] },
  allowedSchemes: ['https'],
  allowedSchemesByTag: { iframe: ['https'] },
  allowProtocolRelative: false,
  allowedIframeHostnames: [...EMBED_HOSTS],
  allowIframeRelativeUrls: false,
  disallowedTagsMode: 'discard',
  textFilter: () => '', // no loose text: the embed is the iframe and nothing else
  transformTags: {
    iframe: (tagName, attribs) => ({
      tagName,
      attribs: Object.fromEntries(Object.entries(attribs).filter(([name, value]) =>
        ['width', 'height', 'frameborder'].includes(name) ? /^\d{1,4}%?$/.test(value) : true)),
    }),
  },
};

/**
 * The embed code as stored: exactly one `<iframe>` whose https `src` is on an allowed video host,
 * with only harmless attributes. Scripts, event handlers, other tags and text are removed; an
 * embed from which no such iframe remains (or more than one) is a 400 naming EmbedCodeHtml.
 */
export function sanitizeEmbed(html: string | null | undefined): string | null {
  if (!html || !html.trim()) return null;
  const clean = sanitizeHtml(html, EMBED_OPTIONS).trim();
  const iframes = clean.match(/<iframe\b[^>]*>/g) ?? [];
  if (iframes.length !== 1 || !/\ssrc="https:\/\//.test(iframes[0]!)) {
    throw BadInput.field('EmbedCodeHtml', `must be one iframe whose https src is on one of: ${EMBED_HOSTS.join(', ')}`);
  }
  return clean;
}

// ---------------------------------------------------------------------------------------------

async function findPost(em: EntityManager, socialFeedId: number): Promise<SocialFeed> {
  const post = await em.findOne(SocialFeed, { id: socialFeedId });
  if (!post) throw new NotFound('The post');
  return post;
}

async function assertPostExists(em: EntityManager, socialFeedId: number): Promise<void> {
  const [post] = await leanRows(em, SocialFeed, { fields: ['id'], where: { id: socialFeedId }, limit: 1 });
  if (!post) throw new NotFound('The post');
}

function assertMayEdit(caller: Caller, authorContactId: number | null, what: 'post' | 'comment'): void {
  if (caller.roles.includes('staff')) return;
  if (authorContactId !== null && authorContactId === caller.contactId) return;
  throw new Forbidden(`Only the author of the ${what} or staff may change it.`);
}

function requireContact(caller: Caller, action: 'post' | 'comment' | 'like'): number {
  if (caller.contactId === null) throw new Forbidden(`A login without a contact cannot ${action}.`);
  return caller.contactId;
}

type ListRow = Pick<SocialFeed, 'id' | 'membershipActivationId' | 'contentItemId' | 'socialFeedTypeId' | 'files'> & { contact: unknown };

function toCollectionItem(row: ListRow): SocialFeedCollectionItem {
  return {
    SocialFeedId: row.id,
    MembershipActivationId: row.membershipActivationId,
    ContentItemId: row.contentItemId,
    ContactId: idText(row.contact),
    SocialFeedTypeId: row.socialFeedTypeId,
    FilesCount: filesOf(row.files).length,
  };
}

function toCommentView(row: { id: number; socialFeed: unknown; contact: unknown; commentText: string; createdAt: Date | string }): SocialFeedCommentView {
  return {
    SocialFeedCommentId: row.id,
    SocialFeedId: idOf(row.socialFeed)!,
    CommentBy: idOf(row.contact),
    CommentDate: new Date(row.createdAt).toISOString(),
    CommentText: row.commentText,
  };
}

/** A lean row holds a many-to-one as its key; an entity holds a reference. */
function idOf(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'object' && 'id' in value) return Number((value as { id: number }).id);
  return Number(value);
}

function idText(value: unknown): string | null {
  const id = idOf(value);
  return id === null ? null : String(id);
}

function filesOf(files: SocialFeedFileRef[] | null | undefined): SocialFeedFileRef[] {
  return Array.isArray(files) ? files : [];
}

function blankToNull(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}
