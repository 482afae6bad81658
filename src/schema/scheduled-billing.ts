import { ArrayMaxSize, IsBoolean, IsIn, IsInt, IsOptional, IsString, Length, Matches, Max, Min, ValidateNested } from 'class-validator';
import { Field, Float, InputType, Int, ObjectType } from 'type-graphql';
import { RUN_STATES, SCHEDULE_STATUSES } from '../entities/billing.js';
import { SALEABLE_ITEM_TYPES } from '../entities/commerce.js';
import { FilterBaseInput, ListResultType } from './common.js';
import { CALENDAR_DAY } from '../core/dates.js';
import { AcrossFields, isGiven, isNotGiven, notBefore, when } from '../core/argument-rules.js';

/** A real calendar day (yyyy-mm-dd): the services' own check, stated by the document. */
const ISO_DATE = CALENDAR_DAY;
const MAX_ID = 2147483647;

@InputType('ScheduledBillingAmountRangeInput', { description: 'AmountBetween: amounts from From to To inclusive (either open), exact to the cent.' })
export class ScheduledBillingAmountRangeInput {
  @Field(() => Float, { nullable: true }) From?: number | null;
  @Field(() => Float, { nullable: true }) To?: number | null;
}

@ObjectType('ScheduledBillingAmountRange')
export class ScheduledBillingAmountRange {
  @Field(() => Float, { nullable: true }) From!: number | null;
  @Field(() => Float, { nullable: true }) To!: number | null;
}

@InputType('ScheduledBillingDateRangeInput', { description: 'DateRange: schedules that started (StartDate) from Start to End inclusive (yyyy-mm-dd, either open).' })
export class ScheduledBillingDateRangeInput {
  @Field(() => String, { nullable: true }) @IsOptional() @Matches(ISO_DATE, { message: 'Start must be a date (yyyy-mm-dd)' }) Start?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Matches(ISO_DATE, { message: 'End must be a date (yyyy-mm-dd)' }) End?: string | null;
}

@ObjectType('ScheduledBillingDateRange')
export class ScheduledBillingDateRange {
  @Field(() => String, { nullable: true }) Start!: string | null;
  @Field(() => String, { nullable: true }) End!: string | null;
}

const FILTER_DESCRIPTION = 'FilterBase plus the scheduled billing criteria, all combined with AND (absent: not filtered). ' +
  'Filter matches the description and the contact\'s name. OrderBy: NextBillDate (default), Amount, Description, StartDate, ScheduledBillingId. ' +
  'GroupId, CategoryItemId and EventId match the ids a schedule carries (its contact group, category list item and event; ' +
  'those areas are not built yet, so the ids are stored on the schedule without a foreign key); Tags matches schedules carrying any of the tags.';

@InputType('ScheduledBillingFilterInput', { description: FILTER_DESCRIPTION })
export class ScheduledBillingFilterInput extends FilterBaseInput {
  @Field(() => [Int], { nullable: true, description: 'Memberships of any of these types (JSON array of ids).' })
  @IsOptional() @ArrayMaxSize(200) @IsInt({ each: true }) @Min(1, { each: true }) @Max(MAX_ID, { each: true }) MembershipTypeIds?: number[] | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(1) SaleableItemId?: number | null;
  @Field(() => String, { nullable: true, description: `The saleable item's type: ${SALEABLE_ITEM_TYPES.join(', ')}.` })
  @IsOptional() @IsIn(SALEABLE_ITEM_TYPES) SaleableItemType?: string | null;
  @Field(() => [String], { nullable: true, description: `Schedules in any of these states: ${SCHEDULE_STATUSES.join(', ')} (JSON array).` })
  @IsOptional() @ArrayMaxSize(10) @IsIn(SCHEDULE_STATUSES, { each: true }) StatusTypeOptions?: string[] | null;
  @Field(() => ScheduledBillingAmountRangeInput, { nullable: true }) @IsOptional() @ValidateNested() AmountBetween?: ScheduledBillingAmountRangeInput | null;
  @Field(() => ScheduledBillingDateRangeInput, { nullable: true }) @IsOptional() @ValidateNested() DateRange?: ScheduledBillingDateRangeInput | null;
  @Field(() => String, { nullable: true, description: 'yyyy-mm-dd: schedules due on or before this day (what a run on that day bills).' })
  @IsOptional() @Matches(ISO_DATE, { message: 'NextBillDate must be a date (yyyy-mm-dd)' }) NextBillDate?: string | null;
  @Field(() => String, { nullable: true, description: 'The description exactly (case-insensitive).' }) @IsOptional() @IsString() @Length(0, 500) DescriptionEquals?: string | null;
  @Field(() => String, { nullable: true, description: 'Text the description contains (case-insensitive).' }) @IsOptional() @IsString() @Length(0, 500) DescriptionLike?: string | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(1) MembershipTypeId?: number | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(1) MembershipLevelId?: number | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(1) GroupId?: number | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(1) CategoryItemId?: number | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(1) EventId?: number | null;
  @Field(() => [String], { nullable: true, description: 'Schedules carrying any of these tags (JSON array; case-insensitive).' })
  @IsOptional() @ArrayMaxSize(50) @IsString({ each: true }) @Length(1, 100, { each: true }) Tags?: string[] | null;
  @Field(() => Boolean, { nullable: true, description: 'true: only schedules with a payment profile.' }) @IsOptional() @IsBoolean() HasProfile?: boolean | null;
  @Field(() => Boolean, { nullable: true, description: 'true: only schedules without a payment profile.' }) @IsOptional() @IsBoolean() HasNoProfile?: boolean | null;
  @Field(() => Boolean, { nullable: true, description: 'true: only schedules of no membership.' }) @IsOptional() @IsBoolean() HasNoMembership?: boolean | null;
  @Field(() => String, { nullable: true, description: 'Accepted for compatibility and not read: every criterion has its own field.' })
  @IsOptional() @IsString() @Length(0, 4000) Criteria?: string | null;
}

@ObjectType('ScheduledBillingCriteria', { description: 'The scheduled billing criteria as applied.' })
export class ScheduledBillingCriteria {
  @Field(() => [Int], { nullable: true }) MembershipTypeIds!: number[] | null;
  @Field(() => Int, { nullable: true }) SaleableItemId!: number | null;
  @Field(() => String, { nullable: true }) SaleableItemType!: string | null;
  @Field(() => [String], { nullable: true }) StatusTypeOptions!: string[] | null;
  @Field(() => ScheduledBillingAmountRange, { nullable: true }) AmountBetween!: ScheduledBillingAmountRange | null;
  @Field(() => ScheduledBillingDateRange, { nullable: true }) DateRange!: ScheduledBillingDateRange | null;
  @Field(() => String, { nullable: true }) NextBillDate!: string | null;
  @Field(() => String, { nullable: true }) DescriptionEquals!: string | null;
  @Field(() => String, { nullable: true }) DescriptionLike!: string | null;
  @Field(() => Int, { nullable: true }) MembershipTypeId!: number | null;
  @Field(() => Int, { nullable: true }) MembershipLevelId!: number | null;
  @Field(() => Int, { nullable: true }) GroupId!: number | null;
  @Field(() => Int, { nullable: true }) CategoryItemId!: number | null;
  @Field(() => Int, { nullable: true }) EventId!: number | null;
  @Field(() => [String], { nullable: true }) Tags!: string[] | null;
  @Field(() => Boolean, { nullable: true }) HasProfile!: boolean | null;
  @Field(() => Boolean, { nullable: true }) HasNoProfile!: boolean | null;
  @Field(() => Boolean, { nullable: true }) HasNoMembership!: boolean | null;
  @Field(() => String, { nullable: true }) Filter!: string | null;
}

@ObjectType('ScheduledBillingItem', { description: 'One billing schedule: a recurring bill, usually for a membership.' })
export class ScheduledBillingItem {
  @Field(() => Int) ScheduledBillingId!: number;
  @Field(() => Int) ContactId!: number;
  @Field(() => String, { nullable: true }) ContactName!: string | null;
  @Field(() => Int, { nullable: true }) MembershipId!: number | null;
  @Field(() => Int, { nullable: true }) MembershipTypeId!: number | null;
  @Field(() => String, { nullable: true }) MembershipTypeName!: string | null;
  @Field(() => Int, { nullable: true }) MembershipLevelId!: number | null;
  @Field(() => String, { nullable: true }) MembershipLevelName!: string | null;
  @Field(() => Int) SaleableItemId!: number;
  @Field(() => String, { nullable: true }) SaleableItemName!: string | null;
  @Field(() => String, { nullable: true }) SaleableItemType!: string | null;
  @Field(() => String) Description!: string;
  @Field(() => Float, { description: 'Billed each period, exact to the cent.' }) Amount!: number;
  @Field(() => Int, { description: 'Months between bills.' }) FrequencyMonths!: number;
  @Field(() => String, { description: 'yyyy-mm-dd' }) StartDate!: string;
  @Field(() => String, { description: 'yyyy-mm-dd' }) NextBillDate!: string;
  @Field(() => String, { description: `One of ${SCHEDULE_STATUSES.join(', ')}.` }) Status!: string;
  @Field(() => Boolean, { description: 'Whether a stored payment profile is charged (the profile itself is never shown).' }) HasProfile!: boolean;
  @Field(() => Int, { nullable: true }) GroupId!: number | null;
  @Field(() => Int, { nullable: true }) CategoryItemId!: number | null;
  @Field(() => Int, { nullable: true }) EventId!: number | null;
  @Field(() => [String]) Tags!: string[];
}

export const ScheduledBillingListResult = ListResultType('ScheduledBillingListResult', {
  description: 'ListResult of billing schedules matching a ScheduledBillingFilter.',
  item: ScheduledBillingItem,
  criteria: ScheduledBillingCriteria,
  criteriaItemsDescription: 'The membership types (Id, Name): the choices of MembershipTypeIds.',
  modelItemsDescription: 'The saleable items the schedules on this page bill (Id, Name).',
});

@InputType('ScheduledBillingSelectedItemInput')
export class ScheduledBillingSelectedItemInput {
  @Field(() => Int) @Min(1) ScheduledBillingId!: number;
}

@InputType('ScheduledBillingSelectionInput', { description: 'The schedules to bill, as the preview (run/setup) listed them: only these, when given.' })
export class ScheduledBillingSelectionInput {
  @Field(() => [ScheduledBillingSelectedItemInput], { nullable: true }) @IsOptional() @ArrayMaxSize(100_000) @ValidateNested({ each: true })
  Items?: ScheduledBillingSelectedItemInput[] | null;
}

@AcrossFields<ScheduledBillingRunInput>(
  when(isGiven('ChangeCurrentMembership'), isGiven('MembershipTypeId'), 'MembershipTypeId', 'is required to change the current membership'),
  when(isGiven('ChangeCurrentMembership'), isNotGiven('CreateMembership'), 'CreateMembership', 'cannot be combined with ChangeCurrentMembership'),
)
@InputType('ScheduledBillingRunInput', {
  description: 'A run: the schedules matching CurrentAdvancedFilter (its NextBillDate is the bill date, today when absent) that are active and due by then, ' +
    'optionally only the ScheduledBillings.Items listed. ChangeCurrentMembership moves each billed membership to MembershipTypeId/MembershipLevelId ' +
    'and extends it over the billed period; CreateMembership creates a membership for the period (of MembershipTypeId, else the current type); ' +
    'RemoveMembership ends the current membership the day before the period. RecordCount is computed by the server.',
})
export class ScheduledBillingRunInput {
  @Field(() => ScheduledBillingFilterInput, { nullable: true }) @IsOptional() @ValidateNested() CurrentAdvancedFilter?: ScheduledBillingFilterInput | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(0) MembershipTypeId?: number | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(0) MembershipLevelId?: number | null;
  @Field(() => Boolean, { nullable: true }) ChangeCurrentMembership?: boolean | null;
  @Field(() => Boolean, { nullable: true }) CreateMembership?: boolean | null;
  @Field(() => Boolean, { nullable: true }) RemoveMembership?: boolean | null;
  @Field(() => Int, { nullable: true, description: 'Ignored: the server counts.' }) RecordCount?: number | null;
  @Field(() => ScheduledBillingSelectionInput, { nullable: true }) @IsOptional() @ValidateNested() ScheduledBillings?: ScheduledBillingSelectionInput | null;
}

@ObjectType('ScheduledBillingRunItem', { description: 'What a run does (preview) or did with one schedule.' })
export class ScheduledBillingRunItemView {
  @Field(() => Int) ScheduledBillingId!: number;
  @Field(() => Int, { nullable: true }) ContactId!: number | null;
  @Field(() => String, { nullable: true }) ContactName!: string | null;
  @Field(() => String, { nullable: true }) Description!: string | null;
  @Field(() => String, { description: 'yyyy-mm-dd: the period billed (its start).' }) PeriodStart!: string;
  @Field(() => Float) Amount!: number;
  @Field(() => String, { nullable: true, description: 'changed, created, removed, created+removed (none: null); made when the item\'s invoice is paid.' }) MembershipChange!: string | null;
  @Field(() => String, { nullable: true, description: 'ISO 8601: when the membership change was made (its invoice paid); null: not yet, or none.' })
  MembershipChangedAt!: string | null;
  @Field(() => String, { description: 'billed, skipped (billed already), failed; in a preview: due.' }) Outcome!: string;
  @Field(() => Int, { nullable: true }) InvoiceId!: number | null;
  @Field(() => String, { nullable: true, description: 'Why an item was skipped or failed.' }) Reason!: string | null;
}

@ObjectType('ScheduledBillingRunSummary', { description: 'The schedules a run bills (preview) and their totals.' })
export class ScheduledBillingRunSummary {
  @Field(() => String, { description: 'yyyy-mm-dd: schedules due on or before it are billed.' }) BillDate!: string;
  @Field(() => Float, { description: 'Sum of the amounts, exact.' }) TotalAmount!: number;
  @Field(() => Int, { description: 'Items whose membership changes.' }) MembershipChanges!: number;
  @Field(() => [ScheduledBillingRunItemView]) Items!: ScheduledBillingRunItemView[];
}

@ObjectType('ScheduledBillingRun', { description: 'A run as previewed: what it would bill, without changing anything.' })
export class ScheduledBillingRun {
  @Field(() => ScheduledBillingCriteria, { nullable: true }) CurrentAdvancedFilter!: ScheduledBillingCriteria | null;
  @Field(() => Int, { nullable: true }) MembershipTypeId!: number | null;
  @Field(() => Int, { nullable: true }) MembershipLevelId!: number | null;
  @Field(() => Boolean) ChangeCurrentMembership!: boolean;
  @Field(() => Boolean) CreateMembership!: boolean;
  @Field(() => Boolean) RemoveMembership!: boolean;
  @Field(() => Int, { description: 'How many schedules the run bills.' }) RecordCount!: number;
  @Field(() => ScheduledBillingRunSummary) ScheduledBillings!: ScheduledBillingRunSummary;
}

@ObjectType('ScheduledBillingHistoryItem', { description: 'One run: its progress and outcome. SystemJobId identifies it (run/history/download/{systemjobid}).' })
export class ScheduledBillingHistoryItem {
  @Field(() => Int) SystemJobId!: number;
  @Field(() => String, { description: `One of ${RUN_STATES.join(', ')}.` }) State!: string;
  @Field(() => String, { description: 'yyyy-mm-dd' }) BillDate!: string;
  @Field(() => String, { description: 'ISO 8601' }) RequestedAt!: string;
  @Field(() => String, { nullable: true }) StartedAt!: string | null;
  @Field(() => String, { nullable: true }) FinishedAt!: string | null;
  @Field(() => Int) ItemCount!: number;
  @Field(() => Int) ProcessedCount!: number;
  @Field(() => Int, { description: 'Percent of the items processed.' }) Progress!: number;
  @Field(() => Int) BilledCount!: number;
  @Field(() => Int) SkippedCount!: number;
  @Field(() => Int) FailedCount!: number;
  @Field(() => Float) BilledAmount!: number;
  @Field(() => String, { nullable: true }) Error!: string | null;
}

@ObjectType('ScheduledBillingHistory', { description: 'The runs, newest first.' })
export class ScheduledBillingHistory {
  @Field(() => [ScheduledBillingHistoryItem]) HistoryItems!: ScheduledBillingHistoryItem[];
}

@ObjectType('PendingFileDownloadResult', { description: 'A file being prepared in the background: fetch it with PendingDownloadFileId once ready.' })
export class PendingFileDownloadResult {
  @Field(() => String) JobType!: string;
  @Field(() => String) Message!: string;
  @Field(() => String, { nullable: true, description: 'pending, ready or failed.' }) Result!: string | null;
  @Field(() => Int) BackgroundJobEstimatedSeconds!: number;
  @Field(() => String, { nullable: true }) JobId!: string | null;
  @Field(() => Int) PendingDownloadFileId!: number;
}

@ObjectType('BillingSchedule', { description: 'One billing schedule, for editing (not in the API documents): the list item\'s fields and its version.' })
export class BillingSchedule extends ScheduledBillingItem {
  @Field(() => Int, { description: 'The version read; send it back to save or delete (a stale one is 409).' }) AuditId!: number;
}

@AcrossFields<BillingScheduleInput>(notBefore('NextBillDate', 'StartDate'))
@InputType('BillingScheduleInput', { description: 'A billing schedule to create (scheduledBillingId 0) or update. The payment profile is write-only.' })
export class BillingScheduleInput {
  @Field(() => Int) @IsInt() @Min(1) @Max(MAX_ID) ContactId!: number;
  @Field(() => Int, { nullable: true, description: 'The membership billed (a membership of ContactId); none: a schedule of no membership.' })
  @IsOptional() @IsInt() @Min(1) @Max(MAX_ID) MembershipId?: number | null;
  @Field(() => Int) @IsInt() @Min(1) @Max(MAX_ID) SaleableItemId!: number;
  @Field(() => String) @IsString() @Length(1, 500) Description!: string;
  @Field(() => Float, { description: 'Billed each period: at least 0.01, at most two decimals.' }) @Min(0.01) Amount!: number;
  @Field(() => Int, { nullable: true, description: 'Months between bills, 1 to 120 (default 12).' }) @IsOptional() @IsInt() @Min(1) @Max(120) FrequencyMonths?: number | null;
  @Field(() => String, { description: 'yyyy-mm-dd' }) @Matches(ISO_DATE, { message: 'StartDate must be a date (yyyy-mm-dd)' }) StartDate!: string;
  @Field(() => String, { description: 'yyyy-mm-dd: the first day a run bills (not before StartDate).' })
  @Matches(ISO_DATE, { message: 'NextBillDate must be a date (yyyy-mm-dd)' }) NextBillDate!: string;
  @Field(() => String, { nullable: true, description: `One of ${SCHEDULE_STATUSES.join(', ')} (default active). Runs bill only active schedules; ended is final.` })
  @IsOptional() @IsIn(SCHEDULE_STATUSES) Status?: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'The stored payment method the gateway charges: a token reference (letters, digits, _ - . :), never card data. Absent: unchanged; empty: removed. Never returned (HasProfile says whether one is set).',
  })
  @IsOptional() @IsString() @Length(0, 200) PaymentProfile?: string | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @IsInt() @Min(1) @Max(MAX_ID) GroupId?: number | null;
  @Field(() => Int, { nullable: true, description: 'A category item of the tenant.' }) @IsOptional() @IsInt() @Min(1) @Max(MAX_ID) CategoryItemId?: number | null;
  @Field(() => Int, { nullable: true, description: 'An event of the tenant.' }) @IsOptional() @IsInt() @Min(1) @Max(MAX_ID) EventId?: number | null;
  @Field(() => [String], { nullable: true, description: 'Up to 20 tags (kept lower case).' }) @IsOptional() @ArrayMaxSize(20) @IsString({ each: true }) @Length(1, 50, { each: true })
  Tags?: string[] | null;
  @Field(() => Int, { nullable: true, description: 'The version read (updates); a stale one is 409.' }) @IsOptional() @IsInt() AuditId?: number | null;
}
