import { Migration } from '@mikro-orm/migrations';

/**
 * Outbound webhooks (src/entities/webhook.ts): each tenant's subscriptions, the events written in
 * the transaction of the change they describe, and one delivery per event and subscription. The
 * events and deliveries are an outbox, like `outbox_message`: kept out of the audit trail (a
 * delivery changes on every attempt); the subscriptions are audited, their secrets redacted.
 */
export class Webhooks extends Migration {

  override name = '0043-webhooks';

  override up(): void | Promise<void> {
    this.addSql(`create table "webhook_subscription" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "url" varchar(2000) not null, "event_types" jsonb not null, "active" boolean not null default true, "description" varchar(500) null, "secret" varchar(100) not null, "previous_secret" varchar(100) null, "previous_secret_until" timestamptz null, "disabled_reason" varchar(500) null, "disabled_at" timestamptz null);`);
    this.addSql(`create index "webhook_subscription_tenant_id_index" on "webhook_subscription" ("tenant_id");`);
    this.addSql(`create index "webhook_subscription_list_id" on "webhook_subscription" ("tenant_id", "id");`);
    // The pump drops previous secrets whose overlap has ended.
    this.addSql(`create index "webhook_subscription_previous_secret_until_index" on "webhook_subscription" ("previous_secret_until") where "previous_secret_until" is not null;`);
    this.addSql(`alter table "webhook_subscription" add constraint "webhook_subscription_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);

    this.addSql(`create table "webhook_event" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "message_id" varchar(40) not null, "type" varchar(64) not null, "body" text not null);`);
    this.addSql(`create index "webhook_event_tenant_id_index" on "webhook_event" ("tenant_id");`);
    this.addSql(`alter table "webhook_event" add constraint "webhook_event_message_id_unique" unique ("message_id");`);
    this.addSql(`alter table "webhook_event" add constraint "webhook_event_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);

    this.addSql(`create table "webhook_delivery" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "subscription_id" int not null, "event_id" int not null, "status" varchar(16) not null default 'pending', "attempts" int not null default 0, "last_response_code" int null, "last_latency_ms" int null, "last_error" varchar(500) null, "next_attempt_at" timestamptz null, "delivered_at" timestamptz null);`);
    this.addSql(`create index "webhook_delivery_tenant_id_index" on "webhook_delivery" ("tenant_id");`);
    this.addSql(`create index "webhook_delivery_event_id_index" on "webhook_delivery" ("event_id");`);
    this.addSql(`create index "webhook_delivery_subscription_id_id_index" on "webhook_delivery" ("subscription_id", "id");`);
    this.addSql(`create index "webhook_delivery_list_id" on "webhook_delivery" ("tenant_id", "id" desc);`);
    // What the pump looks for: deliveries waiting for a job, and those in flight per subscription.
    this.addSql(`create index "webhook_delivery_waiting_index" on "webhook_delivery" ("id") where "status" in ('pending', 'retrying');`);
    this.addSql(`create index "webhook_delivery_queued_index" on "webhook_delivery" ("subscription_id") where "status" = 'queued';`);
    this.addSql(`alter table "webhook_delivery" add constraint "webhook_delivery_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "webhook_delivery" add constraint "webhook_delivery_subscription_id_foreign" foreign key ("subscription_id") references "webhook_subscription" ("id") on delete cascade;`);
    this.addSql(`alter table "webhook_delivery" add constraint "webhook_delivery_event_id_foreign" foreign key ("event_id") references "webhook_event" ("id") on delete cascade;`);

    // The outbox tables join the ones the audit trail leaves out (0022's list and these two).
    this.addSql(`create or replace function audit_excluded_tables() returns text[] language sql immutable as $$
      select array['audit_entry', 'idempotency_record', 'provider_callback', 'email_event', 'meeting_event', 'outbox_message', 'file_content', 'webhook_event', 'webhook_delivery']::text[]
    $$;`);
    this.addSql('select audit_attach_all();');
    this.addSql('select rls_attach_all();');
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "webhook_delivery" cascade;`);
    this.addSql(`drop table if exists "webhook_event" cascade;`);
    this.addSql(`drop table if exists "webhook_subscription" cascade;`);
    this.addSql(`create or replace function audit_excluded_tables() returns text[] language sql immutable as $$
      select array['audit_entry', 'idempotency_record', 'provider_callback', 'email_event', 'meeting_event', 'outbox_message', 'file_content']::text[]
    $$;`);
  }

}
