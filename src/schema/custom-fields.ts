import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { ArrayMaxSize, IsIn, IsOptional, Length, Matches, Max, MaxLength, Min } from 'class-validator';
import { CUSTOM_FIELD_KEY, CUSTOM_FIELD_KINDS, CUSTOM_FIELD_TARGETS, CUSTOM_FIELD_VISIBILITIES } from '../entities/custom-field.js';
import { AcrossFields, hasEntries, hasNoEntries, isOneOf, when } from '../core/argument-rules.js';

const TARGETS = [...CUSTOM_FIELD_TARGETS, 'Person', 'Organization', 'Membership'];
/** The kinds whose values are picked from Choices. */
const CHOICE_KINDS: readonly string[] = ['choice', 'multi_choice'];
/** A choice: not blank, and no ";" (it separates choices in a CSV cell). */
const CHOICE = /^[^;]*[^;\s][^;]*$/;
const CHOICE_MESSAGE = 'Choices must not be blank nor contain ";", which separates choices in a CSV cell';

@ObjectType('CustomField', { description: 'A field a tenant adds to its people, organizations or memberships (our extension, issue 38).' })
export class CustomFieldModel {
  @Field(() => Int) CustomFieldId!: number;
  @Field(() => String, { description: 'person, organization or membership.' }) AppliesTo!: string;
  @Field(() => String, { description: 'The stable machine name values are keyed by (never changes).' }) Key!: string;
  @Field(() => String) Label!: string;
  @Field(() => String, { description: 'text, number, date, choice, multi_choice or yes_no.' }) Kind!: string;
  @Field(() => [String], { description: 'The choices of a choice or multi_choice field, in order.' }) Choices!: string[];
  @Field(() => Boolean, { description: 'Every save of a record must leave it a value (not enforced once retired).' }) Required!: boolean;
  @Field(() => String, { description: 'staff (staff only), members (also signed-in members), public (also public directory listings).' }) Visibility!: string;
  @Field(() => Int, { description: 'Order in forms and listings.' }) Position!: number;
  @Field(() => Boolean, { description: 'Retired: values kept and read, not required, not writable.' }) IsRetired!: boolean;
  @Field(() => String, { nullable: true, description: 'ISO 8601 instant it was retired.' }) RetiredDate!: string | null;
  @Field(() => Int, { description: 'Record version for optimistic concurrency (send it back when saving, retiring or restoring).' }) AuditId!: number;
  @Field(() => [String], { description: 'Actions the caller may take on the row.' }) Actions!: readonly string[];
}

@AcrossFields<CustomFieldInput>(
  ...CUSTOM_FIELD_KINDS.filter((kind) => !CHOICE_KINDS.includes(kind)).map((kind) => when(isOneOf('Kind', [kind]), hasNoEntries('Choices'), 'Choices', `a ${kind} field has no choices`)),
  when(isOneOf('Kind', CHOICE_KINDS), hasEntries('Choices'), 'Choices', 'a choice field needs at least one choice'),
)
@InputType('CustomFieldInput', { description: 'A custom field to define (customFieldId 0) or change. Key and AppliesTo never change; Kind only while no record holds a value.' })
export class CustomFieldInput {
  @Field(() => String, { description: 'person, organization or membership.' }) @IsIn(TARGETS, { message: 'AppliesTo must be person, organization or membership' }) AppliesTo!: string;
  @Field(() => String, { description: 'Lower-case letter, then lower-case letters, digits or _ (at most 63); unique per target.' })
  @Matches(CUSTOM_FIELD_KEY, { message: 'Key must be a lower-case letter followed by at most 62 lower-case letters, digits or _' }) Key!: string;
  @Field(() => String) @Length(1, 200) @Matches(/\S/, { message: 'Label must not be blank' }) Label!: string;
  @Field(() => String) @IsIn([...CUSTOM_FIELD_KINDS], { message: `Kind must be one of ${CUSTOM_FIELD_KINDS.join(', ')}` }) Kind!: string;
  @Field(() => [String], { nullable: true, description: 'choice and multi_choice: 1–200 distinct choices without ";".' })
  @IsOptional() @ArrayMaxSize(200) @MaxLength(200, { each: true }) @Matches(CHOICE, { each: true, message: CHOICE_MESSAGE }) Choices?: string[] | null;
  @Field(() => Boolean, { nullable: true, description: 'Default false.' }) @IsOptional() Required?: boolean | null;
  @Field(() => String, { nullable: true, description: 'staff (default), members or public.' })
  @IsOptional() @IsIn([...CUSTOM_FIELD_VISIBILITIES], { message: 'Visibility must be staff, members or public' }) Visibility?: string | null;
  @Field(() => Int, { nullable: true, description: 'Default: after the last field of the target.' }) @IsOptional() @Min(0) @Max(100000) Position?: number | null;
  @Field(() => Int, { nullable: true, description: 'The AuditId read with the field; a stale one is refused with 409.' }) @IsOptional() @Min(0) AuditId?: number | null;
}

@InputType('CustomFieldFilterInput', {
  description: 'One custom-field condition of a list: Value (in the CSV text form: multi_choice holds that choice, yes_no Yes/No, text exact) and/or From–To (number and date, inclusive).',
})
export class CustomFieldFilterInput {
  @Field(() => String) @Matches(CUSTOM_FIELD_KEY, { message: 'Key must be a lower-case letter followed by at most 62 lower-case letters, digits or _' }) Key!: string;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 4000) Value?: string | null;
  @Field(() => String, { nullable: true, description: 'number or date: at least this.' }) @IsOptional() @Length(0, 40) From?: string | null;
  @Field(() => String, { nullable: true, description: 'number or date: at most this.' }) @IsOptional() @Length(0, 40) To?: string | null;
}

/** At most this many custom-field conditions in one list request. */
export const MAX_CUSTOM_FIELD_FILTERS = 10;
