import { Migration } from '@mikro-orm/migrations';

/**
 * Staff-managed contacts (services/contacts): a version (`audit_id`, 1 for every existing row),
 * prefix, middle name, suffix, job title, lists of e-mails, phones and websites (the primary ones
 * stay in `email`/`phone`, which other areas read), tax exemption, and two computed columns for
 * the staff list (its order and its text search, with the list's indexes). NationalID becomes
 * unique among a tenant's live contacts (partial unique index). A login can be disabled (its
 * contact archived): the credential-cache trigger of 0025 now fires on that too.
 */
export class Contacts extends Migration {

  override name = '0034-contacts';

  override up(): void | Promise<void> {
    // Fails with the offending tenants rather than picking a winner: two live contacts sharing a NationalID need a person to decide.
    this.addSql(`do $$ declare clashes text; begin
      select string_agg(distinct tenant_id || ':' || national_id, ', ') into clashes from (
        select tenant_id, national_id from contact where national_id is not null and deleted_at is null group by tenant_id, national_id having count(*) > 1) as duplicated;
      if clashes is not null then raise exception 'contacts share a NationalID (tenant:NationalID): %; archive or correct one of each first', clashes; end if;
    end $$;`);
    this.addSql(`alter table "contact"
      add column "audit_id" int not null default 1,
      add column "prefix" varchar(20) null, add column "middle_name" varchar(100) null, add column "suffix" varchar(40) null,
      add column "job_title" varchar(200) null,
      add column "emails" jsonb null, add column "phones" jsonb null, add column "websites" jsonb null,
      add column "is_tax_exempt" boolean not null default false, add column "tax_exempt_number" varchar(64) null,
      add column "sort_name" text generated always as (lower(coalesce(nullif(name, ''), coalesce(last_name, '') || ' ' || coalesce(first_name, '')))) stored not null,
      add column "search_text" text generated always as (lower(coalesce(name, '') || ' ' || coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(email, ''))) stored not null;`);
    this.addSql(`create unique index "contact_national_id_unique" on "contact" ("tenant_id", "national_id") where "national_id" is not null and "deleted_at" is null;`);
    this.addSql(`create index "contact_person_name_index" on "contact" ("tenant_id", lower(trim("last_name")), lower(trim("first_name"))) where "deleted_at" is null;`);
    this.addSql(`create index "contact_organization_name_index" on "contact" ("tenant_id", lower(trim("name"))) where "deleted_at" is null;`);
    this.addSql(`create index "contact_list_sort_name" on "contact" ("tenant_id", "sort_name", "id");`);
    this.addSql(`create index "contact_search_text_trgm" on "contact" using gin ("search_text" gin_trgm_ops);`);
    this.addSql(`alter table "login" add column "disabled_at" timestamptz null;`);
    this.addSql(`drop trigger login_changed on "login";`);
    this.addSql(`create trigger login_changed after update of roles, contact_id, tenant_id, disabled_at or delete or truncate on "login"
      for each statement execute function notify_credential_changed();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger login_changed on "login";`);
    this.addSql(`create trigger login_changed after update of roles, contact_id, tenant_id or delete or truncate on "login"
      for each statement execute function notify_credential_changed();`);
    this.addSql(`alter table "login" drop column "disabled_at";`);
    this.addSql(`drop index "contact_search_text_trgm"; drop index "contact_list_sort_name"; drop index "contact_organization_name_index";`);
    this.addSql(`drop index "contact_person_name_index"; drop index "contact_national_id_unique";`);
    this.addSql(`alter table "contact" drop column "search_text", drop column "sort_name", drop column "tax_exempt_number", drop column "is_tax_exempt",
      drop column "websites", drop column "phones", drop column "emails", drop column "job_title", drop column "suffix", drop column "middle_name",
      drop column "prefix", drop column "audit_id";`);
  }

}
