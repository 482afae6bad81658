import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../core/context.js';
import { CREATE_NEEDS_FILE, Image, ImageAddEditInput, ImageFile, ImageUsage } from '../schema/images.js';
import { alsoKeeping } from '../core/requests/graphql-policies.js';
import * as images from '../services/images/images.js';

/**
 * Images. The bytes travel over REST only: upload with POST /api/images/upload (or
 * /upload/{foldertype}/{objectid}), then use the FileId here; read them at Url.
 */
@Resolver()
export class ImageResolver {
  @Authorized()
  @Query(() => Image, { description: 'One image (its bytes: GET /api/images/image/{imageid}).' })
  image(@Ctx() ctx: RequestContext, @Arg('imageId', () => Int) imageId: number) {
    return images.getImage(ctx, imageId);
  }

  @Authorized()
  @Query(() => ImageFile, { description: 'An uploaded image file (its bytes: GET /api/images/file/{fileid}).' })
  imageFile(@Ctx() ctx: RequestContext, @Arg('fileId', () => Int) fileId: number) {
    return images.getImageFile(ctx, fileId);
  }

  @Authorized()
  @Query(() => ImageUsage, { description: 'The rules (maximum size, aspect ratio) of an image usage, or of its secondary variant.' })
  imageUsage(
    @Arg('imageUsageId', () => String) imageUsageId: string,
    @Arg('secondary', () => String, { nullable: true, description: 'A variant of the usage, e.g. Thumbnail.' }) secondary?: string | null,
  ) {
    return images.imageUsage(imageUsageId, secondary);
  }

  @Authorized()
  @Mutation(() => Image, { description: 'Creates (imageId 0, from an uploaded FileId) or updates an image: caption, short description, crop, usage, what it belongs to. Staff or the uploader may update.' })
  saveImage(@Ctx() ctx: RequestContext, @Arg('imageId', () => Int) imageId: number, @Arg('input', () => ImageAddEditInput, alsoKeeping(CREATE_NEEDS_FILE)) input: ImageAddEditInput) {
    return images.saveImage(ctx, imageId, input);
  }

  @Authorized()
  @Mutation(() => Int, { description: 'Deletes an image, and its files unless something else uses them; answers its id. Staff or the uploader may delete.' })
  deleteImage(@Ctx() ctx: RequestContext, @Arg('imageId', () => Int) imageId: number) {
    return images.deleteImage(ctx, imageId);
  }
}
