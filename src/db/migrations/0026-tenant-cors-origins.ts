import { Migration } from '@mikro-orm/migrations';

/** Each tenant's allowed browser origins (CORS): src/entities/cors-origin.ts. */
export class TenantCorsOriginTable extends Migration {

  override name = '0026-tenant-cors-origins';

  override up(): void | Promise<void> {
    this.addSql(`create table "tenant_cors_origin" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "origin" varchar(300) not null);`);
    this.addSql(`create index "tenant_cors_origin_tenant_id_index" on "tenant_cors_origin" ("tenant_id");`);
    this.addSql(`alter table "tenant_cors_origin" add constraint "tenant_cors_origin_tenant_id_origin_unique" unique ("tenant_id", "origin");`);
    this.addSql(`alter table "tenant_cors_origin" add constraint "tenant_cors_origin_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql('select audit_attach_all();');
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "tenant_cors_origin" cascade;`);
  }

}
