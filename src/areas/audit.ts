import { defineArea } from '../core/area.js';
import { AuditEntry } from '../entities/audit.js';
import { AuditTrailResolver } from '../resolvers/audit.js';
import { auditRetentionJob } from '../services/audit/audit.js';

/**
 * The audit trail: entries written by a database trigger on every tenant-owned table (migration
 * 0022, core/data/audit.ts), read by staff through GraphQL, deleted after AUDIT_RETENTION_DAYS. No
 * demo records of its own: the other areas' demo records are audited as they are seeded.
 */
export const auditArea = defineArea({
  name: 'audit',
  entities: [AuditEntry],
  resolvers: [AuditTrailResolver],
  jobs: [auditRetentionJob],
});
