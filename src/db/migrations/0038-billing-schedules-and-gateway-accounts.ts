import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 34 (billing): staff keep billing schedules and payment gateway accounts, so both get a
 * version (`audit_id`); a gateway account can hold its credential, encrypted
 * (`secret_encrypted`, redacted by the audit trail like every column named like a secret); a run
 * item records the membership change it asks for (`membership_id`, `period_end`), applied once
 * when its invoice is paid (`membership_applied_at`). Items billed before this migration had
 * their change applied when they were raised: they are marked applied, so a later payment
 * repeats nothing.
 */
export class BillingSchedulesAndGatewayAccounts extends Migration {

  override name = '0038-billing-schedules-and-gateway-accounts';

  override up(): void | Promise<void> {
    this.addSql(`alter table "scheduled_billing" add column "audit_id" int not null default 1;`);
    this.addSql(`alter table "scheduled_billing_run_item" add column "membership_id" int null, add column "period_end" date null, add column "membership_applied_at" timestamptz null;`);
    this.addSql(`select set_config('app.cross_tenant', 'on', true);`);
    this.addSql(`update "scheduled_billing_run_item" set "membership_applied_at" = "created_at" where "membership_change" is not null;`);
    this.addSql(`create index "scheduled_billing_run_item_tenant_id_invoice_id_index" on "scheduled_billing_run_item" ("tenant_id", "invoice_id");`);
    this.addSql(`alter table "payment_gateway_account" add column "audit_id" int not null default 1, add column "secret_encrypted" text null;`);
    this.addSql(`create index "payment_gateway_account_list_name" on "payment_gateway_account" ("tenant_id", "name", "id");`);
    // Attached again, so that the trail names the new secret column (its values "[redacted]").
    this.addSql(`drop trigger "audit_trail" on "payment_gateway_account";`);
    this.addSql('select audit_attach_all();');
    this.addSql('select rls_attach_all();');
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger "audit_trail" on "payment_gateway_account";`);
    this.addSql(`drop index "payment_gateway_account_list_name";`);
    this.addSql(`alter table "payment_gateway_account" drop column "audit_id", drop column "secret_encrypted";`);
    this.addSql(`drop index "scheduled_billing_run_item_tenant_id_invoice_id_index";`);
    this.addSql(`alter table "scheduled_billing_run_item" drop column "membership_id", drop column "period_end", drop column "membership_applied_at";`);
    this.addSql(`alter table "scheduled_billing" drop column "audit_id";`);
    this.addSql('select audit_attach_all();');
  }
}
