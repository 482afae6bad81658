import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { ArrayMaxSize, IsEmail, IsIn, IsOptional, IsUrl, Length, Matches, MaxLength, Min, ValidateNested } from 'class-validator';
import { GraphQLJSON } from 'graphql-scalars';
import { FilterBaseInput, ListResultType } from './common.js';
import { CustomFieldFilterInput, MAX_CUSTOM_FIELD_FILTERS } from './custom-fields.js';
import { AcrossFields, eitherOf, isGiven, isNotGiven, isOneOf, oneMarked, when } from '../core/argument-rules.js';

/** How many entries each of a contact's lists (e-mails, phones, addresses, websites) may hold. */
export const MAX_CONTACT_LIST_ENTRIES = 20;

const KIND_RULE = { message: 'Kind must be person or organization' };
const PERSON = isOneOf('Kind', ['person', 'Person']);
const ORGANIZATION = isOneOf('Kind', ['organization', 'Organization']);
const PRIMARY = 'The primary one of the list (exactly one when the list is not empty; a single entry is primary by default).';

@ObjectType('ContactEmail', { description: 'One e-mail address of a contact.' })
@InputType('ContactEmailInput')
export class ContactEmail {
  @Field(() => String) @MaxLength(254) @IsEmail({}, { message: 'EmailAddress must be an e-mail address' }) EmailAddress!: string;
  @Field(() => String, { nullable: true, description: 'Free text, e.g. Work, Home.' }) @IsOptional() @Length(0, 40) Kind?: string | null;
  @Field(() => Boolean, { nullable: true, description: PRIMARY }) @IsOptional() IsPrimary?: boolean | null;
}

@ObjectType('ContactPhone', { description: 'One phone number of a contact.' })
@InputType('ContactPhoneInput')
export class ContactPhone {
  @Field(() => String) @Length(1, 40) @Matches(/^[0-9+()./\s-]*[0-9][0-9+()./\s-]*$/, { message: 'PhoneNumber must be digits, spaces and + ( ) . / -' }) PhoneNumber!: string;
  @Field(() => String, { nullable: true, description: 'Free text, e.g. Work, Home; Mobile also fills the contact\'s mobile phone.' }) @IsOptional() @Length(0, 40) Kind?: string | null;
  @Field(() => Boolean, { nullable: true, description: PRIMARY }) @IsOptional() IsPrimary?: boolean | null;
}

@ObjectType('ContactAddress', { description: 'One postal address of a contact.' })
@InputType('ContactAddressInput')
export class ContactAddress {
  @Field(() => String, { nullable: true, description: 'Free text, e.g. Physical, Mailing (the partner feed reads those two).' }) @IsOptional() @Length(0, 40) Kind?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 200) Line1?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 200) Line2?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 100) City?: string | null;
  @Field(() => String, { nullable: true, description: 'State, province or region.' }) @IsOptional() @Length(0, 100) State?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 20) PostalCode?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 100) Country?: string | null;
  @Field(() => Boolean, { nullable: true, description: PRIMARY }) @IsOptional() IsPrimary?: boolean | null;
}

@ObjectType('ContactWebsite', { description: 'One website of a contact.' })
@InputType('ContactWebsiteInput')
export class ContactWebsite {
  @Field(() => String) @MaxLength(2048) @IsUrl({ require_protocol: true, protocols: ['http', 'https'] }, { message: 'Url must be an http(s) URL' }) Url!: string;
  @Field(() => String, { nullable: true, description: 'Free text, e.g. Company, Blog.' }) @IsOptional() @Length(0, 40) Kind?: string | null;
  @Field(() => Boolean, { nullable: true, description: PRIMARY }) @IsOptional() IsPrimary?: boolean | null;
}

@ObjectType('ContactModel', { description: 'A person or an organization, as staff read and edit it (our extension; AuditId as in the documented models).' })
export class ContactModel {
  @Field(() => Int) ContactId!: number;
  @Field(() => String, { description: 'person or organization.' }) Kind!: string;
  @Field(() => String, { description: 'The organization\'s name, else the person\'s Name, else first and last name.' }) DisplayName!: string;
  @Field(() => String, { nullable: true }) Prefix!: string | null;
  @Field(() => String, { nullable: true }) FirstName!: string | null;
  @Field(() => String, { nullable: true }) MiddleName!: string | null;
  @Field(() => String, { nullable: true }) LastName!: string | null;
  @Field(() => String, { nullable: true }) Suffix!: string | null;
  @Field(() => String, { nullable: true, description: 'The organization\'s name, or a person\'s display name.' }) Name!: string | null;
  @Field(() => String, { nullable: true }) Title!: string | null;
  @Field(() => String, { nullable: true }) JobTitle!: string | null;
  @Field(() => String, { nullable: true, description: 'The primary e-mail address.' }) EmailAddress!: string | null;
  @Field(() => String, { nullable: true, description: 'The primary phone number.' }) PhoneNumber!: string | null;
  @Field(() => [ContactEmail]) Emails!: ContactEmail[];
  @Field(() => [ContactPhone]) Phones!: ContactPhone[];
  @Field(() => [ContactAddress]) Addresses!: ContactAddress[];
  @Field(() => [ContactWebsite]) Websites!: ContactWebsite[];
  @Field(() => Boolean) IsTaxExempt!: boolean;
  @Field(() => String, { nullable: true }) TaxExemptNumber!: string | null;
  @Field(() => String, { nullable: true, description: 'Partner (national) identifier; unique among the tenant\'s live contacts.' }) NationalID!: string | null;
  @Field(() => String, { nullable: true }) StateID!: string | null;
  @Field(() => Int, { nullable: true, description: 'A person\'s current organization.' }) OrganizationId!: number | null;
  @Field(() => String, { nullable: true }) OrganizationName!: string | null;
  @Field(() => Int, { nullable: true, description: 'An organization\'s parent (chapters; read only here).' }) ParentOrganizationId!: number | null;
  @Field(() => Boolean) IsArchived!: boolean;
  @Field(() => String, { nullable: true, description: 'ISO 8601 instant the contact was archived.' }) ArchivedDate!: string | null;
  @Field(() => String, { description: 'ISO 8601 instant of the last change.' }) LastModifiedDate!: string;
  @Field(() => Int, { description: 'Record version for optimistic concurrency (send it back when saving or archiving).' }) AuditId!: number;
  @Field(() => GraphQLJSON, { description: 'The values of the tenant\'s custom fields for people or organizations, keyed by field key (retired fields\' values included).' })
  CustomFields!: Record<string, unknown>;
}

@AcrossFields<ContactInput>(
  when(PERSON, eitherOf(isGiven('FirstName'), isGiven('LastName')), 'FirstName', 'a person needs a first or last name'),
  when(ORGANIZATION, isGiven('Name'), 'Name', 'an organization needs a name'),
  when(ORGANIZATION, isNotGiven('OrganizationId'), 'OrganizationId', 'only a person belongs to an organization'),
  oneMarked('Emails', 'IsPrimary'), oneMarked('Phones', 'IsPrimary'), oneMarked('Websites', 'IsPrimary'), oneMarked('Addresses', 'IsPrimary'),
)
@InputType('ContactInput', { description: 'A person or an organization to create (contactId 0) or update. Lists are replaced as sent; a field left out (null) is cleared.' })
export class ContactInput {
  @Field(() => String, { description: 'person or organization; cannot change once created.' }) @IsIn(['person', 'organization', 'Person', 'Organization'], KIND_RULE) Kind!: string;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 20) Prefix?: string | null;
  @Field(() => String, { nullable: true, description: 'A person needs FirstName or LastName.' }) @IsOptional() @Length(0, 100) FirstName?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 100) MiddleName?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 100) LastName?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 40) Suffix?: string | null;
  @Field(() => String, { nullable: true, description: 'Required for an organization; a person\'s optional display name.' }) @IsOptional() @Length(0, 200) Name?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 100) Title?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 200) JobTitle?: string | null;
  @Field(() => [ContactEmail], { nullable: true }) @IsOptional() @ArrayMaxSize(MAX_CONTACT_LIST_ENTRIES) @ValidateNested({ each: true }) Emails?: ContactEmail[] | null;
  @Field(() => [ContactPhone], { nullable: true }) @IsOptional() @ArrayMaxSize(MAX_CONTACT_LIST_ENTRIES) @ValidateNested({ each: true }) Phones?: ContactPhone[] | null;
  @Field(() => [ContactAddress], { nullable: true }) @IsOptional() @ArrayMaxSize(MAX_CONTACT_LIST_ENTRIES) @ValidateNested({ each: true }) Addresses?: ContactAddress[] | null;
  @Field(() => [ContactWebsite], { nullable: true }) @IsOptional() @ArrayMaxSize(MAX_CONTACT_LIST_ENTRIES) @ValidateNested({ each: true }) Websites?: ContactWebsite[] | null;
  @Field(() => Boolean, { nullable: true }) @IsOptional() IsTaxExempt?: boolean | null;
  @Field(() => String, { nullable: true, description: 'The exemption certificate or number, when tax exempt.' }) @IsOptional() @Length(0, 64) TaxExemptNumber?: string | null;
  @Field(() => String, { nullable: true, description: 'Unique among the tenant\'s live contacts (409 naming NationalID otherwise).' }) @IsOptional() @Length(0, 64) NationalID?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 64) StateID?: string | null;
  @Field(() => Int, { nullable: true, description: 'A person\'s current organization: an organization contact of the tenant (0 or null: none).' }) @IsOptional() @Min(0) OrganizationId?: number | null;
  @Field(() => Int, { nullable: true, description: 'The AuditId read with the contact; a stale one is refused with 409.' }) @IsOptional() @Min(0) AuditId?: number | null;
  @Field(() => Boolean, { nullable: true, description: 'Create even when likely duplicates (same e-mail or name) exist; without it they answer 409 listing them.' }) @IsOptional() ForceSave?: boolean | null;
  @Field(() => GraphQLJSON, { nullable: true, description: 'Custom field values keyed by field key: keys sent replace (null clears), keys left out are kept; absent: no change. Checked against the definitions (400 naming CustomFields.<key>).' })
  @IsOptional() CustomFields?: unknown;
}

@ObjectType('ContactListCriteria', { description: 'Criteria of the contact list; every one given must match.' })
@InputType('ContactListCriteriaInput', { description: 'Criteria of the contact list; every one given must match.' })
export class ContactListCriteria {
  @Field(() => String, { nullable: true, description: 'person or organization.' }) @IsOptional() @IsIn(['person', 'organization', 'Person', 'Organization'], KIND_RULE) Kind?: string | null;
  @Field(() => Int, { nullable: true, description: 'Only the people of this organization.' }) @IsOptional() @Min(1) OrganizationId?: number | null;
  @Field(() => String, { nullable: true, description: 'Only contacts whose primary e-mail is this address (case-insensitive).' }) @IsOptional() @Length(0, 254) EmailAddress?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'true: only archived contacts; false or absent: only live ones (unless IncludeArchived).' }) @IsOptional() IsArchived?: boolean | null;
  @Field(() => Boolean, { nullable: true, description: 'true: live and archived contacts together.' }) @IsOptional() IncludeArchived?: boolean | null;
}

@InputType('ContactListFilterInput', { description: 'FilterBase (Filter matches names and the primary e-mail) plus Criteria.' })
export class ContactListFilterInput extends FilterBaseInput {
  @Field(() => ContactListCriteria, { nullable: true }) @IsOptional() @ValidateNested() Criteria?: ContactListCriteria | null;
  @Field(() => [CustomFieldFilterInput], { nullable: true, description: 'Custom-field conditions, all of which must hold.' })
  @IsOptional() @ArrayMaxSize(MAX_CUSTOM_FIELD_FILTERS) @ValidateNested({ each: true }) CustomFieldFilters?: CustomFieldFilterInput[] | null;
}

export const ContactListResult = ListResultType('ContactListResult', {
  description: 'ListResult of contacts (OrderBy Name (default), LastName, FirstName, EmailAddress, ContactId, LastModifiedDate).',
  item: ContactModel,
  criteria: ContactListCriteria,
  criteriaItemsDescription: 'The kinds (Id 0 person, 1 organization).',
  modelItemsDescription: 'The organizations of this page\'s people (Id = OrganizationId, Name).',
});

@ObjectType('ContactArchived', { description: 'What archiving a contact did, in the one transaction that archived it.' })
export class ContactArchived {
  @Field(() => Int) ContactId!: number;
  @Field(() => Int, { description: 'The archived contact\'s new AuditId.' }) AuditId!: number;
  @Field(() => Int, { description: 'Logins of the contact disabled (they cannot sign in until re-enabled).' }) LoginsDisabled!: number;
  @Field(() => Int, { description: 'Credentials (sessions, API keys) revoked.' }) CredentialsRevoked!: number;
  @Field(() => Int, { description: 'Pending and active memberships cancelled (end date the day before today, never before the start − 1).' }) MembershipsCancelled!: number;
  @Field(() => Int, { description: 'Billing schedules ended.' }) BillingSchedulesEnded!: number;
  @Field(() => [Int], { description: 'Pending store orders cancelled (stock back, invoice voided).' }) StoreOrdersCancelled!: number[];
  @Field(() => Int, { description: 'Contact-chapter links removed.' }) ChapterLinksRemoved!: number;
  @Field(() => Int, { description: 'Registrations of the contact for events not yet ended cancelled (seats back, invoices credited or voided).' }) EventRegistrationsCancelled!: number;
}
