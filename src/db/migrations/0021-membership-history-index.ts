import { Migration } from '@mikro-orm/migrations';

export class MembershipHistoryIndex extends Migration {

  override name = '0021-membership-history-index';

  override up(): void | Promise<void> {
    this.addSql(`create index "membership_tenant_id_contact_id_membership_type_id_4e64e_index" on "membership" ("tenant_id", "contact_id", "membership_type_id", "start_date");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "membership_tenant_id_contact_id_membership_type_id_4e64e_index";`);
  }

}
