import { ArrayMaxSize, IsBoolean, IsInt, IsOptional, IsString, Length, Matches, Max, Min, ValidateNested } from 'class-validator';
import { Field, Float, InputType, Int, ObjectType } from 'type-graphql';
import { LookupChoiceInt } from './common.js';
import { CALENDAR_DAY } from '../core/dates.js';

/** A real calendar day (yyyy-mm-dd): the services' own check, stated by the document. */
const ISO_DATE = CALENDAR_DAY;

@ObjectType('PaymentPlanItem', { description: 'One payment of a plan\'s schedule.' })
export class PaymentPlanItemView {
  @Field(() => Int) PaymentNumber!: number;
  @Field(() => String, { description: 'yyyy-mm-dd' }) DueDate!: string;
  @Field(() => Float, { description: 'Exact to the cent; the payments add up to the plan\'s total (the rounding remainder on the last).' }) Amount!: number;
}

@ObjectType('PaymentPlanSaleableItem', { description: 'A saleable item the plan covers.' })
export class PaymentPlanSaleableItemView {
  @Field(() => Int) SaleableItemId!: number;
  @Field(() => String, { nullable: true }) Name!: string | null;
  @Field(() => Float) Amount!: number;
}

@ObjectType('PaymentPlanEditor', { description: 'What the plan editor offers: the type\'s levels, the saleable items, and the plan\'s total.' })
export class PaymentPlanEditor {
  @Field(() => [LookupChoiceInt], { description: 'The membership type\'s levels (IsSelected: on the plan).' }) Levels!: LookupChoiceInt[];
  @Field(() => [LookupChoiceInt], { description: 'Active saleable items of type membership (IsSelected: on the plan; ExtraData: the price).' }) SaleableItems!: LookupChoiceInt[];
  @Field(() => Float, { description: 'Sum of the plan\'s saleable item amounts.' }) Total!: number;
}

@ObjectType('PaymentPlanAddEdit', { description: 'A payment plan of a membership type, for editing. MembershipTypePaymentPlanId 0: a new plan (or a copy).' })
export class PaymentPlanAddEdit {
  @Field(() => Int) MembershipTypePaymentPlanId!: number;
  @Field(() => Int) MembershipTypeId!: number;
  @Field(() => Int) Payments!: number;
  @Field(() => String, { nullable: true, description: 'yyyy-mm-dd: the first payment is due then, the others monthly after it.' }) StartDate!: string | null;
  @Field(() => String, { nullable: true, description: 'yyyy-mm-dd: the last day the plan is offered (null: open).' }) EndDate!: string | null;
  @Field(() => Boolean) ShowOnApplication!: boolean;
  @Field(() => String, { nullable: true }) Name!: string | null;
  @Field(() => Int) TenantId!: number;
  @Field(() => [Int], { description: 'The levels the plan is for (JSON array of ids; empty: every level).' }) MembershipLevelId!: number[];
  @Field(() => [PaymentPlanSaleableItemView]) SaleableItems!: PaymentPlanSaleableItemView[];
  @Field(() => [PaymentPlanItemView]) PaymentPlanItems!: PaymentPlanItemView[];
  @Field(() => PaymentPlanEditor) PaymentPlanEditor!: PaymentPlanEditor;
  @Field(() => Int, { description: 'Record version: send it back when saving (stale: 409).' }) AuditId!: number;
}

@ObjectType('PaymentPlanCollectionItem', { description: 'A payment plan as listed.' })
export class PaymentPlanCollectionItem {
  @Field(() => Int) MembershipTypePaymentPlanId!: number;
  @Field(() => Int) MembershipTypeId!: number;
  @Field(() => Int) Payments!: number;
  @Field(() => String, { nullable: true }) StartDate!: string | null;
  @Field(() => String, { nullable: true }) EndDate!: string | null;
  @Field(() => Boolean) ShowOnApplication!: boolean;
  @Field(() => String, { nullable: true }) Name!: string | null;
  @Field(() => String, { description: 'The levels\' names, comma-separated ("All levels" when none is named).' }) Level!: string;
  @Field(() => [String], { description: 'Actions the caller may take on the row.' }) Actions!: readonly string[];
  @Field(() => Float, { description: 'The plan\'s total.' }) Total!: number;
  @Field(() => Int) AuditId!: number;
}

@ObjectType('PaymentPlans', { description: 'The payment plans of a membership type.' })
export class PaymentPlans {
  @Field(() => Int) MembershipTypeId!: number;
  @Field(() => [PaymentPlanCollectionItem]) Plans!: PaymentPlanCollectionItem[];
}

@InputType('PaymentPlanSaleableItemInput')
export class PaymentPlanSaleableItemInput {
  @Field(() => Int) @IsInt() @Min(1) @Max(2147483647) SaleableItemId!: number;
  @Field(() => Float, { nullable: true, description: 'The plan\'s amount for the item (absent: its price).' }) Amount?: number | null;
}

@InputType('PaymentPlanAddEditInput', {
  description: 'A payment plan to create or update. The path\'s ids win over the body\'s; TenantId, PaymentPlanItems and PaymentPlanEditor are computed and never read.',
})
export class PaymentPlanAddEditInput {
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(0) MembershipTypePaymentPlanId?: number | null;
  @Field(() => Int) @IsInt() @Min(1) @Max(120) Payments!: number;
  @Field(() => String) @Matches(ISO_DATE, { message: 'StartDate must be a date (yyyy-mm-dd)' }) StartDate!: string;
  @Field(() => String, { nullable: true }) @IsOptional() @Matches(ISO_DATE, { message: 'EndDate must be a date (yyyy-mm-dd)' }) EndDate?: string | null;
  @Field(() => Boolean, { nullable: true }) @IsOptional() @IsBoolean() ShowOnApplication?: boolean | null;
  @Field(() => String) @IsString() @Length(1, 200) @Matches(/\S/, { message: 'Name must not be blank' }) Name!: string;
  @Field(() => [Int], { nullable: true, description: 'JSON array of level ids of the membership type (empty: every level).' })
  @IsOptional() @ArrayMaxSize(100) @IsInt({ each: true }) @Min(1, { each: true }) @Max(2147483647, { each: true }) MembershipLevelId?: number[] | null;
  @Field(() => [PaymentPlanSaleableItemInput]) @ArrayMaxSize(50) @ValidateNested({ each: true }) SaleableItems!: PaymentPlanSaleableItemInput[];
  @Field(() => Int, { nullable: true, description: 'The AuditId read with the plan; a stale one is refused with 409.' }) @IsOptional() @Min(0) AuditId?: number | null;
}
