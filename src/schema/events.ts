import {
  ArrayMaxSize, IsDefined, IsEmail, IsIn, IsInt, IsOptional, IsString, IsUrl, Length, Matches, Max, MaxLength, Min, ValidateNested,
} from 'class-validator';
import { Field, Float, InputType, Int, ObjectType, type ClassType } from 'type-graphql';
import { CAPTCHA_PROVIDERS, EVENT_OFFERING_KINDS, EVENT_STATUSES } from '../entities/event.js';
import { BillingVoucher } from './vouchers.js';

/*
 * Events: the documented models (BillingContactInfo, SaveRegisterAttendees, SaveEventRegisterV2,
 * EventTableManagement, EventGroup, EventGoalWidget, PublicApiResponse) and the GraphQL-only staff
 * management types (prefixed Event…). Compound fields the documents type str (Models,
 * Registrations, Groups, Members, …) are typed lists here (CONVENTIONS).
 */

/** An ISO 8601 date-time (UTC or with an offset). */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

// ---------- PublicApiResponse ----------

/**
 * The documented PublicApiResponse for one operation's Data: Status (the HTTP status, also sent as
 * the HTTP status), StatusMessage, Data. Each operation's Data has its own type, so each response
 * gets its own GraphQL type named `name`. Failures are errors (REST: a problem document that also
 * carries Status, StatusMessage and Data null).
 */
function PublicApiResponseType(name: string, data: () => ClassType | typeof Boolean, description: string): ClassType {
  @ObjectType(name, { description })
  class PublicApiResponse {
    @Field(() => Int, { description: 'The HTTP status (200 on success).' }) Status!: number;
    @Field(() => String, { nullable: true }) StatusMessage!: string | null;
    @Field(data, { nullable: true }) Data!: unknown;
  }
  Object.defineProperty(PublicApiResponse, 'name', { value: name });
  return PublicApiResponse;
}

export interface PublicApiResponseOf<T> {
  Status: number;
  StatusMessage: string | null;
  Data: T;
}

// ---------- Registration environment (getenv) ----------

@ObjectType({ description: 'A session of an event.' })
export class EventSessionView {
  @Field(() => Int) EventSessionId!: number;
  @Field(() => Int) EventId!: number;
  @Field(() => String) Name!: string;
  @Field(() => String, { nullable: true, description: 'ISO 8601 (UTC).' }) StartDate!: string | null;
  @Field(() => String, { nullable: true, description: 'ISO 8601 (UTC).' }) EndDate!: string | null;
  @Field(() => Int) AuditId!: number;
}

@ObjectType({ description: 'A registration type as offered to this visitor: the server\'s price and the seats left.' })
export class EventRegistrationTypeView {
  @Field(() => Int) EventRegistrationTypeId!: number;
  @Field(() => Int) EventId!: number;
  @Field(() => String) Name!: string;
  @Field(() => Float, { description: 'The price the server bills.' }) Price!: number;
  @Field(() => Int, { nullable: true, description: 'Seats of this type; null is unlimited.' }) Capacity!: number | null;
  @Field(() => Int, { nullable: true, description: 'Seats left (of the type and of the event); null is unlimited.' }) RemainingCapacity!: number | null;
  @Field(() => Boolean) MemberOnly!: boolean;
  @Field(() => Boolean, { description: 'Whether this visitor may register with it now (member-only types need a signed-in member; sold out is false).' }) IsAvailable!: boolean;
  @Field(() => [Int]) SessionIds!: number[];
  @Field(() => Int, { nullable: true }) SaleableItemId!: number | null;
  @Field(() => Boolean) IsActive!: boolean;
  @Field(() => Int) SortOrder!: number;
  @Field(() => Int) AuditId!: number;
}

@ObjectType({ description: 'A sponsorship or exhibitor package, additional purchase item or donation item of an event.' })
export class EventOfferingView {
  @Field(() => Int) EventOfferingId!: number;
  @Field(() => Int) EventId!: number;
  @Field(() => String, { description: `One of ${EVENT_OFFERING_KINDS.join(', ')}.` }) Kind!: string;
  @Field(() => String) Name!: string;
  @Field(() => Float, { description: 'The price the server bills (for a donation item, the suggested amount).' }) Price!: number;
  @Field(() => Int, { nullable: true }) Capacity!: number | null;
  @Field(() => Int, { nullable: true, description: 'Units left; null is unlimited.' }) RemainingCapacity!: number | null;
  @Field(() => Int, { nullable: true }) SaleableItemId!: number | null;
  @Field(() => Boolean) IsActive!: boolean;
  @Field(() => Int) AuditId!: number;
}

@ObjectType({ description: 'An event as staff manage it and visitors see it.' })
export class EventView {
  @Field(() => Int) EventId!: number;
  @Field(() => String) Name!: string;
  @Field(() => String, { nullable: true }) Description!: string | null;
  @Field(() => String, { description: 'ISO 8601 (UTC).' }) StartDate!: string;
  @Field(() => String, { description: 'ISO 8601 (UTC).' }) EndDate!: string;
  @Field(() => String, { nullable: true }) Venue!: string | null;
  @Field(() => String, { description: `One of ${EVENT_STATUSES.join(', ')}.` }) Status!: string;
  @Field(() => Int, { nullable: true, description: 'Attendee seats; null is unlimited.' }) Capacity!: number | null;
  @Field(() => Int, { nullable: true, description: 'Attendee seats left; null is unlimited.' }) RemainingCapacity!: number | null;
  @Field(() => String, { nullable: true }) RegistrationOpensAt!: string | null;
  @Field(() => String, { nullable: true }) RegistrationClosesAt!: string | null;
  @Field(() => Boolean, { description: 'Whether registering is possible now (open, within the registration window, not over).' }) IsRegistrationOpen!: boolean;
  @Field(() => Boolean) RequireCaptcha!: boolean;
  @Field(() => Int, { nullable: true }) GoalAttendees!: number | null;
  @Field(() => Float, { nullable: true }) GoalAttendeeRevenue!: number | null;
  @Field(() => Int, { nullable: true }) GoalSponsors!: number | null;
  @Field(() => Float, { nullable: true }) GoalSponsorRevenue!: number | null;
  @Field(() => Int, { nullable: true }) GoalExhibitors!: number | null;
  @Field(() => Float, { nullable: true }) GoalExhibitorRevenue!: number | null;
  @Field(() => Int) AuditId!: number;
}

@ObjectType({ description: 'Who the registration form is filled for: shown only to staff or to the signed-in contact itself.' })
export class EventContactDefaults {
  @Field(() => Int) ContactId!: number;
  @Field(() => String, { nullable: true }) FirstName!: string | null;
  @Field(() => String, { nullable: true }) LastName!: string | null;
  @Field(() => String, { nullable: true }) EmailAddress!: string | null;
  @Field(() => String, { nullable: true }) OrganizationName!: string | null;
  @Field(() => Boolean) IsMember!: boolean;
}

@ObjectType({ description: 'One attendee of a registration.' })
export class EventAttendeeView {
  @Field(() => Int) EventRegistrationId!: number;
  @Field(() => Int, { nullable: true, description: 'Shown to staff only.' }) ContactId!: number | null;
  @Field(() => String, { nullable: true }) FirstName!: string | null;
  @Field(() => String, { nullable: true }) LastName!: string | null;
  @Field(() => Int) EventRegistrationTypeId!: number;
  @Field(() => String) EventRegistrationTypeName!: string;
  @Field(() => Float) Amount!: number;
  @Field(() => String) Status!: string;
}

@ObjectType({ description: 'A sponsorship, exhibitor, purchase or donation of a registration.' })
export class EventPurchaseView {
  @Field(() => Int) EventPurchaseId!: number;
  @Field(() => Int) EventOfferingId!: number;
  @Field(() => String) Kind!: string;
  @Field(() => String) Name!: string;
  @Field(() => Int) Quantity!: number;
  @Field(() => Float) UnitPrice!: number;
  @Field(() => Float) Amount!: number;
}

@ObjectType({ description: 'A saved registration (one submitted form).' })
export class EventRegistrationResult {
  @Field(() => Int) EventRegistrationOrderId!: number;
  @Field(() => Int) EventId!: number;
  @Field(() => String) Status!: string;
  @Field(() => Float, { description: 'What the registration costs, priced by the server.' }) Total!: number;
  @Field(() => Int, { nullable: true, description: 'The invoice billing it (none when it costs nothing).' }) InvoiceId!: number | null;
  @Field(() => Int, { nullable: true }) InvoiceNumber!: number | null;
  @Field(() => Boolean, { description: 'False when the same submission had already been registered (nothing was registered twice).' }) IsNew!: boolean;
  @Field(() => String, { description: 'ISO 8601 (UTC).' }) CreatedAt!: string;
  @Field(() => String, { nullable: true, description: 'ISO 8601 (UTC): when its invoice was paid in full (one that costs nothing: when made); null while unpaid.' }) PaidAt!: string | null;
  @Field(() => [EventAttendeeView]) Attendees!: EventAttendeeView[];
  @Field(() => [EventPurchaseView]) Purchases!: EventPurchaseView[];
}

@ObjectType({ description: 'Everything a registration page needs: the event, its types and offerings with this visitor\'s prices and the seats left, the contact\'s defaults and an existing registration.' })
export class EventRegistrationEnvironment {
  @Field(() => EventView) Event!: EventView;
  @Field(() => [EventSessionView]) Sessions!: EventSessionView[];
  @Field(() => [EventRegistrationTypeView]) RegistrationTypes!: EventRegistrationTypeView[];
  @Field(() => [EventOfferingView]) Sponsorships!: EventOfferingView[];
  @Field(() => [EventOfferingView]) Exhibitors!: EventOfferingView[];
  @Field(() => [EventOfferingView]) AdditionalPurchaseItems!: EventOfferingView[];
  @Field(() => [EventOfferingView]) DonationItems!: EventOfferingView[];
  @Field(() => Boolean, { description: 'Whether a captcha must accompany register (CaptchaSiteKey and CaptchaProvider say which).' }) CaptchaRequired!: boolean;
  @Field(() => String, { nullable: true }) CaptchaProvider!: string | null;
  @Field(() => String, { nullable: true, description: 'The public site key (the secret is never answered).' }) CaptchaSiteKey!: string | null;
  @Field(() => EventContactDefaults, { nullable: true }) Contact!: EventContactDefaults | null;
  @Field(() => EventRegistrationResult, { nullable: true }) Registration!: EventRegistrationResult | null;
}

@ObjectType({ description: 'One priced line of a submission: the saleable item used and the amount.' })
export class EventSplitLine {
  @Field(() => String, { description: 'registration, sponsorship, exhibitor, purchase or donation.' }) Kind!: string;
  @Field(() => Int, { nullable: true }) SaleableItemId!: number | null;
  @Field(() => String) Description!: string;
  @Field(() => Int) Quantity!: number;
  @Field(() => Float) UnitPrice!: number;
  @Field(() => Float) Amount!: number;
  @Field(() => Float, { description: 'Paid of this line so far (payments applied to the lines in order); 0 before registering.' }) AmountPaid!: number;
}

@ObjectType({ description: 'The saleable items a submission uses and the amounts, per line, priced by the server.' })
export class EventSplits {
  @Field(() => [EventSplitLine]) Lines!: EventSplitLine[];
  @Field(() => Float) Total!: number;
  @Field(() => Float) AmountPaid!: number;
}

export const EventEnvironmentResponse = PublicApiResponseType('EventEnvironmentResponse', () => EventRegistrationEnvironment, 'PublicApiResponse with the registration environment in Data.');
export const EventRegistrationResponse = PublicApiResponseType('EventRegistrationResponse', () => EventRegistrationResult, 'PublicApiResponse with the saved registration in Data.');
export const EventSplitsResponse = PublicApiResponseType('EventSplitsResponse', () => EventSplits, 'PublicApiResponse with the priced lines in Data (validate: everything register checks, nothing saved).');
export const PublicApiResponseBoolean = PublicApiResponseType('PublicApiResponseBoolean', () => Boolean, 'The documented PublicApiResponse-Boolean.');

// ---------- Public inputs ----------

@InputType('BillingContactInfoInput', { description: 'The documented BillingContactInfo. Only the server decides ContactId, IsMember, MembershipIds, Vouchers and ContactRoles.' })
export class BillingContactInfoInput {
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(20) ContactId?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(20) Prefix?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(100) FirstName?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(100) CommonName?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(100) MiddleName?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(100) LastName?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(20) Suffix?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(20) OrganizationContactId?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(200) OrganizationName?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(100) Title?: string | null;
  @Field(() => Boolean, { nullable: true }) IsTaxExempt?: boolean | null;
  @Field(() => String, { nullable: true, description: 'Required: the contact is matched by it.' })
  @IsDefined({ message: 'EmailAddress is required' }) @MaxLength(254) @IsEmail({}, { message: 'EmailAddress must be an e-mail address' }) EmailAddress?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(500) Address?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(40) Phone?: string | null;
  @Field(() => String, { nullable: true, description: 'Ignored (server-owned).' }) ContactRoles?: string | null;
  @Field(() => String, { nullable: true, description: 'Ignored (server-owned).' }) Vouchers?: string | null;
  @Field(() => String, { nullable: true, description: 'Ignored (server-owned).' }) MembershipIds?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'Ignored (server-owned).' }) IsMember?: boolean | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(50) TaxSet?: string | null;
  @Field(() => String, { nullable: true, description: 'person or organization.' }) @IsOptional() @IsIn(['person', 'organization', 'Person', 'Organization']) ContactType?: string | null;
}

@ObjectType({ description: 'The documented BillingContactInfo: to an anonymous caller only what it sent (never another contact\'s data); staff get the matched contact.' })
export class BillingContactInfo {
  @Field(() => String, { nullable: true }) ContactId!: string | null;
  @Field(() => String, { nullable: true }) Prefix!: string | null;
  @Field(() => String, { nullable: true }) FirstName!: string | null;
  @Field(() => String, { nullable: true }) CommonName!: string | null;
  @Field(() => String, { nullable: true }) MiddleName!: string | null;
  @Field(() => String, { nullable: true }) LastName!: string | null;
  @Field(() => String, { nullable: true }) Suffix!: string | null;
  @Field(() => String, { nullable: true }) OrganizationContactId!: string | null;
  @Field(() => String, { nullable: true }) OrganizationName!: string | null;
  @Field(() => String, { nullable: true }) Title!: string | null;
  @Field(() => Boolean) IsTaxExempt!: boolean;
  @Field(() => String, { nullable: true }) EmailAddress!: string | null;
  @Field(() => String, { nullable: true }) Address!: string | null;
  @Field(() => String, { nullable: true }) Phone!: string | null;
  @Field(() => [String]) ContactRoles!: string[];
  @Field(() => [BillingVoucher], { description: 'The vouchers the contact holds and may still spend (their codes: to the contact itself and staff only).' }) Vouchers!: BillingVoucher[];
  @Field(() => [Int]) MembershipIds!: number[];
  @Field(() => Boolean) IsMember!: boolean;
  @Field(() => String, { nullable: true }) TaxSet!: string | null;
  @Field(() => String, { nullable: true }) ContactType!: string | null;
}

@InputType('EventAttendeeInput', { description: 'One attendee to register. A price sent by the client is ignored: the server prices every line.' })
export class EventAttendeeInput {
  @Field(() => Int) @IsInt() @Min(1) EventRegistrationTypeId!: number;
  @Field(() => String) @Length(1, 100) @Matches(/\S/, { message: 'FirstName must not be blank' }) FirstName!: string;
  @Field(() => String) @Length(1, 100) @Matches(/\S/, { message: 'LastName must not be blank' }) LastName!: string;
  @Field(() => String) @MaxLength(254) @IsEmail({}, { message: 'EmailAddress must be an e-mail address' }) EmailAddress!: string;
  @Field(() => Float, { nullable: true, description: 'Ignored: the server\'s price applies.' }) Price?: number | null;
}

@InputType('EventOfferingChoiceInput', { description: 'A sponsorship, exhibitor package or additional item chosen, with a quantity (price from the server).' })
export class EventOfferingChoiceInput {
  @Field(() => Int) @IsInt() @Min(1) EventOfferingId!: number;
  @Field(() => Int, { nullable: true, description: 'Default 1.' }) @IsOptional() @IsInt() @Min(1) @Max(1000) Quantity?: number | null;
  @Field(() => Float, { nullable: true, description: 'Ignored: the server\'s price applies.' }) Price?: number | null;
}

@InputType('EventDonationInput', { description: 'A donation: the donor chooses the amount (more than 0, at most two decimals).' })
export class EventDonationInput {
  @Field(() => Int) @IsInt() @Min(1) EventOfferingId!: number;
  @Field(() => Float) Amount!: number;
}

@InputType('EventBillingInfoInput', { description: 'Who pays. Matched to an existing contact by e-mail (never shown back), or a new contact is made.' })
export class EventBillingInfoInput {
  @Field(() => String) @Length(1, 100) @Matches(/\S/, { message: 'FirstName must not be blank' }) FirstName!: string;
  @Field(() => String) @Length(1, 100) @Matches(/\S/, { message: 'LastName must not be blank' }) LastName!: string;
  @Field(() => String) @MaxLength(254) @IsEmail({}, { message: 'EmailAddress must be an e-mail address' }) EmailAddress!: string;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(200) OrganizationName?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(40) Phone?: string | null;
  @Field(() => String, { nullable: true, description: 'A voucher code (BillingContactInfo.Vouchers) to pay the registration\'s invoice with, once.' }) @IsOptional() @MaxLength(64) VoucherCode?: string | null;
}

@InputType('SaveEventRegisterV2Input', { description: 'The documented SaveEventRegisterV2. The path id wins over EventId; DisableCaptchaCheck is honoured only for staff.' })
export class SaveEventRegisterV2Input {
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(4096) CaptchaResponse?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'Honoured only for a staff credential.' }) DisableCaptchaCheck?: boolean | null;
  @Field(() => Int, { nullable: true }) EventId?: number | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(100) WebReferralSourceTypeId?: string | null;
  @Field(() => Boolean, { nullable: true }) SendEmailNotification?: boolean | null;
  @Field(() => EventBillingInfoInput) @ValidateNested() BillingInfo!: EventBillingInfoInput;
  @Field(() => String, { nullable: true, description: 'Accepted and ignored.' }) @IsOptional() @MaxLength(200) Creator?: string | null;
  @Field(() => [EventAttendeeInput], { nullable: true }) @IsOptional() @ArrayMaxSize(100) @ValidateNested({ each: true }) Registrations?: EventAttendeeInput[] | null;
  @Field(() => [EventOfferingChoiceInput], { nullable: true }) @IsOptional() @ArrayMaxSize(50) @ValidateNested({ each: true }) Sponsorships?: EventOfferingChoiceInput[] | null;
  @Field(() => [EventOfferingChoiceInput], { nullable: true }) @IsOptional() @ArrayMaxSize(50) @ValidateNested({ each: true }) Exhibitors?: EventOfferingChoiceInput[] | null;
  @Field(() => [EventOfferingChoiceInput], { nullable: true }) @IsOptional() @ArrayMaxSize(50) @ValidateNested({ each: true }) AdditionalPurchaseItems?: EventOfferingChoiceInput[] | null;
  @Field(() => [EventDonationInput], { nullable: true }) @IsOptional() @ArrayMaxSize(50) @ValidateNested({ each: true }) DonationItems?: EventDonationInput[] | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(4000) Comments?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'Accepted and ignored: staff change a registration with saveEventRegistration; a resubmitted form answers the registration its registrant holds.' }) IsUpdateOperation?: boolean | null;
  @Field(() => String, { nullable: true, description: 'Accepted and ignored: the attendees say who is registered.' }) @IsOptional() @MaxLength(20) TargetContactId?: string | null;
}

@InputType('SaveRegisterAttendeesInput', { description: 'The documented SaveRegisterAttendees (the first registration form). IsStaff, IsMember and MemberSecurityMode are server-owned and ignored; IsFirstStep only checks.' })
export class SaveRegisterAttendeesInput {
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(4096) CaptchaResponse?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'Honoured only for a staff credential.' }) DisableCaptchaCheck?: boolean | null;
  @Field(() => Boolean, { nullable: true, description: 'True: check everything, save nothing.' }) IsFirstStep?: boolean | null;
  @Field(() => Boolean, { nullable: true, description: 'Accepted and ignored.' }) AllowCreateAndShowContact?: boolean | null;
  @Field(() => Boolean, { nullable: true, description: 'Ignored (server-owned).' }) IsStaff?: boolean | null;
  @Field(() => Boolean, { nullable: true, description: 'Ignored (server-owned).' }) IsMember?: boolean | null;
  @Field(() => String, { nullable: true, description: 'Ignored (server-owned).' }) MemberSecurityMode?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(100) WebReferralSourceTypeId?: string | null;
  @Field(() => EventBillingInfoInput) @ValidateNested() BillingInfo!: EventBillingInfoInput;
  @Field(() => [EventAttendeeInput], { description: 'The attendees.' }) @ArrayMaxSize(100) @ValidateNested({ each: true }) Models!: EventAttendeeInput[];
  @Field(() => [EventDonationInput], { nullable: true }) @IsOptional() @ArrayMaxSize(50) @ValidateNested({ each: true }) DonationItems?: EventDonationInput[] | null;
  @Field(() => [EventOfferingChoiceInput], { nullable: true, description: 'Additional purchase items.' }) @IsOptional() @ArrayMaxSize(50) @ValidateNested({ each: true }) ExtraItems?: EventOfferingChoiceInput[] | null;
  @Field(() => Boolean, { nullable: true }) SendEmailNotification?: boolean | null;
}

// ---------- Event groups ----------

@ObjectType({ description: 'An attendee seated in a group, or a candidate for one.' })
export class EventGroupMember {
  @Field(() => Int) EventRegistrationId!: number;
  @Field(() => Int) ContactId!: number;
  @Field(() => String) Name!: string;
  @Field(() => Int) EventRegistrationTypeId!: number;
  @Field(() => String) EventRegistrationTypeName!: string;
}

@ObjectType({ description: 'The documented EventGroup: a table of an event (or of one of its sessions).' })
export class EventGroup {
  @Field(() => Int) EventGroupId!: number;
  @Field(() => Int) EventId!: number;
  @Field(() => String) Name!: string;
  @Field(() => String, { nullable: true, description: 'Only attendees of this type may sit here (null: any).' }) EventRegistrationTypeId!: string | null;
  @Field(() => String, { nullable: true }) EventRegistrationTypeName!: string | null;
  @Field(() => String, { nullable: true, description: 'Seats at the table, as a string of digits; null is unlimited.' }) MaxToAssign!: string | null;
  @Field(() => Int) GroupNumber!: number;
  @Field(() => String) GroupOrder!: string;
  @Field(() => String, { nullable: true }) EventSessionId!: string | null;
  @Field(() => [EventGroupMember]) Members!: EventGroupMember[];
  @Field(() => Boolean) IsDeleted!: boolean;
  @Field(() => Boolean, { description: 'Only an empty group may be deleted.' }) IsDeletable!: boolean;
  @Field(() => Int, { description: 'Record version (not in the documents): send it back to save; a stale one is 409.' }) AuditId!: number;
}

@ObjectType({ description: 'The documented EventTableManagement: the event\'s groups and the attendees not yet seated.' })
export class EventTableManagement {
  @Field(() => Int) EventId!: number;
  @Field(() => [EventGroup]) Groups!: EventGroup[];
  @Field(() => [EventGroupMember], { description: 'Registered attendees seated at no group of the event.' }) Candidates!: EventGroupMember[];
}

@InputType('EventGroupMemberInput')
export class EventGroupMemberInput {
  @Field(() => Int) @IsInt() @Min(1) EventRegistrationId!: number;
}

@InputType('EventGroupInput', { description: 'The documented EventGroup to save (0 creates; the path id wins), or whose Members to set.' })
export class EventGroupInput {
  @Field(() => Int, { nullable: true }) @IsOptional() @IsInt() @Min(0) EventGroupId?: number | null;
  @Field(() => Int, { nullable: true, description: 'Required to create.' }) @IsOptional() @IsInt() @Min(1) EventId?: number | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(1, 200) @Matches(/\S/, { message: 'Name must not be blank' }) Name?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Matches(/^\d{1,9}$/, { message: 'EventRegistrationTypeId must be an id' }) EventRegistrationTypeId?: string | null;
  @Field(() => String, { nullable: true, description: 'Ignored (read from the type).' }) EventRegistrationTypeName?: string | null;
  @Field(() => String, { nullable: true, description: 'A whole number of seats from 1 to 10000; empty is unlimited.' }) @IsOptional() @Matches(/^(\d{1,5})?$/, { message: 'MaxToAssign must be a whole number' }) MaxToAssign?: string | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @IsInt() @Min(0) @Max(100000) GroupNumber?: number | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Matches(/^(\d{1,6})?$/, { message: 'GroupOrder must be a whole number' }) GroupOrder?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Matches(/^(\d{1,9})?$/, { message: 'EventSessionId must be an id' }) EventSessionId?: string | null;
  @Field(() => [EventGroupMemberInput], { nullable: true }) @IsOptional() @ArrayMaxSize(1000) @ValidateNested({ each: true }) Members?: EventGroupMemberInput[] | null;
  @Field(() => Boolean, { nullable: true, description: 'Ignored.' }) IsDeleted?: boolean | null;
  @Field(() => Boolean, { nullable: true, description: 'Ignored (server-owned).' }) IsDeletable?: boolean | null;
  @Field(() => Int, { nullable: true, description: 'The version read; a stale one is 409.' }) @IsOptional() @IsInt() @Min(0) AuditId?: number | null;
}

// ---------- Goal widgets ----------

@ObjectType({ description: 'The documented EventGoalWidget (one shape for all six goal widgets).' })
export class EventGoalWidget {
  @Field(() => String) Name!: string;
  @Field(() => String) WidgetId!: string;
  @Field(() => Int) GridWidth!: number;
  @Field(() => String) WidgetType!: string;
  @Field(() => String, { nullable: true }) ShowCondition!: string | null;
  @Field(() => String, { nullable: true }) DisplayInfo!: string | null;
  @Field(() => String, { description: 'The figure: a count, or an amount with two decimals.' }) Value!: string;
  @Field(() => String) Heading!: string;
  @Field(() => String) SubHeading!: string;
}

// ---------- Staff management (GraphQL only) ----------

@InputType('EventInput', { description: 'An event to create (eventId 0) or update.' })
export class EventInput {
  @Field(() => String) @Length(1, 200) @Matches(/\S/, { message: 'Name must not be blank' }) Name!: string;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(8000) Description?: string | null;
  @Field(() => String, { description: 'ISO 8601.' }) @Matches(ISO_DATE_TIME, { message: 'StartDate must be an ISO 8601 date-time' }) StartDate!: string;
  @Field(() => String, { description: 'ISO 8601, not before StartDate.' }) @Matches(ISO_DATE_TIME, { message: 'EndDate must be an ISO 8601 date-time' }) EndDate!: string;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(500) Venue?: string | null;
  @Field(() => String, { nullable: true, description: `One of ${EVENT_STATUSES.join(', ')}; default draft.` }) @IsOptional() @IsIn(EVENT_STATUSES) Status?: string | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @IsInt() @Min(0) @Max(1000000) Capacity?: number | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Matches(ISO_DATE_TIME, { message: 'RegistrationOpensAt must be an ISO 8601 date-time' }) RegistrationOpensAt?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Matches(ISO_DATE_TIME, { message: 'RegistrationClosesAt must be an ISO 8601 date-time' }) RegistrationClosesAt?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'Default true: public registration needs the tenant\'s captcha.' }) RequireCaptcha?: boolean | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @IsInt() @Min(0) @Max(1000000) GoalAttendees?: number | null;
  @Field(() => Float, { nullable: true }) GoalAttendeeRevenue?: number | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @IsInt() @Min(0) @Max(1000000) GoalSponsors?: number | null;
  @Field(() => Float, { nullable: true }) GoalSponsorRevenue?: number | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @IsInt() @Min(0) @Max(1000000) GoalExhibitors?: number | null;
  @Field(() => Float, { nullable: true }) GoalExhibitorRevenue?: number | null;
  @Field(() => Int, { nullable: true, description: 'The version read; a stale one is 409.' }) @IsOptional() @IsInt() @Min(0) AuditId?: number | null;
}

@InputType('EventSessionInput')
export class EventSessionInput {
  @Field(() => Int) @IsInt() @Min(1) EventId!: number;
  @Field(() => String) @Length(1, 200) @Matches(/\S/, { message: 'Name must not be blank' }) Name!: string;
  @Field(() => String, { nullable: true }) @IsOptional() @Matches(ISO_DATE_TIME, { message: 'StartDate must be an ISO 8601 date-time' }) StartDate?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Matches(ISO_DATE_TIME, { message: 'EndDate must be an ISO 8601 date-time' }) EndDate?: string | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @IsInt() @Min(0) AuditId?: number | null;
}

@InputType('EventRegistrationTypeInput')
export class EventRegistrationTypeInput {
  @Field(() => Int) @IsInt() @Min(1) EventId!: number;
  @Field(() => String) @Length(1, 200) @Matches(/\S/, { message: 'Name must not be blank' }) Name!: string;
  @Field(() => Float, { description: 'At most two decimals, not negative.' }) Price!: number;
  @Field(() => Int, { nullable: true }) @IsOptional() @IsInt() @Min(0) @Max(1000000) Capacity?: number | null;
  @Field(() => Boolean, { nullable: true }) MemberOnly?: boolean | null;
  @Field(() => [Int], { nullable: true, description: 'Sessions of the event this type includes.' }) @IsOptional() @ArrayMaxSize(100) @IsInt({ each: true }) SessionIds?: number[] | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @IsInt() @Min(1) SaleableItemId?: number | null;
  @Field(() => Boolean, { nullable: true }) IsActive?: boolean | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @IsInt() @Min(0) @Max(100000) SortOrder?: number | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @IsInt() @Min(0) AuditId?: number | null;
}

@InputType('EventOfferingInput')
export class EventOfferingInput {
  @Field(() => Int) @IsInt() @Min(1) EventId!: number;
  @Field(() => String, { description: `One of ${EVENT_OFFERING_KINDS.join(', ')}.` }) @IsIn(EVENT_OFFERING_KINDS) Kind!: string;
  @Field(() => String) @Length(1, 200) @Matches(/\S/, { message: 'Name must not be blank' }) Name!: string;
  @Field(() => Float) Price!: number;
  @Field(() => Int, { nullable: true }) @IsOptional() @IsInt() @Min(0) @Max(1000000) Capacity?: number | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @IsInt() @Min(1) SaleableItemId?: number | null;
  @Field(() => Boolean, { nullable: true }) IsActive?: boolean | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @IsInt() @Min(0) AuditId?: number | null;
}

@ObjectType({ description: 'A contact invited to an event.' })
export class EventInvitationView {
  @Field(() => Int) EventInvitationId!: number;
  @Field(() => Int) EventId!: number;
  @Field(() => Int) ContactId!: number;
  @Field(() => String) Status!: string;
  @Field(() => Int) AuditId!: number;
}

@InputType('EventCaptchaSettingInput', { description: 'The tenant\'s captcha provider for public registration (the secret is stored, never answered).' })
export class EventCaptchaSettingInput {
  @Field(() => String, { description: `One of ${CAPTCHA_PROVIDERS.join(', ')}.` }) @IsIn(CAPTCHA_PROVIDERS) Provider!: string;
  @Field(() => String) @Length(1, 200) SiteKey!: string;
  @Field(() => String) @Length(1, 500) Secret!: string;
  @Field(() => String, { nullable: true, description: 'Overrides the provider\'s siteverify address: https, on a known provider\'s host or one the operator allows (CAPTCHA_VERIFY_HOSTS), never a private address.' })
  @IsOptional() @IsString() @MaxLength(500) @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] }, { message: 'VerifyUrl must be an http(s) URL' })
  VerifyUrl?: string | null;
}

@ObjectType({ description: 'The tenant\'s captcha provider (without its secret).' })
export class EventCaptchaSettingView {
  @Field(() => String) Provider!: string;
  @Field(() => String) SiteKey!: string;
  @Field(() => String, { nullable: true }) VerifyUrl!: string | null;
  @Field(() => Boolean, { description: 'A secret is stored.' }) HasSecret!: boolean;
}

// ---------- staff changes to registrations ----------

@ObjectType({ description: 'One attendee\'s registration as staff read, change and cancel it.' })
export class EventRegistrationRecord {
  @Field(() => Int) EventRegistrationId!: number;
  @Field(() => Int) EventRegistrationOrderId!: number;
  @Field(() => Int) EventId!: number;
  @Field(() => Int) ContactId!: number;
  @Field(() => Int) EventRegistrationTypeId!: number;
  @Field(() => String) EventRegistrationTypeName!: string;
  @Field(() => String) FirstName!: string;
  @Field(() => String) LastName!: string;
  @Field(() => String) EmailAddress!: string;
  @Field(() => Float, { description: 'What was billed for this attendee.' }) Amount!: number;
  @Field(() => String, { description: 'registered or cancelled.' }) Status!: string;
  @Field(() => String, { description: 'The order\'s status: registered, or cancelled once nothing in it is registered.' }) OrderStatus!: string;
  @Field(() => String, { nullable: true, description: 'ISO 8601 (UTC): when the order was paid in full; null while unpaid.' }) PaidAt!: string | null;
  @Field(() => Int, { nullable: true }) InvoiceId!: number | null;
  @Field(() => String, { nullable: true, description: 'open, paid or void.' }) InvoiceStatus!: string | null;
  @Field(() => Int) AuditId!: number;
}

@InputType('EventRegistrationInput', {
  description: 'A registration to make (eventRegistrationId 0: EventId, EventRegistrationTypeId, FirstName, LastName, EmailAddress; billed to the attendee, no captcha) or change (only the fields sent: the type, whose seats move, and the attendee\'s name and e-mail; the amount billed stays).',
})
export class EventRegistrationInput {
  @Field(() => Int, { nullable: true, description: 'Creating only.' }) @IsOptional() @IsInt() @Min(1) EventId?: number | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @IsInt() @Min(1) EventRegistrationTypeId?: number | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(1, 100) @Matches(/\S/, { message: 'FirstName must not be blank' }) FirstName?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(1, 100) @Matches(/\S/, { message: 'LastName must not be blank' }) LastName?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @MaxLength(254) @IsEmail({}, { message: 'EmailAddress must be an e-mail address' }) EmailAddress?: string | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @IsInt() @Min(0) AuditId?: number | null;
}

@InputType('EventRegistrationCancelInput', { description: 'What to cancel: the attendee\'s registration, or with WholeOrder every attendee and item of its order.' })
export class EventRegistrationCancelInput {
  @Field(() => Boolean, { nullable: true, description: 'Cancel the whole order the registration belongs to (attendees, sponsorships, exhibitors, items, donations).' }) WholeOrder?: boolean | null;
  @Field(() => Int, { nullable: true, description: 'The registration\'s AuditId: a changed registration is not cancelled (409).' }) @IsOptional() @IsInt() @Min(0) AuditId?: number | null;
}
