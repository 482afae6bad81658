import { Migration } from '@mikro-orm/migrations';

/**
 * A registration order records when its invoice was paid in full (`paid_at`, set by the events
 * area's paid-invoice handler in the payment's transaction). Orders that cost nothing were settled
 * when made; so were orders whose invoice is already paid.
 */
export class EventRegistrationPaid extends Migration {

  override name = '0040-event-registration-paid';

  override up(): void | Promise<void> {
    this.addSql(`alter table "event_registration_order" add column "paid_at" timestamptz null;`);
    this.addSql(`update "event_registration_order" o set "paid_at" = coalesce(o."submitted_at", o."created_at")
      where o."invoice_id" is null or exists (select 1 from "invoice" i where i."id" = o."invoice_id" and i."status" = 'paid');`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "event_registration_order" drop column "paid_at";`);
  }

}
