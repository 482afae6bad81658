import type { Versioned } from '../entities/base.js';
import { staleAuditId } from './errors.js';

/**
 * Optimistic concurrency: a client that sends the AuditId it read must still hold the current
 * version. (The version column also guards the UPDATE itself, so a race between two requests
 * that both passed this check ends in a 409 too.)
 */
export function assertCurrentVersion(record: Versioned, auditId: number | null | undefined): void {
  if (auditId !== undefined && auditId !== null && auditId !== record.auditId) throw staleAuditId();
}
