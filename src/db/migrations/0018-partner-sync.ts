import { Migration } from '@mikro-orm/migrations';

export class PartnerSync extends Migration {

  override name = '0018-partner-sync';

  override up(): void | Promise<void> {
    this.addSql(`create table "partner_transaction_log" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "operation" varchar(32) not null, "is_national" boolean not null, "transaction_id" varchar(100) null, "changed_at" timestamptz null, "national_id" int null, "state_id" varchar(64) null, "contact_id" int null, "outcome" varchar(16) not null, "reason" text null, "payload" jsonb not null, "settled_at" timestamptz null);`);
    this.addSql(`create index "partner_transaction_log_tenant_id_index" on "partner_transaction_log" ("tenant_id");`);
    this.addSql(`create index "partner_transaction_log_contact_id_index" on "partner_transaction_log" ("contact_id");`);
    this.addSql(`create index "partner_transaction_log_tenant_id_created_at_index" on "partner_transaction_log" ("tenant_id", "created_at");`);
    this.addSql(`create index "partner_transaction_log_tenant_id_transaction_id_index" on "partner_transaction_log" ("tenant_id", "transaction_id");`);

    this.addSql(`create table "partner_record" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "contact_id" int not null, "kind" varchar(16) not null, "national_id" int null, "state_id" varchar(64) null, "contact_type" varchar(64) null, "affiliation" varchar(200) null, "parent_national_id" int null, "details" jsonb not null, "data_changed_at" timestamptz null, "data_transaction_id" varchar(100) null, "affiliation_changed_at" timestamptz null, "affiliation_transaction_id" varchar(100) null, "deleted_changed_at" timestamptz null, "deleted_transaction_id" varchar(100) null, "deleted_by_partner" boolean not null default false, "contact_synced_at" timestamptz null);`);
    this.addSql(`create index "partner_record_tenant_id_index" on "partner_record" ("tenant_id");`);
    this.addSql(`alter table "partner_record" add constraint "partner_record_contact_id_unique" unique ("contact_id");`);
    this.addSql(`create unique index "partner_record_tenant_id_national_id_unique" on "partner_record" ("tenant_id", "national_id") where "national_id" is not null;`);
    this.addSql(`create index "partner_record_tenant_id_state_id_index" on "partner_record" ("tenant_id", "state_id");`);

    this.addSql(`create table "partner_affiliation" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "record_id" int not null, "state_id" varchar(64) null, "affiliation" varchar(200) null, "parent_national_id" int null, "valid_from" timestamptz not null, "transaction_id" varchar(100) not null, "cause" varchar(16) not null);`);
    this.addSql(`create index "partner_affiliation_tenant_id_index" on "partner_affiliation" ("tenant_id");`);
    this.addSql(`create index "partner_affiliation_record_id_index" on "partner_affiliation" ("record_id");`);

    this.addSql(`alter table "partner_transaction_log" add constraint "partner_transaction_log_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "partner_transaction_log" add constraint "partner_transaction_log_contact_id_foreign" foreign key ("contact_id") references "contact" ("id") on delete set null;`);

    this.addSql(`alter table "partner_record" add constraint "partner_record_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "partner_record" add constraint "partner_record_contact_id_foreign" foreign key ("contact_id") references "contact" ("id") on delete cascade;`);

    this.addSql(`alter table "partner_affiliation" add constraint "partner_affiliation_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "partner_affiliation" add constraint "partner_affiliation_record_id_foreign" foreign key ("record_id") references "partner_record" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "partner_affiliation" drop constraint "partner_affiliation_record_id_foreign";`);

    this.addSql(`drop table if exists "partner_transaction_log" cascade;`);
    this.addSql(`drop table if exists "partner_record" cascade;`);
    this.addSql(`drop table if exists "partner_affiliation" cascade;`);
  }

}
