import { Migration } from '@mikro-orm/migrations';

export class InitialSchema extends Migration {

  override name = '0001-initial';

  override up(): void | Promise<void> {
    this.addSql(`create table "security_question" ("id" serial primary key, "name" varchar(200) not null, "sort_order" int not null default 0);`);

    this.addSql(`create table "sign_in_request" ("id" serial primary key, "address_hash" varchar(64) not null, "requested_at" timestamptz not null default now());`);
    this.addSql(`create index "sign_in_request_address_hash_requested_at_index" on "sign_in_request" ("address_hash", "requested_at");`);

    this.addSql(`create table "tenant" ("id" serial primary key, "key" varchar(64) not null, "name" varchar(200) not null, "domain" varchar(253) null, "logo_url" varchar(2048) null, "logo_short_description" varchar(500) null, "created_at" timestamptz not null default now());`);
    this.addSql(`alter table "tenant" add constraint "tenant_key_unique" unique ("key");`);

    this.addSql(`create table "outbox_message" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "channel" varchar(32) not null, "recipient" varchar(254) not null, "subject" varchar(200) not null, "body" text not null, "sent_at" timestamptz null);`);
    this.addSql(`create index "outbox_message_tenant_id_index" on "outbox_message" ("tenant_id");`);

    this.addSql(`create table "membership_type" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "name" varchar(200) not null, "description" text null, "is_active" boolean not null default true);`);
    this.addSql(`create index "membership_type_tenant_id_index" on "membership_type" ("tenant_id");`);

    this.addSql(`create table "membership_level" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "membership_type_id" int not null, "name" varchar(200) not null, "sort_order" int not null default 0);`);
    this.addSql(`create index "membership_level_tenant_id_index" on "membership_level" ("tenant_id");`);
    this.addSql(`create index "membership_level_membership_type_id_index" on "membership_level" ("membership_type_id");`);

    this.addSql(`create table "contact" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "kind" varchar(16) not null, "first_name" varchar(100) null, "last_name" varchar(100) null, "name" varchar(200) null, "title" varchar(100) null, "email" varchar(254) null, "secondary_email" varchar(254) null, "phone" varchar(40) null, "mobile_phone" varchar(40) null, "addresses" jsonb null, "national_id" varchar(64) null, "state_id" varchar(64) null, "logo_url" varchar(2048) null, "logo_short_description" varchar(500) null, "parent_id" int null, "organization_id" int null, "deleted_at" timestamptz null);`);
    this.addSql(`create index "contact_tenant_id_index" on "contact" ("tenant_id");`);
    this.addSql(`create index "contact_parent_id_index" on "contact" ("parent_id");`);
    this.addSql(`create index "contact_organization_id_index" on "contact" ("organization_id");`);
    this.addSql(`create index "contact_tenant_id_last_name_first_name_index" on "contact" ("tenant_id", "last_name", "first_name");`);

    this.addSql(`create table "membership" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "contact_id" int not null, "membership_type_id" int not null, "membership_level_id" int null, "start_date" date not null, "end_date" date null, "status" varchar(16) not null);`);
    this.addSql(`create index "membership_tenant_id_index" on "membership" ("tenant_id");`);
    this.addSql(`create index "membership_contact_id_index" on "membership" ("contact_id");`);
    this.addSql(`create index "membership_membership_type_id_index" on "membership" ("membership_type_id");`);

    this.addSql(`create table "login" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "email" varchar(254) not null, "contact_id" int null, "roles" text[] not null, "last_sign_in_at" timestamptz null);`);
    this.addSql(`create index "login_tenant_id_index" on "login" ("tenant_id");`);
    this.addSql(`alter table "login" add constraint "login_tenant_id_email_unique" unique ("tenant_id", "email");`);

    this.addSql(`create table "magic_link_token" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "login_id" int not null, "token_hash" varchar(64) not null, "login_type" varchar(32) not null, "expires_at" timestamptz not null, "used_at" timestamptz null);`);
    this.addSql(`create index "magic_link_token_tenant_id_index" on "magic_link_token" ("tenant_id");`);
    this.addSql(`create index "magic_link_token_login_id_index" on "magic_link_token" ("login_id");`);
    this.addSql(`alter table "magic_link_token" add constraint "magic_link_token_token_hash_unique" unique ("token_hash");`);

    this.addSql(`create table "credential" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "login_id" int not null, "kind" varchar(16) not null, "name" varchar(100) null, "token_hash" varchar(64) not null, "expires_at" timestamptz null, "revoked_at" timestamptz null, "last_used_at" timestamptz null);`);
    this.addSql(`create index "credential_tenant_id_index" on "credential" ("tenant_id");`);
    this.addSql(`create index "credential_login_id_index" on "credential" ("login_id");`);
    this.addSql(`alter table "credential" add constraint "credential_token_hash_unique" unique ("token_hash");`);

    this.addSql(`create table "vendor" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "name" varchar(200) not null, "name_key" varchar(200) not null, "website_url" varchar(2048) null);`);
    this.addSql(`create index "vendor_tenant_id_index" on "vendor" ("tenant_id");`);
    this.addSql(`create index "vendor_tenant_id_name_key_index" on "vendor" ("tenant_id", "name_key");`);

    this.addSql(`alter table "outbox_message" add constraint "outbox_message_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);

    this.addSql(`alter table "membership_type" add constraint "membership_type_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);

    this.addSql(`alter table "membership_level" add constraint "membership_level_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "membership_level" add constraint "membership_level_membership_type_id_foreign" foreign key ("membership_type_id") references "membership_type" ("id") on delete cascade;`);

    this.addSql(`alter table "contact" add constraint "contact_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "contact" add constraint "contact_parent_id_foreign" foreign key ("parent_id") references "contact" ("id") on delete set null;`);
    this.addSql(`alter table "contact" add constraint "contact_organization_id_foreign" foreign key ("organization_id") references "contact" ("id") on delete set null;`);

    this.addSql(`alter table "membership" add constraint "membership_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "membership" add constraint "membership_contact_id_foreign" foreign key ("contact_id") references "contact" ("id") on delete cascade;`);
    this.addSql(`alter table "membership" add constraint "membership_membership_type_id_foreign" foreign key ("membership_type_id") references "membership_type" ("id");`);
    this.addSql(`alter table "membership" add constraint "membership_membership_level_id_foreign" foreign key ("membership_level_id") references "membership_level" ("id") on delete set null;`);

    this.addSql(`alter table "login" add constraint "login_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "login" add constraint "login_contact_id_foreign" foreign key ("contact_id") references "contact" ("id") on delete set null;`);

    this.addSql(`alter table "magic_link_token" add constraint "magic_link_token_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "magic_link_token" add constraint "magic_link_token_login_id_foreign" foreign key ("login_id") references "login" ("id") on delete cascade;`);

    this.addSql(`alter table "credential" add constraint "credential_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "credential" add constraint "credential_login_id_foreign" foreign key ("login_id") references "login" ("id") on delete cascade;`);

    this.addSql(`alter table "vendor" add constraint "vendor_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);

    this.addSql(`insert into "security_question" ("name", "sort_order") values
      ('What was the name of your first pet?', 1),
      ('In what city were you born?', 2),
      ('What was the name of your first school?', 3),
      ('What is the name of the street you grew up on?', 4),
      ('What was the make of your first car?', 5);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "outbox_message" drop constraint "outbox_message_tenant_id_foreign";`);
    this.addSql(`alter table "membership_type" drop constraint "membership_type_tenant_id_foreign";`);
    this.addSql(`alter table "membership_level" drop constraint "membership_level_tenant_id_foreign";`);
    this.addSql(`alter table "contact" drop constraint "contact_tenant_id_foreign";`);
    this.addSql(`alter table "membership" drop constraint "membership_tenant_id_foreign";`);
    this.addSql(`alter table "login" drop constraint "login_tenant_id_foreign";`);
    this.addSql(`alter table "magic_link_token" drop constraint "magic_link_token_tenant_id_foreign";`);
    this.addSql(`alter table "credential" drop constraint "credential_tenant_id_foreign";`);
    this.addSql(`alter table "vendor" drop constraint "vendor_tenant_id_foreign";`);
    this.addSql(`alter table "membership_level" drop constraint "membership_level_membership_type_id_foreign";`);
    this.addSql(`alter table "membership" drop constraint "membership_membership_type_id_foreign";`);
    this.addSql(`alter table "membership" drop constraint "membership_membership_level_id_foreign";`);
    this.addSql(`alter table "contact" drop constraint "contact_parent_id_foreign";`);
    this.addSql(`alter table "contact" drop constraint "contact_organization_id_foreign";`);
    this.addSql(`alter table "membership" drop constraint "membership_contact_id_foreign";`);
    this.addSql(`alter table "login" drop constraint "login_contact_id_foreign";`);
    this.addSql(`alter table "magic_link_token" drop constraint "magic_link_token_login_id_foreign";`);
    this.addSql(`alter table "credential" drop constraint "credential_login_id_foreign";`);

    this.addSql(`drop table if exists "security_question" cascade;`);
    this.addSql(`drop table if exists "sign_in_request" cascade;`);
    this.addSql(`drop table if exists "tenant" cascade;`);
    this.addSql(`drop table if exists "outbox_message" cascade;`);
    this.addSql(`drop table if exists "membership_type" cascade;`);
    this.addSql(`drop table if exists "membership_level" cascade;`);
    this.addSql(`drop table if exists "contact" cascade;`);
    this.addSql(`drop table if exists "membership" cascade;`);
    this.addSql(`drop table if exists "login" cascade;`);
    this.addSql(`drop table if exists "magic_link_token" cascade;`);
    this.addSql(`drop table if exists "credential" cascade;`);
    this.addSql(`drop table if exists "vendor" cascade;`);
  }

}
