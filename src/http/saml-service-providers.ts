import type { AreaRoutes } from './area-routes.js';
import { BadInput } from '../core/errors.js';
import { SAML_METADATA_CONTENT_TYPE, samlServiceProviderMetadata } from '../services/saml-service-providers.js';

/**
 * GET /api/saml/serviceproviders/{samlserviceproviderid}/download: the documented
 * HttpResponseMessage is the metadata file itself (bytes, Content-Type, Content-Disposition), so
 * this route answers it directly. Its route-table row (rest/saml-service-providers.ts) documents
 * it; being more specific than the gateway's /api/*, this route is the one that answers.
 * Errors go through the server's error handler as problem+json.
 */
export const samlServiceProviderDownloadRoutes: AreaRoutes = (server, contextFor) => {
  server.get<{ Params: { samlserviceproviderid: string } }>('/api/saml/serviceproviders/:samlserviceproviderid/download', async (request, reply) => {
    const raw = request.params.samlserviceproviderid;
    const id = /^-?\d{1,10}$/.test(raw) ? Number(raw) : NaN;
    if (!(id >= -2147483648 && id <= 2147483647)) throw BadInput.field('samlserviceproviderid', 'must be an integer');
    const ctx = await contextFor(request);
    ctx.requireRole('staff');
    const file = await samlServiceProviderMetadata(ctx, id);
    return reply
      .code(200)
      .header('content-type', SAML_METADATA_CONTENT_TYPE)
      .header('content-disposition', `attachment; filename="${file.fileName}"`)
      .header('cache-control', 'no-store')
      .send(Buffer.from(file.xml, 'utf8'));
  });
};
