import { Migration } from '@mikro-orm/migrations';

export class Store extends Migration {

  override name = '0014-store';

  override up(): void | Promise<void> {
    this.addSql(`create table "store_settings" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "staff_url" varchar(2048) null, "entire_url" varchar(2048) null, "store_description" text null, "payment_gateway_id" varchar(100) null, "enable_additional_notes" boolean not null default false, "require_phone" boolean not null default false, "exempt_tax_on_shipping" boolean not null default false, "include_non_taxable_items_in_taxable_shipping" boolean not null default false, "width" int not null default 1200, "height" int not null default 1200, "tax_rate" numeric(7,4) not null default '0.0000', "shipping_flat_rate" numeric(12,2) not null default '0.00', "shipping_per_item" numeric(12,2) not null default '0.00');`);
    this.addSql(`create index "store_settings_tenant_id_index" on "store_settings" ("tenant_id");`);
    this.addSql(`alter table "store_settings" add constraint "store_settings_tenant_id_unique" unique ("tenant_id");`);

    this.addSql(`create table "store_item" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "variant" smallint not null, "name" varchar(200) not null, "settings_json" text null, "price" numeric(12,2) not null, "show_available_quantity" boolean not null default false, "has_manual_tracking" boolean not null default false, "tracking_method" smallint not null default 0, "remaining" int null, "saleable_item_id" int null, "accounting_class_id" varchar(100) null, "category_item_id" int null, "membership_types" jsonb not null, "membership_addon" boolean not null default false, "description" text null, "short_description" varchar(500) null, "available_date" date null, "end_date" date null, "is_active" boolean not null default true, "minimum_quantity" int not null default 1, "allow_backorder" boolean not null default false, "display_order" int not null default 0, "contact_id" int null, "shipping_not_available" boolean not null default false, "download_file_id" int null, "file_expiration_date" date null, "require_active_membership" boolean not null default false, "voucher_type_id" int null, "info_message" text null, "retired_at" timestamptz null);`);
    this.addSql(`create index "store_item_tenant_id_index" on "store_item" ("tenant_id");`);
    this.addSql(`create index "store_item_saleable_item_id_index" on "store_item" ("saleable_item_id");`);
    this.addSql(`create index "store_item_contact_id_index" on "store_item" ("contact_id");`);
    this.addSql(`create index "store_item_download_file_id_index" on "store_item" ("download_file_id");`);
    this.addSql(`create index "store_item_tenant_id_variant_display_order_index" on "store_item" ("tenant_id", "variant", "display_order");`);

    this.addSql(`create table "store_sub_item" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "store_item_id" int not null, "name" varchar(200) not null, "price" numeric(12,2) null, "remaining" int null, "display_order" int not null default 0);`);
    this.addSql(`create index "store_sub_item_tenant_id_index" on "store_sub_item" ("tenant_id");`);
    this.addSql(`create index "store_sub_item_store_item_id_index" on "store_sub_item" ("store_item_id");`);

    this.addSql(`create table "store_item_inventory" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "store_item_id" int not null, "sub_item_id" int null, "purchase_date" date not null, "purchase_price" numeric(12,2) not null, "quantity" int not null);`);
    this.addSql(`create index "store_item_inventory_tenant_id_index" on "store_item_inventory" ("tenant_id");`);
    this.addSql(`create index "store_item_inventory_store_item_id_index" on "store_item_inventory" ("store_item_id");`);
    this.addSql(`create index "store_item_inventory_sub_item_id_index" on "store_item_inventory" ("sub_item_id");`);

    this.addSql(`create table "store_item_image" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "store_item_id" int not null, "image_id" int not null, "title" varchar(200) null, "gallery_order" int not null default 0);`);
    this.addSql(`create index "store_item_image_tenant_id_index" on "store_item_image" ("tenant_id");`);
    this.addSql(`create index "store_item_image_store_item_id_index" on "store_item_image" ("store_item_id");`);
    this.addSql(`alter table "store_item_image" add constraint "store_item_image_image_id_unique" unique ("image_id");`);

    this.addSql(`create table "store_order" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "contact_id" int not null, "contact_name" varchar(200) null, "email_address" varchar(254) null, "phone_number" varchar(40) null, "purchase_date" timestamptz not null, "ship_to_company_name" varchar(200) null, "ship_to_contact_name" varchar(200) null, "address1" varchar(200) null, "address2" varchar(200) null, "city" varchar(100) null, "country_id" varchar(8) null, "country" varchar(100) null, "state_province" varchar(100) null, "postal_code" varchar(20) null, "shipping_option" varchar(16) not null, "status" varchar(16) not null default 'Pending', "notes" text null, "tax_rate" numeric(7,4) not null, "shipping_flat_rate" numeric(12,2) not null, "shipping_per_item" numeric(12,2) not null, "exempt_tax_on_shipping" boolean not null, "tax_shipping_on_non_taxable" boolean not null, "subtotal" numeric(12,2) not null, "shipping_amount" numeric(12,2) not null, "tax_amount" numeric(12,2) not null, "grand_total" numeric(12,2) not null, "invoice_id" int null);`);
    this.addSql(`create index "store_order_tenant_id_index" on "store_order" ("tenant_id");`);
    this.addSql(`create index "store_order_contact_id_index" on "store_order" ("contact_id");`);
    this.addSql(`create index "store_order_invoice_id_index" on "store_order" ("invoice_id");`);
    this.addSql(`create index "store_order_tenant_id_purchase_date_index" on "store_order" ("tenant_id", "purchase_date");`);

    this.addSql(`create table "store_order_line" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "order_id" int not null, "store_item_id" int not null, "sub_item_id" int null, "name" varchar(420) not null, "quantity" int not null, "backordered" int not null default 0, "unit_price" numeric(12,2) not null, "amount" numeric(12,2) not null, "taxable" boolean not null, "shipped" boolean not null);`);
    this.addSql(`create index "store_order_line_tenant_id_index" on "store_order_line" ("tenant_id");`);
    this.addSql(`create index "store_order_line_order_id_index" on "store_order_line" ("order_id");`);
    this.addSql(`create index "store_order_line_store_item_id_index" on "store_order_line" ("store_item_id");`);
    this.addSql(`create index "store_order_line_sub_item_id_index" on "store_order_line" ("sub_item_id");`);

    this.addSql(`create table "store_download_purchase" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "order_id" int not null, "store_item_id" int not null, "contact_id" int not null, "file_id" int not null, "expires_on" date null, "require_active_membership" boolean not null, "download_count" int not null default 0);`);
    this.addSql(`create index "store_download_purchase_tenant_id_index" on "store_download_purchase" ("tenant_id");`);
    this.addSql(`create index "store_download_purchase_order_id_index" on "store_download_purchase" ("order_id");`);
    this.addSql(`create index "store_download_purchase_store_item_id_index" on "store_download_purchase" ("store_item_id");`);
    this.addSql(`create index "store_download_purchase_contact_id_index" on "store_download_purchase" ("contact_id");`);
    this.addSql(`create index "store_download_purchase_file_id_index" on "store_download_purchase" ("file_id");`);

    this.addSql(`alter table "store_settings" add constraint "store_settings_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);

    this.addSql(`alter table "store_item" add constraint "store_item_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "store_item" add constraint "store_item_saleable_item_id_foreign" foreign key ("saleable_item_id") references "saleable_item" ("id") on delete set null;`);
    this.addSql(`alter table "store_item" add constraint "store_item_contact_id_foreign" foreign key ("contact_id") references "contact" ("id") on delete set null;`);
    this.addSql(`alter table "store_item" add constraint "store_item_download_file_id_foreign" foreign key ("download_file_id") references "stored_file" ("id") on delete no action;`);
    this.addSql(`alter table "store_item" add constraint "store_item_remaining_check" check (remaining >= 0);`);

    this.addSql(`alter table "store_sub_item" add constraint "store_sub_item_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "store_sub_item" add constraint "store_sub_item_store_item_id_foreign" foreign key ("store_item_id") references "store_item" ("id") on delete cascade;`);
    this.addSql(`alter table "store_sub_item" add constraint "store_sub_item_remaining_check" check (remaining >= 0);`);

    this.addSql(`alter table "store_item_inventory" add constraint "store_item_inventory_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "store_item_inventory" add constraint "store_item_inventory_store_item_id_foreign" foreign key ("store_item_id") references "store_item" ("id") on delete cascade;`);
    this.addSql(`alter table "store_item_inventory" add constraint "store_item_inventory_sub_item_id_foreign" foreign key ("sub_item_id") references "store_sub_item" ("id") on delete cascade;`);

    this.addSql(`alter table "store_item_image" add constraint "store_item_image_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "store_item_image" add constraint "store_item_image_store_item_id_foreign" foreign key ("store_item_id") references "store_item" ("id") on delete cascade;`);
    this.addSql(`alter table "store_item_image" add constraint "store_item_image_image_id_foreign" foreign key ("image_id") references "image" ("id") on delete cascade;`);

    this.addSql(`alter table "store_order" add constraint "store_order_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "store_order" add constraint "store_order_contact_id_foreign" foreign key ("contact_id") references "contact" ("id") on delete no action;`);
    this.addSql(`alter table "store_order" add constraint "store_order_invoice_id_foreign" foreign key ("invoice_id") references "invoice" ("id") on delete no action;`);

    this.addSql(`alter table "store_order_line" add constraint "store_order_line_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "store_order_line" add constraint "store_order_line_order_id_foreign" foreign key ("order_id") references "store_order" ("id") on delete cascade;`);
    this.addSql(`alter table "store_order_line" add constraint "store_order_line_store_item_id_foreign" foreign key ("store_item_id") references "store_item" ("id") on delete no action;`);
    this.addSql(`alter table "store_order_line" add constraint "store_order_line_sub_item_id_foreign" foreign key ("sub_item_id") references "store_sub_item" ("id") on delete set null;`);

    this.addSql(`alter table "store_download_purchase" add constraint "store_download_purchase_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "store_download_purchase" add constraint "store_download_purchase_order_id_foreign" foreign key ("order_id") references "store_order" ("id") on delete cascade;`);
    this.addSql(`alter table "store_download_purchase" add constraint "store_download_purchase_store_item_id_foreign" foreign key ("store_item_id") references "store_item" ("id") on delete no action;`);
    this.addSql(`alter table "store_download_purchase" add constraint "store_download_purchase_contact_id_foreign" foreign key ("contact_id") references "contact" ("id") on delete cascade;`);
    this.addSql(`alter table "store_download_purchase" add constraint "store_download_purchase_file_id_foreign" foreign key ("file_id") references "stored_file" ("id") on delete no action;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "store_sub_item" drop constraint "store_sub_item_store_item_id_foreign";`);
    this.addSql(`alter table "store_item_inventory" drop constraint "store_item_inventory_store_item_id_foreign";`);
    this.addSql(`alter table "store_item_image" drop constraint "store_item_image_store_item_id_foreign";`);
    this.addSql(`alter table "store_order_line" drop constraint "store_order_line_store_item_id_foreign";`);
    this.addSql(`alter table "store_download_purchase" drop constraint "store_download_purchase_store_item_id_foreign";`);
    this.addSql(`alter table "store_item_inventory" drop constraint "store_item_inventory_sub_item_id_foreign";`);
    this.addSql(`alter table "store_order_line" drop constraint "store_order_line_sub_item_id_foreign";`);
    this.addSql(`alter table "store_order_line" drop constraint "store_order_line_order_id_foreign";`);
    this.addSql(`alter table "store_download_purchase" drop constraint "store_download_purchase_order_id_foreign";`);

    this.addSql(`drop table if exists "store_settings" cascade;`);
    this.addSql(`drop table if exists "store_item" cascade;`);
    this.addSql(`drop table if exists "store_sub_item" cascade;`);
    this.addSql(`drop table if exists "store_item_inventory" cascade;`);
    this.addSql(`drop table if exists "store_item_image" cascade;`);
    this.addSql(`drop table if exists "store_order" cascade;`);
    this.addSql(`drop table if exists "store_order_line" cascade;`);
    this.addSql(`drop table if exists "store_download_purchase" cascade;`);
  }

}
