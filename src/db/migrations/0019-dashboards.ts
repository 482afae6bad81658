import { Migration } from '@mikro-orm/migrations';

export class Dashboards extends Migration {

  override name = '0019-dashboards';

  override up(): void | Promise<void> {
    this.addSql(`create table "dashboard_project" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "name" varchar(200) not null, "description" text null, "status" varchar(16) not null default 'planned', "start_date" date not null, "due_date" date null, "completed_date" date null, "manager_id" int null);`);
    this.addSql(`create index "dashboard_project_tenant_id_index" on "dashboard_project" ("tenant_id");`);
    this.addSql(`create index "dashboard_project_manager_id_index" on "dashboard_project" ("manager_id");`);
    this.addSql(`create index "dashboard_project_tenant_id_completed_date_index" on "dashboard_project" ("tenant_id", "completed_date");`);
    this.addSql(`create index "dashboard_project_tenant_id_start_date_index" on "dashboard_project" ("tenant_id", "start_date");`);

    this.addSql(`create table "dashboard_sales_opportunity" ("id" serial primary key, "tenant_id" int not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "audit_id" int not null default 1, "name" varchar(200) not null, "contact_id" int null, "sales_person_id" int null, "stage" varchar(16) not null default 'lead', "amount" numeric(12,2) not null, "opened_date" date not null, "closed_date" date null);`);
    this.addSql(`create index "dashboard_sales_opportunity_tenant_id_index" on "dashboard_sales_opportunity" ("tenant_id");`);
    this.addSql(`create index "dashboard_sales_opportunity_contact_id_index" on "dashboard_sales_opportunity" ("contact_id");`);
    this.addSql(`create index "dashboard_sales_opportunity_sales_person_id_index" on "dashboard_sales_opportunity" ("sales_person_id");`);
    this.addSql(`create index "dashboard_sales_opportunity_tenant_id_stage_closed_date_index" on "dashboard_sales_opportunity" ("tenant_id", "stage", "closed_date");`);

    this.addSql(`alter table "dashboard_project" add constraint "dashboard_project_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "dashboard_project" add constraint "dashboard_project_manager_id_foreign" foreign key ("manager_id") references "login" ("id") on delete set null;`);

    this.addSql(`alter table "dashboard_sales_opportunity" add constraint "dashboard_sales_opportunity_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on delete cascade;`);
    this.addSql(`alter table "dashboard_sales_opportunity" add constraint "dashboard_sales_opportunity_contact_id_foreign" foreign key ("contact_id") references "contact" ("id") on delete set null;`);
    this.addSql(`alter table "dashboard_sales_opportunity" add constraint "dashboard_sales_opportunity_sales_person_id_foreign" foreign key ("sales_person_id") references "login" ("id") on delete set null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "dashboard_project" cascade;`);
    this.addSql(`drop table if exists "dashboard_sales_opportunity" cascade;`);
  }

}
