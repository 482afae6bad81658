import { Migration } from '@mikro-orm/migrations';

export class AuditTrail extends Migration {

  override name = '0022-audit-trail';

  override up(): void | Promise<void> {
    this.addSql(`create table "audit_entry" ("id" bigserial primary key, "tenant_id" int not null, "occurred_at" timestamptz not null default now(), "table_name" varchar(63) not null, "record_id" bigint null, "action" varchar(6) not null, "operation" varchar(300) not null, "actor_login_id" int null, "actor_login" varchar(254) null, "actor_credential_id" int null, "actor_credential_kind" varchar(16) null, "actor_role" varchar(32) null, "request_id" varchar(100) null, "before" jsonb null, "after" jsonb null);`);
    this.addSql(`create index "audit_entry_occurred_at_index" on "audit_entry" ("occurred_at");`);
    this.addSql(`create index "audit_entry_tenant_id_table_name_record_id_index" on "audit_entry" ("tenant_id", "table_name", "record_id");`);
    this.addSql(`create index "audit_entry_tenant_id_id_index" on "audit_entry" ("tenant_id", "id");`);

    // Tables whose changes are not audited (core/data/audit.ts AUDIT_EXCLUDED_TABLES says why, a test
    // keeps the two lists equal).
    this.addSql(`create function audit_excluded_tables() returns text[] language sql immutable as $$
      select array['audit_entry', 'idempotency_record', 'provider_callback', 'email_event', 'meeting_event', 'outbox_message', 'file_content']::text[]
    $$;`);

    // One row per changed row, in the transaction of the change. Who and through which operation
    // come from the transaction-local settings the service sets when a transaction starts
    // (core/data/audit.ts); without them (command line, migrations) the change is the system's.
    // Only changed columns are kept, bookkeeping columns left out (an UPDATE that changes nothing
    // else, such as a credential's last-use stamp, records nothing). The trigger's arguments name
    // the table's secret columns (audit_attach_all finds them): their values become "[redacted]".
    // Plain jsonb expressions but one query (the update's diff): this runs on every write.
    this.addSql(`create function audit_record_change() returns trigger language plpgsql as $$
    declare
      ignored constant text[] := array['id', 'tenant_id', 'created_at', 'updated_at', 'last_used_at'];
      old_row jsonb;
      new_row jsonb;
      record_id bigint;
      secret text;
    begin
      if TG_OP = 'INSERT' then
        new_row := to_jsonb(NEW);
        record_id := (new_row ->> 'id')::bigint;
        new_row := new_row - ignored;
      elsif TG_OP = 'DELETE' then
        old_row := to_jsonb(OLD);
        record_id := (old_row ->> 'id')::bigint;
        old_row := old_row - ignored;
      else
        old_row := to_jsonb(OLD) - ignored;
        new_row := to_jsonb(NEW);
        record_id := (new_row ->> 'id')::bigint;
        new_row := new_row - ignored;
        select jsonb_object_agg(n.key, old_row -> n.key), jsonb_object_agg(n.key, n.value) into old_row, new_row
        from jsonb_each(new_row) n where n.value is distinct from old_row -> n.key;
        if new_row is null then
          return null;
        end if;
      end if;
      if TG_NARGS > 0 then
        foreach secret in array TG_ARGV loop
          if old_row -> secret <> 'null'::jsonb then old_row := jsonb_set(old_row, array[secret], '"[redacted]"'); end if;
          if new_row -> secret <> 'null'::jsonb then new_row := jsonb_set(new_row, array[secret], '"[redacted]"'); end if;
        end loop;
      end if;
      insert into audit_entry (tenant_id, table_name, record_id, action, operation, actor_login_id, actor_login,
        actor_credential_id, actor_credential_kind, actor_role, request_id, before, after)
      values (
        case when TG_OP = 'DELETE' then OLD.tenant_id else NEW.tenant_id end, TG_TABLE_NAME, record_id, lower(TG_OP),
        coalesce(nullif(current_setting('app.audit_operation', true), ''), 'system'),
        nullif(current_setting('app.audit_login_id', true), '')::int,
        nullif(current_setting('app.audit_login', true), ''),
        nullif(current_setting('app.audit_credential_id', true), '')::int,
        nullif(current_setting('app.audit_credential_kind', true), ''),
        nullif(current_setting('app.audit_role', true), ''),
        nullif(current_setting('app.audit_request_id', true), ''),
        old_row, new_row);
      return null;
    end
    $$;`);

    // Attaches the trigger to every table with a tenant_id that lacks it, but the excluded ones,
    // naming as its arguments the table's secret columns (password, secret, token, hash or salt in
    // the name); answers how many it attached. A migration adding tables ends with: select audit_attach_all();
    this.addSql(`create function audit_attach_all() returns int language plpgsql as $$
    declare
      target record;
      secrets text;
      attached int := 0;
    begin
      for target in
        select c.oid, c.relname from pg_class c join pg_attribute a on a.attrelid = c.oid and a.attname = 'tenant_id' and not a.attisdropped
        where c.relnamespace = current_schema()::regnamespace and c.relkind = 'r'
          and c.relname <> all (audit_excluded_tables())
          and not exists (select 1 from pg_trigger t where t.tgrelid = c.oid and t.tgname = 'audit_trail')
      loop
        select string_agg(quote_literal(s.attname), ', ') into secrets from pg_attribute s
        where s.attrelid = target.oid and s.attnum > 0 and not s.attisdropped and s.attname ~* '(password|passwd|secret|token|hash|salt)';
        execute format('create trigger audit_trail after insert or update or delete on %I for each row execute function audit_record_change(%s)', target.relname, coalesce(secrets, ''));
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
    this.addSql(`drop function audit_attach_all(); drop function audit_record_change(); drop function audit_excluded_tables();`);
    this.addSql(`drop table if exists "audit_entry" cascade;`);
  }

}
