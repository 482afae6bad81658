import { Migration } from '@mikro-orm/migrations';

export class CalendarsSchema extends Migration {

  override name = '0006-calendars';

  override up(): void | Promise<void> {
    this.addSql(`create table "calendar" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "name" varchar(200) not null, "description" text null, "is_active" boolean not null default true, "is_public_viewable" boolean not null default false, "is_member_viewable" boolean not null default false, "allow_public_submission" boolean not null default false, "allow_member_submission" boolean not null default false, "is_ical_publishing_enabled" boolean not null default false, "add_calendar_ical_message" text null, "chapter_id" int null);`);
    this.addSql(`create index "calendar_tenant_id_index" on "calendar" ("tenant_id");`);
    this.addSql(`create index "calendar_chapter_id_index" on "calendar" ("chapter_id");`);
    this.addSql(`create index "calendar_tenant_id_name_index" on "calendar" ("tenant_id", "name");`);

    this.addSql(`alter table "calendar" add constraint "calendar_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "calendar" add constraint "calendar_chapter_id_foreign" foreign key ("chapter_id") references "contact" ("id") on delete set null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "calendar" cascade;`);
  }

}
