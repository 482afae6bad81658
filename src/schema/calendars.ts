import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { IsOptional, Length, Matches, MaxLength, Min, ValidateIf } from 'class-validator';

export const CALENDAR_NAME_MAX = 200;
export const CALENDAR_DESCRIPTION_MAX = 4000;
export const CALENDAR_ICAL_MESSAGE_MAX = 2000;

const GROUP_ID_DESCRIPTION =
  "The id (as a string) of the chapter the calendar belongs to: a contact of kind 'organization' with a parent organization. " +
  'Null or "" for none.';

@ObjectType({ description: 'A calendar as read for editing.' })
export class CalendarAddEdit {
  @Field(() => Int) CalendarId!: number;
  @Field(() => Int, { description: 'Record version for optimistic concurrency (send it back when saving).' }) AuditId!: number;
  @Field(() => String, { nullable: true }) Name!: string | null;
  @Field(() => String, { nullable: true }) Description!: string | null;
  @Field(() => Boolean) IsActive!: boolean;
  @Field(() => Boolean, { description: 'Anyone may see the calendar; with IsICalPublishingEnabled its iCalendar feed is served without a credential.' }) IsPublicViewable!: boolean;
  @Field(() => Boolean, { description: 'Signed-in members may see the calendar (in the lookups).' }) IsMemberViewable!: boolean;
  @Field(() => Boolean) AllowPublicSubmission!: boolean;
  @Field(() => Boolean) AllowMemberSubmission!: boolean;
  @Field(() => Boolean, { description: 'Publish the calendar as an iCalendar (RFC 5545) feed at EntireUrl.' }) IsICalPublishingEnabled!: boolean;
  @Field(() => String, { nullable: true, description: "The tenant's primary domain (read-only)." }) PrimaryDomain!: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'Absolute URL of the iCalendar feed (read-only); null unless the feed is served (IsICalPublishingEnabled, IsPublicViewable and IsActive).',
  }) EntireUrl!: string | null;
  @Field(() => String, { nullable: true, description: 'Text shown with the feed link.' }) AddCalendarICalMessage!: string | null;
  @Field(() => String, { nullable: true, description: GROUP_ID_DESCRIPTION }) GroupId!: string | null;
}

/**
 * A calendar to create (id 0) or update. A field left out keeps its current value on update and
 * gets its default on create (IsActive true, the other flags false); PrimaryDomain and EntireUrl
 * are derived by the server and not accepted.
 */
@InputType('CalendarAddEditInput', { description: 'A calendar to create (CalendarId 0 or absent) or update. Left-out fields keep their value (defaults on create: IsActive true, other flags false).' })
export class CalendarAddEditInput {
  @Field(() => Int, { nullable: true, description: 'Ignored when the path (REST) or the calendarid argument gives the id.' })
  @IsOptional() @Min(0)
  CalendarId?: number | null;

  @Field(() => Int, { nullable: true, description: 'The AuditId read with the calendar; a stale one is refused with 409.' })
  @IsOptional() @Min(0)
  AuditId?: number | null;

  @Field(() => String)
  @Length(1, CALENDAR_NAME_MAX) @Matches(/\S/, { message: 'Name must not be blank' })
  Name!: string;

  @Field(() => String, { nullable: true })
  @IsOptional() @MaxLength(CALENDAR_DESCRIPTION_MAX)
  Description?: string | null;

  @Field(() => Boolean, { nullable: true }) IsActive?: boolean | null;
  @Field(() => Boolean, { nullable: true }) IsPublicViewable?: boolean | null;
  @Field(() => Boolean, { nullable: true }) IsMemberViewable?: boolean | null;
  @Field(() => Boolean, { nullable: true }) AllowPublicSubmission?: boolean | null;
  @Field(() => Boolean, { nullable: true }) AllowMemberSubmission?: boolean | null;
  @Field(() => Boolean, { nullable: true }) IsICalPublishingEnabled?: boolean | null;

  @Field(() => String, { nullable: true })
  @IsOptional() @MaxLength(CALENDAR_ICAL_MESSAGE_MAX)
  AddCalendarICalMessage?: string | null;

  @Field(() => String, { nullable: true, description: GROUP_ID_DESCRIPTION })
  @ValidateIf((calendar: CalendarAddEditInput) => Boolean(calendar.GroupId)) // "" means no chapter
  @Matches(/^\s*\d{1,9}\s*$/, { message: 'GroupId must be the id of a chapter' })
  GroupId?: string | null;
}

@ObjectType({ description: 'A calendar as listed.' })
export class CalendarCollectionItem {
  @Field(() => Int) CalendarId!: number;
  @Field(() => Int) AuditId!: number;
  @Field(() => String, { nullable: true }) Name!: string | null;
  @Field(() => String, { nullable: true }) Description!: string | null;
  @Field(() => String, { nullable: true, description: "The name of the calendar's chapter (GroupId), null when none." }) GroupName!: string | null;
  @Field(() => Boolean) IsActive!: boolean;
  @Field(() => [String], { description: 'Actions the caller may take on the row.' }) Actions!: readonly string[];
}

@ObjectType({ description: 'A calendar offered as a choice.' })
export class CalendarChoiceItem {
  @Field(() => Int) Id!: number;
  @Field(() => String, { nullable: true }) Name!: string | null;
  @Field(() => String, { nullable: true }) CalendarDescription!: string | null;
}
