import { Migration } from '@mikro-orm/migrations';

export class SamlServiceProvidersSchema extends Migration {

  override name = '0003-saml-service-providers';

  override up(): void | Promise<void> {
    this.addSql(`create table "saml_service_provider" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "name" varchar(200) not null, "service_provider_name" varchar(200) not null, "entity_id" varchar(1024) null, "assertion_consumer_service_url" varchar(2048) null);`);
    this.addSql(`create index "saml_service_provider_tenant_id_index" on "saml_service_provider" ("tenant_id");`);
    this.addSql(`alter table "saml_service_provider" add constraint "saml_service_provider_tenant_id_entity_id_unique" unique ("tenant_id", "entity_id");`);

    this.addSql(`alter table "saml_service_provider" add constraint "saml_service_provider_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "saml_service_provider" cascade;`);
  }

}
