import { Migration } from '@mikro-orm/migrations';

/**
 * Membership types get what enrolling and billing need — term length, rolling or fixed period,
 * price or saleable item — and levels a price of their own. A membership term gets `join_date`
 * (the first day of membership, carried into renewals): a trigger fills it in when an insert
 * leaves it out (the join date of the contact's term of the same type that ends the day before —
 * a renewal, whoever writes it — else the start date). Existing rows take the earliest start of
 * the contact's terms of that type up to theirs. Plus the indexes of the two new lists and of the daily lapse.
 */
export class MembershipLifecycle extends Migration {

  override name = '0037-membership-lifecycle';

  override up(): void | Promise<void> {
    this.addSql(`alter table "membership_type"
      add column "duration_months" int null default 12,
      add column "period_type" varchar(16) not null default 'rolling',
      add column "fixed_start_month" int null,
      add column "fixed_start_day" int null,
      add column "price" numeric(12,2) null,
      add column "saleable_item_id" int null;`);
    this.addSql(`alter table "membership_type" add constraint "membership_type_saleable_item_id_foreign" foreign key ("saleable_item_id") references "saleable_item" ("id") on delete no action;`);
    this.addSql(`create index "membership_type_saleable_item_id_index" on "membership_type" ("saleable_item_id");`);
    this.addSql(`alter table "membership_level" add column "price" numeric(12,2) null;`);

    this.addSql(`alter table "membership" add column "join_date" date null, add column "cancel_reason" varchar(500) null;`);
    this.addSql(`update membership m set join_date = (select min(p.start_date) from membership p
      where p.tenant_id = m.tenant_id and p.contact_id = m.contact_id and p.membership_type_id = m.membership_type_id and p.start_date <= m.start_date);`);
    this.addSql(`alter table "membership" alter column "join_date" set not null;`);
    this.addSql(`create or replace function membership_join_date() returns trigger language plpgsql as $$
      begin
        if new.join_date is null then
          new.join_date := coalesce((select p.join_date from membership p
              where p.tenant_id = new.tenant_id and p.contact_id = new.contact_id and p.membership_type_id = new.membership_type_id
                and p.end_date = new.start_date - 1 and p.status <> 'cancelled'
              order by p.id desc limit 1), new.start_date);
        end if;
        return new;
      end $$;`);
    this.addSql(`create trigger membership_join_date before insert on membership for each row execute function membership_join_date();`);

    // The daily lapse looks across tenants for active terms whose good standing ran out.
    this.addSql(`create index "membership_lapse_due" on "membership" ("good_through") where status = 'active' and not status_override;`);
    this.addSql(`create index "membership_list_start_date" on "membership" ("tenant_id", "start_date" desc, "id");`);
    this.addSql(`create index "membership_type_list_name" on "membership_type" ("tenant_id", "name", "id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "membership_type_list_name";`);
    this.addSql(`drop index "membership_list_start_date";`);
    this.addSql(`drop index "membership_lapse_due";`);
    this.addSql(`drop trigger membership_join_date on membership;`);
    this.addSql(`drop function membership_join_date();`);
    this.addSql(`alter table "membership" drop column "join_date", drop column "cancel_reason";`);
    this.addSql(`alter table "membership_level" drop column "price";`);
    this.addSql(`alter table "membership_type" drop constraint "membership_type_saleable_item_id_foreign";`);
    this.addSql(`drop index "membership_type_saleable_item_id_index";`);
    this.addSql(`alter table "membership_type" drop column "duration_months", drop column "period_type", drop column "fixed_start_month",
      drop column "fixed_start_day", drop column "price", drop column "saleable_item_id";`);
  }

}
