import { Migration } from '@mikro-orm/migrations';

export class RequestGuards extends Migration {

  override name = '0020-request-guards';

  override up(): void | Promise<void> {
    this.addSql(`create table "rate_limit_window" ("bucket" varchar(200) not null, "window_start" timestamptz not null, "count" int not null, primary key ("bucket", "window_start"));`);

    this.addSql(`create table "idempotency_record" ("id" serial primary key, "tenant_id" int not null, "credential_id" int not null, "key" varchar(255) not null, "request_hash" varchar(64) not null, "state" varchar(16) not null, "status_code" int null, "response_body" text null, "content_type" varchar(100) null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now());`);
    this.addSql(`create index "idempotency_record_credential_id_index" on "idempotency_record" ("credential_id");`);
    this.addSql(`create index "idempotency_record_created_at_index" on "idempotency_record" ("created_at");`);
    this.addSql(`alter table "idempotency_record" add constraint "idempotency_record_tenant_id_credential_id_key_unique" unique ("tenant_id", "credential_id", "key");`);

    this.addSql(`alter table "idempotency_record" add constraint "idempotency_record_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "idempotency_record" add constraint "idempotency_record_credential_id_foreign" foreign key ("credential_id") references "credential" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "rate_limit_window" cascade;`);
    this.addSql(`drop table if exists "idempotency_record" cascade;`);
  }

}
