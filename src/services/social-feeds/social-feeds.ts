import type { EntityManager } from '@mikro-orm/postgresql';
import type sanitizeHtml from 'sanitize-html';
import type { Caller, RequestContext } from '../../core/context.js';
import { BadInput, Forbidden } from '../../core/errors.js';
import { loadSanitizeHtml } from '../../core/runtime/format-libraries.js';
import { countsBy, idOf, insertIgnoringDuplicates, leanRows } from '../../core/data/lean-read.js';
import { listQuery, defineList } from '../../core/data/list-query.js';
import { findOr404, readOr404 } from '../../core/data/records.js';
import { Contact, displayName } from '../../entities/contact.js';
import { Login } from '../../entities/login.js';
import { SocialFeed, SocialFeedComment, SocialFeedLike, type SocialFeedFileRef } from '../../entities/social-feed.js';
import type { Tenant } from '../../entities/tenant.js';
import type { ListOptionsInput } from '../../schema/common.js';
import type {
  SocialFeedAddEdit, SocialFeedAddEditInput, SocialFeedCollectionItem, SocialFeedComment as SocialFeedCommentView, SocialFeedCommentInput,
} from '../../schema/social-feeds.js';
import { EMBED_HOSTS, SAYS_SOMETHING } from '../../schema/social-feeds.js';

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

const feedList = defineList(SocialFeed, {
  operations: ['Query.socialFeeds'],
  orderBy: { SocialFeedId: 'id', SocialFeedTypeId: 'socialFeedTypeId' },
  defaultOrder: 'SocialFeedId desc', // newest first
  search: ['messageText', 'url'],
}, 'many');

const commentList = defineList(SocialFeedComment, {
  operations: ['Query.socialFeedComments'],
  orderBy: { CommentDate: 'createdAt', SocialFeedCommentId: 'id' },
  defaultOrder: 'CommentDate', // oldest first, as a conversation reads
  search: ['commentText'],
}, 'many');

const LIST_FIELDS = ['id', 'contact', 'membershipActivationId', 'contentItemId', 'socialFeedTypeId', 'files'] as const;
const POST_FIELDS = [...LIST_FIELDS, 'url', 'messageText', 'embedCodeHtml'] as const;
const COMMENT_FIELDS = ['id', 'socialFeed', 'contact', 'commentText', 'createdAt'] as const;

// ---------------------------------------------------------------------------------------------
// Posts

/** The tenant's posts, newest first unless `options` says otherwise. */
export async function listSocialFeeds(ctx: RequestContext, options: ListOptionsInput | null | undefined): Promise<SocialFeedCollectionItem[]> {
  const { rows } = await listQuery(ctx, SocialFeed, feedList, options, { fields: LIST_FIELDS });
  return rows.map(toCollectionItem);
}

const POST = 'The post';
const COMMENT = 'The comment';

export async function getSocialFeed(ctx: RequestContext, socialFeedId: number): Promise<SocialFeedAddEdit> {
  const row = await readOr404(ctx, SocialFeed, POST_FIELDS, socialFeedId, POST);
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
    embedCodeHtml: await sanitizeEmbed(input.EmbedCodeHtml),
    files: (input.SocialFeedFiles ?? []).map((file) => ({ FileId: file.FileId, Name: file.Name.trim() })),
  };
  // The input's rule (SAYS_SOMETHING) saw an EmbedCodeHtml; here it may have kept nothing once sanitized.
  if (!fields.messageText && !fields.url && !fields.embedCodeHtml && fields.files.length === 0) throw BadInput.field('MessageText', SAYS_SOMETHING);
  let post: SocialFeed;
  if (id !== 0) {
    post = await findOr404(ctx, SocialFeed, id, POST);
    assertMayEdit(ctx, caller, post.contact?.id ?? null, 'post');
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
  await assertPostExists(ctx, socialFeedId);
  const contactId = requireContact(caller, 'like');
  await insertIgnoringDuplicates(ctx.em, SocialFeedLike, [{ tenant: caller.tenantId, socialFeed: socialFeedId, contact: contactId }], ['socialFeed', 'contact']);
  return true;
}

/** Withdraws the caller's like of a post; a post not liked stays not liked. */
export async function unlikeSocialFeed(ctx: RequestContext, socialFeedId: number): Promise<boolean> {
  const caller = ctx.requireCaller();
  await assertPostExists(ctx, socialFeedId);
  const contactId = requireContact(caller, 'like');
  await ctx.em.nativeDelete(SocialFeedLike, { socialFeed: socialFeedId, contact: contactId });
  return true;
}

// ---------------------------------------------------------------------------------------------
// Comments

/** The comments of a post, oldest first unless `options` says otherwise. */
export async function listComments(ctx: RequestContext, socialFeedId: number, options: ListOptionsInput | null | undefined): Promise<SocialFeedCommentView[]> {
  const [{ rows }] = await Promise.all([
    listQuery(ctx, SocialFeedComment, commentList, options, { fields: COMMENT_FIELDS, where: { socialFeed: socialFeedId } }),
    assertPostExists(ctx, socialFeedId),
  ]);
  return rows.map(toCommentView);
}

export async function getComment(ctx: RequestContext, socialFeedId: number, commentId: number): Promise<SocialFeedCommentView> {
  return toCommentView(await readOr404(ctx, SocialFeedComment, COMMENT_FIELDS, commentId, COMMENT, { socialFeed: socialFeedId }));
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
    comment = await findOr404(ctx, SocialFeedComment, id, COMMENT, { socialFeed: socialFeedId });
    assertMayEdit(ctx, caller, comment.contact?.id ?? null, 'comment');
    comment.commentText = commentText;
  } else {
    await assertPostExists(ctx, socialFeedId);
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
    const counts = await countsBy(em, SocialFeedComment, 'socialFeed', { socialFeed: { $in: [...ids] } });
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
export async function sanitizeEmbed(html: string | null | undefined): Promise<string | null> {
  if (!html || !html.trim()) return null;
  const clean = (await loadSanitizeHtml())(html, EMBED_OPTIONS).trim();
  const iframes = clean.match(/<iframe\b[^>]*>/g) ?? [];
  if (iframes.length !== 1 || !/\ssrc="https:\/\//.test(iframes[0])) {
    throw BadInput.field('EmbedCodeHtml', `must be one iframe whose https src is on one of: ${EMBED_HOSTS.join(', ')}`);
  }
  return clean;
}

// ---------------------------------------------------------------------------------------------

async function assertPostExists(ctx: RequestContext, socialFeedId: number): Promise<void> {
  await readOr404(ctx, SocialFeed, ['id'], socialFeedId, POST);
}

function assertMayEdit(ctx: RequestContext, caller: Caller, authorContactId: number | null, what: 'post' | 'comment'): void {
  if (ctx.isStaff) return;
  if (authorContactId !== null && authorContactId === caller.contactId) return;
  throw new Forbidden(`Only the author of the ${what} or staff may change it.`);
}

function requireContact(caller: Caller, action: 'post' | 'comment' | 'like'): number {
  if (caller.contactId === null) throw new Forbidden(`A login without a contact cannot ${action}.`);
  return caller.contactId;
}

/** A relation as a lean row holds it (the key) or an entity (a reference). */
type Relation = number | { id: number };

type ListRow = Pick<SocialFeed, 'id' | 'membershipActivationId' | 'contentItemId' | 'socialFeedTypeId' | 'files'> & { contact: Relation | null };

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

function toCommentView(row: { id: number; socialFeed: Relation; contact: Relation | null; commentText: string; createdAt: Date | string }): SocialFeedCommentView {
  return {
    SocialFeedCommentId: row.id,
    SocialFeedId: idOf(row.socialFeed),
    CommentBy: idOf(row.contact),
    CommentDate: new Date(row.createdAt).toISOString(),
    CommentText: row.commentText,
  };
}

function idText(value: number | { id: number } | null): string | null {
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

/** Demo posts for a new tenant: a welcome post by its first login with a contact, with a comment. */
export async function seedSocialFeeds(em: EntityManager, tenant: Tenant, marker: string): Promise<void> {
  const login = await em.findOne(Login, { tenant, contact: { $ne: null } }, { filters: false, orderBy: { id: 'asc' } });
  if (!login?.contact) return;
  const post = em.create(SocialFeed, {
    tenant, contact: login.contact, messageText: `${marker}Welcome to the member hub! Introduce yourself below.`, url: null, embedCodeHtml: null,
    membershipActivationId: null, contentItemId: null, socialFeedTypeId: null, files: [],
  });
  em.create(SocialFeedComment, { tenant, socialFeed: post, contact: login.contact, commentText: `${marker}Glad to be here.` });
  await em.flush();
}
