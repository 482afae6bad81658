import { Migration } from '@mikro-orm/migrations';

/**
 * A run's results file is written piece by piece to the file service (a stored file, its bytes in
 * `file_content_chunk`) and referenced here; downloads written before keep their text in
 * `content` and are still served from it.
 */
export class ScheduledBillingDownloadFiles extends Migration {

  override name = '0032-scheduled-billing-download-files';

  override up(): void | Promise<void> {
    this.addSql(`alter table "scheduled_billing_download" add column "file_id" int null;`);
    this.addSql(`create index "scheduled_billing_download_file_id_index" on "scheduled_billing_download" ("file_id");`);
    this.addSql(`alter table "scheduled_billing_download" add constraint "scheduled_billing_download_file_id_foreign" foreign key ("file_id") references "stored_file" ("id") on delete set null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "scheduled_billing_download" drop constraint "scheduled_billing_download_file_id_foreign";`);
    this.addSql(`alter table "scheduled_billing_download" drop column "file_id";`);
  }

}
