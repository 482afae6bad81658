import type { GraphQLSchema } from 'graphql';
import { buildSchema, getMetadataStorage } from 'type-graphql';
import type { Area } from '../core/area.js';
import { authChecker, validateInput } from '../core/requests/graphql-policies.js';
import { TenantOwned } from '../entities/base.js';
import { registerPaidInvoiceHandlers } from '../services/commerce/paid-invoices.js';
import { auditArea } from './audit.js';
import { benefitPackagesArea } from './benefit-packages.js';
import { billingArea } from './billing.js';
import { calendarsArea } from './calendars.js';
import { callbacksArea } from './callbacks.js';
import { categoryListsArea } from './category-lists.js';
import { chaptersArea } from './chapters.js';
import { contactsArea } from './contacts.js';
import { commerceArea } from './commerce.js';
import { corsOriginsArea } from './cors-origins.js';
import { customFieldsArea } from './custom-fields.js';
import { dashboardsArea } from './dashboards.js';
import { directoriesArea } from './directories.js';
import { eventsArea } from './events.js';
import { imagesArea } from './images.js';
import { importsArea } from './imports.js';
import { loginArea } from './login.js';
import { mailArea } from './mail.js';
import { membershipsArea } from './memberships.js';
import { partnerSyncArea } from './partner-sync.js';
import { relationshipsArea } from './relationships.js';
import { documentTemplatesArea } from './document-templates.js';
import { reportingArea } from './reporting.js';
import { requestGuardsArea } from './request-guards.js';
import { samlServiceProvidersArea } from './saml-service-providers.js';
import { signaturesArea } from './signatures.js';
import { socialFeedsArea } from './social-feeds.js';
import { storeArea } from './store.js';
import { termsOfUseArea } from './terms-of-use.js';
import { vendorsArea } from './vendors.js';
import { webhooksArea } from './webhooks.js';

/** Every area of the application. Adding an area adds its manifest here, and nothing else. */
export const areas: readonly Area[] = [
  loginArea,
  vendorsArea,
  signaturesArea,
  samlServiceProvidersArea,
  socialFeedsArea,
  termsOfUseArea,
  imagesArea,
  calendarsArea,
  callbacksArea,
  benefitPackagesArea,
  commerceArea,
  directoriesArea,
  requestGuardsArea,
  eventsArea,
  categoryListsArea,
  chaptersArea,
  relationshipsArea,
  partnerSyncArea,
  dashboardsArea,
  storeArea,
  reportingArea,
  documentTemplatesArea,
  billingArea,
  membershipsArea,
  auditArea,
  corsOriginsArea,
  mailArea,
  contactsArea,
  customFieldsArea,
  webhooksArea,
  importsArea,
];

export const entities = areas.flatMap((area) => area.entities ?? []);
/** The entities confined to one tenant by the tenant filter. */
export const tenantOwnedEntities = entities.filter((entity) => entity.prototype instanceof TenantOwned);
export const resolvers = areas.flatMap((area) => area.resolvers ?? []);
/** The REST route table. */
export const routes = areas.flatMap((area) => area.routes ?? []);
/** Routes outside the route table. */
export const rawRoutes = areas.flatMap((area) => area.rawRoutes ?? []);
registerPaidInvoiceHandlers(areas.flatMap((area) => Object.entries(area.paidInvoiceSources ?? {})));
/** Background jobs, dead-letter queues before the queues that name them (each area lists its own in that order). */
export const jobs = areas.flatMap((area) => area.jobs ?? []);

/** The one schema both interfaces serve. */
export function buildApiSchema(): Promise<GraphQLSchema> {
  const [first, ...rest] = resolvers;
  if (!first) throw new Error('No area declares a resolver');
  readPlainFieldsDirectly();
  return buildSchema({ resolvers: [first, ...rest], authChecker, validateFn: validateInput, emitSchemaFile: false });
}

/**
 * type-graphql gives every field of an object type a resolver that runs the field's middlewares
 * and role checks before reading the property, even when it has none: a function call and an
 * object per value, i.e. per field of every row of a list (without them a list of 100 serves 1.7
 * times the requests, BENCHMARKS.md). A field with no middleware, no role and no field resolver
 * is marked `simple`, so that graphql-js and graphql-jit read the property themselves. A field
 * declaring any of them keeps its wrapper.
 */
function readPlainFieldsDirectly(): void {
  const storage = getMetadataStorage();
  const guardedClasses = new Set([...storage.resolverMiddlewares, ...storage.authorizedResolver].map((rule) => rule.target));
  const guardedFields = [...storage.middlewares, ...storage.authorizedFields];
  for (const field of storage.fields) {
    const guarded = guardedClasses.has(field.target) || guardedFields.some((rule) => rule.target === field.target && rule.fieldName === field.name);
    // The wrapper reads `root[name]`, the default resolver `root[schemaName]`: only where they agree.
    if (field.simple === undefined && field.name === field.schemaName && !guarded) field.simple = true;
  }
}
