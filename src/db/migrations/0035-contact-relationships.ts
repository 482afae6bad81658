import { Migration } from '@mikro-orm/migrations';

/**
 * Person ↔ organization relationships (role, one primary contact per organization), the order of
 * a directory listing's gallery images, and one link between a chapter and its directory.
 *
 * - `contact_relationship`: existing person → organization links (`contact.organization_id`, set
 *   by partner sync and the seed) become relationships, so every person's current organization
 *   is also one of its relationships.
 * - `image.sort_order`: existing gallery images keep their upload order.
 * - The chapter ↔ directory link was kept twice (`chapter.directory_id`, `directory.chapter_id`),
 *   unsynchronised. `directory.chapter_id` stays, the only one: a chapter's DirectoryId moves
 *   there where the directory named no chapter, then a chapter keeps one live directory (the one
 *   its DirectoryId named, else its lowest id; the others lose the link), then
 *   `chapter.directory_id` goes.
 */
export class ContactRelationships extends Migration {

  override name = '0035-contact-relationships';

  override up(): void | Promise<void> {
    this.addSql(`create table "contact_relationship" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(),
      "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "person_id" int not null, "organization_id" int not null,
      "role" varchar(100) null, "is_primary" boolean not null default false);`);
    this.addSql(`create index "contact_relationship_tenant_id_index" on "contact_relationship" ("tenant_id");`);
    this.addSql(`create index "contact_relationship_list_id" on "contact_relationship" ("tenant_id", "id");`);
    this.addSql(`create index "contact_relationship_organization_id_index" on "contact_relationship" ("organization_id");`);
    this.addSql(`alter table "contact_relationship" add constraint "contact_relationship_person_id_organization_id_unique" unique ("person_id", "organization_id");`);
    this.addSql(`create unique index "contact_relationship_one_primary" on "contact_relationship" ("organization_id") where "is_primary";`);
    this.addSql(`alter table "contact_relationship" add constraint "contact_relationship_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "contact_relationship" add constraint "contact_relationship_person_id_foreign" foreign key ("person_id") references "contact" ("id") on delete cascade;`);
    this.addSql(`alter table "contact_relationship" add constraint "contact_relationship_organization_id_foreign" foreign key ("organization_id") references "contact" ("id") on delete cascade;`);
    this.addSql(`insert into "contact_relationship" ("tenant_id", "person_id", "organization_id")
      select p.tenant_id, p.id, p.organization_id from "contact" p join "contact" o on o.id = p.organization_id and o.tenant_id = p.tenant_id
       where p.kind = 'person' and o.kind = 'organization';`);

    this.addSql(`alter table "image" add column "sort_order" int not null default 0;`);
    this.addSql(`update "image" set "sort_order" = ordered.position from (
      select id, row_number() over (partition by tenant_id, source_id order by id) as position from "image" where source_type = 'DirectoryGallery'
    ) as ordered where ordered.id = "image".id;`);

    this.addSql(`update "directory" d set "chapter_id" = c.contact_id from "chapter" c
      where c.directory_id = d.id and c.tenant_id = d.tenant_id and d.chapter_id is null;`);
    this.addSql(`update "directory" d set "chapter_id" = null where d.deleted_at is null and d.chapter_id is not null and d.id <> (
      select keep.id from "directory" keep left join "chapter" c on c.contact_id = keep.chapter_id and c.directory_id = keep.id
       where keep.tenant_id = d.tenant_id and keep.chapter_id = d.chapter_id and keep.deleted_at is null
       order by (c.id is null), keep.id limit 1);`);
    this.addSql(`create unique index "directory_one_per_chapter" on "directory" ("chapter_id") where "chapter_id" is not null and "deleted_at" is null;`);
    this.addSql(`alter table "chapter" drop column "directory_id";`);

    this.addSql('select audit_attach_all();');
    this.addSql('select rls_attach_all();');
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "chapter" add column "directory_id" int null;`);
    this.addSql(`update "chapter" c set "directory_id" = d.id from "directory" d where d.chapter_id = c.contact_id and d.tenant_id = c.tenant_id and d.deleted_at is null;`);
    this.addSql(`drop index "directory_one_per_chapter";`);
    this.addSql(`alter table "image" drop column "sort_order";`);
    this.addSql(`drop table if exists "contact_relationship" cascade;`);
  }
}
