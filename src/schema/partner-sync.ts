import { IsOptional, Length, Matches, MaxLength, Min, ValidateNested } from 'class-validator';
import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { AcrossFields, always, eitherOf, everyOf, isPresent, within, type CrossFieldRule } from '../core/argument-rules.js';
import { BadInput } from '../core/errors.js';

/*
 * Partner synchronization models. PartnerAudit is the partner's view of one organization or
 * person; PartnerTransaction carries one change of it (its documented `Transaction` str is a JSON
 * object here: PartnerTransactionDataInput, see there).
 */

/** ISO 8601 date-time from the year 0001 on; a time without zone is UTC. */
export const ISO_INSTANT = /^(?!0000)\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

@ObjectType({ description: 'The partner view of one business (organization) or individual (person) contact.' })
export class PartnerAudit {
  @Field(() => String, { nullable: true, description: 'As the partner sent it; otherwise Organization or Person.' }) ContactType!: string | null;
  @Field(() => Int, { nullable: true, description: 'The partner\'s national identifier.' }) NationalID!: number | null;
  @Field(() => Int, { nullable: true, description: 'Our contact id.' }) PlatformID!: number | null;
  @Field(() => String, { nullable: true, description: 'The state-level identifier.' }) StateID!: string | null;
  @Field(() => String, { nullable: true }) Affiliation!: string | null;
  @Field(() => String, { nullable: true }) URL!: string | null;
  @Field(() => String, { nullable: true }) Name!: string | null;
  @Field(() => String, { nullable: true }) FirstName!: string | null;
  @Field(() => String, { nullable: true }) LastName!: string | null;
  @Field(() => String, { nullable: true }) Email!: string | null;
  @Field(() => String, { nullable: true }) Title!: string | null;
  @Field(() => String, { nullable: true }) Designation!: string | null;
  @Field(() => String, { nullable: true }) OU!: string | null;
  @Field(() => String, { nullable: true }) NumberOfEmployees!: string | null;
  @Field(() => String, { nullable: true }) AgencyType!: string | null;
  @Field(() => String, { nullable: true }) EOPolicyNumber!: string | null;
  @Field(() => String, { nullable: true }) Status!: string | null;
  @Field(() => Int, { nullable: true, description: 'NationalID of the parent organization (a person: of their organization).' }) ParentNationalId!: number | null;
  @Field(() => Int, { nullable: true, description: 'Our contact id of that parent organization.' }) PlatformParentId!: number | null;
  @Field(() => String, { nullable: true }) ParentAgency!: string | null;
  @Field(() => String, { nullable: true }) InformalFirstName!: string | null;
  @Field(() => String, { nullable: true }) Suffix!: string | null;
  @Field(() => String, { nullable: true }) MiddleInitial!: string | null;
  @Field(() => String, { nullable: true }) SocialLinkA!: string | null;
  @Field(() => String, { nullable: true }) SocialLinkB!: string | null;
  @Field(() => String, { nullable: true }) SocialLinkC!: string | null;
  @Field(() => String, { nullable: true }) FederalID!: string | null;
  @Field(() => String, { nullable: true }) Description!: string | null;
  @Field(() => String, { nullable: true }) SocialLinkD!: string | null;
  @Field(() => String, { nullable: true }) SocialLinkE!: string | null;
  @Field(() => String, { nullable: true }) JobTitle!: string | null;
  @Field(() => String, { nullable: true }) Department!: string | null;
  @Field(() => String, { nullable: true }) WorkPhoneExtension!: string | null;
  @Field(() => String, { nullable: true }) HomePhoneExtension!: string | null;
  @Field(() => String, { nullable: true }) OtherPhoneExtension!: string | null;
  @Field(() => String, { nullable: true }) PhoneExtension!: string | null;
  @Field(() => String, { nullable: true }) WorkPhone!: string | null;
  @Field(() => String, { nullable: true }) HomePhone!: string | null;
  @Field(() => String, { nullable: true }) OtherPhone!: string | null;
  @Field(() => String, { nullable: true }) MobilePhone!: string | null;
  @Field(() => String, { nullable: true }) Fax!: string | null;
  @Field(() => String, { nullable: true }) Phone!: string | null;
  @Field(() => String, { nullable: true }) PhysicalLine1!: string | null;
  @Field(() => String, { nullable: true }) PhysicalLine2!: string | null;
  @Field(() => String, { nullable: true }) PhysicalCity!: string | null;
  @Field(() => String, { nullable: true }) PhysicalState!: string | null;
  @Field(() => String, { nullable: true }) PhysicalZip!: string | null;
  @Field(() => String, { nullable: true }) PhysicalCountry!: string | null;
  @Field(() => String, { nullable: true }) MailingLine1!: string | null;
  @Field(() => String, { nullable: true }) MailingLine2!: string | null;
  @Field(() => String, { nullable: true }) MailingCity!: string | null;
  @Field(() => String, { nullable: true }) MailingState!: string | null;
  @Field(() => String, { nullable: true }) MailingZip!: string | null;
  @Field(() => String, { nullable: true }) MailingCountry!: string | null;
}

/** The text fields of PartnerAudit (all but the ids), in documented order. */
export type PartnerAuditText = Exclude<keyof PartnerAudit, 'NationalID' | 'PlatformID' | 'ParentNationalId' | 'PlatformParentId'>;

@InputType('PartnerAuditInput', {
  description: 'The partner\'s record. A field absent or null leaves ours unchanged; an empty string clears a text field, ParentNationalId 0 clears the parent. PlatformID and PlatformParentId are ours and not read.',
})
export class PartnerAuditInput {
  @Field(() => String, { nullable: true, description: 'Given back as sent (default Organization or Person).' }) @IsOptional() @MaxLength(64) ContactType?: string | null;
  @Field(() => Int, { nullable: true, description: 'Identifies the record; required in a national transaction.' }) @IsOptional() @Min(1) NationalID?: number | null;
  @Field(() => String, { nullable: true, description: 'Identifies the record in a state transaction that has no NationalID.' }) @IsOptional() @MaxLength(64) StateID?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(200) Affiliation?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(2048) URL?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(200) Name?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(100) FirstName?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(100) LastName?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(254) @Matches(/^$|^[^\s@]+@[^\s@]+\.[^\s@]+$/, { message: 'Email must be an e-mail address' }) Email?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(100) Title?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(100) Designation?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(200) OU?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(40) NumberOfEmployees?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(100) AgencyType?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(100) EOPolicyNumber?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(64) Status?: string | null;
  @Field(() => Int, { nullable: true, description: 'NationalID of the parent organization (a person: of their organization); one we have not seen yet is created as a placeholder organization.' })
  @IsOptional() @Min(0) ParentNationalId?: number | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(200) ParentAgency?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(100) InformalFirstName?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(40) Suffix?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(10) MiddleInitial?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(2048) SocialLinkA?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(2048) SocialLinkB?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(2048) SocialLinkC?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(64) FederalID?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(4000) Description?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(2048) SocialLinkD?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(2048) SocialLinkE?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(200) JobTitle?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(200) Department?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(20) WorkPhoneExtension?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(20) HomePhoneExtension?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(20) OtherPhoneExtension?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(20) PhoneExtension?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(40) WorkPhone?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(40) HomePhone?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(40) OtherPhone?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(40) MobilePhone?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(40) Fax?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(40) Phone?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(200) PhysicalLine1?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(200) PhysicalLine2?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(100) PhysicalCity?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(100) PhysicalState?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(20) PhysicalZip?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(100) PhysicalCountry?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(200) MailingLine1?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(200) MailingLine2?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(100) MailingCity?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(100) MailingState?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(20) MailingZip?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(100) MailingCountry?: string | null;
}

@InputType('PartnerTransactionDataInput', {
  description: 'The documented Transaction (str) of a PartnerTransaction, as a JSON object: the partner\'s message id, the partner\'s time of the change, and the record. '
    + 'The partner\'s ChangedAt decides the order (ties: the greater TransactionId), never the order of arrival.',
})
export class PartnerTransactionDataInput {
  @Field(() => String, { description: 'The partner\'s unique id of this message: a TransactionId applied before is recorded as a duplicate and changes nothing.' })
  @Length(1, 100) @Matches(/\S/, { message: 'TransactionId must not be blank' }) TransactionId!: string;

  @Field(() => String, { description: 'When the change happened at the partner (ISO 8601; no zone means UTC; millisecond precision; at most a day ahead of our clock).' })
  @Matches(ISO_INSTANT, { message: 'ChangedAt must be an ISO 8601 date-time' }) ChangedAt!: string;

  @Field(() => PartnerAuditInput, {
    description: 'The record. Upsert: its fields. Move: only StateID, Affiliation, ParentNationalId and ParentAgency are read (the new affiliation). Delete: only NationalID (or StateID).',
  })
  @ValidateNested() Record!: PartnerAuditInput;
}

/** Which record a transaction is about: its NationalID (required in a national transaction) or, in a state one, its StateID. */
const IDENTIFIES_ITS_RECORD: CrossFieldRule<PartnerTransactionInput> = {
  schema: {
    properties: { Transaction: { properties: { Record: { anyOf: [{ required: ['NationalID'], properties: { NationalID: { type: 'integer' } } }, { required: ['StateID'], properties: { StateID: { type: 'string', minLength: 1 } } }] } } } },
    if: { required: ['IsNational'], properties: { IsNational: { const: true } } },
    then: { properties: { Transaction: { properties: { Record: { required: ['NationalID'], properties: { NationalID: { type: 'integer' } } } } } } },
  },
  check({ IsNational, Transaction: { Record: record } }) {
    const nationalId = record.NationalID ?? null;
    if (IsNational && nationalId === null) throw BadInput.field('Transaction.Record.NationalID', 'is required in a national transaction');
    if (nationalId === null && !record.StateID) throw BadInput.field('Transaction.Record.NationalID', 'is required (or StateID, in a state transaction)');
  },
};

@InputType('PartnerTransactionInput', { description: 'One change sent by the partner.' })
@AcrossFields(IDENTIFIES_ITS_RECORD)
export class PartnerTransactionInput {
  @Field(() => PartnerTransactionDataInput) @ValidateNested() Transaction!: PartnerTransactionDataInput;

  @Field(() => Boolean, { nullable: true, description: 'True when the partner\'s national level sent it (NationalID required), false (the default) when a state level did.' })
  IsNational?: boolean | null;
}

@ObjectType({ description: 'What became of a partner transaction (the documents answer "200 only"; this is the body we send).' })
export class PartnerTransactionResult {
  @Field(() => Int, { description: 'Its entry in the transaction log (staff: partnerTransactions).' }) TransactionLogId!: number;
  @Field(() => String, { description: 'applied; stale (older than what we hold: nothing changed); duplicate (TransactionId applied before: nothing changed).' }) Outcome!: string;
  @Field(() => Int, { nullable: true, description: 'Our contact id (PlatformID).' }) PlatformID!: number | null;
  @Field(() => Int, { nullable: true }) NationalID!: number | null;
}

@ObjectType({ description: 'One of our changes to a partner-linked contact, for the partner to apply: the contact as PartnerAudit, with what happened and when.' })
export class PartnerChange extends PartnerAudit {
  @Field(() => String, { description: 'Changed or Deleted.' }) ChangeType!: string;
  @Field(() => String, { description: 'When we changed it (ISO 8601 UTC, microseconds).' }) ChangedAt!: string;
}

@ObjectType({ description: 'One page of the change feed, oldest first (by ChangedAt, then PlatformID).' })
export class PartnerChangesPage {
  @Field(() => [PartnerChange]) Changes!: PartnerChange[];
  @Field(() => String, { nullable: true, description: 'Pass as `after` for the next page; null on the last page.' }) NextCursor!: string | null;
}

@ObjectType({ description: 'One received partner transaction and what became of it (staff).' })
export class PartnerTransactionLogItem {
  @Field(() => Int) TransactionLogId!: number;
  @Field(() => String, { description: 'organization/upsert, person/move, ...' }) Operation!: string;
  @Field(() => Boolean) IsNational!: boolean;
  @Field(() => String, { nullable: true }) TransactionId!: string | null;
  @Field(() => String, { nullable: true, description: 'The partner\'s ChangedAt (ISO 8601).' }) ChangedAt!: string | null;
  @Field(() => Int, { nullable: true }) NationalID!: number | null;
  @Field(() => String, { nullable: true }) StateID!: string | null;
  @Field(() => Int, { nullable: true, description: 'Our contact id, once known.' }) PlatformID!: number | null;
  @Field(() => String, { description: 'received (being applied, or interrupted), applied, stale, duplicate or failed.' }) Outcome!: string;
  @Field(() => String, { nullable: true, description: 'Why it failed.' }) Reason!: string | null;
  @Field(() => String, { description: 'When we received it (ISO 8601).' }) ReceivedAt!: string;
  @Field(() => String, { nullable: true }) SettledAt!: string | null;
}

@ObjectType({ description: 'One period of a partner record\'s affiliation (the move history).' })
export class PartnerAffiliationItem {
  @Field(() => String, { nullable: true }) StateID!: string | null;
  @Field(() => String, { nullable: true }) Affiliation!: string | null;
  @Field(() => Int, { nullable: true }) ParentNationalId!: number | null;
  @Field(() => String, { description: 'The partner\'s ChangedAt that started it (ISO 8601).' }) ValidFrom!: string;
  @Field(() => String, { description: 'upsert or move.' }) Cause!: string;
  @Field(() => String) TransactionId!: string;
}

/** A record that changes its affiliation: a new Affiliation, ParentAgency or ParentNationalId, or a StateID with the NationalID (a StateID alone only identifies a state record). */
export const CHANGES_AFFILIATION = eitherOf(
  isPresent('Affiliation'), isPresent('ParentAgency'), isPresent('ParentNationalId'), everyOf(isPresent('StateID'), isPresent('NationalID')),
);

/** A move transaction changes its record's affiliation (the move operations check it beside the input's rules). */
export const MOVES_ITS_RECORD = always<PartnerTransactionInput>(
  within('Transaction.Record', CHANGES_AFFILIATION), 'Transaction.Record', 'a move needs the new StateID (with NationalID), Affiliation, ParentNationalId or ParentAgency',
);
