import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { IsOptional, Length, Matches, Min } from 'class-validator';
import { always, isGiven, whenArgument } from '../core/argument-rules.js';

/** A decimal number of pixels as croppers send it ("120", "120.5"); empty means no crop. */
const PIXELS = /^\s*(\d{1,6}(\.\d+)?)?\s*$/;
/** `true`, `false`, a ratio `16:9` or a decimal `1.5`; empty means the usage's default. */
const FORCE_ASPECT = /^\s*(true|false|\d{1,4}(\.\d{1,4})?(:\d{1,4}(\.\d{1,4})?)?)?\s*$/i;

@ObjectType({ description: 'An image: the original upload (FileId) and the rendition served at Url (cropped, trimmed to the aspect ratio and resized for its usage).' })
export class Image {
  @Field(() => Int) ImageId!: number;
  @Field(() => Int, { description: 'The original upload (GET /api/images/file/{fileid}).' }) FileId!: number;
  @Field(() => String, { nullable: true, description: 'What the image belongs to: Contact, Tenant, StoreItem, DirectoryGallery or SocialFeed.' }) SourceType!: string | null;
  @Field(() => Int, { nullable: true, description: 'The id of the record it belongs to; 0 when not attached yet.' }) SourceId!: number | null;
  @Field(() => String, { description: 'Where the rendition is served (GET /api/images/image/{imageid}).' }) Url!: string;
  @Field(() => Int, { nullable: true }) CropX!: number | null;
  @Field(() => Int, { nullable: true }) CropY!: number | null;
  @Field(() => String, { nullable: true }) CropHeight!: string | null;
  @Field(() => String, { nullable: true }) CropWidth!: string | null;
  @Field(() => String, { description: 'Height in pixels of what Url serves.' }) Height!: string;
  @Field(() => String, { description: 'Width in pixels of what Url serves.' }) Width!: string;
  @Field(() => String, { nullable: true }) Caption!: string | null;
  @Field(() => String, { nullable: true }) ForceAspect!: string | null;
  @Field(() => String, { nullable: true }) ShortDescription!: string | null;
  @Field(() => String, { description: 'The file name of the original.' }) Name!: string;
  @Field(() => String, { nullable: true, description: 'The usage whose rules the rendition follows (not in the original documents).' }) ImageUsageId!: string | null;
}

@InputType('ImageAddEditInput', {
  description: 'An image to create (ImageId 0: from an uploaded FileId) or update. On update, fields left out keep their value; null clears.',
})
export class ImageAddEditInput {
  @Field(() => Int, { nullable: true, description: 'Ignored when the path names the image.' })
  @IsOptional() @Min(0)
  ImageId?: number | null;

  @Field(() => Int, { nullable: true, description: 'The uploaded original (POST /api/images/upload); required to create.' })
  @IsOptional() @Min(0)
  FileId?: number | null;

  @Field(() => String, { nullable: true, description: 'ContactLogo, TenantLogo, StoreItem, StoreItem.Thumbnail, DirectoryGallery, DirectoryGallery.Thumbnail or SocialFeed; defaults to the SourceType\'s usage.' })
  @IsOptional() @Length(0, 64)
  ImageUsageId?: string | null;

  @Field(() => String, { nullable: true, description: 'Contact, Tenant, StoreItem, DirectoryGallery or SocialFeed.' })
  @IsOptional() @Length(0, 32)
  SourceType?: string | null;

  @Field(() => Int, { nullable: true })
  @IsOptional() @Min(0)
  SourceId?: number | null;

  @Field(() => String, { nullable: true, description: 'Ignored: the server sets it.' })
  @IsOptional() @Length(0, 2048)
  Url?: string | null;

  @Field(() => Int, { nullable: true, description: 'Left edge of the crop, in pixels of the original as displayed.' })
  @IsOptional() @Min(0)
  CropX?: number | null;

  @Field(() => Int, { nullable: true, description: 'Top edge of the crop.' })
  @IsOptional() @Min(0)
  CropY?: number | null;

  @Field(() => String, { nullable: true, description: 'Crop height in pixels ("240" or "240.5"); empty or 0 with CropWidth: no crop.' })
  @IsOptional() @Length(0, 20) @Matches(PIXELS, { message: 'CropHeight must be a number of pixels' })
  CropHeight?: string | null;

  @Field(() => String, { nullable: true, description: 'Crop width in pixels.' })
  @IsOptional() @Length(0, 20) @Matches(PIXELS, { message: 'CropWidth must be a number of pixels' })
  CropWidth?: string | null;

  @Field(() => String, { nullable: true, description: '"true" (the default where the usage has an AspectRatio) trims to it, "false" keeps the crop\'s shape, a ratio ("16:9", "1.5") trims to that.' })
  @IsOptional() @Length(0, 32) @Matches(FORCE_ASPECT, { message: 'ForceAspect must be true, false or a ratio such as 16:9' })
  ForceAspect?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional() @Length(0, 1000)
  Caption?: string | null;

  @Field(() => String, { nullable: true, description: 'Alternative text.' })
  @IsOptional() @Length(0, 500)
  ShortDescription?: string | null;
}

@ObjectType({ description: 'The rules of an image usage: renditions are resized to fit MaxWidth x MaxHeight and trimmed to AspectRatio (W:H) when forced.' })
export class ImageUsage {
  @Field(() => String) MaxWidth!: string;
  @Field(() => String) MaxHeight!: string;
  @Field(() => String, { nullable: true, description: 'W:H, or null where any shape is fine.' }) AspectRatio!: string | null;
}

@ObjectType({ description: 'An uploaded file (the answer of POST /api/images/upload; not in the original documents).' })
export class ImageFile {
  @Field(() => Int) FileId!: number;
  @Field(() => String) Name!: string;
  @Field(() => String) MediaType!: string;
  @Field(() => Int, { description: 'Bytes.' }) Size!: number;
  @Field(() => String, { description: 'SHA-256 of the bytes, hex.' }) Sha256!: string;
  @Field(() => Int, { nullable: true }) Width!: number | null;
  @Field(() => Int, { nullable: true }) Height!: number | null;
  @Field(() => String, { description: 'Where the bytes are served (GET /api/images/file/{fileid}).' }) Url!: string;
}

/** Creating an image (imageId 0) takes an uploaded file: saveImage checks it beside the input's rules. */
export const CREATE_NEEDS_FILE = whenArgument<ImageAddEditInput>('imageId', 0, always(isGiven('FileId'), 'FileId', 'is required to create an image (upload the file first)'));
