import { Migration } from '@mikro-orm/migrations';

/**
 * Bulk import of people, organizations and memberships (services/imports): the uploaded file's
 * import with its preview, mapping and checkpoint, the outcome of its rows, and the identifier a
 * contact had in the system it came from (unique per tenant: what an import matching on
 * ExternalId finds).
 */
export class ContactImports extends Migration {

  override name = '0046-contact-imports';

  override up(): void | Promise<void> {
    this.addSql(`create table "contact_import" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(),
      "file_id" int not null, "requested_by_id" int null, "file_name" varchar(255) not null, "delimiter" varchar(1) not null, "headers" jsonb not null, "sample_rows" jsonb not null,
      "rows_total" int not null, "state" varchar(16) not null default 'uploaded', "dry_run" boolean not null default false, "mapping" jsonb null, "match_on" varchar(16) null,
      "rows_done" int not null default 0, "created" int not null default 0, "updated" int not null default 0, "unchanged" int not null default 0, "rejected" int not null default 0,
      "attempts" int not null default 0, "error" text null, "enqueued_at" timestamptz null, "started_at" timestamptz null, "finished_at" timestamptz null);`);
    this.addSql(`create index "contact_import_tenant_id_index" on "contact_import" ("tenant_id");`);
    this.addSql(`create index "contact_import_state_enqueued_at_index" on "contact_import" ("state", "enqueued_at");`);
    this.addSql(`create index "contact_import_file_id_index" on "contact_import" ("file_id");`);
    this.addSql(`alter table "contact_import" add constraint "contact_import_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "contact_import" add constraint "contact_import_file_id_foreign" foreign key ("file_id") references "stored_file" ("id");`);
    this.addSql(`alter table "contact_import" add constraint "contact_import_requested_by_id_foreign" foreign key ("requested_by_id") references "login" ("id") on delete set null;`);

    this.addSql(`create table "contact_import_row" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(),
      "contact_import_id" int not null, "dry_run" boolean not null, "row_number" int not null, "outcome" varchar(16) not null, "reason" text null, "contact_id" int null, "cells" jsonb null);`);
    this.addSql(`create index "contact_import_row_tenant_id_index" on "contact_import_row" ("tenant_id");`);
    this.addSql(`alter table "contact_import_row" add constraint "contact_import_row_contact_import_id_dry_run_row_number_unique" unique ("contact_import_id", "dry_run", "row_number");`);
    this.addSql(`alter table "contact_import_row" add constraint "contact_import_row_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "contact_import_row" add constraint "contact_import_row_contact_import_id_foreign" foreign key ("contact_import_id") references "contact_import" ("id") on delete cascade;`);

    this.addSql(`create table "contact_external_id" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(),
      "contact_id" int not null, "external_id" varchar(100) not null);`);
    this.addSql(`create index "contact_external_id_tenant_id_index" on "contact_external_id" ("tenant_id");`);
    this.addSql(`alter table "contact_external_id" add constraint "contact_external_id_contact_id_unique" unique ("contact_id");`);
    this.addSql(`alter table "contact_external_id" add constraint "contact_external_id_tenant_id_external_id_unique" unique ("tenant_id", "external_id");`);
    this.addSql(`alter table "contact_external_id" add constraint "contact_external_id_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "contact_external_id" add constraint "contact_external_id_contact_id_foreign" foreign key ("contact_id") references "contact" ("id") on delete cascade;`);

    this.addSql('select audit_attach_all();');
    this.addSql('select rls_attach_all();');
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "contact_external_id" cascade;`);
    this.addSql(`drop table if exists "contact_import_row" cascade;`);
    this.addSql(`drop table if exists "contact_import" cascade;`);
  }

}
