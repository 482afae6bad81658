import type { MikroORM } from '@mikro-orm/postgresql';
import { serveScopedStatementsAs } from '../core/data/audit.js';

/**
 * Start-up, after migrations: makes the service's tenant-scoped statements run as `role`
 * (DATABASE_APP_ROLE; core/data/audit.ts) when DATABASE_URL's login may take it — a member of it, or a
 * superuser — and gives the role what queueing a job needs: `queueJob` inserts pg-boss's job in
 * the request's transaction, so as the role, and pg-boss creates its schema only when it starts,
 * after migrations. Answers whether the role is taken; when the role is missing, the login is no
 * member, or the grants are refused (a managed database where no DBA step was done: OPERATIONS.md,
 * "Tenant row-level security"), `warn`s once and serves as the login.
 */
export async function takeServingRole(orm: MikroORM, role: string, jobsSchema: string | null, warn: (message: string) => void): Promise<boolean> {
  serveScopedStatementsAs(undefined);
  if (!role) return false;
  const connection = orm.em.getConnection();
  const [usable] = await connection.execute<{ usable: boolean }[]>(
    `select coalesce((select pg_has_role(current_user, oid, 'MEMBER') from pg_roles where rolname = ?), false) as usable`, [role]);
  if (!usable?.usable) {
    warn(`row-level security not enforced: the database login may not take the role ${role} (DATABASE_APP_ROLE); tenant-scoped statements run as the login (OPERATIONS.md, "Tenant row-level security")`);
    return false;
  }
  if (jobsSchema && await lacksJobGrants(orm, role, jobsSchema)) {
    try {
      await connection.execute(`grant usage on schema ${jobsSchema} to ${role}; grant select, insert, update, delete on all tables in schema ${jobsSchema} to ${role}`);
    } catch (error) {
      warn(`row-level security not enforced: granting ${role} the job queue's tables failed (${(error as Error).message}); tenant-scoped statements run as the login`);
      return false;
    }
  }
  serveScopedStatementsAs(role);
  return true;
}

/** Whether `role` still lacks a grant on the job queue's schema (instances starting together then do not all grant at once). */
async function lacksJobGrants(orm: MikroORM, role: string, schema: string): Promise<boolean> {
  const [row] = await orm.em.getConnection().execute<{ lacks: boolean }[]>(
    `select not has_schema_privilege(:role, :schema, 'USAGE') or exists (select 1 from pg_tables where schemaname = :schema
       and not has_table_privilege(:role, format('%I.%I', schemaname, tablename), 'SELECT, INSERT, UPDATE, DELETE')) as lacks`, { role, schema });
  return row?.lacks ?? true;
}
