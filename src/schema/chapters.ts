import { ArrayMaxSize, IsOptional, Length, Matches, Max, Min } from 'class-validator';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, InputType, Int, ObjectType } from 'type-graphql';

const ID_TEXT = /^\s*\d{0,9}\s*$/;
const ID_TEXT_MESSAGE = (field: string) => `${field} must be a record id (digits)`;

@ObjectType('ChapterAddEdit', { description: 'A chapter as read for editing. ChapterId and OrganizationId are both the id of the chapter\'s organization contact.' })
export class ChapterAddEdit {
  @Field(() => Int) ChapterId!: number;
  @Field(() => Int, { description: 'The same as ChapterId (the chapter is this organization).' }) OrganizationId!: number;
  @Field(() => String) ChapterName!: string;
  @Field(() => String, { nullable: true }) ChapterNumber!: string | null;
  @Field(() => String, { nullable: true }) ChapterDescription!: string | null;
  @Field(() => String, { nullable: true, description: 'Id of the person who is the chapter\'s main contact.' }) OrganizationContactId!: string | null;
  @Field(() => Int, { nullable: true, description: 'The parent: the top-level organization or another chapter.' }) ParentOrganizationId!: number | null;
  @Field(() => String, { nullable: true, description: 'Id of the chapter\'s primary calendar.' }) PrimaryCalenderId!: string | null;
  @Field(() => String, { nullable: true }) CalendarDescription!: string | null;
  @Field(() => String, { nullable: true }) GroupTypeId!: string | null;
  @Field(() => String, { nullable: true }) PrimaryGroupId!: string | null;
  @Field(() => String, { nullable: true }) DirectoryId!: string | null;
  @Field(() => String, { nullable: true }) PaymentGatewayId!: string | null;
  @Field(() => String, { nullable: true }) PaymentGatewayType!: string | null;
  @Field(() => String, { nullable: true, description: 'Null on read; sent with a changed DirectoryId.' }) PreviousDirectoryId!: string | null;
  @Field(() => Boolean, { description: 'False on read.' }) RemoveContactsFromPreviousDirectory!: boolean;
  @Field(() => [Int], { description: 'Contact ids of the chapter\'s owners (a JSON array).' }) Owners!: number[];
  @Field(() => [String], { description: 'The postal codes whose contacts contactchapter/assignzipcodes links to the chapter (a JSON array, normalized: upper case, no spaces).' })
  PostalCodesJson!: string[];
  @Field(() => Boolean) IsDefaultPostalCodeEmpty!: boolean;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Kept as sent (a JSON object).' }) AffiliateTenantModel!: Record<string, unknown> | null;
  @Field(() => Boolean) ShouldAllowChapterTenantEditing!: boolean;
  @Field(() => Boolean) ForceSave!: boolean;
  @Field(() => Int, { description: 'Record version for optimistic concurrency (our addition; send it back when saving).' }) AuditId!: number;
}

@InputType('ChapterAddEditInput', {
  description: 'A chapter to create (ChapterId 0) or update; the path id wins over ChapterId, OrganizationId is ignored. ' +
    'Ids documented as str are strings of digits (or empty). ParentOrganizationId absent or 0: the top-level organization.',
})
export class ChapterAddEditInput {
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(0) ChapterId?: number | null;
  @Field(() => Int, { nullable: true, description: 'Ignored (the chapter is its own organization).' }) OrganizationId?: number | null;
  @Field(() => String) @Length(1, 200) @Matches(/\S/, { message: 'ChapterName must not be blank' }) ChapterName!: string;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 50) ChapterNumber?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 4000) ChapterDescription?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Matches(ID_TEXT, { message: ID_TEXT_MESSAGE('OrganizationContactId') }) OrganizationContactId?: string | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(0) @Max(2147483647) ParentOrganizationId?: number | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Matches(ID_TEXT, { message: ID_TEXT_MESSAGE('PrimaryCalenderId') }) PrimaryCalenderId?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 4000) CalendarDescription?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 64) GroupTypeId?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 64) PrimaryGroupId?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Matches(ID_TEXT, { message: ID_TEXT_MESSAGE('DirectoryId') }) DirectoryId?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 64) PaymentGatewayId?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 64) PaymentGatewayType?: string | null;
  @Field(() => String, { nullable: true, description: 'The chapter\'s directory as the client read it: when sent, a save is refused (409) unless it is still the chapter\'s directory.' })
  @IsOptional() @Matches(ID_TEXT, { message: ID_TEXT_MESSAGE('PreviousDirectoryId') }) PreviousDirectoryId?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'When DirectoryId changes: true removes the chapter\'s contacts\' listings from the previous directory (they are copied to the new one either way).' })
  RemoveContactsFromPreviousDirectory?: boolean | null;
  @Field(() => [Int], { nullable: true, description: 'Contact ids of the owners; absent keeps them.' }) @IsOptional() @ArrayMaxSize(100) @Min(1, { each: true }) @Max(2147483647, { each: true }) Owners?: number[] | null;
  @Field(() => [String], { nullable: true, description: 'Postal codes (at most 5000, each up to 20 characters); absent keeps them.' })
  @IsOptional() @ArrayMaxSize(5000) @Length(1, 20, { each: true }) PostalCodesJson?: string[] | null;
  @Field(() => Boolean, { nullable: true }) IsDefaultPostalCodeEmpty?: boolean | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) AffiliateTenantModel?: Record<string, unknown> | null;
  @Field(() => Boolean, { nullable: true }) ShouldAllowChapterTenantEditing?: boolean | null;
  @Field(() => Boolean, { nullable: true, description: 'Save even when another chapter has the same name or number (as does forcesave in the path).' }) ForceSave?: boolean | null;
  @Field(() => Int, { nullable: true, description: 'The AuditId read with the chapter; a stale one is refused with 409.' }) @IsOptional() @Min(0) AuditId?: number | null;
}

@ObjectType('ChapterCollection', { description: 'A chapter as listed.' })
export class ChapterCollection {
  @Field(() => Int) ChapterId!: number;
  @Field(() => Int) AuditId!: number;
  @Field(() => String) OrganizationName!: string;
  @Field(() => Int, { nullable: true }) ParentOrganizationId!: number | null;
  @Field(() => String, { nullable: true }) ParentOrganizationName!: string | null;
  @Field(() => String, { nullable: true, description: 'From the organization\'s primary address.' }) City!: string | null;
  @Field(() => String, { nullable: true, description: 'From the organization\'s primary address (its region).' }) State!: string | null;
}

@ObjectType('ChapterContactSelect', { description: 'A chapter (or the top-level organization) to choose, with its payment gateway.' })
export class ChapterContactSelect {
  @Field(() => Int) Id!: number;
  @Field(() => String) Name!: string;
  @Field(() => String, { nullable: true }) PaymentGatewayId!: string | null;
}

@ObjectType('ContactChapterAddEdit', { description: 'A contact\'s primary chapter: ChapterId null and both flags false when the contact has no chapter.' })
export class ContactChapterAddEdit {
  @Field(() => Int) ContactId!: number;
  @Field(() => Int, { nullable: true }) ChapterId!: number | null;
  @Field(() => Boolean) MarkAsPrimary!: boolean;
  @Field(() => Boolean) ContactHasPrimary!: boolean;
}

@InputType('ContactChapterAddEditInput', { description: 'Links a contact to a chapter. The first chapter of a contact becomes its primary; MarkAsPrimary makes this one primary. ContactHasPrimary is ignored.' })
export class ContactChapterAddEditInput {
  @Field(() => Int) @Min(1) @Max(2147483647) ContactId!: number;
  @Field(() => Int) @Min(1) @Max(2147483647) ChapterId!: number;
  @Field(() => Boolean, { nullable: true }) MarkAsPrimary?: boolean | null;
  @Field(() => Boolean, { nullable: true, description: 'Ignored (server-owned).' }) ContactHasPrimary?: boolean | null;
}

@ObjectType('ChapterZipCodeAssignment', { description: 'One run of contactchapter/assignzipcodes (a background job) and its progress.' })
export class ChapterZipCodeAssignment {
  @Field(() => Int) RunId!: number;
  @Field(() => String, { description: 'queued, running, completed or failed.' }) State!: string;
  @Field(() => Int, { description: 'Contacts (people) to look at.' }) TotalContacts!: number;
  @Field(() => Int) ProcessedContacts!: number;
  @Field(() => Int, { description: 'Contact-chapter links this run created (0 when run again over the same data).' }) LinksCreated!: number;
  @Field(() => Int, { description: 'Contacts this run gave a primary chapter.' }) PrimariesSet!: number;
  @Field(() => Int, { description: 'Contacts that could not be processed (skipped, the rest went on).' }) FailedContacts!: number;
  @Field(() => [Int], { description: 'The first (at most 100) of them.' }) FailedContactIds!: number[];
  @Field(() => String, { nullable: true }) Error!: string | null;
  @Field(() => String, { description: 'ISO 8601.' }) CreatedAt!: string;
  @Field(() => String, { nullable: true, description: 'ISO 8601.' }) FinishedAt!: string | null;
}
