import { IsOptional, Length, Matches, Min } from 'class-validator';
import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { choiceRule, Conforms, UnlessBlank } from '../core/argument-rules.js';
import { REPORT_TYPES } from '../entities/report.js';
import { FilterBaseInput, ListResultType } from './common.js';

/** What a custom report reports on. */
export const REPORT_TYPE_RULE = choiceRule(REPORT_TYPES);

@ObjectType({ description: 'A report of the catalog: a system report (seeded per tenant, not deletable) or a custom one staff added.' })
export class ReportCollection {
  @Field(() => String, { nullable: true, description: 'Always null: reports have no image.' }) ImageUrl!: string | null;
  @Field(() => String, { nullable: true, description: 'Always null.' }) ImageShortDescription!: string | null;
  @Field(() => Int) ReportId!: number;
  @Field(() => Int) AuditId!: number;
  @Field(() => Boolean) IsSystem!: boolean;
  @Field(() => String) Name!: string;
  @Field(() => String, { nullable: true }) Description!: string | null;
  @Field(() => String, { description: 'What running the report produces: contacts, memberships or event-registrations (CSV rows).' }) ReportTypeId!: string;
  @Field(() => String, { description: 'The catalog category: Contacts, Events or Membership.' }) ReportCategoryId!: string;
  @Field(() => String, { description: 'ISO 8601 date-time.' }) DateAdded!: string;
  @Field(() => String, { nullable: true, description: 'ISO 8601 date-time of the last run; null: never run.' }) LastUsed!: string | null;
  @Field(() => Boolean, { description: 'Whether the caller marked it a favorite.' }) IsFavorite!: boolean;
  @Field(() => String, { description: 'Where the report is run (GraphQL runReport with this ReportId).' }) Path!: string;
  @Field(() => Boolean, { description: 'Visible only to its creator.' }) IsPrivateForUser!: boolean;
  @Field(() => Int, { nullable: true, description: 'The LoginId of the staff member who added it; null for system reports.' }) CreatedBy!: number | null;
  @Field(() => [String], { description: 'The parameters runReport takes for it: ContactId for a report about one contact.' }) Parameters!: string[];
  @Field(() => [String], { description: 'Actions the caller may take: Run, and Delete for custom reports.' }) Actions!: readonly string[];
  @Field(() => String, { nullable: true, description: 'Always null: access is by role (staff).' }) SecurableAreaId!: string | null;
  @Field(() => String, { nullable: true, description: 'Always null.' }) SecurableItemId!: string | null;
  @Field(() => Boolean, { description: 'Always false: reports are not limited to a chapter.' }) IsChapterSafe!: boolean;
  @Field(() => [String], { description: 'Always empty: no report needs an optional module.' }) RequiredModules!: string[];
  @Field(() => Boolean) UserHaveDeleteAccess!: boolean;
}

@InputType('ReportAdvancedFilterInput', {
  description: 'ReportAdvancedFilter: FilterBase (OrderBy Name, ReportId, DateAdded, LastUsed, ReportCategoryId) plus the report criteria. '
    + 'TenantId and ShowCustomReportsAcrossCustomers are ignored (a tenant sees only its own reports).',
})
export class ReportAdvancedFilterInput extends FilterBaseInput {
  @Field(() => Int, { nullable: true, description: 'Ignored: the tenant comes from the credential.' }) TenantId?: number | null;
  @Field(() => String, { nullable: true, description: 'Only reports of this category (case-insensitive).' }) @IsOptional() @Length(0, 64) ReportCategoryId?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'true: only custom reports; false: only system reports.' }) IsCustom?: boolean | null;
  @Field(() => Boolean, { nullable: true, description: 'true: only the caller\'s private reports; false: only shared ones.' }) IsPrivate?: boolean | null;
  @Field(() => Boolean, { nullable: true, description: 'true: only the caller\'s favorites; false: only the others.' }) IsFavorite?: boolean | null;
  @Field(() => String, { nullable: true, description: 'Only reports of this ReportTypeId (contacts, memberships, event-registrations).' }) @IsOptional() @Length(0, 64) Criteria?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'Ignored: reports never cross tenants.' }) ShowCustomReportsAcrossCustomers?: boolean | null;
}

@ObjectType({ description: 'The report criteria the list was read with.' })
export class ReportListCriteria {
  @Field(() => String, { nullable: true }) ReportCategoryId!: string | null;
  @Field(() => Boolean, { nullable: true }) IsCustom!: boolean | null;
  @Field(() => Boolean, { nullable: true }) IsPrivate!: boolean | null;
  @Field(() => Boolean, { nullable: true }) IsFavorite!: boolean | null;
  @Field(() => String, { nullable: true }) Criteria!: string | null;
}

export const ReportListResult = ListResultType('ReportListResult', {
  description: 'ListResult of the report catalog: the reports the caller can see (system, shared custom, and the caller\'s private ones).',
  item: ReportCollection,
  criteria: ReportListCriteria,
  criteriaItemsDescription: 'The report categories (Name; IsSelected marks the one filtered on).',
  modelItemsDescription: 'Always empty.',
});

@InputType('ReportAddInput', { description: 'A custom report: ReportAdd (Name, Description) plus, optionally, what it reports on and whether it is private.' })
export class ReportAddInput {
  @Field(() => String) @Length(1, 200) @Matches(/\S/, { message: 'Name must not be blank' }) Name!: string;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 4000) Description?: string | null;
  @Field(() => String, { nullable: true, description: 'contacts (default), memberships or event-registrations.' }) @IsOptional() @UnlessBlank() @Conforms(REPORT_TYPE_RULE) ReportTypeId?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'Visible only to the caller (default false).' }) IsPrivateForUser?: boolean | null;
}

@ObjectType({ description: 'A report that applies to one contact.' })
export class ContactReportItem {
  @Field(() => String, { nullable: true }) ImageUrl!: string | null;
  @Field(() => String, { nullable: true }) ImageShortDescription!: string | null;
  @Field(() => Int) ReportId!: number;
  @Field(() => Int) AuditId!: number;
  @Field(() => Boolean) IsSystem!: boolean;
  @Field(() => Int) ContactId!: number;
  @Field(() => String) Name!: string;
  @Field(() => String, { nullable: true }) Description!: string | null;
  @Field(() => String) ReportTypeId!: string;
  @Field(() => String) Path!: string;
}

@ObjectType({ description: 'The reports that apply to a contact.' })
export class ContactReports {
  @Field(() => String) ContactId!: string;
  @Field(() => [ContactReportItem]) ReportsList!: ContactReportItem[];
}

@ObjectType({ description: 'One choice of a selection list.' })
export class ItemChoice {
  @Field(() => Boolean) IsSelected!: boolean;
  @Field(() => Boolean) PreviouslySelected!: boolean;
  @Field(() => Int) Id!: number;
  @Field(() => String) Name!: string;
  @Field(() => Int) Order!: number;
}

@ObjectType({ description: 'The caller\'s favorite reports (the reports widget).' })
export class ReportFavorites {
  @Field(() => String, { description: 'ReportCollection.' }) ModelType!: string;
  @Field(() => [ReportCollection]) Items!: ReportCollection[];
  @Field(() => String, { description: 'How many favorites the caller has, as a string of digits.' }) TotalRecordAvailable!: string;
}

@ObjectType({ description: 'GraphQL-only: one run of a report (a background job writing CSV).' })
export class ReportRunStatus {
  @Field(() => Int) ReportRunId!: number;
  @Field(() => Int) ReportId!: number;
  @Field(() => Int, { nullable: true, description: 'The contact a report about one contact ran for.' }) ContactId!: number | null;
  @Field(() => String, { description: 'queued, running, completed or failed.' }) State!: string;
  @Field(() => Int, { description: 'Percent done, 0 to 100.' }) Progress!: number;
  @Field(() => Int, { nullable: true }) RowsTotal!: number | null;
  @Field(() => Int) RowsWritten!: number;
  @Field(() => Int, { description: 'Rows that could not be written (skipped, not fatal).' }) RowsSkipped!: number;
  @Field(() => String, { nullable: true, description: 'Why a failed run failed.' }) Error!: string | null;
  @Field(() => Int, { nullable: true, description: 'The CSV file, once completed (reportRunCsv says where to download it).' }) FileId!: number | null;
  @Field(() => String, { description: 'ISO 8601 date-time.' }) CreatedAt!: string;
  @Field(() => String, { nullable: true }) FinishedAt!: string | null;
}

@ObjectType({ description: 'GraphQL-only: the CSV a completed report run produced, to download from Url (its size has no limit, so GraphQL does not carry it).' })
export class ReportRunCsv {
  @Field(() => String) FileName!: string;
  @Field(() => String, { description: 'text/csv; charset=utf-8' }) MediaType!: string;
  @Field(() => Int, { description: 'Bytes of the CSV.' }) Size!: number;
  @Field(() => String, { description: 'GET it with the same credential: the CSV text (RFC 4180, header row first), streamed.' }) Url!: string;
}

@InputType('ReportRunInput', { description: 'GraphQL-only: which report to run, and for which contact (required for a report about one contact).' })
export class ReportRunInput {
  @Field(() => Int) @Min(1) ReportId!: number;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(1) ContactId?: number | null;
}
