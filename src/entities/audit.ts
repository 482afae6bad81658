import { BigIntType, type Opt } from '@mikro-orm/core';
import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

export type AuditAction = 'insert' | 'update' | 'delete';

/**
 * One change to one row of a tenant-owned table: written only by the database trigger
 * `audit_record_change` (migration 0022), in the transaction of the change itself, so a write that
 * rolls back leaves no entry and a failing entry fails the write. The service only reads and
 * (retention) deletes these rows.
 *
 * Not a `TenantOwned` record: `tenant_id` has no foreign key, because the rows of a tenant being
 * deleted are audited in the same statement that removes the tenant (a foreign key would refuse
 * the entry, and with it the deletion). Reads name the tenant themselves (`services/audit/audit.ts`).
 */
@Entity()
@Index({ properties: ['tenantId', 'id'] })
@Index({ properties: ['tenantId', 'tableName', 'recordId'] })
@Index({ properties: ['occurredAt'] })
export class AuditEntry {
  @PrimaryKey({ type: new BigIntType('number'), autoincrement: true })
  id!: number;

  @Property({ type: 'integer' })
  tenantId!: number;

  /** When the change's transaction ran. */
  @Property({ type: 'datetime', defaultRaw: 'now()' })
  occurredAt: Opt<Date> = new Date();

  /** The table (the entity's table name) and the changed row's id. */
  @Property({ length: 63 })
  tableName!: string;

  @Property({ type: new BigIntType('number'), nullable: true })
  recordId!: number | null;

  @Property({ length: 6 })
  action!: AuditAction;

  /** The GraphQL field(s), the documented REST operation (`POST /api/vendors`), the job name, or `system`. */
  @Property({ length: 300 })
  operation!: string;

  /** Who: the login, its sign-in name, the credential (session or API key) and the caller's role; null for anonymous callers and background work. */
  @Property({ type: 'integer', nullable: true })
  actorLoginId!: number | null;

  @Property({ length: 254, nullable: true })
  actorLogin!: string | null;

  @Property({ type: 'integer', nullable: true })
  actorCredentialId!: number | null;

  @Property({ length: 16, nullable: true })
  actorCredentialKind!: string | null;

  @Property({ length: 32, nullable: true })
  actorRole!: string | null;

  @Property({ length: 100, nullable: true })
  requestId!: string | null;

  /** The changed columns as they were (updates, deletes) and as they became (inserts, updates); secrets as "[redacted]". */
  @Property({ type: 'json', nullable: true })
  before!: Record<string, unknown> | null;

  @Property({ type: 'json', nullable: true })
  after!: Record<string, unknown> | null;
}
