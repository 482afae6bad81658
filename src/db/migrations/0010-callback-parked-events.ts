import { Migration } from '@mikro-orm/migrations';

export class CallbackParkedEvents extends Migration {

  override name = '0010-callback-parked-events';

  override up(): void | Promise<void> {
    this.addSql(`alter table "provider_callback" add "parked_events" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "provider_callback" drop column "parked_events";`);
  }

}
