import { Migration } from '@mikro-orm/migrations';

/**
 * One "in good standing" rule needs, on the membership row itself, the last day it counts:
 * `good_through` = `end_date` + the type's grace days (null: open-ended). Triggers keep it true
 * whoever writes the row (services, billing runs, imports, seeds), and when a type's grace days
 * change. `status_override` marks a status staff set by hand, which the lapse job leaves alone.
 */
export class MembershipStanding extends Migration {

  override name = '0033-membership-standing';

  override up(): void | Promise<void> {
    this.addSql(`alter table "membership_type" add column "grace_days" int not null default 0;`);
    this.addSql(`alter table "membership" add column "good_through" date null, add column "status_override" boolean not null default false;`);
    this.addSql(`create or replace function membership_good_through() returns trigger language plpgsql as $$
      begin
        new.good_through := new.end_date + coalesce((select grace_days from membership_type where id = new.membership_type_id), 0);
        return new;
      end $$;`);
    this.addSql(`create trigger membership_good_through before insert or update of end_date, membership_type_id on membership
      for each row execute function membership_good_through();`);
    this.addSql(`create or replace function membership_type_grace_changed() returns trigger language plpgsql as $$
      begin
        update membership set good_through = end_date + new.grace_days where membership_type_id = new.id;
        return new;
      end $$;`);
    this.addSql(`create trigger membership_type_grace_changed after update of grace_days on membership_type
      for each row when (old.grace_days is distinct from new.grace_days) execute function membership_type_grace_changed();`);
    this.addSql(`update membership set good_through = end_date;`);
    this.addSql(`create index "membership_tenant_id_status_good_through_index" on "membership" ("tenant_id", "status", "good_through");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger membership_type_grace_changed on membership_type;`);
    this.addSql(`drop trigger membership_good_through on membership;`);
    this.addSql(`drop function membership_type_grace_changed();`);
    this.addSql(`drop function membership_good_through();`);
    this.addSql(`alter table "membership" drop column "good_through", drop column "status_override";`);
    this.addSql(`alter table "membership_type" drop column "grace_days";`);
  }

}
