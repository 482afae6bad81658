import { Migration } from '@mikro-orm/migrations';

export class Billing extends Migration {

  override name = '0017-billing';

  override up(): void | Promise<void> {
    this.addSql(`create table "scheduled_billing_run_record" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "parameters" jsonb not null, "state" varchar(16) not null default 'queued', "item_count" int not null default 0, "processed_count" int not null default 0, "billed_count" int not null default 0, "skipped_count" int not null default 0, "failed_count" int not null default 0, "billed_amount" numeric(12,2) not null default '0.00', "requested_by" int null, "job_id" varchar(64) null, "started_at" timestamptz null, "finished_at" timestamptz null, "error" text null);`);
    this.addSql(`create index "scheduled_billing_run_record_tenant_id_index" on "scheduled_billing_run_record" ("tenant_id");`);

    this.addSql(`create table "scheduled_billing_download" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "run_id" int not null, "state" varchar(16) not null default 'pending', "file_name" varchar(200) not null, "content" text null, "job_id" varchar(64) null);`);
    this.addSql(`create index "scheduled_billing_download_tenant_id_index" on "scheduled_billing_download" ("tenant_id");`);
    this.addSql(`create index "scheduled_billing_download_run_id_index" on "scheduled_billing_download" ("run_id");`);

    this.addSql(`create table "payment_gateway_account" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "account_id" varchar(100) not null, "gateway_type_id" int not null, "name" varchar(200) not null, "chapter_id" int null);`);
    this.addSql(`create index "payment_gateway_account_tenant_id_index" on "payment_gateway_account" ("tenant_id");`);
    this.addSql(`alter table "payment_gateway_account" add constraint "payment_gateway_account_tenant_id_gateway_type_id_2488f_unique" unique ("tenant_id", "gateway_type_id", "account_id");`);

    this.addSql(`create table "payment_gateway_transaction" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "account_id" int not null, "gateway_transaction_id" varchar(100) not null, "kind" varchar(24) not null, "amount" numeric(12,2) not null, "fee" numeric(12,2) not null default '0.00', "occurred_at" timestamptz not null, "transfer_id" varchar(100) null, "description" varchar(500) null);`);
    this.addSql(`create index "payment_gateway_transaction_tenant_id_index" on "payment_gateway_transaction" ("tenant_id");`);
    this.addSql(`create index "payment_gateway_transaction_account_id_transfer_id_index" on "payment_gateway_transaction" ("account_id", "transfer_id");`);
    this.addSql(`create index "payment_gateway_transaction_account_id_occurred_at_index" on "payment_gateway_transaction" ("account_id", "occurred_at");`);
    this.addSql(`alter table "payment_gateway_transaction" add constraint "payment_gateway_transaction_tenant_id_account_id__d60b6_unique" unique ("tenant_id", "account_id", "gateway_transaction_id");`);

    this.addSql(`create table "membership_type_payment_plan" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "membership_type_id" int not null, "name" varchar(200) not null, "payments" int not null, "start_date" date not null, "end_date" date null, "show_on_application" boolean not null default false, "level_ids" jsonb not null, "saleable_items" jsonb not null, "items" jsonb not null);`);
    this.addSql(`create index "membership_type_payment_plan_tenant_id_index" on "membership_type_payment_plan" ("tenant_id");`);
    this.addSql(`create index "membership_type_payment_plan_membership_type_id_index" on "membership_type_payment_plan" ("membership_type_id");`);

    this.addSql(`create table "scheduled_billing" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "contact_id" int not null, "membership_id" int null, "saleable_item_id" int not null, "description" varchar(500) not null, "amount" numeric(12,2) not null, "frequency_months" int not null default 12, "start_date" date not null, "next_bill_date" date not null, "status" varchar(16) not null default 'active', "payment_profile" varchar(200) null, "group_id" int null, "category_item_id" int null, "event_id" int null, "tags" jsonb not null);`);
    this.addSql(`create index "scheduled_billing_tenant_id_index" on "scheduled_billing" ("tenant_id");`);
    this.addSql(`create index "scheduled_billing_contact_id_index" on "scheduled_billing" ("contact_id");`);
    this.addSql(`create index "scheduled_billing_membership_id_index" on "scheduled_billing" ("membership_id");`);
    this.addSql(`create index "scheduled_billing_saleable_item_id_index" on "scheduled_billing" ("saleable_item_id");`);
    this.addSql(`create index "scheduled_billing_tenant_id_next_bill_date_index" on "scheduled_billing" ("tenant_id", "next_bill_date");`);

    this.addSql(`create table "scheduled_billing_run_item" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "run_id" int not null, "schedule_id" int not null, "period_start" date not null, "outcome" varchar(16) not null, "amount" numeric(12,2) not null, "invoice_id" int null, "membership_change" varchar(64) null, "reason" text null);`);
    this.addSql(`create index "scheduled_billing_run_item_tenant_id_index" on "scheduled_billing_run_item" ("tenant_id");`);
    this.addSql(`create index "scheduled_billing_run_item_schedule_id_index" on "scheduled_billing_run_item" ("schedule_id");`);
    this.addSql(`alter table "scheduled_billing_run_item" add constraint "scheduled_billing_run_item_run_id_schedule_id_unique" unique ("run_id", "schedule_id");`);

    this.addSql(`alter table "scheduled_billing_run_record" add constraint "scheduled_billing_run_record_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);

    this.addSql(`alter table "scheduled_billing_download" add constraint "scheduled_billing_download_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "scheduled_billing_download" add constraint "scheduled_billing_download_run_id_foreign" foreign key ("run_id") references "scheduled_billing_run_record" ("id") on delete cascade;`);

    this.addSql(`alter table "payment_gateway_account" add constraint "payment_gateway_account_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);

    this.addSql(`alter table "payment_gateway_transaction" add constraint "payment_gateway_transaction_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "payment_gateway_transaction" add constraint "payment_gateway_transaction_account_id_foreign" foreign key ("account_id") references "payment_gateway_account" ("id") on delete cascade;`);

    this.addSql(`alter table "membership_type_payment_plan" add constraint "membership_type_payment_plan_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "membership_type_payment_plan" add constraint "membership_type_payment_plan_membership_type_id_foreign" foreign key ("membership_type_id") references "membership_type" ("id") on delete cascade;`);

    this.addSql(`alter table "scheduled_billing" add constraint "scheduled_billing_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "scheduled_billing" add constraint "scheduled_billing_contact_id_foreign" foreign key ("contact_id") references "contact" ("id") on delete cascade;`);
    this.addSql(`alter table "scheduled_billing" add constraint "scheduled_billing_membership_id_foreign" foreign key ("membership_id") references "membership" ("id") on delete set null;`);
    this.addSql(`alter table "scheduled_billing" add constraint "scheduled_billing_saleable_item_id_foreign" foreign key ("saleable_item_id") references "saleable_item" ("id") on delete no action;`);

    this.addSql(`alter table "scheduled_billing_run_item" add constraint "scheduled_billing_run_item_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "scheduled_billing_run_item" add constraint "scheduled_billing_run_item_run_id_foreign" foreign key ("run_id") references "scheduled_billing_run_record" ("id") on delete cascade;`);
    this.addSql(`alter table "scheduled_billing_run_item" add constraint "scheduled_billing_run_item_schedule_id_foreign" foreign key ("schedule_id") references "scheduled_billing" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "scheduled_billing_download" drop constraint "scheduled_billing_download_run_id_foreign";`);
    this.addSql(`alter table "scheduled_billing_run_item" drop constraint "scheduled_billing_run_item_run_id_foreign";`);
    this.addSql(`alter table "payment_gateway_transaction" drop constraint "payment_gateway_transaction_account_id_foreign";`);
    this.addSql(`alter table "scheduled_billing_run_item" drop constraint "scheduled_billing_run_item_schedule_id_foreign";`);

    this.addSql(`drop table if exists "scheduled_billing_run_record" cascade;`);
    this.addSql(`drop table if exists "scheduled_billing_download" cascade;`);
    this.addSql(`drop table if exists "payment_gateway_account" cascade;`);
    this.addSql(`drop table if exists "payment_gateway_transaction" cascade;`);
    this.addSql(`drop table if exists "membership_type_payment_plan" cascade;`);
    this.addSql(`drop table if exists "scheduled_billing" cascade;`);
    this.addSql(`drop table if exists "scheduled_billing_run_item" cascade;`);
  }

}
