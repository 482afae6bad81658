import { Migration } from '@mikro-orm/migrations';

export class AuditTrail extends Migration {

  override name = '0022-audit-trail';

  override up(): void | Promise<void> {
    this.addSql(`create table "audit_entry" ("id" bigserial primary key, "tenant_id" int not null, "occurred_at" timestamptz not null default now(), "table_name" varchar(63) not null, "record_id" bigint null, "action" varchar(6) not null, "operation" varchar(300) not null, "actor_login_id" int null, "actor_login" varchar(254) null, "actor_credential_id" int null, "actor_credential_kind" varchar(16) null, "actor_role" varchar(32) null, "request_id" varchar(100) null, "before" jsonb null, "after" jsonb null);`);
    this.addSql(`create index "audit_entry_occurred_at_index" on "audit_entry" ("occurred_at");`);
    this.addSql(`create index "audit_entry_tenant_id_table_name_record_id_index" on "audit_entry" ("tenant_id", "table_name", "record_id");`);
    this.addSql(`create index "audit_entry_tenant_id_id_index" on "audit_entry" ("tenant_id", "id");`);

    // Tables whose changes are not audited (core/audit.ts AUDIT_EXCLUDED_TABLES says why, a test
    // keeps the two lists equal).
    this.addSql(`create function audit_excluded_tables() returns text[] language sql immutable as $$
      select array['audit_entry', 'idempotency_record', 'provider_callback', 'email_event', 'meeting_event', 'outbox_message', 'file_content']::text[]
    $$;`);

    // One row per changed row, in the transaction of the change. Who and through which operation
    // come from the transaction-local settings the service sets when a transaction starts
    // (core/audit.ts); without them (command line, migrations) the change is the system's.
    // Only changed columns are kept; bookkeeping columns are left out (an UPDATE that changes
    // nothing else — a credential's last-use stamp — records nothing); secrets are redacted and
    // very long values replaced by their length.
    this.addSql(`create function audit_record_change() returns trigger language plpgsql as $$
    declare
      old_row jsonb := case when TG_OP <> 'INSERT' then to_jsonb(OLD) end;
      new_row jsonb := case when TG_OP <> 'DELETE' then to_jsonb(NEW) end;
      changed_before jsonb;
      changed_after jsonb;
    begin
      select
        jsonb_object_agg(key, audit_value(key, o.value)) filter (where o.value is not null),
        jsonb_object_agg(key, audit_value(key, n.value)) filter (where n.value is not null)
      into changed_before, changed_after
      from jsonb_each(old_row) o full join jsonb_each(new_row) n using (key)
      where key not in ('id', 'tenant_id', 'created_at', 'updated_at', 'last_used_at')
        and o.value is distinct from n.value;
      if TG_OP = 'UPDATE' and changed_before is null and changed_after is null then
        return null;
      end if;
      insert into audit_entry (tenant_id, table_name, record_id, action, operation, actor_login_id, actor_login,
        actor_credential_id, actor_credential_kind, actor_role, request_id, before, after)
      values (
        (coalesce(new_row, old_row) ->> 'tenant_id')::int, TG_TABLE_NAME, (coalesce(new_row, old_row) ->> 'id')::bigint, lower(TG_OP),
        coalesce(nullif(current_setting('app.audit_operation', true), ''), 'system'),
        nullif(current_setting('app.audit_login_id', true), '')::int,
        nullif(current_setting('app.audit_login', true), ''),
        nullif(current_setting('app.audit_credential_id', true), '')::int,
        nullif(current_setting('app.audit_credential_kind', true), ''),
        nullif(current_setting('app.audit_role', true), ''),
        nullif(current_setting('app.audit_request_id', true), ''),
        changed_before, changed_after);
      return null;
    end
    $$;`);

    // A column's value as the trail keeps it: secrets (password, secret, token, hash, salt in the
    // column name) as "[redacted]" unless empty, values longer than 2000 characters by their length.
    this.addSql(`create function audit_value(column_name text, value jsonb) returns jsonb language sql immutable as $$
      select case
        when value = 'null'::jsonb then value
        when column_name ~* '(password|passwd|secret|token|hash|salt)' then '"[redacted]"'::jsonb
        when length(value::text) > 2000 then to_jsonb('[' || length(value::text) || ' characters]')
        else value
      end
    $$;`);

    // Attaches the trigger to every table with a tenant_id that lacks it, but the excluded ones;
    // answers how many it attached. A migration adding tables ends with: select audit_attach_all();
    this.addSql(`create function audit_attach_all() returns int language plpgsql as $$
    declare
      target record;
      attached int := 0;
    begin
      for target in
        select c.relname from pg_class c join pg_attribute a on a.attrelid = c.oid and a.attname = 'tenant_id' and not a.attisdropped
        where c.relnamespace = current_schema()::regnamespace and c.relkind = 'r'
          and c.relname <> all (audit_excluded_tables())
          and not exists (select 1 from pg_trigger t where t.tgrelid = c.oid and t.tgname = 'audit_trail')
      loop
        execute format('create trigger audit_trail after insert or update or delete on %I for each row execute function audit_record_change()', target.relname);
        attached := attached + 1;
      end loop;
      return attached;
    end
    $$;`);
    this.addSql(`select audit_attach_all();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`do $$ declare target record; begin
      for target in select tgrelid::regclass as name from pg_trigger where tgname = 'audit_trail' loop
        execute format('drop trigger audit_trail on %s', target.name);
      end loop;
    end $$;`);
    this.addSql(`drop function audit_attach_all(); drop function audit_record_change(); drop function audit_value(text, jsonb); drop function audit_excluded_tables();`);
    this.addSql(`drop table if exists "audit_entry" cascade;`);
  }

}
