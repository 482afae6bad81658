import { Migration } from '@mikro-orm/migrations';

/**
 * Keys for the ids one area keeps of another area's records (ARCHITECTURE.md, "References between
 * areas", has the table). Each reference gets the delete rule our users would expect:
 *
 * - restrict (`on delete no action`: checked at the end of the statement, so removing a whole
 *   tenant, which removes both sides, still passes): a category item a store item or a billing
 *   schedule is filed under, an invoice a billing run raised. The API answers 409 naming what uses
 *   the record (core/error-mapping.ts).
 * - set null: a billing schedule's event (the schedule keeps billing), the login that requested a
 *   billing run (the run's history stays), the chapter organization owning a gateway account (the
 *   account and its transactions stay; contacts are archived, not deleted, so this fires only when
 *   a tenant is removed).
 *
 * JSON arrays of ids cannot hold a key. Moving them to join tables is not cheap here: they are the
 * documented array fields, the public directory search filters on `category_item_ids` through its
 * GIN index, and three areas read them. So they stay arrays, are checked on write by their services,
 * and a trigger on the referenced table (`json_reference_on_delete`) applies the rule on delete:
 * - directory_listing.category_item_ids: refused while a live listing uses the item (as for store
 *   items); removed listings (tombstones staff cannot edit) lose the id.
 * - store_item.membership_types, directory.membership_type_ids, membership_type_payment_plan.level_ids:
 *   refused — an empty array widens who may buy, who is listed, which levels a plan serves.
 * - event_registration_type.session_ids: cleaned — the type simply no longer includes the session.
 * A refusal is raised as a foreign_key_violation (23503) naming the trigger as the constraint and
 * the using table, so the API maps it exactly like a key's.
 *
 * Existing data: a tenant database may hold ids of records deleted before these keys existed.
 * Before each key the dangling ids (or ids of another tenant's record) are set to null; dangling
 * elements are removed from the arrays. No row is deleted.
 *
 * Not keyed here, with reasons: `chapter.directory_id` / `directory.chapter_id` (the chapter ↔
 * directory link is being made one link by the relationships work, migration 0035);
 * `chapter.payment_gateway_id` and `store_settings.payment_gateway_id` (documented as strings and
 * holding the gateway's own account reference, e.g. "acct_…", not always our integer id);
 * `scheduled_billing.group_id`, `chapter.primary_group_id`, `store_item.voucher_type_id` (no table
 * to point at yet); `image.source_id` (polymorphic: one column, five target tables).
 */
export class CrossAreaForeignKeys extends Migration {

  override name = '0036-cross-area-foreign-keys';

  override up(): void | Promise<void> {
    // Run as a non-superuser owner, the tables' row-level security would hide every row (0030).
    this.addSql(`select set_config('app.cross_tenant', 'on', true);`);
    for (const key of KEYS) {
      const [table, column] = [key.table, key.column];
      this.addSql(`update "${table}" u set "${column}" = null where "${column}" is not null
        and not exists (select 1 from "${key.target}" t where t.id = u."${column}" and t.tenant_id = u.tenant_id);`);
      this.addSql(`alter table "${table}" add constraint "${table}_${column}_foreign" foreign key ("${column}") references "${key.target}" ("id") on delete ${key.onDelete};`);
      this.addSql(`create index if not exists "${table}_${column}_index" on "${table}" ("${column}");`);
    }
    for (const reference of JSON_REFERENCES) {
      const { table, column, target } = reference;
      this.addSql(`update "${table}" u set "${column}" = (
          select coalesce(jsonb_agg(e.value order by e.ordinality), '[]'::jsonb) from jsonb_array_elements(u."${column}") with ordinality as e(value, ordinality)
           where exists (select 1 from "${target}" t where to_jsonb(t.id) = e.value and t.tenant_id = u.tenant_id ${reference.sameParent ?? ''}))
        where jsonb_array_length(u."${column}") > 0;`);
    }
    this.addSql(`create function json_reference_on_delete() returns trigger language plpgsql as $$
      declare
        using_table text := tg_argv[0];
        using_column text := tg_argv[1];
        refused_while text := tg_argv[2];
        user_id int;
      begin
        execute format('select id from %I where %I @> jsonb_build_array($1) and (%s) limit 1', using_table, using_column, refused_while)
          into user_id using old.id;
        if user_id is not null then
          raise exception 'update or delete on table "%" violates foreign key constraint "%" on table "%"', tg_table_name, tg_name, using_table
            using errcode = 'foreign_key_violation', table = using_table, constraint = tg_name,
                  detail = format('Key (id)=(%s) is still referenced from table "%s".', old.id, using_table);
        end if;
        execute format($u$update %I set %I = (select coalesce(jsonb_agg(e.value order by e.ordinality), '[]'::jsonb)
            from jsonb_array_elements(%I) with ordinality as e(value, ordinality) where e.value <> to_jsonb($1)) where %I @> jsonb_build_array($1)$u$,
          using_table, using_column, using_column, using_column) using old.id;
        return null;
      end $$;`);
    for (const reference of JSON_REFERENCES) {
      const { table, column, target } = reference;
      this.addSql(`create trigger "${table}_${column}_foreign" after delete on "${target}"
        for each row execute function json_reference_on_delete('${table}', '${column}', '${reference.refusedWhile.replaceAll("'", "''")}');`);
    }
  }

  override down(): void | Promise<void> {
    for (const { table, column, target } of JSON_REFERENCES) this.addSql(`drop trigger "${table}_${column}_foreign" on "${target}";`);
    this.addSql(`drop function json_reference_on_delete();`);
    for (const { table, column } of KEYS) {
      this.addSql(`alter table "${table}" drop constraint "${table}_${column}_foreign";`);
      this.addSql(`drop index if exists "${table}_${column}_index";`);
    }
  }

}

/** Columns that now hold a key; `no action` is the restrict rule. */
const KEYS: { table: string; column: string; target: string; onDelete: 'no action' | 'set null' }[] = [
  { table: 'store_item', column: 'category_item_id', target: 'category_item', onDelete: 'no action' },
  { table: 'scheduled_billing', column: 'category_item_id', target: 'category_item', onDelete: 'no action' },
  { table: 'scheduled_billing', column: 'event_id', target: 'event', onDelete: 'set null' },
  { table: 'scheduled_billing_run_item', column: 'invoice_id', target: 'invoice', onDelete: 'no action' },
  { table: 'scheduled_billing_run_record', column: 'requested_by', target: 'login', onDelete: 'set null' },
  { table: 'payment_gateway_account', column: 'chapter_id', target: 'contact', onDelete: 'set null' },
];

/** Arrays of ids, with the rows whose use refuses a delete (`false`: never refused, always cleaned). */
const JSON_REFERENCES: { table: string; column: string; target: string; refusedWhile: string; sameParent?: string }[] = [
  { table: 'directory_listing', column: 'category_item_ids', target: 'category_item', refusedWhile: 'deleted_at is null' },
  { table: 'store_item', column: 'membership_types', target: 'membership_type', refusedWhile: 'true' },
  { table: 'directory', column: 'membership_type_ids', target: 'membership_type', refusedWhile: 'true' },
  { table: 'membership_type_payment_plan', column: 'level_ids', target: 'membership_level', refusedWhile: 'true', sameParent: 'and t.membership_type_id = u.membership_type_id' },
  { table: 'event_registration_type', column: 'session_ids', target: 'event_session', refusedWhile: 'false', sameParent: 'and t.event_id = u.event_id' },
];
