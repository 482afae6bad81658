import { Migration } from '@mikro-orm/migrations';

/**
 * The tenant scope's second layer (ARCHITECTURE.md, step 5): PostgreSQL row-level security on
 * every table with a `tenant_id`. The policy shows a statement the rows of the tenant in the
 * transaction-local setting `app.tenant_id` (set with every statement by core/data/audit.ts), or every
 * tenant's when `app.cross_tenant` is `on` (set only by `acrossTenants`, core/data/tenant-sql.ts);
 * with neither, no rows. The same condition checks rows written (an INSERT or UPDATE into another
 * tenant fails). FORCE: the tables' owner (the role migrations run as) is bound too; only
 * superusers and BYPASSRLS roles are not, which is why the service serves as `membership_app`.
 *
 * - `(select …)` makes each setting an InitPlan, read once per statement, not once per row; the
 *   cast matches the column (int) so index conditions stay int4 = int4.
 * - `nullif(…, '')`: a setting once set on a connection reads '' afterwards, not NULL.
 * - Tables read before any tenant is known through the plain `pg` pool are left out for now
 *   (`rls_excluded_tables()`): callback ingestion and its secrets, idempotency records.
 * - A migration that adds tenant tables ends with `select rls_attach_all();` (beside
 *   `audit_attach_all()`); a migration that changes tenant rows as a non-superuser owner first
 *   runs `select set_config('app.cross_tenant', 'on', true);`.
 */
export class TenantRowSecurity extends Migration {

  override name = '0030-tenant-row-security';

  override up(): void | Promise<void> {
    this.addSql(`create function rls_excluded_tables() returns text[] language sql immutable as $$
      select array['provider_callback', 'callback_secret', 'idempotency_record']::text[]
    $$;`);

    this.addSql(`create function rls_attach_all() returns int language plpgsql as $$
    declare
      target record;
      attached int := 0;
    begin
      for target in
        select c.relname from pg_class c join pg_attribute a on a.attrelid = c.oid and a.attname = 'tenant_id' and not a.attisdropped
        where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p')
          and c.relname <> all (rls_excluded_tables())
          and not exists (select 1 from pg_policy p where p.polrelid = c.oid and p.polname = 'tenant_scope')
      loop
        execute format('alter table %I enable row level security', target.relname);
        execute format('alter table %I force row level security', target.relname);
        execute format($p$create policy tenant_scope on %I using (
            tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::int)
            or (select current_setting('app.cross_tenant', true)) = 'on')$p$, target.relname);
        attached := attached + 1;
      end loop;
      return attached;
    end
    $$;`);
    this.addSql(`select rls_attach_all();`);

    // The role the service serves as: no superuser, no BYPASSRLS, not the owner, so the policies
    // bind it. It cannot log in itself: a deployment makes its serving login a member of it
    // (OPERATIONS.md). Roles belong to the cluster, so it may exist already
    // (another database of the same server); creating it needs CREATEROLE, which a managed
    // database's owner may lack — then a DBA creates it (OPERATIONS.md) and this only grants.
    this.addSql(`do $$ begin
      if not exists (select 1 from pg_roles where rolname = 'membership_app') then
        begin
          create role membership_app nologin nosuperuser nobypassrls noinherit;
        exception when insufficient_privilege then
          raise notice 'membership_app not created (no CREATEROLE): create it and run this migration''s grants';
          return;
        -- Another database of the same server created it between the check and here (tests migrate several at once).
        when duplicate_object or unique_violation then null;
        end;
      end if;
      execute format('grant usage on schema %I to membership_app', current_schema());
      execute format('grant select, insert, update, delete on all tables in schema %I to membership_app', current_schema());
      execute format('grant usage, select on all sequences in schema %I to membership_app', current_schema());
      execute format('grant execute on all functions in schema %I to membership_app', current_schema());
      execute format('alter default privileges in schema %I grant select, insert, update, delete on tables to membership_app', current_schema());
      execute format('alter default privileges in schema %I grant usage, select on sequences to membership_app', current_schema());
    end $$;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`do $$ declare target record; begin
      for target in select polrelid::regclass as name from pg_policy where polname = 'tenant_scope' loop
        execute format('drop policy tenant_scope on %s', target.name);
        execute format('alter table %s no force row level security', target.name);
        execute format('alter table %s disable row level security', target.name);
      end loop;
    end $$;`);
    this.addSql(`drop function rls_attach_all(); drop function rls_excluded_tables();`);
  }

}
