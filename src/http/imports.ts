import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { stringify } from 'csv-stringify/sync';
import { DEFAULT_UPLOAD_MAX_BYTES } from '../core/config.js';
import { contactExportRows } from '../services/imports/export.js';
import { CSV_MEDIA_TYPE, receiveImportFile, rejectedRowsCsv } from '../services/imports/imports.js';
import type { AreaRoutes } from './area-routes.js';
import { contentDisposition, intParam, sendJson } from './responses.js';
import { acceptUploads, streamUpload } from './uploads.js';

/**
 * The contact import operations that need the raw request or response: the CSV upload (streamed
 * into storage, IMPORT_MAX_BYTES), and the CSVs streamed out — the rejected rows of an import and
 * the export. GraphQL clients upload here, then use the GraphQL fields with the ImportId;
 * `contactImportRejectedCsv` and `contactExportCsv` answer these URLs.
 */
export const importsAreaRoutes: AreaRoutes = {
  operations: [
    {
      method: 'POST', path: '/api/imports/upload', extension: true, roles: ['staff'],
      summary: 'multipart/form-data upload of one CSV of contacts and memberships to import; answers the import with its state.',
      upload: { fileTypes: ['text/csv'], maxBytes: DEFAULT_UPLOAD_MAX_BYTES }, answers: { mediaTypes: [], schema: 'ImportStatus' },
    },
    {
      method: 'GET', path: '/api/imports/{importid}/rejected', extension: true, roles: ['staff'],
      summary: 'The rejected rows of an import\'s finished run as CSV (the file\'s columns plus ImportError), streamed; 409 before it finished.',
      answers: { mediaTypes: ['text/csv'] }, statuses: [409],
    },
    {
      method: 'GET', path: '/api/exports/contacts', extension: true, roles: ['staff'],
      summary: 'Every live contact with its memberships as CSV, in the columns an import takes, streamed.',
      answers: { mediaTypes: ['text/csv'] },
    },
  ],
  async register(server, contextFor) {
    await server.register(async (scope) => {
      await acceptUploads(scope);
      scope.post('/api/imports/upload', async (request, reply) => {
        const ctx = await contextFor(request);
        ctx.requireRole('staff');
        const status = await streamUpload(request, ctx.app.config.IMPORT_MAX_BYTES, (file) => receiveImportFile(ctx, file.filename, file.bytes));
        return sendJson(reply, status);
      });
    });

    server.get<{ Params: { importid: string } }>('/api/imports/:importid/rejected', async (request, reply) => {
      const ctx = await contextFor(request);
      ctx.requireRole('staff');
      const importId = intParam(request.params.importid, 'importid');
      return sendCsv(reply, `rejected-${importId}.csv`, rejectedRowsCsv(ctx, importId));
    });

    server.get('/api/exports/contacts', async (request, reply) => {
      const ctx = await contextFor(request);
      ctx.requireRole('staff');
      return sendCsv(reply, 'contacts.csv', contactExportRows(ctx));
    });
  },
};

/**
 * Rows as a streamed CSV download. The first row is read before anything is sent, so a refusal
 * (404, 409) is still a problem document; the rest follow as they are read.
 */
async function sendCsv(reply: FastifyReply, name: string, rows: AsyncGenerator<string[]>) {
  const first = await rows.next();
  async function* lines(): AsyncGenerator<string> {
    if (!first.done) yield stringify([first.value]);
    for await (const row of rows) yield stringify([row]);
  }
  return reply.code(200).header('content-type', CSV_MEDIA_TYPE).header('content-disposition', contentDisposition('attachment', name))
    .header('cache-control', 'private, no-cache').send(Readable.from(lines()));
}
