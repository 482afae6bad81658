import { Migration } from '@mikro-orm/migrations';

/**
 * The trigger that fills a new term's join date (0037) looks up the contact's previous term of
 * the type. PL/pgSQL caches that query's plan, and after a few calls it switches to a generic
 * plan made without the contact's id: planned while the table was small, that generic plan
 * scanned every term — one full scan of `membership` per inserted term (measured by the import
 * bench: 45 million rows read for 10,000 inserted terms). Custom plans (made with the row's
 * values) use the (tenant, contact, type, start date) index whatever the table's size.
 */
export class MembershipJoinDatePlan extends Migration {

  override name = '0047-membership-join-date-plan';

  override up(): void | Promise<void> {
    this.addSql(`alter function membership_join_date() set plan_cache_mode = force_custom_plan;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter function membership_join_date() reset plan_cache_mode;`);
  }

}
