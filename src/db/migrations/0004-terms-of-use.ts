import { Migration } from '@mikro-orm/migrations';

export class TermsOfUseSchema extends Migration {

  override name = '0004-terms-of-use';

  override up(): void | Promise<void> {
    this.addSql(`create table "terms_of_use" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "name" varchar(200) not null, "name_key" varchar(200) not null, "description" text not null, "login_type" varchar(16) not null, "revision" int not null default 1, "deleted_at" timestamptz null);`);
    this.addSql(`create index "terms_of_use_tenant_id_index" on "terms_of_use" ("tenant_id");`);
    this.addSql(`create index "terms_of_use_tenant_id_name_key_index" on "terms_of_use" ("tenant_id", "name_key");`);
    this.addSql(`create index "terms_of_use_tenant_id_login_type_index" on "terms_of_use" ("tenant_id", "login_type");`);

    this.addSql(`create table "terms_of_use_text" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "terms_of_use_id" int not null, "revision" int not null, "text" text not null);`);
    this.addSql(`create index "terms_of_use_text_tenant_id_index" on "terms_of_use_text" ("tenant_id");`);
    this.addSql(`alter table "terms_of_use_text" add constraint "terms_of_use_text_terms_of_use_id_revision_unique" unique ("terms_of_use_id", "revision");`);

    this.addSql(`create table "terms_user_response" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "terms_of_use_id" int not null, "revision" int not null, "terms_login_type" varchar(16) not null, "login_id" int not null, "contact_id" int null, "user_login_type" varchar(16) not null, "is_accepted" boolean not null, "action_date" timestamptz not null, "ip_address" varchar(64) not null, "user_agent" varchar(512) null);`);
    this.addSql(`create index "terms_user_response_tenant_id_index" on "terms_user_response" ("tenant_id");`);
    this.addSql(`create index "terms_user_response_terms_of_use_id_index" on "terms_user_response" ("terms_of_use_id");`);
    this.addSql(`create index "terms_user_response_login_id_terms_of_use_id_index" on "terms_user_response" ("login_id", "terms_of_use_id");`);
    this.addSql(`create index "terms_user_response_tenant_id_terms_login_type_act_2ca14_index" on "terms_user_response" ("tenant_id", "terms_login_type", "action_date");`);

    this.addSql(`alter table "terms_of_use" add constraint "terms_of_use_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);

    this.addSql(`alter table "terms_of_use_text" add constraint "terms_of_use_text_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "terms_of_use_text" add constraint "terms_of_use_text_terms_of_use_id_foreign" foreign key ("terms_of_use_id") references "terms_of_use" ("id") on delete cascade;`);

    this.addSql(`alter table "terms_user_response" add constraint "terms_user_response_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "terms_user_response" add constraint "terms_user_response_terms_of_use_id_foreign" foreign key ("terms_of_use_id") references "terms_of_use" ("id") on delete cascade;`);
    this.addSql(`alter table "terms_user_response" add constraint "terms_user_response_login_id_foreign" foreign key ("login_id") references "login" ("id") on delete cascade;`);
    this.addSql(`alter table "terms_user_response" add constraint "terms_user_response_contact_id_foreign" foreign key ("contact_id") references "contact" ("id") on delete set null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "terms_of_use_text" drop constraint "terms_of_use_text_terms_of_use_id_foreign";`);
    this.addSql(`alter table "terms_user_response" drop constraint "terms_user_response_terms_of_use_id_foreign";`);

    this.addSql(`drop table if exists "terms_of_use" cascade;`);
    this.addSql(`drop table if exists "terms_of_use_text" cascade;`);
    this.addSql(`drop table if exists "terms_user_response" cascade;`);
  }

}
