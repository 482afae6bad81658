import { Arg, Authorized, Ctx, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../core/context.js';
import { AuditTrailEntry, AuditTrailFilterInput } from '../schema/audit.js';
import * as audit from '../services/audit/audit.js';

@Resolver()
export class AuditTrailResolver {
  @Authorized('staff')
  @Query(() => [AuditTrailEntry], {
    description: 'GraphQL only (no documented REST operation). Staff: the tenant\'s audit trail — every insert, update and delete of its records, ' +
      'who made it (login, credential, role), through which operation, and the changed fields before and after (secrets redacted) — newest first. ' +
      'Kept AUDIT_RETENTION_DAYS days.',
  })
  auditTrail(@Ctx() ctx: RequestContext, @Arg('filter', () => AuditTrailFilterInput, { nullable: true }) filter?: AuditTrailFilterInput | null) {
    return audit.listAuditTrail(ctx, filter);
  }
}
