import type { GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import type { Area } from '../core/area.js';
import { authChecker, validateInput } from '../core/graphql-policies.js';
import { TenantOwned } from '../entities/base.js';
import { auditArea } from './audit.js';
import { benefitPackagesArea } from './benefit-packages.js';
import { billingArea } from './billing.js';
import { calendarsArea } from './calendars.js';
import { callbacksArea } from './callbacks.js';
import { categoryListsArea } from './category-lists.js';
import { chaptersArea } from './chapters.js';
import { commerceArea } from './commerce.js';
import { dashboardsArea } from './dashboards.js';
import { directoriesArea } from './directories.js';
import { eventsArea } from './events.js';
import { imagesArea } from './images.js';
import { loginArea } from './login.js';
import { partnerSyncArea } from './partner-sync.js';
import { documentTemplatesArea } from './document-templates.js';
import { reportingArea } from './reporting.js';
import { requestGuardsArea } from './request-guards.js';
import { samlServiceProvidersArea } from './saml-service-providers.js';
import { signaturesArea } from './signatures.js';
import { socialFeedsArea } from './social-feeds.js';
import { storeArea } from './store.js';
import { termsOfUseArea } from './terms-of-use.js';
import { vendorsArea } from './vendors.js';

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
  partnerSyncArea,
  dashboardsArea,
  storeArea,
  reportingArea,
  documentTemplatesArea,
  billingArea,
  auditArea,
];

export const entities = areas.flatMap((area) => area.entities ?? []);
/** The entities confined to one tenant by the tenant filter. */
export const tenantOwnedEntities = entities.filter((entity) => entity.prototype instanceof TenantOwned);
export const resolvers = areas.flatMap((area) => area.resolvers ?? []);
/** The REST route table. */
export const routes = areas.flatMap((area) => area.routes ?? []);
/** Routes outside the route table. */
export const rawRoutes = areas.flatMap((area) => area.rawRoutes ?? []);
/** Background jobs, dead-letter queues before the queues that name them (each area lists its own in that order). */
export const jobs = areas.flatMap((area) => area.jobs ?? []);

/** The one schema both interfaces serve. */
export function buildApiSchema(): Promise<GraphQLSchema> {
  const [first, ...rest] = resolvers;
  if (!first) throw new Error('No area declares a resolver');
  return buildSchema({ resolvers: [first, ...rest], authChecker, validateFn: validateInput, emitSchemaFile: false });
}
