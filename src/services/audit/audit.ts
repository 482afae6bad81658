import type { MikroORM } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../core/context.js';
import { loadConfig } from '../../core/config.js';
import type { JobDefinition } from '../../core/runtime/jobs.js';
import { allOf } from '../../core/data/lean-read.js';
import { documentedList, listQuery } from '../../core/data/list-query.js';
import { AuditEntry } from '../../entities/audit.js';
import type { AuditTrailEntry, AuditTrailFilterInput } from '../../schema/audit.js';
import { acrossTenantsSql } from '../../core/data/tenant-sql.js';

/**
 * Reading the audit trail (staff) and keeping it to its retention. The entries themselves are
 * written by the database trigger of migration 0022 (see core/data/audit.ts for who sets its author).
 */

const auditList = documentedList<AuditEntry>({
  operations: ['Query.auditTrail'],
  orderBy: { AuditEntryId: 'id', OccurredAt: 'occurredAt', TableName: 'tableName', Operation: 'operation', ActorLogin: 'actorLogin' },
  defaultOrder: 'AuditEntryId desc',
  search: ['tableName', 'operation', 'actorLogin'],
  dates: 'occurredAt',
});

const AUDIT_FIELDS = [
  'id', 'occurredAt', 'tableName', 'recordId', 'action', 'operation', 'actorLoginId', 'actorLogin',
  'actorCredentialId', 'actorCredentialKind', 'actorRole', 'requestId', 'before', 'after',
] as const;

/** One page of the caller's tenant's audit trail, newest first unless ordered otherwise. */
export async function listAuditTrail(ctx: RequestContext, filter: AuditTrailFilterInput | null | undefined): Promise<AuditTrailEntry[]> {
  // AuditEntry is not tenant-filtered (see the entity): the tenant is named here, always first.
  const where = allOf<AuditEntry>(
    { tenantId: ctx.tenantId },
    filter?.TableName ? { tableName: filter.TableName } : null,
    filter?.RecordId ? { recordId: filter.RecordId } : null,
    filter?.ActorLoginId ? { actorLoginId: filter.ActorLoginId } : null,
    filter?.ActorLogin ? { actorLogin: { $ilike: filter.ActorLogin.replace(/[\\%_]/g, (char) => `\\${char}`) } } : null,
    filter?.Operation ? { operation: filter.Operation } : null,
    filter?.Action ? { action: filter.Action as AuditEntry['action'] } : null,
  );
  const { rows } = await listQuery(ctx, AuditEntry, auditList, filter, { fields: AUDIT_FIELDS, where });
  return rows.map((row) => ({
    AuditEntryId: Number(row.id),
    OccurredAt: new Date(row.occurredAt).toISOString(),
    TableName: row.tableName,
    RecordId: row.recordId === null ? null : Number(row.recordId),
    Action: row.action,
    Operation: row.operation,
    ActorLoginId: row.actorLoginId,
    ActorLogin: row.actorLogin,
    ActorCredentialId: row.actorCredentialId,
    ActorCredentialKind: row.actorCredentialKind,
    ActorRole: row.actorRole,
    RequestId: row.requestId,
    Before: row.before,
    After: row.after,
  }));
}

/** Entries deleted per statement by the retention job: short statements, no long lock on the table. */
export const AUDIT_RETENTION_BATCH = 5000;

/** Deletes entries older than `days` days in batches of `batchSize`; answers how many went. */
export async function deleteExpiredAuditEntries(orm: MikroORM, days: number, batchSize = AUDIT_RETENTION_BATCH): Promise<number> {
  // Every tenant's entries: the named cross-tenant path (row-level security).
  const sql = acrossTenantsSql(orm.em);
  let deleted = 0;
  for (;;) {
    const { affectedRows: affected } = await sql.run(
      `DELETE FROM audit_entry WHERE id IN (
         SELECT id FROM audit_entry WHERE occurred_at < now() - make_interval(days => ?) ORDER BY occurred_at LIMIT ?)`,
      [days, batchSize],
    );
    deleted += affected;
    if (affected < batchSize) return deleted;
  }
}

/** Hourly (as the request guards' housekeeping): entries past AUDIT_RETENTION_DAYS go. */
export const auditRetentionJob: JobDefinition = {
  name: 'audit-retention',
  cron: '23 * * * *',
  async handle(orm) {
    await deleteExpiredAuditEntries(orm, loadConfig().AUDIT_RETENTION_DAYS);
  },
};
