import { defineArea } from '../core/area.js';
import { ContactExternalId, ContactImport, ContactImportDryContact, ContactImportRow } from '../entities/contact-import.js';
import { importsAreaRoutes } from '../http/imports.js';
import { ImportsResolver } from '../resolvers/imports.js';
import { importsRoutes } from '../rest/imports.js';
import { contactImportJobs } from '../services/imports/imports.js';

/** Bulk import of people, organizations and memberships from CSV (upload, preview, dry run, job), and their export. */
export const importsArea = defineArea({
  name: 'imports',
  entities: [ContactImport, ContactImportRow, ContactImportDryContact, ContactExternalId],
  resolvers: [ImportsResolver],
  routes: importsRoutes,
  rawRoutes: [importsAreaRoutes],
  jobs: contactImportJobs(),
});
