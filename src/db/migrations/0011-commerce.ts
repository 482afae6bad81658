import { Migration } from '@mikro-orm/migrations';

export class Commerce extends Migration {

  override name = '0011-commerce';

  override up(): void | Promise<void> {
    this.addSql(`create table "saleable_item" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "name" varchar(200) not null, "item_type" varchar(32) not null, "price" numeric(12,2) not null, "accounting_class" varchar(100) null, "taxable" boolean not null default false, "is_active" boolean not null default true);`);
    this.addSql(`create index "saleable_item_tenant_id_index" on "saleable_item" ("tenant_id");`);

    this.addSql(`create table "invoice" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "number" int not null, "contact_id" int not null, "invoice_date" date not null, "due_date" date not null, "status" varchar(16) not null default 'open', "total" numeric(12,2) not null, "amount_paid" numeric(12,2) not null default '0.00', "source" varchar(32) not null, "source_key" varchar(200) null, "memo" text null);`);
    this.addSql(`create index "invoice_tenant_id_index" on "invoice" ("tenant_id");`);
    this.addSql(`create index "invoice_contact_id_index" on "invoice" ("contact_id");`);
    this.addSql(`create index "invoice_tenant_id_status_index" on "invoice" ("tenant_id", "status");`);
    this.addSql(`alter table "invoice" add constraint "invoice_tenant_id_source_key_unique" unique ("tenant_id", "source_key");`);
    this.addSql(`alter table "invoice" add constraint "invoice_tenant_id_number_unique" unique ("tenant_id", "number");`);

    this.addSql(`create table "payment" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "invoice_id" int not null, "amount" numeric(12,2) not null, "paid_at" timestamptz not null, "method" varchar(32) not null, "reference" varchar(200) null);`);
    this.addSql(`create index "payment_tenant_id_index" on "payment" ("tenant_id");`);
    this.addSql(`create index "payment_invoice_id_index" on "payment" ("invoice_id");`);

    this.addSql(`create table "invoice_line" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "invoice_id" int not null, "line_number" int not null, "saleable_item_id" int null, "description" varchar(500) not null, "quantity" int not null, "unit_price" numeric(12,2) not null, "amount" numeric(12,2) not null);`);
    this.addSql(`create index "invoice_line_tenant_id_index" on "invoice_line" ("tenant_id");`);
    this.addSql(`create index "invoice_line_invoice_id_index" on "invoice_line" ("invoice_id");`);
    this.addSql(`create index "invoice_line_saleable_item_id_index" on "invoice_line" ("saleable_item_id");`);

    this.addSql(`alter table "saleable_item" add constraint "saleable_item_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);

    this.addSql(`alter table "invoice" add constraint "invoice_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "invoice" add constraint "invoice_contact_id_foreign" foreign key ("contact_id") references "contact" ("id") on delete no action;`);

    this.addSql(`alter table "payment" add constraint "payment_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "payment" add constraint "payment_invoice_id_foreign" foreign key ("invoice_id") references "invoice" ("id") on delete no action;`);

    this.addSql(`alter table "invoice_line" add constraint "invoice_line_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "invoice_line" add constraint "invoice_line_invoice_id_foreign" foreign key ("invoice_id") references "invoice" ("id") on delete cascade;`);
    this.addSql(`alter table "invoice_line" add constraint "invoice_line_saleable_item_id_foreign" foreign key ("saleable_item_id") references "saleable_item" ("id") on delete no action;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "invoice_line" drop constraint "invoice_line_saleable_item_id_foreign";`);
    this.addSql(`alter table "payment" drop constraint "payment_invoice_id_foreign";`);
    this.addSql(`alter table "invoice_line" drop constraint "invoice_line_invoice_id_foreign";`);

    this.addSql(`drop table if exists "saleable_item" cascade;`);
    this.addSql(`drop table if exists "invoice" cascade;`);
    this.addSql(`drop table if exists "payment" cascade;`);
    this.addSql(`drop table if exists "invoice_line" cascade;`);
  }

}
