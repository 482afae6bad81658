import { templateFileForDownload } from '../services/document-templates/document-templates.js';
import type { AreaRoutes } from './area-routes.js';
import { intParam, sendAttachment } from './responses.js';

/** The template download (HttpResponseMessage: the DOCX bytes themselves), outside the route table. */
export const documentTemplateAreaRoutes: AreaRoutes = {
  operations: [
    {
      method: 'GET', path: '/api/documentgenerationtemplates/download/{documentgenerationtemplateid}/{fileid}', summary: 'The template\'s DOCX file (Content-Type, Content-Disposition attachment).',
      roles: ['staff'], answers: { mediaTypes: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'] },
    },
  ],
  register(server, contextFor) {
    server.get<{ Params: { templateid: string; fileid: string } }>('/api/documentgenerationtemplates/download/:templateid/:fileid', async (request, reply) => {
      const ctx = await contextFor(request);
      ctx.requireRole('staff');
      const templateId = intParam(request.params.templateid, 'documentgenerationtemplateid');
      const fileId = intParam(request.params.fileid, 'fileid');
      const { file, bytes } = await templateFileForDownload(ctx, templateId, fileId);
      return sendAttachment(reply, file, bytes, 'private, no-cache');
    });
  },
};
