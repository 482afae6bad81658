import { Migration } from '@mikro-orm/migrations';

export class CallbacksSchema extends Migration {

  override name = '0007-callbacks';

  override up(): void | Promise<void> {
    this.addSql(`create table "provider_callback" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "receipt" uuid not null, "provider" varchar(32) not null, "headers" jsonb not null, "body" text not null, "received_at" timestamptz not null default now(), "state" varchar(16) not null, "attempts" int not null default 0, "error" text null, "processed_at" timestamptz null, "event_count" int null);`);
    this.addSql(`create index "provider_callback_tenant_id_index" on "provider_callback" ("tenant_id");`);
    this.addSql(`alter table "provider_callback" add constraint "provider_callback_receipt_unique" unique ("receipt");`);

    this.addSql(`create table "meeting_event" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "provider" varchar(32) not null, "provider_event_id" varchar(255) not null, "callback_id" int null, "kind" varchar(24) not null, "meeting_id" varchar(64) not null, "meeting_uuid" varchar(128) null, "topic" varchar(300) null, "participant_name" varchar(200) null, "participant_email" varchar(254) null, "contact_id" int null, "occurred_at" timestamptz not null);`);
    this.addSql(`create index "meeting_event_tenant_id_index" on "meeting_event" ("tenant_id");`);
    this.addSql(`create index "meeting_event_contact_id_index" on "meeting_event" ("contact_id");`);
    this.addSql(`alter table "meeting_event" add constraint "meeting_event_tenant_id_provider_provider_event_id_unique" unique ("tenant_id", "provider", "provider_event_id");`);

    this.addSql(`create table "email_event" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "provider" varchar(32) not null, "provider_event_id" varchar(255) not null, "callback_id" int null, "kind" varchar(16) not null, "bounce_type" varchar(8) null, "email" varchar(254) not null, "contact_id" int null, "occurred_at" timestamptz not null, "url" varchar(2048) null, "reason" varchar(1000) null);`);
    this.addSql(`create index "email_event_tenant_id_index" on "email_event" ("tenant_id");`);
    this.addSql(`create index "email_event_contact_id_index" on "email_event" ("contact_id");`);
    this.addSql(`alter table "email_event" add constraint "email_event_tenant_id_provider_provider_event_id_unique" unique ("tenant_id", "provider", "provider_event_id");`);

    this.addSql(`create table "callback_secret" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "provider" varchar(32) not null, "secret" varchar(128) not null);`);
    this.addSql(`create index "callback_secret_tenant_id_index" on "callback_secret" ("tenant_id");`);
    this.addSql(`alter table "callback_secret" add constraint "callback_secret_tenant_id_provider_unique" unique ("tenant_id", "provider");`);

    this.addSql(`alter table "contact" add "email_suppressed_at" timestamptz null, add "email_suppression_reason" varchar(32) null;`);
    this.addSql(`create index "contact_tenant_id_email_lower_index" on "contact" ("tenant_id", lower("email"));`);

    this.addSql(`alter table "provider_callback" add constraint "provider_callback_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);

    this.addSql(`alter table "meeting_event" add constraint "meeting_event_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "meeting_event" add constraint "meeting_event_callback_id_foreign" foreign key ("callback_id") references "provider_callback" ("id") on delete set null;`);
    this.addSql(`alter table "meeting_event" add constraint "meeting_event_contact_id_foreign" foreign key ("contact_id") references "contact" ("id") on delete set null;`);

    this.addSql(`alter table "email_event" add constraint "email_event_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "email_event" add constraint "email_event_callback_id_foreign" foreign key ("callback_id") references "provider_callback" ("id") on delete set null;`);
    this.addSql(`alter table "email_event" add constraint "email_event_contact_id_foreign" foreign key ("contact_id") references "contact" ("id") on delete set null;`);

    this.addSql(`alter table "callback_secret" add constraint "callback_secret_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "meeting_event" drop constraint "meeting_event_callback_id_foreign";`);
    this.addSql(`alter table "email_event" drop constraint "email_event_callback_id_foreign";`);

    this.addSql(`drop table if exists "provider_callback" cascade;`);
    this.addSql(`drop table if exists "meeting_event" cascade;`);
    this.addSql(`drop table if exists "email_event" cascade;`);
    this.addSql(`drop table if exists "callback_secret" cascade;`);

    this.addSql(`drop index "contact_tenant_id_email_lower_index";`);
    this.addSql(`alter table "contact" drop column "email_suppressed_at", drop column "email_suppression_reason";`);
  }

}
