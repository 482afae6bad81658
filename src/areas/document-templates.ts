import { defineArea } from '../core/area.js';
import { DocumentGenerationTemplate } from '../entities/document-template.js';
import { documentTemplateAreaRoutes } from '../http/document-templates.js';
import { DocumentGenerationTemplateResolver } from '../resolvers/document-templates.js';
import { documentTemplateRoutes } from '../rest/document-templates.js';
import { seedDocumentTemplates } from '../services/document-templates/document-templates.js';

/** Document generation templates: DOCX templates per document generation type, merge fields, generation. */
export const documentTemplatesArea = defineArea({
  name: 'document-templates',
  entities: [DocumentGenerationTemplate],
  resolvers: [DocumentGenerationTemplateResolver],
  routes: documentTemplateRoutes,
  rawRoutes: [documentTemplateAreaRoutes],
  demo: seedDocumentTemplates,
});
