import { Migration } from '@mikro-orm/migrations';

/**
 * E-mail leaves the building: each outbox message gets a delivery state (`pending` until a worker
 * queues its delivery job, `queued`, `sent`, or `failed` with the reason), its attempts and last
 * error. Messages written before delivery existed are sign-in links long expired: they are marked
 * failed with that reason rather than sent late.
 */
export class OutboxDelivery extends Migration {

  override name = '0042-outbox-delivery';

  override up(): void | Promise<void> {
    this.addSql(`alter table "outbox_message" add column "status" varchar(16) not null default 'pending', add column "attempts" int not null default 0, add column "last_error" varchar(500) null;`);
    this.addSql(`update "outbox_message" set "status" = case when "sent_at" is null then 'failed' else 'sent' end, "last_error" = case when "sent_at" is null then 'written before e-mail delivery existed' end;`);
    this.addSql(`create index "outbox_message_pending_index" on "outbox_message" ("id") where "status" = 'pending';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "outbox_message_pending_index";`);
    this.addSql(`alter table "outbox_message" drop column "status", drop column "attempts", drop column "last_error";`);
  }

}
