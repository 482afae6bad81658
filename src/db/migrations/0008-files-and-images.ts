import { Migration } from '@mikro-orm/migrations';

export class FilesAndImages extends Migration {

  override name = '0008-files-and-images';

  override up(): void | Promise<void> {
    this.addSql(`create table "file_content" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "sha256" varchar(64) not null, "size" int not null, "storage" varchar(16) not null, "bytes" bytea null, "storage_key" varchar(400) null);`);
    this.addSql(`create index "file_content_tenant_id_index" on "file_content" ("tenant_id");`);
    this.addSql(`alter table "file_content" add constraint "file_content_tenant_id_sha256_unique" unique ("tenant_id", "sha256");`);

    this.addSql(`create table "stored_file" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "name" varchar(255) not null, "media_type" varchar(100) not null, "size" int not null, "sha256" varchar(64) not null, "purpose" varchar(32) not null, "width" int null, "height" int null, "content_id" int not null, "uploaded_by_id" int null);`);
    this.addSql(`create index "stored_file_tenant_id_index" on "stored_file" ("tenant_id");`);
    this.addSql(`create index "stored_file_content_id_index" on "stored_file" ("content_id");`);
    this.addSql(`create index "stored_file_purpose_created_at_index" on "stored_file" ("purpose", "created_at");`);

    this.addSql(`create table "image" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "file_id" int not null, "rendition_id" int null, "usage" varchar(64) null, "source_type" varchar(32) null, "source_id" int null, "crop_x" int null, "crop_y" int null, "crop_width" int null, "crop_height" int null, "force_aspect" varchar(32) null, "caption" varchar(1000) null, "short_description" varchar(500) null, "name" varchar(255) not null, "width" int not null, "height" int not null, "uploaded_by_id" int null);`);
    this.addSql(`create index "image_tenant_id_index" on "image" ("tenant_id");`);
    this.addSql(`create index "image_file_id_index" on "image" ("file_id");`);
    this.addSql(`create index "image_rendition_id_index" on "image" ("rendition_id");`);
    this.addSql(`create index "image_tenant_id_source_type_source_id_index" on "image" ("tenant_id", "source_type", "source_id");`);

    this.addSql(`alter table "file_content" add constraint "file_content_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);

    this.addSql(`alter table "stored_file" add constraint "stored_file_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "stored_file" add constraint "stored_file_content_id_foreign" foreign key ("content_id") references "file_content" ("id");`);
    this.addSql(`alter table "stored_file" add constraint "stored_file_uploaded_by_id_foreign" foreign key ("uploaded_by_id") references "login" ("id") on delete set null;`);

    this.addSql(`alter table "image" add constraint "image_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "image" add constraint "image_file_id_foreign" foreign key ("file_id") references "stored_file" ("id");`);
    this.addSql(`alter table "image" add constraint "image_rendition_id_foreign" foreign key ("rendition_id") references "stored_file" ("id") on delete no action;`);
    this.addSql(`alter table "image" add constraint "image_uploaded_by_id_foreign" foreign key ("uploaded_by_id") references "login" ("id") on delete set null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "stored_file" drop constraint "stored_file_content_id_foreign";`);
    this.addSql(`alter table "image" drop constraint "image_file_id_foreign";`);
    this.addSql(`alter table "image" drop constraint "image_rendition_id_foreign";`);

    this.addSql(`drop table if exists "file_content" cascade;`);
    this.addSql(`drop table if exists "stored_file" cascade;`);
    this.addSql(`drop table if exists "image" cascade;`);
  }

}
