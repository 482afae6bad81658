import { Migration } from '@mikro-orm/migrations';

/**
 * A dry run's state between its batches (services/imports/dry-run.ts): each contact the dry run
 * would have created or changed so far, as the import would have left it, so that a later batch
 * of the same run finds it as the import would (a key repeated in a later batch is "updated", not
 * "created" twice). Looked up by the keys a row matches on; emptied when a run starts and when a
 * dry run completes. Left out of the audit trail: nothing it holds is a record, and a large dry
 * run would write an audit entry per row for state thrown away minutes later.
 */
export class ContactImportDryRuns extends Migration {

  override name = '0049-contact-import-dry-runs';

  override up(): void | Promise<void> {
    this.addSql(`create table "contact_import_dry_contact" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(),
      "contact_import_id" int not null, "contact_id" int not null, "external_id" varchar(100) null, "national_id" varchar(64) null, "email_key" varchar(254) null,
      "organization_key" varchar(200) null, "state" jsonb not null);`);
    this.addSql(`create index "contact_import_dry_contact_tenant_id_index" on "contact_import_dry_contact" ("tenant_id");`);
    this.addSql(`alter table "contact_import_dry_contact" add constraint "contact_import_dry_contact_contact_import_id_contact_id_unique" unique ("contact_import_id", "contact_id");`);
    for (const key of ['external_id', 'national_id', 'email_key', 'organization_key']) {
      this.addSql(`create index "contact_import_dry_contact_${key}_index" on "contact_import_dry_contact" ("contact_import_id", "${key}") where "${key}" is not null;`);
    }
    this.addSql(`alter table "contact_import_dry_contact" add constraint "contact_import_dry_contact_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "contact_import_dry_contact" add constraint "contact_import_dry_contact_contact_import_id_foreign" foreign key ("contact_import_id") references "contact_import" ("id") on delete cascade;`);
    // Joins the tables the audit trail leaves out, whatever that list holds by now.
    this.addSql(`do $$ begin
      execute format('create or replace function audit_excluded_tables() returns text[] language sql immutable as %L',
        format('select %L::text[]', array_append(audit_excluded_tables(), 'contact_import_dry_contact')));
    end $$;`);
    this.addSql('select audit_attach_all();');
    this.addSql('select rls_attach_all();');
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "contact_import_dry_contact" cascade;`);
    this.addSql(`do $$ begin
      execute format('create or replace function audit_excluded_tables() returns text[] language sql immutable as %L',
        format('select %L::text[]', array_remove(audit_excluded_tables(), 'contact_import_dry_contact')));
    end $$;`);
  }

}
