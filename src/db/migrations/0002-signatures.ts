import { Migration } from '@mikro-orm/migrations';

export class SignaturesSchema extends Migration {

  override name = '0002-signatures';

  override up(): void | Promise<void> {
    this.addSql(`create table "signature" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "name" varchar(200) not null, "contact_id" int not null, "signature_html" text null);`);
    this.addSql(`create index "signature_tenant_id_index" on "signature" ("tenant_id");`);
    this.addSql(`create index "signature_tenant_id_contact_id_index" on "signature" ("tenant_id", "contact_id");`);

    this.addSql(`alter table "signature" add constraint "signature_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "signature" add constraint "signature_contact_id_foreign" foreign key ("contact_id") references "contact" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "signature" cascade;`);
  }

}
