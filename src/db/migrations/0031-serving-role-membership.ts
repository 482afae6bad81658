import { Migration } from '@mikro-orm/migrations';

/**
 * Lets the login that migrates (and serves: DATABASE_URL) take the role tenant-scoped statements
 * run as (`membership_app`, migration 0030; DATABASE_APP_ROLE): it becomes a member, when it is
 * not a superuser (who may take any role) and may grant it (it created the role, or has
 * CREATEROLE). Otherwise a DBA grants it (OPERATIONS.md, "Tenant row-level security"); until then
 * the service warns at start and serves as the login.
 */
export class ServingRoleMembership extends Migration {

  override name = '0031-serving-role-membership';

  override up(): void | Promise<void> {
    this.addSql(`do $$ begin
      if exists (select 1 from pg_roles where rolname = 'membership_app')
         and not (select rolsuper from pg_roles where rolname = current_user)
         and not pg_has_role(current_user, 'membership_app', 'MEMBER') then
        begin
          execute format('grant membership_app to %I', current_user);
        exception when insufficient_privilege then
          raise notice 'membership_app not granted to % (no ADMIN on it): a DBA grants it', current_user;
        end;
      end if;
    end $$;`);
  }

}
