import { Migration } from '@mikro-orm/migrations';

/**
 * Announces every change that can end or alter what a bearer credential grants — a credential
 * revoked, expired early, deleted or re-pointed, a login's roles or contact changed or the login
 * deleted — on the `credential_changed` channel, on commit, however the change was made. Each
 * instance's credential cache listens and forgets what it knows (src/core/requests/credential-cache.ts).
 * `last_used_at` stamps do not fire it.
 */
export class CredentialNotifications extends Migration {

  override name = '0025-credential-notifications';

  override up(): void | Promise<void> {
    this.addSql(`create function notify_credential_changed() returns trigger language plpgsql as $$
      begin
        perform pg_notify('credential_changed', '');
        return null;
      end $$;`);
    this.addSql(`create trigger credential_changed after update of revoked_at, expires_at, token_hash, login_id, tenant_id or delete or truncate on "credential"
      for each statement execute function notify_credential_changed();`);
    this.addSql(`create trigger login_changed after update of roles, contact_id, tenant_id or delete or truncate on "login"
      for each statement execute function notify_credential_changed();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger credential_changed on "credential";`);
    this.addSql(`drop trigger login_changed on "login";`);
    this.addSql(`drop function notify_credential_changed();`);
  }

}
