import { Readable } from 'node:stream';
import { fileChunks } from '../services/files/files.js';
import { CSV_MEDIA_TYPE, reportRunFile } from '../services/reporting/reporting.js';
import type { AreaRoutes } from './area-routes.js';
import { intParam, sendAttachment } from './responses.js';

/**
 * The CSV of a completed report run, streamed from storage piece by piece (GraphQL reportRunCsv
 * answers this URL): neither the server nor GraphQL holds a report of any size whole.
 */
export const reportingAreaRoutes: AreaRoutes = {
  operations: [
    {
      method: 'GET', path: '/api/reporting/runs/{reportrunid}/csv', extension: true,
      summary: 'The CSV of a completed report run (staff; 409 while it is not completed), streamed.',
      roles: ['staff'], answers: { mediaTypes: [CSV_MEDIA_TYPE.split(';')[0]] }, statuses: [409],
    },
  ],
  register(server, contextFor) {
    server.get<{ Params: { reportrunid: string } }>('/api/reporting/runs/:reportrunid/csv', async (request, reply) => {
      const ctx = await contextFor(request);
      ctx.requireRole('staff');
      const file = await reportRunFile(ctx, intParam(request.params.reportrunid, 'reportrunid'));
      return sendAttachment(reply, { ...file, mediaType: CSV_MEDIA_TYPE }, Readable.from(fileChunks(ctx, file)), 'private, no-cache');
    });
  },
};
