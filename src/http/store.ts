import { fileTypeFromBuffer } from '../core/runtime/format-libraries.js';
import { DEFAULT_UPLOAD_MAX_BYTES } from '../core/config.js';
import type { AreaRoutes } from './area-routes.js';
import { intParam, sendAttachment, sendJson } from './responses.js';
import { acceptUploads, readUpload } from './uploads.js';
import { readFile } from '../services/files/files.js';
import { storeDownloadFile, uploadStoreDownloadFile } from '../services/store/store-orders.js';

/**
 * The store's byte routes (our additions, not documented operations): staff upload the file a
 * download item sells (its FileId is the item's PostSubmitDownloadFile), and buyers fetch what
 * they bought (the DownloadUrl of a download purchase), checked on every request: the purchase
 * not revoked, the link not expired, an active membership where the item requires one.
 */
export const storeAreaRoutes: AreaRoutes = {
  operations: [
    {
      method: 'POST', path: '/api/store/downloadfiles/upload', summary: 'multipart/form-data upload of a file to sell as a download (staff); answers its FileId.', extension: true,
      roles: ['staff'], upload: { fileTypes: ['*/*'], maxBytes: DEFAULT_UPLOAD_MAX_BYTES }, answers: {
        mediaTypes: [], schema: { type: 'object', required: ['FileId', 'Name', 'MediaType', 'Size', 'Sha256'], properties: { FileId: { type: 'integer' }, Name: { type: 'string' }, MediaType: { type: 'string' }, Size: { type: 'integer' }, Sha256: { type: 'string' } } },
      },
    },
    {
      method: 'GET', path: '/api/store/storedownloads/{storeitemdigitaldownloadpurchaseid}/file', summary: 'The bytes of a bought download (its buyer or staff; 403 once expired or without a required active membership).', extension: true,
      answers: { mediaTypes: ['application/octet-stream'] }, statuses: [403],
    },
  ],
  async register(server, contextFor) {
    await server.register(async (scope) => {
      await acceptUploads(scope);

      scope.post('/api/store/downloadfiles/upload', async (request, reply) => {
        const ctx = await contextFor(request);
        ctx.requireRole('staff');
        const form = await readUpload(request, ctx.app.config.UPLOAD_MAX_BYTES);
        // The media type from the bytes, never from the client's word.
        const mediaType = (await fileTypeFromBuffer(form.file.bytes))?.mime ?? 'application/octet-stream';
        return sendJson(reply, await uploadStoreDownloadFile(ctx, { filename: form.file.filename, bytes: form.file.bytes, mediaType }));
      });

      scope.get<{ Params: { id: string } }>('/api/store/storedownloads/:id/file', async (request, reply) => {
        const ctx = await contextFor(request);
        ctx.requireCaller(); // the credential before the id
        const purchaseId = intParam(request.params.id, 'storeitemdigitaldownloadpurchaseid');
        const file = await storeDownloadFile(ctx, purchaseId);
        const bytes = await readFile(ctx, file);
        return sendAttachment(reply, file, bytes, 'private, no-store');
      });
    });
  },
};
