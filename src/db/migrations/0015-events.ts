import { Migration } from '@mikro-orm/migrations';

export class Events extends Migration {

  override name = '0015-events';

  override up(): void | Promise<void> {
    this.addSql(`create table "event_captcha_setting" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "provider" varchar(16) not null, "site_key" varchar(200) not null, "secret" varchar(500) not null, "verify_url" varchar(500) null);`);
    this.addSql(`create index "event_captcha_setting_tenant_id_index" on "event_captcha_setting" ("tenant_id");`);
    this.addSql(`alter table "event_captcha_setting" add constraint "event_captcha_setting_tenant_id_unique" unique ("tenant_id");`);

    this.addSql(`create table "event" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "name" varchar(200) not null, "description" text null, "starts_at" timestamptz not null, "ends_at" timestamptz not null, "venue" varchar(500) null, "status" varchar(16) not null default 'draft', "capacity" int null, "seats_taken" int not null default 0, "registration_opens_at" timestamptz null, "registration_closes_at" timestamptz null, "require_captcha" boolean not null default true, "goal_attendees" int null, "goal_attendee_revenue" numeric(12,2) null, "goal_sponsors" int null, "goal_sponsor_revenue" numeric(12,2) null, "goal_exhibitors" int null, "goal_exhibitor_revenue" numeric(12,2) null);`);
    this.addSql(`create index "event_tenant_id_index" on "event" ("tenant_id");`);
    this.addSql(`create index "event_tenant_id_starts_at_index" on "event" ("tenant_id", "starts_at");`);

    this.addSql(`create table "event_session" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "event_id" int not null, "name" varchar(200) not null, "starts_at" timestamptz null, "ends_at" timestamptz null);`);
    this.addSql(`create index "event_session_tenant_id_index" on "event_session" ("tenant_id");`);
    this.addSql(`create index "event_session_event_id_index" on "event_session" ("event_id");`);

    this.addSql(`create table "event_registration_type" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "event_id" int not null, "name" varchar(200) not null, "price" numeric(12,2) not null, "capacity" int null, "seats_taken" int not null default 0, "member_only" boolean not null default false, "session_ids" jsonb not null, "saleable_item_id" int null, "is_active" boolean not null default true, "sort_order" int not null default 0);`);
    this.addSql(`create index "event_registration_type_tenant_id_index" on "event_registration_type" ("tenant_id");`);
    this.addSql(`create index "event_registration_type_event_id_index" on "event_registration_type" ("event_id");`);
    this.addSql(`create index "event_registration_type_saleable_item_id_index" on "event_registration_type" ("saleable_item_id");`);

    this.addSql(`create table "event_offering" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "event_id" int not null, "kind" varchar(16) not null, "name" varchar(200) not null, "price" numeric(12,2) not null, "capacity" int null, "seats_taken" int not null default 0, "saleable_item_id" int null, "is_active" boolean not null default true);`);
    this.addSql(`create index "event_offering_tenant_id_index" on "event_offering" ("tenant_id");`);
    this.addSql(`create index "event_offering_saleable_item_id_index" on "event_offering" ("saleable_item_id");`);
    this.addSql(`create index "event_offering_tenant_id_event_id_kind_index" on "event_offering" ("tenant_id", "event_id", "kind");`);

    this.addSql(`create table "event_group" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "event_id" int not null, "session_id" int null, "registration_type_id" int null, "name" varchar(200) not null, "max_to_assign" int null, "group_number" int not null default 0, "group_order" int not null default 0);`);
    this.addSql(`create index "event_group_tenant_id_index" on "event_group" ("tenant_id");`);
    this.addSql(`create index "event_group_session_id_index" on "event_group" ("session_id");`);
    this.addSql(`create index "event_group_registration_type_id_index" on "event_group" ("registration_type_id");`);
    this.addSql(`create index "event_group_tenant_id_event_id_index" on "event_group" ("tenant_id", "event_id");`);

    this.addSql(`create table "event_registration_order" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "event_id" int not null, "billing_contact_id" int not null, "invoice_id" int null, "idempotency_key" varchar(64) not null, "status" varchar(16) not null default 'registered', "total" numeric(12,2) not null, "comments" text null, "referral_source" varchar(100) null, "submitted_at" timestamptz null);`);
    this.addSql(`create index "event_registration_order_tenant_id_index" on "event_registration_order" ("tenant_id");`);
    this.addSql(`create index "event_registration_order_event_id_index" on "event_registration_order" ("event_id");`);
    this.addSql(`create index "event_registration_order_billing_contact_id_index" on "event_registration_order" ("billing_contact_id");`);
    this.addSql(`create index "event_registration_order_invoice_id_index" on "event_registration_order" ("invoice_id");`);
    this.addSql(`alter table "event_registration_order" add constraint "event_registration_order_tenant_id_idempotency_key_unique" unique ("tenant_id", "idempotency_key");`);

    this.addSql(`create table "event_registration" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "event_id" int not null, "order_id" int not null, "contact_id" int not null, "registration_type_id" int not null, "status" varchar(16) not null default 'registered', "first_name" varchar(100) not null default '', "last_name" varchar(100) not null default '', "email" varchar(254) not null default '', "amount" numeric(12,2) not null);`);
    this.addSql(`create index "event_registration_tenant_id_index" on "event_registration" ("tenant_id");`);
    this.addSql(`create index "event_registration_order_id_index" on "event_registration" ("order_id");`);
    this.addSql(`create index "event_registration_contact_id_index" on "event_registration" ("contact_id");`);
    this.addSql(`create index "event_registration_registration_type_id_index" on "event_registration" ("registration_type_id");`);
    this.addSql(`create index "event_registration_tenant_id_event_id_status_index" on "event_registration" ("tenant_id", "event_id", "status");`);

    this.addSql(`create table "event_group_member" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "group_id" int not null, "registration_id" int not null, "session_key" int not null);`);
    this.addSql(`create index "event_group_member_tenant_id_index" on "event_group_member" ("tenant_id");`);
    this.addSql(`create index "event_group_member_group_id_index" on "event_group_member" ("group_id");`);
    this.addSql(`create index "event_group_member_registration_id_index" on "event_group_member" ("registration_id");`);
    this.addSql(`alter table "event_group_member" add constraint "event_group_member_tenant_id_registration_id_session_key_unique" unique ("tenant_id", "registration_id", "session_key");`);

    this.addSql(`create table "event_purchase" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "event_id" int not null, "order_id" int not null, "offering_id" int not null, "kind" varchar(16) not null, "contact_id" int not null, "quantity" int not null, "unit_price" numeric(12,2) not null, "amount" numeric(12,2) not null, "status" varchar(16) not null default 'registered');`);
    this.addSql(`create index "event_purchase_tenant_id_index" on "event_purchase" ("tenant_id");`);
    this.addSql(`create index "event_purchase_order_id_index" on "event_purchase" ("order_id");`);
    this.addSql(`create index "event_purchase_offering_id_index" on "event_purchase" ("offering_id");`);
    this.addSql(`create index "event_purchase_contact_id_index" on "event_purchase" ("contact_id");`);
    this.addSql(`create index "event_purchase_tenant_id_event_id_kind_index" on "event_purchase" ("tenant_id", "event_id", "kind");`);

    this.addSql(`create table "event_invitation" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "event_id" int not null, "contact_id" int not null, "status" varchar(16) not null default 'invited', "responded_at" timestamptz null);`);
    this.addSql(`create index "event_invitation_tenant_id_index" on "event_invitation" ("tenant_id");`);
    this.addSql(`create index "event_invitation_contact_id_index" on "event_invitation" ("contact_id");`);
    this.addSql(`alter table "event_invitation" add constraint "event_invitation_tenant_id_event_id_contact_id_unique" unique ("tenant_id", "event_id", "contact_id");`);

    this.addSql(`alter table "event_captcha_setting" add constraint "event_captcha_setting_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);

    this.addSql(`alter table "event" add constraint "event_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);

    this.addSql(`alter table "event_session" add constraint "event_session_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "event_session" add constraint "event_session_event_id_foreign" foreign key ("event_id") references "event" ("id") on delete cascade;`);

    this.addSql(`alter table "event_registration_type" add constraint "event_registration_type_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "event_registration_type" add constraint "event_registration_type_event_id_foreign" foreign key ("event_id") references "event" ("id") on delete cascade;`);
    this.addSql(`alter table "event_registration_type" add constraint "event_registration_type_saleable_item_id_foreign" foreign key ("saleable_item_id") references "saleable_item" ("id") on delete set null;`);

    this.addSql(`alter table "event_offering" add constraint "event_offering_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "event_offering" add constraint "event_offering_event_id_foreign" foreign key ("event_id") references "event" ("id") on delete cascade;`);
    this.addSql(`alter table "event_offering" add constraint "event_offering_saleable_item_id_foreign" foreign key ("saleable_item_id") references "saleable_item" ("id") on delete set null;`);

    this.addSql(`alter table "event_group" add constraint "event_group_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "event_group" add constraint "event_group_event_id_foreign" foreign key ("event_id") references "event" ("id") on delete cascade;`);
    this.addSql(`alter table "event_group" add constraint "event_group_session_id_foreign" foreign key ("session_id") references "event_session" ("id") on delete cascade;`);
    this.addSql(`alter table "event_group" add constraint "event_group_registration_type_id_foreign" foreign key ("registration_type_id") references "event_registration_type" ("id") on delete set null;`);

    this.addSql(`alter table "event_registration_order" add constraint "event_registration_order_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "event_registration_order" add constraint "event_registration_order_event_id_foreign" foreign key ("event_id") references "event" ("id") on delete no action;`);
    this.addSql(`alter table "event_registration_order" add constraint "event_registration_order_billing_contact_id_foreign" foreign key ("billing_contact_id") references "contact" ("id") on delete no action;`);
    this.addSql(`alter table "event_registration_order" add constraint "event_registration_order_invoice_id_foreign" foreign key ("invoice_id") references "invoice" ("id") on delete no action;`);

    this.addSql(`alter table "event_registration" add constraint "event_registration_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "event_registration" add constraint "event_registration_event_id_foreign" foreign key ("event_id") references "event" ("id") on delete no action;`);
    this.addSql(`alter table "event_registration" add constraint "event_registration_order_id_foreign" foreign key ("order_id") references "event_registration_order" ("id") on delete cascade;`);
    this.addSql(`alter table "event_registration" add constraint "event_registration_contact_id_foreign" foreign key ("contact_id") references "contact" ("id") on delete no action;`);
    this.addSql(`alter table "event_registration" add constraint "event_registration_registration_type_id_foreign" foreign key ("registration_type_id") references "event_registration_type" ("id") on delete no action;`);

    this.addSql(`alter table "event_group_member" add constraint "event_group_member_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "event_group_member" add constraint "event_group_member_group_id_foreign" foreign key ("group_id") references "event_group" ("id") on delete no action;`);
    this.addSql(`alter table "event_group_member" add constraint "event_group_member_registration_id_foreign" foreign key ("registration_id") references "event_registration" ("id") on delete cascade;`);

    this.addSql(`alter table "event_purchase" add constraint "event_purchase_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "event_purchase" add constraint "event_purchase_event_id_foreign" foreign key ("event_id") references "event" ("id") on delete no action;`);
    this.addSql(`alter table "event_purchase" add constraint "event_purchase_order_id_foreign" foreign key ("order_id") references "event_registration_order" ("id") on delete cascade;`);
    this.addSql(`alter table "event_purchase" add constraint "event_purchase_offering_id_foreign" foreign key ("offering_id") references "event_offering" ("id") on delete no action;`);
    this.addSql(`alter table "event_purchase" add constraint "event_purchase_contact_id_foreign" foreign key ("contact_id") references "contact" ("id") on delete no action;`);

    this.addSql(`alter table "event_invitation" add constraint "event_invitation_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "event_invitation" add constraint "event_invitation_event_id_foreign" foreign key ("event_id") references "event" ("id") on delete cascade;`);
    this.addSql(`alter table "event_invitation" add constraint "event_invitation_contact_id_foreign" foreign key ("contact_id") references "contact" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "event_session" drop constraint "event_session_event_id_foreign";`);
    this.addSql(`alter table "event_registration_type" drop constraint "event_registration_type_event_id_foreign";`);
    this.addSql(`alter table "event_offering" drop constraint "event_offering_event_id_foreign";`);
    this.addSql(`alter table "event_group" drop constraint "event_group_event_id_foreign";`);
    this.addSql(`alter table "event_registration_order" drop constraint "event_registration_order_event_id_foreign";`);
    this.addSql(`alter table "event_registration" drop constraint "event_registration_event_id_foreign";`);
    this.addSql(`alter table "event_purchase" drop constraint "event_purchase_event_id_foreign";`);
    this.addSql(`alter table "event_invitation" drop constraint "event_invitation_event_id_foreign";`);
    this.addSql(`alter table "event_group" drop constraint "event_group_session_id_foreign";`);
    this.addSql(`alter table "event_group" drop constraint "event_group_registration_type_id_foreign";`);
    this.addSql(`alter table "event_registration" drop constraint "event_registration_registration_type_id_foreign";`);
    this.addSql(`alter table "event_purchase" drop constraint "event_purchase_offering_id_foreign";`);
    this.addSql(`alter table "event_group_member" drop constraint "event_group_member_group_id_foreign";`);
    this.addSql(`alter table "event_registration" drop constraint "event_registration_order_id_foreign";`);
    this.addSql(`alter table "event_purchase" drop constraint "event_purchase_order_id_foreign";`);
    this.addSql(`alter table "event_group_member" drop constraint "event_group_member_registration_id_foreign";`);

    this.addSql(`drop table if exists "event_captcha_setting" cascade;`);
    this.addSql(`drop table if exists "event" cascade;`);
    this.addSql(`drop table if exists "event_session" cascade;`);
    this.addSql(`drop table if exists "event_registration_type" cascade;`);
    this.addSql(`drop table if exists "event_offering" cascade;`);
    this.addSql(`drop table if exists "event_group" cascade;`);
    this.addSql(`drop table if exists "event_registration_order" cascade;`);
    this.addSql(`drop table if exists "event_registration" cascade;`);
    this.addSql(`drop table if exists "event_group_member" cascade;`);
    this.addSql(`drop table if exists "event_purchase" cascade;`);
    this.addSql(`drop table if exists "event_invitation" cascade;`);
  }

}
