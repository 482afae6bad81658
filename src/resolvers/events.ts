import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../core/context.js';
import { ListOptionsInput } from '../schema/common.js';
import {
  BillingContactInfo, BillingContactInfoInput, EventAttendeeView, EventCaptchaSettingInput, EventCaptchaSettingView, EventEnvironmentResponse, EventGoalWidget, EventGroup,
  EventGroupInput, EventInput, EventInvitationView, EventOfferingInput, EventOfferingView, EventRegistrationCancelInput, EventRegistrationInput, EventRegistrationRecord,
  EventRegistrationResponse, EventRegistrationTypeInput, EventRegistrationTypeView,
  EventSessionInput, EventSessionView, EventSplitsResponse, EventTableManagement, EventView, PublicApiResponseBoolean, SaveEventRegisterV2Input, SaveRegisterAttendeesInput,
} from '../schema/events.js';
import * as groups from '../services/events/event-groups.js';
import * as registration from '../services/events/event-registration.js';
import * as changes from '../services/events/registration-changes.js';
import { eventGoalWidget } from '../services/events/event-widgets.js';
import * as events from '../services/events/events.js';

/** Public event registration (no credential), event groups and goal widgets (staff), and GraphQL-only event management (staff). */
@Resolver()
export class EventResolver {
  // ---------- public registration (no @Authorized: anyone, the tenant named by X-Tenant-Key, ?tenant= or the domain) ----------

  @Query(() => EventEnvironmentResponse, { description: 'Public (getenv): the registration environment. Contact defaults and an existing registration are shown only to staff or to that contact signed in.' })
  eventRegistrationEnvironment(@Ctx() ctx: RequestContext, @Arg('id', () => Int) id: number, @Arg('contactId', () => String, { nullable: true }) contactId?: string | null, @Arg('regId', () => String, { nullable: true }) regId?: string | null) {
    return registration.registrationEnvironment(ctx, id, contactId, regId);
  }

  @Mutation(() => BillingContactInfo, { description: 'Public: matches the billing contact by e-mail and organization; anonymous callers get back only what they sent.' })
  determineBillingContact(@Ctx() ctx: RequestContext, @Arg('input', () => BillingContactInfoInput) input: BillingContactInfoInput) {
    return registration.determineBillingContact(ctx, input);
  }

  @Mutation(() => EventSplitsResponse, { description: 'Public: checks a registration as register would (but the single-use captcha) and prices it; nothing is saved.' })
  validateEventRegistration(@Ctx() ctx: RequestContext, @Arg('id', () => Int) id: number, @Arg('input', () => SaveEventRegisterV2Input) input: SaveEventRegisterV2Input) {
    return registration.validateRegistration(ctx, registration.fromV2(id, input));
  }

  @Mutation(() => EventRegistrationResponse, { description: 'Public (register, SaveRegisterAttendees): registers the attendees once (a repeated submission answers the same registration); IsFirstStep only checks (Data null).' })
  registerEventAttendees(@Ctx() ctx: RequestContext, @Arg('id', () => Int) id: number, @Arg('input', () => SaveRegisterAttendeesInput) input: SaveRegisterAttendeesInput) {
    return input.IsFirstStep
      ? registration.validateRegistration(ctx, registration.fromV1(id, input)).then((checked) => ({ ...checked, Data: null }))
      : registration.register(ctx, registration.fromV1(id, input));
  }

  @Mutation(() => EventRegistrationResponse, { description: 'Public (register_v2, SaveEventRegisterV2): registers attendees, sponsorships, exhibitors, purchases and donations once, priced by the server, with an invoice.' })
  registerForEvent(@Ctx() ctx: RequestContext, @Arg('id', () => Int) id: number, @Arg('input', () => SaveEventRegisterV2Input) input: SaveEventRegisterV2Input) {
    return registration.register(ctx, registration.fromV2(id, input));
  }

  @Mutation(() => EventRegistrationResponse, { description: 'Public (submit): submits a SaveEventRegisterV2 form (the documents list no body); the same idempotent save as register_v2.' })
  submitEventRegistration(@Ctx() ctx: RequestContext, @Arg('id', () => Int) id: number, @Arg('input', () => SaveEventRegisterV2Input) input: SaveEventRegisterV2Input) {
    return registration.register(ctx, registration.fromV2(id, input));
  }

  @Mutation(() => EventSplitsResponse, { description: 'Public (splits): the saleable items a registration uses and the amounts, per line, with what is paid when it is registered.' })
  eventRegistrationSplits(@Ctx() ctx: RequestContext, @Arg('id', () => Int) id: number, @Arg('input', () => SaveEventRegisterV2Input) input: SaveEventRegisterV2Input) {
    return registration.registrationSplits(ctx, registration.fromV2(id, input));
  }

  @Mutation(() => PublicApiResponseBoolean, { description: 'Public: the invitee declines the invitation to event `id`.' })
  declineEventInvitation(@Ctx() ctx: RequestContext, @Arg('id', () => Int) id: number, @Arg('contactId', () => String) contactId: string) {
    return registration.declineInvitation(ctx, id, contactId);
  }

  // ---------- event groups (staff) ----------

  @Authorized('staff')
  @Query(() => EventTableManagement, { description: 'The event\'s groups (tables) and the attendees not yet seated.' })
  eventTableManagement(@Ctx() ctx: RequestContext, @Arg('eventId', () => Int) eventId: number) {
    return groups.eventTableManagement(ctx, eventId);
  }

  @Authorized('staff')
  @Query(() => EventGroup, { description: 'One group of an event.' })
  eventGroup(@Ctx() ctx: RequestContext, @Arg('eventId', () => String) eventId: string, @Arg('eventGroupId', () => String) eventGroupId: string) {
    return groups.getEventGroup(ctx, eventId, eventGroupId);
  }

  @Authorized('staff')
  @Mutation(() => EventGroup, { description: 'Creates (eventGroupId 0; EventId required) or updates a group; MaxToAssign may not fall below its members.' })
  saveEventGroup(@Ctx() ctx: RequestContext, @Arg('eventGroupId', () => Int) eventGroupId: number, @Arg('input', () => EventGroupInput) input: EventGroupInput) {
    return groups.saveEventGroup(ctx, eventGroupId, input);
  }

  @Authorized('staff')
  @Mutation(() => EventGroup, { description: 'Deletes an empty group (409 while it has members); answers it with IsDeleted true.' })
  deleteEventGroup(@Ctx() ctx: RequestContext, @Arg('eventGroupId', () => Int) eventGroupId: number) {
    return groups.deleteEventGroup(ctx, eventGroupId);
  }

  @Authorized('staff')
  @Mutation(() => Boolean, { description: 'Sets the group\'s members to the attendees in Members (at most MaxToAssign; one table per attendee and session).' })
  setEventGroupMembers(@Ctx() ctx: RequestContext, @Arg('eventGroupId', () => Int) eventGroupId: number, @Arg('input', () => EventGroupInput) input: EventGroupInput) {
    return groups.setEventGroupMembers(ctx, eventGroupId, input);
  }

  // ---------- goal widgets (staff) ----------

  @Authorized('staff')
  @Query(() => EventGoalWidget, { description: 'Registered attendees against the attendee goal.' })
  eventAttendeeGoalWidget(@Ctx() ctx: RequestContext, @Arg('eventId', () => Int) eventId: number) {
    return eventGoalWidget(ctx, eventId, 'attendee');
  }

  @Authorized('staff')
  @Query(() => EventGoalWidget, { description: 'Attendee revenue billed (and paid) against its goal.' })
  eventAttendeeRevenueGoalWidget(@Ctx() ctx: RequestContext, @Arg('eventId', () => Int) eventId: number) {
    return eventGoalWidget(ctx, eventId, 'attendeerevenue');
  }

  @Authorized('staff')
  @Query(() => EventGoalWidget, { description: 'Sponsorships bought against the sponsor goal.' })
  eventSponsorGoalWidget(@Ctx() ctx: RequestContext, @Arg('eventId', () => Int) eventId: number) {
    return eventGoalWidget(ctx, eventId, 'sponsor');
  }

  @Authorized('staff')
  @Query(() => EventGoalWidget, { description: 'Sponsor revenue billed (and paid) against its goal.' })
  eventSponsorRevenueGoalWidget(@Ctx() ctx: RequestContext, @Arg('eventId', () => Int) eventId: number) {
    return eventGoalWidget(ctx, eventId, 'sponsorrevenue');
  }

  @Authorized('staff')
  @Query(() => EventGoalWidget, { description: 'Exhibitor packages bought against the exhibitor goal.' })
  eventExhibitorGoalWidget(@Ctx() ctx: RequestContext, @Arg('eventId', () => Int) eventId: number) {
    return eventGoalWidget(ctx, eventId, 'exhibitor');
  }

  @Authorized('staff')
  @Query(() => EventGoalWidget, { description: 'Exhibitor revenue billed (and paid) against its goal.' })
  eventExhibitorRevenueGoalWidget(@Ctx() ctx: RequestContext, @Arg('eventId', () => Int) eventId: number) {
    return eventGoalWidget(ctx, eventId, 'exhibitorrevenue');
  }

  // ---------- event management (GraphQL only, staff) ----------

  @Authorized('staff')
  @Query(() => [EventView], { description: 'GraphQL only: the events, one page at a time (OrderBy Name, EventId, StartDate, EndDate, Status; CalendarStartDate/EndDate bound StartDate).' })
  events(@Ctx() ctx: RequestContext, @Arg('options', () => ListOptionsInput, { nullable: true }) options?: ListOptionsInput | null) {
    return events.listEvents(ctx, options);
  }

  @Authorized('staff')
  @Query(() => EventView, { description: 'GraphQL only: one event.' })
  event(@Ctx() ctx: RequestContext, @Arg('eventId', () => Int) eventId: number) {
    return events.getEvent(ctx, eventId);
  }

  @Authorized('staff')
  @Mutation(() => EventView, { description: 'GraphQL only: creates (eventId 0) or updates an event: dates, venue, status, capacity, goals.' })
  saveEvent(@Ctx() ctx: RequestContext, @Arg('eventId', () => Int) eventId: number, @Arg('input', () => EventInput) input: EventInput) {
    return events.saveEvent(ctx, eventId, input);
  }

  @Authorized('staff')
  @Query(() => [EventSessionView], { description: 'GraphQL only: the sessions of an event.' })
  eventSessions(@Ctx() ctx: RequestContext, @Arg('eventId', () => Int) eventId: number) {
    return events.listEventSessions(ctx, eventId);
  }

  @Authorized('staff')
  @Mutation(() => EventSessionView, { description: 'GraphQL only: creates (0) or updates a session of an event.' })
  saveEventSession(@Ctx() ctx: RequestContext, @Arg('eventSessionId', () => Int) eventSessionId: number, @Arg('input', () => EventSessionInput) input: EventSessionInput) {
    return events.saveEventSession(ctx, eventSessionId, input);
  }

  @Authorized('staff')
  @Query(() => [EventRegistrationTypeView], { description: 'GraphQL only: the registration types of an event.' })
  eventRegistrationTypes(@Ctx() ctx: RequestContext, @Arg('eventId', () => Int) eventId: number) {
    return events.listEventRegistrationTypes(ctx, eventId);
  }

  @Authorized('staff')
  @Mutation(() => EventRegistrationTypeView, { description: 'GraphQL only: creates (0) or updates a registration type (price, capacity, member-only, sessions).' })
  saveEventRegistrationType(@Ctx() ctx: RequestContext, @Arg('eventRegistrationTypeId', () => Int) eventRegistrationTypeId: number, @Arg('input', () => EventRegistrationTypeInput) input: EventRegistrationTypeInput) {
    return events.saveEventRegistrationType(ctx, eventRegistrationTypeId, input);
  }

  @Authorized('staff')
  @Query(() => [EventOfferingView], { description: 'GraphQL only: the sponsorship and exhibitor packages, additional items and donation items of an event.' })
  eventOfferings(@Ctx() ctx: RequestContext, @Arg('eventId', () => Int) eventId: number) {
    return events.listEventOfferings(ctx, eventId);
  }

  @Authorized('staff')
  @Mutation(() => EventOfferingView, { description: 'GraphQL only: creates (0) or updates a sponsorship or exhibitor package, additional item or donation item.' })
  saveEventOffering(@Ctx() ctx: RequestContext, @Arg('eventOfferingId', () => Int) eventOfferingId: number, @Arg('input', () => EventOfferingInput) input: EventOfferingInput) {
    return events.saveEventOffering(ctx, eventOfferingId, input);
  }

  @Authorized('staff')
  @Mutation(() => [EventInvitationView], { description: 'GraphQL only: invites contacts to an event (existing invitations stay as they are).' })
  inviteToEvent(@Ctx() ctx: RequestContext, @Arg('eventId', () => Int) eventId: number, @Arg('contactIds', () => [Int]) contactIds: number[]) {
    return events.inviteToEvent(ctx, eventId, contactIds);
  }

  @Authorized('staff')
  @Query(() => [EventAttendeeView], { description: 'GraphQL only: the attendees of an event, one page at a time (OrderBy EventRegistrationId, Status, Amount).' })
  eventAttendees(@Ctx() ctx: RequestContext, @Arg('eventId', () => Int) eventId: number, @Arg('options', () => ListOptionsInput, { nullable: true }) options?: ListOptionsInput | null) {
    return events.listEventAttendees(ctx, eventId, options);
  }

  @Authorized('staff')
  @Query(() => EventRegistrationRecord, { description: 'One attendee\'s registration, with its order\'s and invoice\'s state.' })
  eventRegistration(@Ctx() ctx: RequestContext, @Arg('eventRegistrationId', () => Int) eventRegistrationId: number) {
    return changes.getEventRegistration(ctx, eventRegistrationId);
  }

  @Authorized('staff')
  @Mutation(() => EventRegistrationRecord, { description: 'Registers an attendee (0; billed to the attendee, no captcha) or changes a registration: its type (seats move; 409 when the new type is full) and the attendee\'s name and e-mail. The amount billed stays.' })
  saveEventRegistration(@Ctx() ctx: RequestContext, @Arg('eventRegistrationId', () => Int) eventRegistrationId: number, @Arg('input', () => EventRegistrationInput) input: EventRegistrationInput) {
    return changes.saveEventRegistration(ctx, eventRegistrationId, input);
  }

  @Authorized('staff')
  @Mutation(() => EventRegistrationRecord, { description: 'Cancels a registration (WholeOrder: its whole order): seats back, out of its groups, invitation declined; the invoice credited (paid beyond it refunded), or refunded and voided when nothing in the order is left.' })
  cancelEventRegistration(@Ctx() ctx: RequestContext, @Arg('eventRegistrationId', () => Int) eventRegistrationId: number, @Arg('input', () => EventRegistrationCancelInput) input: EventRegistrationCancelInput) {
    return changes.cancelEventRegistration(ctx, eventRegistrationId, input);
  }

  @Authorized('staff')
  @Query(() => EventCaptchaSettingView, { nullable: true, description: 'GraphQL only: the tenant\'s captcha provider for public registration (never its secret).' })
  eventCaptchaSetting(@Ctx() ctx: RequestContext) {
    return events.getEventCaptchaSetting(ctx);
  }

  @Authorized('staff')
  @Mutation(() => EventCaptchaSettingView, { description: 'GraphQL only: sets the tenant\'s captcha provider (Cloudflare Turnstile or hCaptcha) and its secret.' })
  saveEventCaptchaSetting(@Ctx() ctx: RequestContext, @Arg('input', () => EventCaptchaSettingInput) input: EventCaptchaSettingInput) {
    return events.saveEventCaptchaSetting(ctx, input);
  }
}
