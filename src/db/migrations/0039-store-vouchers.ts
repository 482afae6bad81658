import { Migration } from '@mikro-orm/migrations';

/**
 * Voucher types and the vouchers paid orders issue (src/entities/store.ts). `store_item.voucher_type_id`
 * was a plain integer with nothing behind it: each tenant's distinct old values become voucher types
 * of their own (inactive, value 0, named after the old id, so staff see them and set them up) and the
 * column gets its foreign key.
 */
export class StoreVouchers extends Migration {

  override name = '0039-store-vouchers';

  override up(): void | Promise<void> {
    this.addSql(`create table "voucher_type" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "name" varchar(200) not null, "value_kind" varchar(16) not null, "value" numeric(12,2) not null, "validity_days" int null, "is_active" boolean not null default true,
      constraint "voucher_type_value_kind_check" check ("value_kind" in ('amount', 'percent')),
      constraint "voucher_type_value_check" check ("value" >= 0 and ("value_kind" = 'amount' or "value" <= 100)));`);
    this.addSql(`create index "voucher_type_tenant_id_index" on "voucher_type" ("tenant_id");`);
    this.addSql(`create index "voucher_type_list_name" on "voucher_type" ("tenant_id", "name", "id");`);
    this.addSql(`alter table "voucher_type" add constraint "voucher_type_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);

    this.addSql(`create table "voucher" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "code" varchar(32) not null, "contact_id" int not null, "voucher_type_id" int not null, "order_id" int not null, "order_line_id" int not null, "sequence" int not null, "value_kind" varchar(16) not null, "value" numeric(12,2) not null, "issued_at" timestamptz not null, "expires_on" date null, "redeemed_at" timestamptz null, "redeemed_invoice_id" int null, "redeemed_amount" numeric(12,2) null);`);
    this.addSql(`create index "voucher_tenant_id_index" on "voucher" ("tenant_id");`);
    this.addSql(`create index "voucher_contact_id_index" on "voucher" ("contact_id");`);
    this.addSql(`create index "voucher_voucher_type_id_index" on "voucher" ("voucher_type_id");`);
    this.addSql(`create index "voucher_order_id_index" on "voucher" ("order_id");`);
    this.addSql(`create index "voucher_redeemed_invoice_id_index" on "voucher" ("redeemed_invoice_id");`);
    this.addSql(`alter table "voucher" add constraint "voucher_tenant_id_code_unique" unique ("tenant_id", "code");`);
    this.addSql(`alter table "voucher" add constraint "voucher_order_line_id_sequence_unique" unique ("order_line_id", "sequence");`);
    this.addSql(`alter table "voucher" add constraint "voucher_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "voucher" add constraint "voucher_contact_id_foreign" foreign key ("contact_id") references "contact" ("id");`);
    this.addSql(`alter table "voucher" add constraint "voucher_voucher_type_id_foreign" foreign key ("voucher_type_id") references "voucher_type" ("id");`);
    this.addSql(`alter table "voucher" add constraint "voucher_order_id_foreign" foreign key ("order_id") references "store_order" ("id");`);
    this.addSql(`alter table "voucher" add constraint "voucher_order_line_id_foreign" foreign key ("order_line_id") references "store_order_line" ("id");`);
    this.addSql(`alter table "voucher" add constraint "voucher_redeemed_invoice_id_foreign" foreign key ("redeemed_invoice_id") references "invoice" ("id");`);

    // The old plain integers: one inactive placeholder type per tenant and value, then the foreign key.
    this.addSql(`create temporary table "voucher_type_placeholder" as
      select tenant_id, old_id, nextval(pg_get_serial_sequence('voucher_type', 'id'))::int as new_id
        from (select distinct tenant_id, voucher_type_id as old_id from store_item where voucher_type_id is not null) as old;`);
    this.addSql(`insert into "voucher_type" ("id", "tenant_id", "name", "value_kind", "value", "is_active")
      select new_id, tenant_id, 'Voucher type ' || old_id || ' (set up before voucher types existed)', 'amount', 0, false from "voucher_type_placeholder";`);
    this.addSql(`update "store_item" s set "voucher_type_id" = p.new_id from "voucher_type_placeholder" p where p.tenant_id = s.tenant_id and p.old_id = s.voucher_type_id;`);
    this.addSql(`drop table "voucher_type_placeholder";`);
    this.addSql(`create index "store_item_voucher_type_id_index" on "store_item" ("voucher_type_id");`);
    this.addSql(`alter table "store_item" add constraint "store_item_voucher_type_id_foreign" foreign key ("voucher_type_id") references "voucher_type" ("id");`);
    this.addSql('select audit_attach_all();');
    this.addSql('select rls_attach_all();');
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "store_item" drop constraint "store_item_voucher_type_id_foreign";`);
    this.addSql(`drop index "store_item_voucher_type_id_index";`);
    this.addSql(`drop table if exists "voucher" cascade;`);
    this.addSql(`drop table if exists "voucher_type" cascade;`);
  }

}
