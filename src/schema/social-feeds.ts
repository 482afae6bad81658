import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { AcrossFields, always, Conforms, eitherOf, hasEntries, isGiven, UnlessBlank, type ArgumentRule } from '../core/argument-rules.js';
import { BadInput } from '../core/errors.js';
import { ArrayMaxSize, IsOptional, IsUrl, Length, Matches, MaxLength, Min, ValidateIf, ValidateNested } from 'class-validator';

/** Most file references one post may carry. */
export const MAX_FILES_PER_POST = 20;
export const MAX_MESSAGE_LENGTH = 10000;
export const MAX_EMBED_LENGTH = 10000;
export const MAX_COMMENT_LENGTH = 5000;

/** Hosts whose players may be embedded (exact host names; https only). */
export const EMBED_HOSTS = [
  'www.youtube.com', 'youtube.com', 'www.youtube-nocookie.com',
  'player.vimeo.com',
  'fast.wistia.net',
  'www.loom.com',
] as const;

/**
 * An embed: the server keeps one iframe whose https src is on an allowed host and removes the rest
 * (services/social-feeds: sanitizeEmbed, which refuses an embed with no such iframe); the document
 * states the plain form that always passes.
 */
const EMBED_RULE: ArgumentRule<string> = {
  schema: {
    type: 'string', maxLength: MAX_EMBED_LENGTH,
    pattern: `^<iframe src="https://(${EMBED_HOSTS.map((host) => host.replace(/\./g, '\\.')).join('|')})/[^"<>\\s]*"( (width|height)="\\d{1,4}")*></iframe>$`,
  },
  parse(text, field) {
    if (text.length > MAX_EMBED_LENGTH) throw BadInput.field(field, `must be at most ${MAX_EMBED_LENGTH} characters`);
    return text;
  },
};

@ObjectType({ description: 'A file attached to a post: a reference to a stored file (the documented SocialFeedFiles items).' })
export class SocialFeedFile {
  @Field(() => Int) FileId!: number;
  @Field(() => String) Name!: string;
}

@InputType('SocialFeedFileInput', { description: 'A reference to a stored file to attach to a post.' })
export class SocialFeedFileInput {
  @Field(() => Int)
  @Min(1)
  FileId!: number;

  @Field(() => String)
  @Length(1, 255) @Matches(/\S/, { message: 'Name must not be blank' })
  Name!: string;
}

@ObjectType({ description: 'A post as listed on the feed.' })
export class SocialFeedCollectionItem {
  @Field(() => Int) SocialFeedId!: number;
  @Field(() => String, { nullable: true }) MembershipActivationId!: string | null;
  @Field(() => String, { nullable: true }) ContentItemId!: string | null;
  @Field(() => String, { nullable: true, description: 'The contact id of the poster.' }) ContactId!: string | null;
  @Field(() => String, { nullable: true }) SocialFeedTypeId!: string | null;
  /** Resolved per request through a DataLoader (resolvers/social-feeds.ts). */
  @Field(() => String, { nullable: true, description: "The poster's display name." }) ContactName?: string | null;
  /** Resolved per request through a DataLoader (resolvers/social-feeds.ts). */
  @Field(() => Int, { description: 'How many comments the post has.' }) CommentsCount?: number;
  @Field(() => Int, { description: 'How many files are attached to the post.' }) FilesCount!: number;
}

@ObjectType({ description: 'A post as read for editing.' })
export class SocialFeedAddEdit {
  @Field(() => Int) SocialFeedId!: number;
  @Field(() => String, { nullable: true }) MembershipActivationId!: string | null;
  @Field(() => String, { nullable: true, description: 'The contact id of the poster.' }) ContactId!: string | null;
  @Field(() => String, { nullable: true }) ContentItemId!: string | null;
  /** Resolved per request through a DataLoader (resolvers/social-feeds.ts). */
  @Field(() => String, { nullable: true, description: "The poster's display name." }) ContactName?: string | null;
  @Field(() => String, { nullable: true }) SocialFeedTypeId!: string | null;
  @Field(() => String, { nullable: true }) Url!: string | null;
  @Field(() => String, { nullable: true }) MessageText!: string | null;
  @Field(() => String, { nullable: true, description: 'A sanitized iframe from an allowed video host, or null.' }) EmbedCodeHtml!: string | null;
  @Field(() => String, { nullable: true, description: 'Always null: uploads are not built yet.' }) SocialFeedFileUpload!: string | null;
  @Field(() => [SocialFeedFile], { description: 'The files attached to the post.' }) SocialFeedFiles!: SocialFeedFile[];
}

/** A post says something: a message, a link, an embed or files. */
export const SAYS_SOMETHING = 'a post needs a MessageText, a Url, an EmbedCodeHtml or SocialFeedFiles';

@AcrossFields<SocialFeedAddEditInput>(always(eitherOf(isGiven('MessageText'), isGiven('Url'), isGiven('EmbedCodeHtml'), hasEntries('SocialFeedFiles')), 'MessageText', SAYS_SOMETHING))
@InputType('SocialFeedAddEditInput', {
  description: 'A post to create (id 0) or update. The poster (ContactId, ContactName) is set by the server and never read from here.',
})
export class SocialFeedAddEditInput {
  @Field(() => Int, { nullable: true, description: 'Ignored on REST: the id in the path wins.' })
  @IsOptional() @Min(0)
  SocialFeedId?: number | null;

  @Field(() => String, { nullable: true })
  @IsOptional() @MaxLength(64)
  MembershipActivationId?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional() @MaxLength(64)
  ContentItemId?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional() @MaxLength(64)
  SocialFeedTypeId?: string | null;

  @Field(() => String, { nullable: true })
  @ValidateIf((post: SocialFeedAddEditInput) => Boolean(post.Url)) // "" means no URL
  @Length(0, 2048) @IsUrl({ require_protocol: true, protocols: ['http', 'https'] }, { message: 'Url must be an http(s) URL' })
  Url?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional() @MaxLength(MAX_MESSAGE_LENGTH)
  MessageText?: string | null;

  @Field(() => String, { nullable: true, description: 'One iframe from an allowed video host; anything else in it is removed.' })
  @IsOptional() @UnlessBlank() @Conforms(EMBED_RULE)
  EmbedCodeHtml?: string | null;

  @Field(() => String, { nullable: true, description: 'Accepted and ignored: uploads are not built yet.' })
  SocialFeedFileUpload?: string | null;

  @Field(() => [SocialFeedFileInput], { nullable: true, description: `References to stored files (at most ${MAX_FILES_PER_POST}).` })
  @IsOptional() @ArrayMaxSize(MAX_FILES_PER_POST) @ValidateNested({ each: true })
  SocialFeedFiles?: SocialFeedFileInput[] | null;
}

@ObjectType({ description: 'A comment on a post.' })
export class SocialFeedComment {
  @Field(() => Int) SocialFeedCommentId!: number;
  @Field(() => Int) SocialFeedId!: number;
  @Field(() => Int, { nullable: true, description: 'The contact id of the commenter.' }) CommentBy!: number | null;
  /** Resolved per request through a DataLoader (resolvers/social-feeds.ts). */
  @Field(() => String, { nullable: true, description: "The commenter's display name." }) CommentByContact?: string | null;
  @Field(() => String, { description: 'When the comment was written (ISO 8601, UTC).' }) CommentDate!: string;
  @Field(() => String) CommentText!: string;
}

@InputType('SocialFeedCommentInput', {
  description: 'A comment to create (id 0) or update. CommentBy, CommentByContact and CommentDate are set by the server and never read from here.',
})
export class SocialFeedCommentInput {
  @Field(() => Int, { nullable: true, description: 'Ignored on REST: the id in the path wins.' })
  @IsOptional() @Min(0)
  SocialFeedCommentId?: number | null;

  @Field(() => Int, { nullable: true, description: 'Ignored on REST: the id in the path wins.' })
  @IsOptional() @Min(0)
  SocialFeedId?: number | null;

  @Field(() => String)
  @Length(1, MAX_COMMENT_LENGTH) @Matches(/\S/, { message: 'CommentText must not be blank' })
  CommentText!: string;
}
