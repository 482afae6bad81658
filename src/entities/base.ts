import type { Opt } from '@mikro-orm/core';
import { ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Tenant } from './tenant.js';

/** Name of the filter that confines every query on a tenant-owned entity to one tenant. */
export const TENANT_FILTER = 'tenant';

/**
 * Every record that belongs to a tenant extends this. The tenant filter (registered in the ORM
 * configuration for all subclasses) adds `tenant_id = ?` to every read, update and delete, and
 * fails when no tenant was set on the EntityManager, so no query can forget it.
 */
export abstract class TenantOwned {

  @PrimaryKey({ autoincrement: true })
  id!: number;

  @ManyToOne(() => Tenant, { deleteRule: 'cascade', index: true })
  tenant!: Tenant;

  @Property({ type: 'datetime', defaultRaw: 'now()' })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'datetime', defaultRaw: 'now()', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();
}

/** A tenant-owned record with an optimistic-concurrency version, exposed as `AuditId`. */
export abstract class Versioned extends TenantOwned {

  @Property({ type: 'integer', version: true })
  auditId!: Opt<number>;
}
