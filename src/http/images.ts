import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestContext } from '../core/context.js';
import { readFile, type FileRecord } from '../services/files/files.js';
import { imageFile, imageServedFile, prepareFolderUpload, uploadFolderImage, uploadImageFile } from '../services/images/images.js';
import { ACCEPTED_IMAGE_TYPES } from '../services/images/image-processing.js';
import { DEFAULT_UPLOAD_MAX_BYTES } from '../core/config.js';
import type { AreaRoutes } from './area-routes.js';
import { contentDisposition, intParam, sendJson } from './responses.js';
import { acceptUploads, readUpload } from './uploads.js';

const IMAGE_MEDIA_TYPES = Object.keys(ACCEPTED_IMAGE_TYPES);

/**
 * The Images operations that need the raw request or response: multipart uploads and byte
 * downloads (ETag, 304). The JSON operations (save, delete, usage) are in the route table
 * (src/rest/images.ts). Multipart parsing is registered only in this scope.
 */
export const imageAreaRoutes: AreaRoutes = {
  operations: [
    { method: 'GET', path: '/api/images/file/{fileid}', summary: 'The bytes of an uploaded image file (ETag, 304 on If-None-Match).', answers: { mediaTypes: IMAGE_MEDIA_TYPES }, statuses: [304] },
    { method: 'GET', path: '/api/images/image/{imageid}', summary: 'The bytes of an image\'s current rendition (ETag, 304 on If-None-Match).', answers: { mediaTypes: IMAGE_MEDIA_TYPES }, statuses: [304] },
    {
      method: 'POST', path: '/api/images/upload', summary: 'multipart/form-data upload of one image file; answers its FileId and facts.',
      upload: { fileTypes: IMAGE_MEDIA_TYPES, maxBytes: DEFAULT_UPLOAD_MAX_BYTES }, answers: { mediaTypes: [], schema: 'ImageFile' },
    },
    {
      method: 'POST', path: '/api/images/upload/{foldertype}/{objectid}', summary: 'multipart/form-data upload of one image for an object; answers the Image.',
      pathRules: { foldertype: { type: 'string', description: 'An image folder (an unknown one: 404).' }, objectid: { type: 'string', pattern: '^\\d{1,9}$', description: 'The id of the record the image is for.' } },
      upload: { fileTypes: IMAGE_MEDIA_TYPES, maxBytes: DEFAULT_UPLOAD_MAX_BYTES, fields: 'ImageAddEditInput' }, answers: { mediaTypes: [], schema: 'Image' },
    },
  ],
  async register(server, contextFor) {
    await server.register(async (scope) => {
      await acceptUploads(scope);

      scope.get<{ Params: { fileid: string } }>('/api/images/file/:fileid', async (request, reply) => {
        const ctx = await contextFor(request);
        ctx.requireCaller(); // the credential before the id: a stranger learns nothing from a 400
        const fileId = intParam(request.params.fileid, 'fileid');
        // An uploaded file never changes: cache it for good (privately: it needs a credential).
        return sendFile(ctx, request, reply, await imageFile(ctx, fileId), 'private, max-age=31536000, immutable');
      });

      scope.get<{ Params: { imageid: string } }>('/api/images/image/:imageid', async (request, reply) => {
        const ctx = await contextFor(request);
        ctx.requireCaller();
        const imageId = intParam(request.params.imageid, 'imageid');
        // A new crop changes what an image serves: revalidate every time (the ETag makes that a 304).
        return sendFile(ctx, request, reply, await imageServedFile(ctx, imageId), 'private, no-cache');
      });

      scope.post('/api/images/upload', async (request, reply) => {
        const ctx = await contextFor(request);
        ctx.requireCaller();
        const form = await readUpload(request, ctx.app.config.UPLOAD_MAX_BYTES);
        return sendJson(reply, await uploadImageFile(ctx, form.file));
      });

      scope.post<{ Params: { foldertype: string; objectid: string } }>('/api/images/upload/:foldertype/:objectid', async (request, reply) => {
        const ctx = await contextFor(request);
        const target = await prepareFolderUpload(ctx, request.params.foldertype, request.params.objectid);
        const form = await readUpload(request, ctx.app.config.UPLOAD_MAX_BYTES);
        return sendJson(reply, await uploadFolderImage(ctx, target, form.file, form.fields));
      });
    });
  },
};

/** The bytes of a file with Content-Type, Content-Length, ETag (its SHA-256) and caching headers; 304 when the client has them. */
async function sendFile(ctx: RequestContext, request: FastifyRequest, reply: FastifyReply, file: FileRecord, cacheControl: string) {
  const etag = `"${file.sha256}"`;
  reply.header('etag', etag).header('cache-control', cacheControl).header('vary', 'Authorization');
  if (etagMatches(request.headers['if-none-match'], etag)) return reply.code(304).send();
  const bytes = await readFile(ctx, file);
  const disposition = ACCEPTED_IMAGE_TYPES[file.mediaType] ? 'inline' : 'attachment';
  return reply
    .code(200)
    .header('content-type', file.mediaType)
    .header('content-length', bytes.length)
    .header('content-disposition', contentDisposition(disposition, file.name))
    .send(bytes);
}

/** If-None-Match: `*`, or a list of (weak or strong) tags compared weakly, as RFC 9110 says for GET. */
function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
