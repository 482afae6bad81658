import { Migration } from '@mikro-orm/migrations';

/**
 * Custom fields (issue 38): each tenant's field definitions for people, organizations and
 * memberships, and their values as one jsonb object keyed by field key on `contact` and
 * `membership` (normalised by services/custom-fields/values.ts). A key is unique per tenant and
 * target, retired fields included (the unique index decides a race). The GIN indexes serve the
 * lists' `CustomFieldFilters` (containment, `@>`).
 */
export class CustomFields extends Migration {

  override name = '0045-custom-fields';

  override up(): void | Promise<void> {
    this.addSql(`create table "custom_field" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "applies_to" varchar(16) not null, "key" varchar(63) not null, "label" varchar(200) not null, "kind" varchar(16) not null, "choices" jsonb not null, "required" boolean not null, "visibility" varchar(16) not null, "position" int not null, "retired_at" timestamptz null);`);
    this.addSql(`create index "custom_field_tenant_id_index" on "custom_field" ("tenant_id");`);
    this.addSql(`create unique index "custom_field_tenant_id_applies_to_key_unique" on "custom_field" ("tenant_id", "applies_to", "key");`);
    this.addSql(`create index "custom_field_list_position" on "custom_field" ("tenant_id", "position", "id");`);
    this.addSql(`alter table "custom_field" add constraint "custom_field_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);

    this.addSql(`alter table "contact" add column "custom_fields" jsonb not null default '{}';`);
    this.addSql(`alter table "membership" add column "custom_fields" jsonb not null default '{}';`);
    this.addSql(`create index "contact_custom_fields_index" on "contact" using gin ("custom_fields" jsonb_path_ops);`);
    this.addSql(`create index "membership_custom_fields_index" on "membership" using gin ("custom_fields" jsonb_path_ops);`);
    this.addSql('select audit_attach_all();');
    this.addSql('select rls_attach_all();');
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "membership" drop column "custom_fields";`);
    this.addSql(`alter table "contact" drop column "custom_fields";`);
    this.addSql(`drop table if exists "custom_field" cascade;`);
  }

}
