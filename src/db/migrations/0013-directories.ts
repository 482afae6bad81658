import { Migration } from '@mikro-orm/migrations';

export class Directories extends Migration {

  override name = '0013-directories';

  override up(): void | Promise<void> {
    // Term search (trigram index) and radius search (earth distance) are PostgreSQL extensions.
    this.addSql(`create extension if not exists pg_trgm;`);
    this.addSql(`create extension if not exists cube;`);
    this.addSql(`create extension if not exists earthdistance;`);
    this.addSql(`create table "directory_listing_type" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "name" varchar(200) not null, "description" text null, "default_rank" varchar(50) null, "show_individual_details" varchar(200) null, "show_contact_details" varchar(200) null, "show_custom_fields" varchar(200) null, "show_related_contacts" boolean not null default false, "show_contacts_with_memberships" boolean not null default false, "show_primary_contact" boolean not null default false, "direct_link_to_destination_site" boolean not null default false, "open_links_in_new_tab" boolean not null default false, "enhanced_on_map" boolean not null default false, "show_rets_directory_link_option" boolean not null default false, "options" jsonb null, "retargeting" text null);`);
    this.addSql(`create index "directory_listing_type_tenant_id_index" on "directory_listing_type" ("tenant_id");`);

    this.addSql(`create table "directory" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "name" varchar(200) not null, "display_name" varchar(200) null, "description" text null, "listing_type_id" int null, "sort_order" int not null default 0, "category_list_id" int null, "category_list_ids" jsonb not null, "order_category_results" varchar(50) null, "is_public" boolean not null default false, "is_hub" boolean not null default false, "hub_icon_css_class" varchar(100) null, "is_multi_tenant" boolean not null default false, "show_is_public_property" boolean not null default false, "in_development" boolean not null default false, "search_settings" jsonb not null, "keyword_search_options" jsonb null, "custom_fields" jsonb null, "automatically_add_remove_members" boolean not null default false, "membership_type_ids" jsonb not null, "object_type_id" varchar(100) null, "search_object_type_id" varchar(100) null, "chapter_id" int null, "deleted_at" timestamptz null);`);
    this.addSql(`create index "directory_tenant_id_index" on "directory" ("tenant_id");`);
    this.addSql(`create index "directory_listing_type_id_index" on "directory" ("listing_type_id");`);
    this.addSql(`create index "directory_chapter_id_index" on "directory" ("chapter_id");`);

    this.addSql(`create table "directory_listing" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "directory_id" int not null, "contact_id" int not null, "listing_type_id" int null, "public_key" varchar(32) not null default replace(gen_random_uuid()::text, '-', ''), "name" varchar(200) not null default '', "search_text" text generated always as (lower(name || ' ' || coalesce(keywords, '') || ' ' || coalesce(short_description, ''))) stored not null, "short_description" text null, "description" text null, "bio" text null, "highlights" text null, "keywords" varchar(1000) null, "website" varchar(2048) null, "category_item_ids" jsonb not null, "custom_fields" jsonb null, "visibility" jsonb not null, "is_visible" boolean not null default true, "source" varchar(16) not null default 'manual', "postal_code" varchar(20) null, "latitude" double precision null, "longitude" double precision null, "deleted_at" timestamptz null);`);
    this.addSql(`create index "directory_listing_tenant_id_index" on "directory_listing" ("tenant_id");`);
    this.addSql(`create index "directory_listing_contact_id_index" on "directory_listing" ("contact_id");`);
    this.addSql(`create index "directory_listing_listing_type_id_index" on "directory_listing" ("listing_type_id");`);
    this.addSql(`alter table "directory_listing" add constraint "directory_listing_public_key_unique" unique ("public_key");`);
    this.addSql(`create index "directory_listing_earth" on "directory_listing" using gist (ll_to_earth("latitude", "longitude")) where "latitude" is not null;`);
    this.addSql(`create index "directory_listing_categories" on "directory_listing" using gin ("category_item_ids" jsonb_path_ops);`);
    this.addSql(`create index "directory_listing_name_lower" on "directory_listing" ("directory_id", lower("name") text_pattern_ops);`);
    this.addSql(`create index "directory_listing_search_text_trgm" on "directory_listing" using gin ("search_text" gin_trgm_ops);`);
    this.addSql(`create index "directory_listing_tenant_id_updated_at_index" on "directory_listing" ("tenant_id", "updated_at");`);
    this.addSql(`alter table "directory_listing" add constraint "directory_listing_directory_id_contact_id_unique" unique ("directory_id", "contact_id");`);

    this.addSql(`alter table "directory_listing_type" add constraint "directory_listing_type_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);

    this.addSql(`alter table "directory" add constraint "directory_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "directory" add constraint "directory_listing_type_id_foreign" foreign key ("listing_type_id") references "directory_listing_type" ("id") on delete no action;`);

    this.addSql(`alter table "directory_listing" add constraint "directory_listing_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "directory_listing" add constraint "directory_listing_directory_id_foreign" foreign key ("directory_id") references "directory" ("id") on delete cascade;`);
    this.addSql(`alter table "directory_listing" add constraint "directory_listing_contact_id_foreign" foreign key ("contact_id") references "contact" ("id") on delete cascade;`);
    this.addSql(`alter table "directory_listing" add constraint "directory_listing_listing_type_id_foreign" foreign key ("listing_type_id") references "directory_listing_type" ("id") on delete no action;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "directory" drop constraint "directory_listing_type_id_foreign";`);
    this.addSql(`alter table "directory_listing" drop constraint "directory_listing_listing_type_id_foreign";`);
    this.addSql(`alter table "directory_listing" drop constraint "directory_listing_directory_id_foreign";`);

    this.addSql(`drop table if exists "directory_listing_type" cascade;`);
    this.addSql(`drop table if exists "directory" cascade;`);
    this.addSql(`drop table if exists "directory_listing" cascade;`);
  }

}
