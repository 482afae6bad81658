import { Migration } from '@mikro-orm/migrations';

export class Chapters extends Migration {

  override name = '0012-chapters';

  override up(): void | Promise<void> {
    this.addSql(`create table "contact_chapter" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "contact_id" int not null, "chapter_id" int not null, "is_primary" boolean not null default false);`);
    this.addSql(`create index "contact_chapter_tenant_id_index" on "contact_chapter" ("tenant_id");`);
    this.addSql(`create index "contact_chapter_chapter_id_index" on "contact_chapter" ("chapter_id");`);
    this.addSql(`create unique index "contact_chapter_one_primary" on "contact_chapter" ("contact_id") where "is_primary";`);
    this.addSql(`alter table "contact_chapter" add constraint "contact_chapter_contact_id_chapter_id_unique" unique ("contact_id", "chapter_id");`);

    this.addSql(`create table "chapter_zip_code_run" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "state" varchar(16) not null default 'queued', "total_contacts" int not null default 0, "processed_contacts" int not null default 0, "links_created" int not null default 0, "primaries_set" int not null default 0, "failed_contacts" int not null default 0, "failed_contact_ids" jsonb not null, "last_contact_id" int not null default 0, "error" text null, "finished_at" timestamptz null);`);
    this.addSql(`create index "chapter_zip_code_run_tenant_id_index" on "chapter_zip_code_run" ("tenant_id");`);
    this.addSql(`create index "chapter_zip_code_run_tenant_id_created_at_index" on "chapter_zip_code_run" ("tenant_id", "created_at");`);

    this.addSql(`create table "category_list" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "category_type" smallint not null, "name" varchar(200) not null, "description" text null, "system_key" varchar(40) null, "is_active" boolean not null default true, "is_public" boolean not null default false, "is_member_viewable" boolean not null default false, "is_member_editable" boolean not null default false, "is_required" boolean not null default false, "min_quantity" int null, "max_quantity" int null);`);
    this.addSql(`create index "category_list_tenant_id_index" on "category_list" ("tenant_id");`);
    this.addSql(`create index "category_list_tenant_id_category_type_index" on "category_list" ("tenant_id", "category_type");`);
    this.addSql(`alter table "category_list" add constraint "category_list_tenant_id_system_key_unique" unique ("tenant_id", "system_key");`);

    this.addSql(`create table "category_item" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "list_id" int not null, "name" varchar(200) not null, "description" text null, "is_active" boolean not null default true, "sort_order" int not null default 0);`);
    this.addSql(`create index "category_item_tenant_id_index" on "category_item" ("tenant_id");`);
    this.addSql(`create index "category_item_list_id_sort_order_index" on "category_item" ("list_id", "sort_order");`);

    this.addSql(`create table "chapter" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "contact_id" int not null, "is_top_level" boolean not null default false, "name" varchar(200) not null, "name_key" varchar(200) not null, "number" varchar(50) null, "number_key" varchar(50) null, "description" text null, "organization_contact_id" int null, "primary_calendar_id" int null, "calendar_description" text null, "group_type_id" varchar(64) null, "primary_group_id" varchar(64) null, "directory_id" int null, "payment_gateway_id" varchar(64) null, "payment_gateway_type" varchar(64) null, "owners" jsonb not null, "postal_codes" jsonb not null, "is_default_postal_code_empty" boolean not null default false, "affiliate_tenant" jsonb null, "allow_chapter_tenant_editing" boolean not null default false);`);
    this.addSql(`create index "chapter_tenant_id_index" on "chapter" ("tenant_id");`);
    this.addSql(`alter table "chapter" add constraint "chapter_contact_id_unique" unique ("contact_id");`);
    this.addSql(`create index "chapter_organization_contact_id_index" on "chapter" ("organization_contact_id");`);
    this.addSql(`create index "chapter_primary_calendar_id_index" on "chapter" ("primary_calendar_id");`);
    this.addSql(`create index "chapter_tenant_id_number_key_index" on "chapter" ("tenant_id", "number_key");`);
    this.addSql(`create index "chapter_tenant_id_name_key_index" on "chapter" ("tenant_id", "name_key");`);
    this.addSql(`create unique index "chapter_one_top_level_per_tenant" on "chapter" ("tenant_id") where "is_top_level";`);

    this.addSql(`alter table "contact_chapter" add constraint "contact_chapter_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "contact_chapter" add constraint "contact_chapter_contact_id_foreign" foreign key ("contact_id") references "contact" ("id") on delete cascade;`);
    this.addSql(`alter table "contact_chapter" add constraint "contact_chapter_chapter_id_foreign" foreign key ("chapter_id") references "contact" ("id") on delete cascade;`);

    this.addSql(`alter table "chapter_zip_code_run" add constraint "chapter_zip_code_run_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);

    this.addSql(`alter table "category_list" add constraint "category_list_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);

    this.addSql(`alter table "category_item" add constraint "category_item_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "category_item" add constraint "category_item_list_id_foreign" foreign key ("list_id") references "category_list" ("id") on delete cascade;`);

    this.addSql(`alter table "chapter" add constraint "chapter_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "chapter" add constraint "chapter_contact_id_foreign" foreign key ("contact_id") references "contact" ("id") on delete cascade;`);
    this.addSql(`alter table "chapter" add constraint "chapter_organization_contact_id_foreign" foreign key ("organization_contact_id") references "contact" ("id") on delete set null;`);
    this.addSql(`alter table "chapter" add constraint "chapter_primary_calendar_id_foreign" foreign key ("primary_calendar_id") references "calendar" ("id") on delete set null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "category_item" drop constraint "category_item_list_id_foreign";`);

    this.addSql(`drop table if exists "contact_chapter" cascade;`);
    this.addSql(`drop table if exists "chapter_zip_code_run" cascade;`);
    this.addSql(`drop table if exists "category_list" cascade;`);
    this.addSql(`drop table if exists "category_item" cascade;`);
    this.addSql(`drop table if exists "chapter" cascade;`);
  }

}
