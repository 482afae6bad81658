import type { EntityClass } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ClassType } from 'type-graphql';
import type { Tenant } from '../entities/tenant.js';
import type { AreaRoutes } from '../http/area-routes.js';
import type { RouteRow } from '../rest/route-table.js';
import type { PaidInvoiceHandler } from '../services/commerce/paid-invoices.js';
import type { JobDefinition } from './runtime/jobs.js';

/**
 * Everything the application needs to know about one area, declared once (`src/areas/<area>.ts`).
 * The application is assembled from the list in `src/areas/index.ts`: the ORM's entities, the
 * GraphQL schema's resolvers, the REST route table, the raw HTTP routes, the background jobs,
 * the demo data, the OpenAPI document and the generated test sweeps all read that list, so
 * adding an area edits exactly one central line.
 */
export interface Area {
  /** Short name, used in messages and test titles. */
  name: string;
  /** MikroORM entities (tables) the area owns. */
  entities?: EntityClass<object>[];
  /** type-graphql resolver classes. */
  resolvers?: ClassType[];
  /** REST route table rows: documented method + path → GraphQL field. */
  routes?: RouteRow[];
  /** Routes that need the raw request or response (uploads, downloads, feeds, callbacks). */
  rawRoutes?: AreaRoutes[];
  /** Background jobs (pg-boss queues, cron schedules, pumps). */
  jobs?: JobDefinition[];
  /**
   * Example records for a new tenant: the demo tenant of `npm start`, and the tenant whose data
   * the generated isolation sweep tries to reach from another tenant. Text it writes should
   * contain `marker` where it can, so that a leak is recognisable in any response.
   */
  demo?: (em: EntityManager, tenant: Tenant, marker: string) => Promise<void>;
  /**
   * What an invoice this area raised moves when a payment settles it in full, by the prefix of
   * the invoice's `sourceKey` (`store-order` for `store-order:<id>`): see
   * `services/commerce/paid-invoices.ts`.
   */
  paidInvoiceSources?: Record<string, PaidInvoiceHandler>;
}

/** Declares an area (a typed identity: the manifest is plain data). */
export function defineArea(area: Area): Area {
  return area;
}
