import type { AreaRoutes } from './area-routes.js';
import { intParam } from './responses.js';
import { SAML_METADATA_CONTENT_TYPE, samlServiceProviderMetadata } from '../services/saml-service-providers/saml-service-providers.js';

const DOWNLOAD_PATH = '/api/saml/serviceproviders/{samlserviceproviderid}/download';

/**
 * GET /api/saml/serviceproviders/{samlserviceproviderid}/download: the documented
 * HttpResponseMessage is the metadata file itself (bytes, Content-Type, Content-Disposition), so
 * this route answers it directly, staff only like the rest of the area. GraphQL clients read the
 * same document as a string (`samlServiceProviderMetadata`). Errors go through the server's error
 * handler as problem+json.
 */
export const samlServiceProviderDownloadRoutes: AreaRoutes = {
  operations: [{
    method: 'GET', path: DOWNLOAD_PATH, summary: 'The provider\'s SAML 2.0 metadata XML, as a file download (application/samlmetadata+xml).',
    roles: ['staff'], answers: { mediaTypes: [SAML_METADATA_CONTENT_TYPE.split(';')[0]] },
  }],
  register(server, contextFor) {
    const url = DOWNLOAD_PATH.replace('{samlserviceproviderid}', ':samlserviceproviderid');
    server.get<{ Params: { samlserviceproviderid: string } }>(url, async (request, reply) => {
      // The credential before the id: a stranger learns nothing from a 400.
      const ctx = await contextFor(request);
      ctx.requireRole('staff');
      const id = intParam(request.params.samlserviceproviderid, 'samlserviceproviderid');
      const file = await samlServiceProviderMetadata(ctx, id);
      return reply
        .code(200)
        .header('content-type', SAML_METADATA_CONTENT_TYPE)
        .header('content-disposition', `attachment; filename="${file.fileName}"`)
        .header('cache-control', 'no-store')
        .send(Buffer.from(file.xml, 'utf8'));
    });
  },
};
