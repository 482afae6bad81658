import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { IsBoolean, IsInt, IsOptional, Length, Matches, Min, ValidateNested } from 'class-validator';
import { FilterBaseInput, ListResultType } from './common.js';

/** Up to this many characters of terms text (HTML) are accepted. */
export const MAX_TERMS_LENGTH = 200_000;

const LOGIN_TYPE = /^(staff|hub)$/i;
const USER_LOGIN_TYPE = /^(staff|member)$/i;

@ObjectType({ description: 'Terms of use as listed.' })
export class TermsOfUseCollectionItem {
  @Field(() => Int) TermsOfUseId!: number;
  @Field(() => String, { nullable: true }) Name!: string | null;
}

@ObjectType({ description: 'Terms of use as read for editing.' })
export class TermsOfUseAddEdit {
  @Field(() => Int, { description: '0 for terms not saved yet (gdpr/backoffice when the tenant has none).' }) TermsOfUseId!: number;
  @Field(() => String, { nullable: true }) Name!: string | null;
  @Field(() => String, { nullable: true, description: 'The current text (sanitized HTML).' }) Description!: string | null;
  @Field(() => Int, { description: 'Record version for optimistic concurrency (send it back when saving).' }) AuditId!: number;
  @Field(() => String, { description: 'The portal the terms govern: "staff" (back office) or "hub" (member hub).' }) LoginType!: string;
  @Field(() => String, {
    nullable: true,
    description: 'The text most recently accepted by someone, kept when the terms are edited later; null while nobody has accepted them.',
  })
  OriginalDescription!: string | null;

  @Field(() => Boolean, { description: 'Always false when read; send true to save despite duplicates.' }) forceSave!: boolean;
}

@InputType('TermsOfUseAddEditInput', { description: 'Terms of use to create (path id 0) or update. OriginalDescription is server-owned and ignored.' })
export class TermsOfUseAddEditInput {
  @Field(() => Int, { nullable: true, description: 'Ignored: the id in the path wins.' })
  @IsOptional() @IsInt()
  TermsOfUseId?: number | null;

  @Field(() => String)
  @Length(1, 200) @Matches(/\S/, { message: 'Name must not be blank' })
  Name!: string;

  @Field(() => String, { description: 'The text (HTML; sanitized before it is stored).' })
  @Length(1, MAX_TERMS_LENGTH) @Matches(/\S/, { message: 'Description must not be blank' })
  Description!: string;

  @Field(() => Int, { nullable: true, description: 'The AuditId read with the terms; a stale one is refused with 409.' })
  @IsOptional() @Min(0)
  AuditId?: number | null;

  @Field(() => String, { nullable: true, description: '"staff" (back office) or "hub" (member hub), any case. New terms default to staff; absent on update keeps it.' })
  @IsOptional() @Matches(LOGIN_TYPE, { message: 'LoginType must be staff or hub' })
  LoginType?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'False (default): a save that would give two terms the same name in the tenant is refused with 409 listing them. True: save anyway.' })
  @IsOptional() @IsBoolean()
  forceSave?: boolean | null;
}

@ObjectType({ description: 'The text of terms of use, for reading and accepting.' })
export class TermsOfUseView {
  @Field(() => Int) TermsOfUseId!: number;
  @Field(() => String, { nullable: true }) TermsDescription!: string | null;
}

@ObjectType({ description: 'One recorded response of a login to terms of use: accepted or declined.' })
export class TermsUsersResponse {
  @Field(() => Int) TermUserResponseId!: number;
  @Field(() => Int, { nullable: true }) ContactId!: number | null;
  @Field(() => Int) LoginId!: number;
  @Field(() => Int) TenantId!: number;
  @Field(() => String, { description: 'The kind of login that responded: "staff" or "member" (its role at the time).' }) UserLoginTypeId!: string;
  @Field(() => Boolean) IsAccepted!: boolean;
  @Field(() => Int) TermsOfUseId!: number;
  @Field(() => String, { description: 'When the response was recorded (ISO 8601, UTC), set by the server.' }) ActionDate!: string;
  @Field(() => String, { nullable: true, description: 'The caller\'s IP address and browser (User-Agent) as the server saw them: "<ip> | <user agent>" (just "<ip>" without a User-Agent).' }) IpBrowserInfo!: string | null;
}

@InputType('TermsUsersResponseInput', {
  description: 'A response to terms of use. Only TermsOfUseId and IsAccepted are read; who, when and from where come from the request.',
})
export class TermsUsersResponseInput {
  @Field(() => Int)
  @Min(1)
  TermsOfUseId!: number;

  @Field(() => Boolean, { description: 'True accepts, false declines.' })
  @IsBoolean()
  IsAccepted!: boolean;
}

/** The Criteria of the acceptance lists, as sent (input) and as echoed back in the ListResult (output). */
@ObjectType('UserTermsAcceptanceCriteria', { description: 'Criteria of the acceptance lists; every one given must match.' })
@InputType('UserTermsAcceptanceCriteriaInput', { description: 'Criteria of the acceptance lists; every one given must match.' })
export class UserTermsAcceptanceCriteria {
  @Field(() => Int, { nullable: true, description: 'Only responses to these terms.' })
  @IsOptional() @Min(1)
  TermsOfUseId?: number | null;

  @Field(() => Boolean, { nullable: true, description: 'Only acceptances (true) or only declines (false).' })
  @IsOptional() @IsBoolean()
  IsAccepted?: boolean | null;

  @Field(() => Int, { nullable: true, description: 'Only responses of this login.' })
  @IsOptional() @Min(1)
  LoginId?: number | null;

  @Field(() => Int, { nullable: true, description: 'Only responses of this contact.' })
  @IsOptional() @Min(1)
  ContactId?: number | null;
}

@InputType('UserTermsAcceptanceFilterInput', {
  description: 'FilterBase plus LoginTypes and Criteria. TenantId is server-owned and ignored. OrderBy: ActionDate (default, newest first), TermUserResponseId, TermsOfUseId, LoginId, ContactId, IsAccepted, UserLoginTypeId.',
})
export class UserTermsAcceptanceFilterInput extends FilterBaseInput {
  @Field(() => [String], { nullable: true, description: 'Only responses of these kinds of login: "staff", "member" (JSON array). Absent or empty: all.' })
  @IsOptional() @Matches(USER_LOGIN_TYPE, { each: true, message: 'LoginTypes must hold only staff or member' })
  LoginTypes?: string[] | null;

  @Field(() => UserTermsAcceptanceCriteria, { nullable: true })
  @IsOptional() @ValidateNested()
  Criteria?: UserTermsAcceptanceCriteria | null;
}

export const TermsAcceptanceListResult = ListResultType('TermsAcceptanceListResult', {
  description: 'ListResult of the terms acceptance lists: every recorded response (acceptance or decline) to terms of one login type, newest first unless ordered otherwise.',
  item: TermsUsersResponse,
  criteria: UserTermsAcceptanceCriteria,
  criteriaItemsDescription: 'The terms of use of this login type (Id, Name; IsSelected marks the current ones): the choices of Criteria.TermsOfUseId.',
  modelItemsDescription: 'The contacts who gave the responses on this page (Id = ContactId, Name = display name).',
});
