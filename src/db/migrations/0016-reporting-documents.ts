import { Migration } from '@mikro-orm/migrations';

export class ReportingDocuments extends Migration {

  override name = '0016-reporting-documents';

  override up(): void | Promise<void> {
    this.addSql(`create table "document_generation_template" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "document_generation_type_id" varchar(32) not null, "name" varchar(200) not null, "file_id" int null);`);
    this.addSql(`create index "document_generation_template_tenant_id_index" on "document_generation_template" ("tenant_id");`);
    this.addSql(`create index "document_generation_template_file_id_index" on "document_generation_template" ("file_id");`);
    this.addSql(`create index "document_generation_template_tenant_id_document_ge_48d75_index" on "document_generation_template" ("tenant_id", "document_generation_type_id");`);

    this.addSql(`create table "report" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "system_key" varchar(64) null, "name" varchar(200) not null, "description" text null, "report_type_id" varchar(64) not null, "category_id" varchar(64) not null, "is_system" boolean not null default false, "is_private_for_user" boolean not null default false, "applies_to_contact" boolean not null default false, "created_by_id" int null, "last_used" timestamptz null);`);
    this.addSql(`create index "report_tenant_id_index" on "report" ("tenant_id");`);
    this.addSql(`create index "report_tenant_id_name_index" on "report" ("tenant_id", "name");`);
    this.addSql(`alter table "report" add constraint "report_tenant_id_system_key_unique" unique ("tenant_id", "system_key");`);

    this.addSql(`create table "report_run" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "report_id" int not null, "requested_by_id" int null, "contact_id" int null, "state" varchar(16) not null default 'queued', "progress" int not null default 0, "rows_total" int null, "rows_written" int not null default 0, "rows_skipped" int not null default 0, "attempts" int not null default 0, "error" text null, "file_id" int null, "enqueued_at" timestamptz null, "started_at" timestamptz null, "finished_at" timestamptz null);`);
    this.addSql(`create index "report_run_tenant_id_index" on "report_run" ("tenant_id");`);
    this.addSql(`create index "report_run_report_id_index" on "report_run" ("report_id");`);
    this.addSql(`create index "report_run_state_enqueued_at_index" on "report_run" ("state", "enqueued_at");`);

    this.addSql(`create table "report_favorite" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "report_id" int not null, "login_id" int not null);`);
    this.addSql(`create index "report_favorite_tenant_id_index" on "report_favorite" ("tenant_id");`);
    this.addSql(`create index "report_favorite_login_id_index" on "report_favorite" ("login_id");`);
    this.addSql(`alter table "report_favorite" add constraint "report_favorite_report_id_login_id_unique" unique ("report_id", "login_id");`);

    this.addSql(`alter table "document_generation_template" add constraint "document_generation_template_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "document_generation_template" add constraint "document_generation_template_file_id_foreign" foreign key ("file_id") references "stored_file" ("id") on delete set null;`);

    this.addSql(`alter table "report" add constraint "report_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "report" add constraint "report_created_by_id_foreign" foreign key ("created_by_id") references "login" ("id") on delete set null;`);

    this.addSql(`alter table "report_run" add constraint "report_run_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "report_run" add constraint "report_run_report_id_foreign" foreign key ("report_id") references "report" ("id") on delete cascade;`);
    this.addSql(`alter table "report_run" add constraint "report_run_requested_by_id_foreign" foreign key ("requested_by_id") references "login" ("id") on delete set null;`);
    this.addSql(`alter table "report_run" add constraint "report_run_contact_id_foreign" foreign key ("contact_id") references "contact" ("id") on delete cascade;`);
    this.addSql(`alter table "report_run" add constraint "report_run_file_id_foreign" foreign key ("file_id") references "stored_file" ("id") on delete set null;`);

    this.addSql(`alter table "report_favorite" add constraint "report_favorite_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "report_favorite" add constraint "report_favorite_report_id_foreign" foreign key ("report_id") references "report" ("id") on delete cascade;`);
    this.addSql(`alter table "report_favorite" add constraint "report_favorite_login_id_foreign" foreign key ("login_id") references "login" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "report_run" drop constraint "report_run_report_id_foreign";`);
    this.addSql(`alter table "report_favorite" drop constraint "report_favorite_report_id_foreign";`);

    this.addSql(`drop table if exists "document_generation_template" cascade;`);
    this.addSql(`drop table if exists "report" cascade;`);
    this.addSql(`drop table if exists "report_run" cascade;`);
    this.addSql(`drop table if exists "report_favorite" cascade;`);
  }

}
