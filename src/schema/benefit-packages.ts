import { ArrayMaxSize, IsOptional, Length, Matches, Min, ValidateNested } from 'class-validator';
import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { CALENDAR_DAY } from '../core/dates.js';
import { AcrossFields, notBefore } from '../core/argument-rules.js';

/** A real calendar day (yyyy-mm-dd): the services' own check, stated by the document. */
const ISO_DATE = CALENDAR_DAY;

@ObjectType({ description: 'One benefit of a package.' })
export class BenefitItem {
  @Field(() => Int, { description: 'Numbers the item within its package.' }) BenefitItemId!: number;
  @Field(() => String) Name!: string;
  @Field(() => String, { nullable: true }) Description!: string | null;
  @Field(() => Boolean, { description: 'An inactive item stays on the package but is not offered.' }) IsActive!: boolean;
}

@InputType('BenefitItemInput', { description: 'One benefit of a package: BenefitItemId 0 or absent adds it.' })
export class BenefitItemInput {
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(0) BenefitItemId?: number | null;
  @Field(() => String) @Length(1, 200) @Matches(/\S/, { message: 'Name must not be blank' }) Name!: string;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 2000) Description?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'Default true.' }) IsActive?: boolean | null;
}

@ObjectType({ description: 'When a package is active (the documented ActiveDates): ISO dates, either open.' })
export class BenefitActiveDates {
  @Field(() => String, { nullable: true }) Start!: string | null;
  @Field(() => String, { nullable: true }) End!: string | null;
}

@InputType('BenefitActiveDatesInput')
export class BenefitActiveDatesInput {
  @Field(() => String, { nullable: true }) @IsOptional() @Matches(ISO_DATE, { message: 'Start must be a date (yyyy-mm-dd)' }) Start?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Matches(ISO_DATE, { message: 'End must be a date (yyyy-mm-dd)' }) End?: string | null;
}

@ObjectType({ description: 'A benefit package as listed.' })
export class BenefitPackageCollectionItem {
  @Field(() => Int) BenefitPackageId!: number;
  @Field(() => Int, { description: 'The same as BenefitPackageId.' }) Id!: number;
  @Field(() => String, { nullable: true }) Name!: string | null;
  @Field(() => String, { nullable: true }) Description!: string | null;
  @Field(() => String, { nullable: true, description: 'ISO date; null: active from the start.' }) ActivePeriodStart!: string | null;
  @Field(() => String, { nullable: true, description: 'ISO date; null: active without end.' }) ActivePeriodEnd!: string | null;
  @Field(() => Int, { description: 'How many membership types and levels the package is assigned to.' }) Assignments!: number;
  @Field(() => [String], { description: 'Actions the caller may take on the row.' }) Actions!: readonly string[];
}

@ObjectType({ description: 'A benefit package as read for editing.' })
export class BenefitPackageAddEdit {
  @Field(() => Int) BenefitPackageId!: number;
  @Field(() => String, { nullable: true }) Name!: string | null;
  @Field(() => String, { nullable: true }) Description!: string | null;
  @Field(() => BenefitActiveDates) ActiveDates!: BenefitActiveDates;
  @Field(() => [BenefitItem]) BenefitItems!: BenefitItem[];
  @Field(() => Boolean) ForceSave!: boolean;
  @Field(() => Int, { description: 'Record version for optimistic concurrency (send it back when saving).' }) AuditId!: number;
}

@ObjectType({ description: 'The template for copying a package: a new name, its active items, and the inactive ones listed apart.' })
export class BenefitPackageCopy extends BenefitPackageAddEdit {
  @Field(() => [BenefitItem], { description: 'Items of the source that are no longer active (not copied unless sent back in BenefitItems).' })
  InactiveBenefitItems!: BenefitItem[];
}

@AcrossFields<BenefitPackageAddEditInput>(notBefore('ActiveDates.End', 'Start'))
@InputType('BenefitPackageAddEditInput', { description: 'A benefit package to create or update (the path id wins over BenefitPackageId).' })
export class BenefitPackageAddEditInput {
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(0) BenefitPackageId?: number | null;
  @Field(() => String) @Length(1, 200) @Matches(/\S/, { message: 'Name must not be blank' }) Name!: string;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 4000) Description?: string | null;
  @Field(() => BenefitActiveDatesInput, { nullable: true }) @IsOptional() @ValidateNested() ActiveDates?: BenefitActiveDatesInput | null;
  @Field(() => [BenefitItemInput], { nullable: true }) @IsOptional() @ArrayMaxSize(200) @ValidateNested({ each: true }) BenefitItems?: BenefitItemInput[] | null;
  @Field(() => Boolean, { nullable: true, description: 'Save even when another package has the same name.' }) ForceSave?: boolean | null;
  @Field(() => Int, { nullable: true, description: 'The AuditId read with the package; a stale one is refused with 409.' }) @IsOptional() @Min(0) AuditId?: number | null;
}

@InputType('BenefitPackageCopyInput', { description: 'The copy to create (from the copy template); InactiveBenefitItems are not copied.' })
export class BenefitPackageCopyInput extends BenefitPackageAddEditInput {
  @Field(() => [BenefitItemInput], { nullable: true, description: 'Accepted as sent back by clients; not copied.' }) InactiveBenefitItems?: BenefitItemInput[] | null;
}

@ObjectType({ description: 'A membership type or level a package is assigned to.' })
export class BenefitAssignmentItem {
  @Field(() => String, { description: 'MembershipType or MembershipLevel.' }) Kind!: string;
  @Field(() => Int) Id!: number;
  @Field(() => String) Name!: string;
}

@ObjectType({ description: 'Where a benefit package is assigned.' })
export class BenefitPackageAssignment {
  @Field(() => Int) BenefitPackageId!: number;
  @Field(() => [BenefitAssignmentItem]) AssignmentItem!: BenefitAssignmentItem[];
}
