import { Migration } from '@mikro-orm/migrations';

export class BenefitPackages extends Migration {

  override name = '0009-benefit-packages';

  override up(): void | Promise<void> {
    this.addSql(`create table "benefit_package" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "name" varchar(200) not null, "name_key" varchar(200) not null, "description" text null, "active_from" date null, "active_to" date null, "items" jsonb not null);`);
    this.addSql(`create index "benefit_package_tenant_id_index" on "benefit_package" ("tenant_id");`);
    this.addSql(`create index "benefit_package_tenant_id_name_key_index" on "benefit_package" ("tenant_id", "name_key");`);

    this.addSql(`alter table "membership_type" add "benefit_package_id" int null;`);
    this.addSql(`alter table "membership_type" add constraint "membership_type_benefit_package_id_foreign" foreign key ("benefit_package_id") references "benefit_package" ("id") on delete no action;`);
    this.addSql(`create index "membership_type_benefit_package_id_index" on "membership_type" ("benefit_package_id");`);

    this.addSql(`alter table "membership_level" add "benefit_package_id" int null;`);
    this.addSql(`alter table "membership_level" add constraint "membership_level_benefit_package_id_foreign" foreign key ("benefit_package_id") references "benefit_package" ("id") on delete no action;`);
    this.addSql(`create index "membership_level_benefit_package_id_index" on "membership_level" ("benefit_package_id");`);

    this.addSql(`alter table "benefit_package" add constraint "benefit_package_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "membership_type" drop constraint "membership_type_benefit_package_id_foreign";`);
    this.addSql(`alter table "membership_level" drop constraint "membership_level_benefit_package_id_foreign";`);

    this.addSql(`drop table if exists "benefit_package" cascade;`);

    this.addSql(`drop index "membership_level_benefit_package_id_index";`);
    this.addSql(`alter table "membership_level" drop column "benefit_package_id";`);

    this.addSql(`drop index "membership_type_benefit_package_id_index";`);
    this.addSql(`alter table "membership_type" drop column "benefit_package_id";`);
  }

}
