import { Migration } from '@mikro-orm/migrations';

export class SocialFeedsSchema extends Migration {

  override name = '0005-social-feeds';

  override up(): void | Promise<void> {
    this.addSql(`create table "social_feed" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "contact_id" int null, "membership_activation_id" varchar(64) null, "content_item_id" varchar(64) null, "social_feed_type_id" varchar(64) null, "url" varchar(2048) null, "message_text" text null, "embed_code_html" text null, "files" jsonb not null default '[]');`);
    this.addSql(`create index "social_feed_tenant_id_index" on "social_feed" ("tenant_id");`);
    this.addSql(`create index "social_feed_contact_id_index" on "social_feed" ("contact_id");`);

    this.addSql(`create table "social_feed_like" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "social_feed_id" int not null, "contact_id" int not null);`);
    this.addSql(`create index "social_feed_like_tenant_id_index" on "social_feed_like" ("tenant_id");`);
    this.addSql(`create index "social_feed_like_contact_id_index" on "social_feed_like" ("contact_id");`);
    this.addSql(`alter table "social_feed_like" add constraint "social_feed_like_social_feed_id_contact_id_unique" unique ("social_feed_id", "contact_id");`);

    this.addSql(`create table "social_feed_comment" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "social_feed_id" int not null, "contact_id" int null, "comment_text" text not null);`);
    this.addSql(`create index "social_feed_comment_tenant_id_index" on "social_feed_comment" ("tenant_id");`);
    this.addSql(`create index "social_feed_comment_contact_id_index" on "social_feed_comment" ("contact_id");`);
    this.addSql(`create index "social_feed_comment_social_feed_id_created_at_index" on "social_feed_comment" ("social_feed_id", "created_at");`);

    this.addSql(`alter table "social_feed" add constraint "social_feed_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "social_feed" add constraint "social_feed_contact_id_foreign" foreign key ("contact_id") references "contact" ("id") on delete set null;`);

    this.addSql(`alter table "social_feed_like" add constraint "social_feed_like_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "social_feed_like" add constraint "social_feed_like_social_feed_id_foreign" foreign key ("social_feed_id") references "social_feed" ("id") on delete cascade;`);
    this.addSql(`alter table "social_feed_like" add constraint "social_feed_like_contact_id_foreign" foreign key ("contact_id") references "contact" ("id") on delete cascade;`);

    this.addSql(`alter table "social_feed_comment" add constraint "social_feed_comment_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "social_feed_comment" add constraint "social_feed_comment_social_feed_id_foreign" foreign key ("social_feed_id") references "social_feed" ("id") on delete cascade;`);
    this.addSql(`alter table "social_feed_comment" add constraint "social_feed_comment_contact_id_foreign" foreign key ("contact_id") references "contact" ("id") on delete set null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "social_feed_like" drop constraint "social_feed_like_social_feed_id_foreign";`);
    this.addSql(`alter table "social_feed_comment" drop constraint "social_feed_comment_social_feed_id_foreign";`);

    this.addSql(`drop table if exists "social_feed" cascade;`);
    this.addSql(`drop table if exists "social_feed_like" cascade;`);
    this.addSql(`drop table if exists "social_feed_comment" cascade;`);
  }

}
