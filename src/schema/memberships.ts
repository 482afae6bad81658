import { ArrayMaxSize, IsIn, IsOptional, Length, Matches, Max, Min, ValidateNested } from 'class-validator';
import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { GraphQLJSON } from 'graphql-scalars';
import { CALENDAR_DAY } from '../core/dates.js';
import { AcrossFields, isAbsentOrGiven, isGiven, isOneOf, notAfterToday, when } from '../core/argument-rules.js';
import { FilterBaseInput, ListResultType } from './common.js';
import { CustomFieldFilterInput, MAX_CUSTOM_FIELD_FILTERS } from './custom-fields.js';

/*
 * Membership types (with their levels) and memberships: our additions (the documents reference
 * them by id only), named like the documented models. Money is text with at most two decimals
 * ("120.00"), exact. Days are yyyy-mm-dd (UTC).
 */

const MONEY = /^\s*\d{1,10}(\.\d{1,2})?\s*$/;
export const MEMBERSHIP_STATUSES = ['pending', 'active', 'lapsed', 'cancelled'] as const;
export const PERIOD_TYPES = ['rolling', 'fixed'] as const;

@ObjectType('MembershipLevelItem', { description: 'One level (tier) of a membership type, in its order.' })
export class MembershipLevelItem {
  @Field(() => Int) MembershipLevelId!: number;
  @Field(() => String) Name!: string;
  @Field(() => Int, { description: 'Position within the type (the order Levels were sent in).' }) SortOrder!: number;
  @Field(() => String, { nullable: true, description: 'The price of a term at this level (null: the type\'s).' }) Price!: string | null;
  @Field(() => Int, { nullable: true, description: 'The benefit package of this level (null: the type\'s).' }) BenefitPackageId!: number | null;
}

@InputType('MembershipLevelInput', { description: 'One level of the type: MembershipLevelId 0 or absent adds it; a level of the type keeps its id.' })
export class MembershipLevelInput {
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(0) MembershipLevelId?: number | null;
  @Field(() => String) @Length(1, 200) @Matches(/\S/, { message: 'Name must not be blank' }) Name!: string;
  @Field(() => String, { nullable: true, description: 'Price of a term at this level, e.g. "120.00" (null: the type\'s).' })
  @IsOptional() @Matches(MONEY, { message: 'Price must be an amount with at most two decimals' }) Price?: string | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(1) BenefitPackageId?: number | null;
}

@ObjectType('MembershipTypeAddEdit', { description: 'A membership type with its levels.' })
export class MembershipTypeAddEdit {
  @Field(() => Int) MembershipTypeId!: number;
  @Field(() => Int, { description: 'Record version for optimistic concurrency (send it back when saving).' }) AuditId!: number;
  @Field(() => String) Name!: string;
  @Field(() => String, { nullable: true }) Description!: string | null;
  @Field(() => Boolean, { description: 'An inactive type keeps its members but takes no new ones.' }) IsActive!: boolean;
  @Field(() => Int, { nullable: true, description: 'Length of a term in months (null: open-ended terms).' }) DurationMonths!: number | null;
  @Field(() => String, { description: 'rolling: a term runs DurationMonths from its start; fixed: to the end of the period it starts in.' }) PeriodType!: string;
  @Field(() => Int, { nullable: true, description: 'fixed: the month (1–12) periods start in.' }) FixedStartMonth!: number | null;
  @Field(() => Int, { nullable: true, description: 'fixed: the day (1–28) periods start on.' }) FixedStartDay!: number | null;
  @Field(() => Int, { description: 'Days after a term\'s end date its member still counts as in good standing.' }) GraceDays!: number;
  @Field(() => String, { nullable: true, description: 'The price of a term (null: the saleable item\'s, if any).' }) Price!: string | null;
  @Field(() => Int, { nullable: true, description: 'What an invoice for a term sells.' }) SaleableItemId!: number | null;
  @Field(() => Int, { nullable: true }) BenefitPackageId!: number | null;
  @Field(() => [MembershipLevelItem]) Levels!: MembershipLevelItem[];
}

@AcrossFields<MembershipTypeInput>(
  when(isOneOf('PeriodType', ['fixed']), isGiven('FixedStartMonth'), 'FixedStartMonth', 'is required for a fixed period'),
  // Absent means the default of 12 months; null or 0 (open-ended) has no period end to fix.
  when(isOneOf('PeriodType', ['fixed']), isAbsentOrGiven('DurationMonths'), 'DurationMonths', 'is required for a fixed period'),
)
@InputType('MembershipTypeInput', {
  description: 'A membership type to create (id 0) or update. Levels absent: the levels stay; present: the type has exactly these, in this order (a removed level still used answers 409).',
})
export class MembershipTypeInput {
  @Field(() => Int, { nullable: true, description: 'The AuditId read with the type; a stale one is refused with 409.' }) @IsOptional() @Min(0) AuditId?: number | null;
  @Field(() => String) @Length(1, 200) @Matches(/\S/, { message: 'Name must not be blank' }) Name!: string;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 4000) Description?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'Default true.' }) IsActive?: boolean | null;
  @Field(() => Int, { nullable: true, description: 'Months, 1–120; null or 0: open-ended terms. Default 12 for a new type.' })
  @IsOptional() @Min(0) @Max(120) DurationMonths?: number | null;
  @Field(() => String, { nullable: true, description: 'rolling (default) or fixed.' }) @IsOptional() @IsIn(PERIOD_TYPES) PeriodType?: string | null;
  @Field(() => Int, { nullable: true, description: 'fixed: the month (1–12) periods start in (required with fixed).' }) @IsOptional() @Min(1) @Max(12) FixedStartMonth?: number | null;
  @Field(() => Int, { nullable: true, description: 'fixed: the day (1–28) periods start on; default 1.' }) @IsOptional() @Min(1) @Max(28) FixedStartDay?: number | null;
  @Field(() => Int, { nullable: true, description: '0–365, default 0.' }) @IsOptional() @Min(0) @Max(365) GraceDays?: number | null;
  @Field(() => String, { nullable: true, description: 'Price of a term, e.g. "120.00".' }) @IsOptional() @Matches(MONEY, { message: 'Price must be an amount with at most two decimals' }) Price?: string | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(1) SaleableItemId?: number | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(1) BenefitPackageId?: number | null;
  @Field(() => [MembershipLevelInput], { nullable: true }) @IsOptional() @ArrayMaxSize(100) @ValidateNested({ each: true }) Levels?: MembershipLevelInput[] | null;
}

@ObjectType('MembershipTypeCollectionItem', { description: 'A membership type as listed.' })
export class MembershipTypeCollectionItem {
  @Field(() => Int) MembershipTypeId!: number;
  @Field(() => Int) AuditId!: number;
  @Field(() => String) Name!: string;
  @Field(() => String, { nullable: true }) Description!: string | null;
  @Field(() => Boolean) IsActive!: boolean;
  @Field(() => Int, { nullable: true }) DurationMonths!: number | null;
  @Field(() => String) PeriodType!: string;
  @Field(() => Int) GraceDays!: number;
  @Field(() => String, { nullable: true }) Price!: string | null;
  @Field(() => Int) LevelsCount!: number;
  @Field(() => [String], { description: 'Actions the caller may take on the row.' }) Actions!: readonly string[];
}

@ObjectType('MembershipTypeCriteria', { description: 'The membership type list has no criteria besides the options (Criteria is always null).' })
export class MembershipTypeCriteria {
  @Field(() => Boolean, { nullable: true }) IsActive!: boolean | null;
}

export const MembershipTypeResult = ListResultType('MembershipTypeResult', {
  description: 'ListResult of membership types (GET /api/membershiptypes). OrderBy Name (default), MembershipTypeId; Filter matches Name and Description.',
  item: MembershipTypeCollectionItem,
  criteria: MembershipTypeCriteria,
  criteriaItemsDescription: 'Empty.',
  modelItemsDescription: 'Empty.',
});

@ObjectType('Membership', { description: 'One term of a contact\'s membership of a type (a renewal is a new term).' })
export class MembershipView {
  @Field(() => Int) MembershipId!: number;
  @Field(() => Int) AuditId!: number;
  @Field(() => Int) ContactId!: number;
  @Field(() => String, { description: 'The contact\'s display name.' }) ContactName!: string;
  @Field(() => Int) MembershipTypeId!: number;
  @Field(() => String) MembershipTypeName!: string;
  @Field(() => Int, { nullable: true }) MembershipLevelId!: number | null;
  @Field(() => String, { nullable: true }) MembershipLevelName!: string | null;
  @Field(() => String, { description: 'First day of membership, carried over by renewals.' }) JoinDate!: string;
  @Field(() => String) StartDate!: string;
  @Field(() => String, { nullable: true, description: 'Last day of the term (null: open-ended).' }) EndDate!: string | null;
  @Field(() => String, { nullable: true, description: 'Last day the member counts as in good standing: EndDate + the type\'s grace days.' }) GoodThrough!: string | null;
  @Field(() => String, { description: 'pending, active, lapsed or cancelled.' }) Status!: string;
  @Field(() => Boolean, { description: 'Staff set the status by hand: the daily lapse job leaves it alone.' }) StatusOverride!: boolean;
  @Field(() => Boolean, { description: 'In good standing today (the one rule: active, started, GoodThrough not passed).' }) InGoodStanding!: boolean;
  @Field(() => String, { nullable: true, description: 'Why it was cancelled.' }) CancelReason!: string | null;
  @Field(() => Int, { nullable: true, description: 'The invoice that billed this term, if any.' }) InvoiceId!: number | null;
  @Field(() => GraphQLJSON, { description: 'The values of the tenant\'s custom fields for memberships, keyed by field key (retired fields\' values included).' })
  CustomFields!: Record<string, unknown>;
}

@InputType('MembershipInput', {
  description: 'A term to enrol (id 0) or change. Status: a new term is pending unless "active"; any other change of status needs StatusOverride true (a staff override the lapse job respects); StatusOverride false clears it.',
})
export class MembershipInput {
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(0) AuditId?: number | null;
  @Field(() => Int, { nullable: true, description: 'Required to enrol; a term keeps its contact.' }) @IsOptional() @Min(1) ContactId?: number | null;
  @Field(() => Int, { description: 'A term keeps its type (renew or enrol again instead).' }) @Min(1) MembershipTypeId!: number;
  @Field(() => Int, { nullable: true, description: 'A level of the type.' }) @IsOptional() @Min(1) MembershipLevelId?: number | null;
  @Field(() => String, { nullable: true, description: 'Default: the start date (or, following a term of the type, its join date).' })
  @IsOptional() @Matches(CALENDAR_DAY, { message: 'JoinDate must be a date (yyyy-mm-dd)' }) JoinDate?: string | null;
  @Field(() => String, { nullable: true, description: 'Default today.' }) @IsOptional() @Matches(CALENDAR_DAY, { message: 'StartDate must be a date (yyyy-mm-dd)' }) StartDate?: string | null;
  @Field(() => String, { nullable: true, description: 'Default: from the type\'s duration and period.' }) @IsOptional() @Matches(CALENDAR_DAY, { message: 'EndDate must be a date (yyyy-mm-dd)' }) EndDate?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @IsIn(MEMBERSHIP_STATUSES) Status?: string | null;
  @Field(() => Boolean, { nullable: true }) StatusOverride?: boolean | null;
  @Field(() => Boolean, { nullable: true, description: 'Enrolling: raise an invoice for the term at its level\'s or type\'s price; the term turns active when it is paid.' })
  BillIt?: boolean | null;
  @Field(() => GraphQLJSON, { nullable: true, description: 'Custom field values keyed by field key: keys sent replace (null clears), keys left out are kept; absent: no change. Checked against the definitions (400 naming CustomFields.<key>).' })
  @IsOptional() CustomFields?: unknown;
}

@InputType('MembershipRenewInput', { description: 'How to renew: BillIt raises an invoice for the new term, which stays pending until it is paid.' })
export class MembershipRenewInput {
  @Field(() => Boolean, { nullable: true }) BillIt?: boolean | null;
}

@AcrossFields<MembershipCancelInput>(notAfterToday('EffectiveDate', 'to end a membership later, set its EndDate'))
@InputType('MembershipCancelInput', { description: 'When and why a term ends early.' })
export class MembershipCancelInput {
  @Field(() => String, { nullable: true, description: 'The first day no longer covered (default today; not after today). EndDate becomes the day before, never before StartDate − 1.' })
  @IsOptional() @Matches(CALENDAR_DAY, { message: 'EffectiveDate must be a date (yyyy-mm-dd)' }) EffectiveDate?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 500) Reason?: string | null;
}

@InputType('MembershipFilterInput', { description: 'Paging and ordering (OrderBy StartDate desc by default, EndDate, MembershipId), Filter on the contact\'s name and e-mail, and criteria.' })
export class MembershipFilterInput extends FilterBaseInput {
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(1) ContactId?: number | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(1) MembershipTypeId?: number | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(1) MembershipLevelId?: number | null;
  @Field(() => String, { nullable: true }) @IsOptional() @IsIn(MEMBERSHIP_STATUSES) Status?: string | null;
  @Field(() => String, { nullable: true, description: 'Only terms in good standing on this day (yyyy-mm-dd).' })
  @IsOptional() @Matches(CALENDAR_DAY, { message: 'InGoodStandingOn must be a date (yyyy-mm-dd)' }) InGoodStandingOn?: string | null;
  @Field(() => [CustomFieldFilterInput], { nullable: true, description: 'Custom-field conditions, all of which must hold.' })
  @IsOptional() @ArrayMaxSize(MAX_CUSTOM_FIELD_FILTERS) @ValidateNested({ each: true }) CustomFieldFilters?: CustomFieldFilterInput[] | null;
}

@ObjectType('MembershipCriteria', { description: 'The criteria the membership list was read with.' })
export class MembershipCriteria {
  @Field(() => Int, { nullable: true }) ContactId!: number | null;
  @Field(() => Int, { nullable: true }) MembershipTypeId!: number | null;
  @Field(() => Int, { nullable: true }) MembershipLevelId!: number | null;
  @Field(() => String, { nullable: true }) Status!: string | null;
  @Field(() => String, { nullable: true }) InGoodStandingOn!: string | null;
}

export const MembershipResult = ListResultType('MembershipResult', {
  description: 'ListResult of membership terms (POST /api/memberships/items): Results one page, TotalRecordAvailable all matching terms.',
  item: MembershipView,
  criteria: MembershipCriteria,
  criteriaItemsDescription: 'The statuses.',
  modelItemsDescription: 'Empty.',
});
