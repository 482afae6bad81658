import { Migration } from '@mikro-orm/migrations';

/**
 * The last references between areas without a key (ARCHITECTURE.md, "References between
 * areas"): a directory's category lists and its chapter. `directory.category_list_id` and
 * `directory.chapter_id` become keys that let go (set null) when their target is deleted — a
 * directory outlives the category list it was sorted by, and the chapter's organization (which is
 * only ever archived, never deleted, but for its tenant). `directory.category_list_ids`, a JSON
 * array a key cannot hold, is cleaned by the same trigger 0036 uses for such arrays (a deleted
 * list leaves the array; nothing is refused). Ids naming nothing (or another tenant's record) are
 * set null or dropped from the array first.
 */
export class DirectoryCategoryLists extends Migration {

  override name = '0044-directory-category-lists';

  override up(): void | Promise<void> {
    this.addSql(`select set_config('app.cross_tenant', 'on', true);`);
    for (const [column, target] of [['category_list_id', 'category_list'], ['chapter_id', 'contact']] as const) {
      this.addSql(`update "directory" d set "${column}" = null where "${column}" is not null
        and not exists (select 1 from "${target}" t where t.id = d."${column}" and t.tenant_id = d.tenant_id);`);
      this.addSql(`alter table "directory" add constraint "directory_${column}_foreign" foreign key ("${column}") references "${target}" ("id") on delete set null;`);
      this.addSql(`create index if not exists "directory_${column}_index" on "directory" ("${column}");`);
    }
    this.addSql(`update "directory" d set "category_list_ids" = (
        select coalesce(jsonb_agg(e.value order by e.ordinality), '[]'::jsonb) from jsonb_array_elements(d."category_list_ids") with ordinality as e(value, ordinality)
         where exists (select 1 from "category_list" t where to_jsonb(t.id) = e.value and t.tenant_id = d.tenant_id))
      where jsonb_array_length(d."category_list_ids") > 0;`);
    this.addSql(`create trigger "directory_category_list_ids_foreign" after delete on "category_list"
      for each row execute function json_reference_on_delete('directory', 'category_list_ids', 'false');`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger "directory_category_list_ids_foreign" on "category_list";`);
    for (const column of ['category_list_id', 'chapter_id']) this.addSql(`alter table "directory" drop constraint "directory_${column}_foreign";`);
    // (directory_chapter_id_index is 0013's.)
    this.addSql(`drop index "directory_category_list_id_index";`);
  }

}
