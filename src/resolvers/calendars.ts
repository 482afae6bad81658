import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { rangeRule, RuledArg } from '../core/argument-rules.js';
import type { RequestContext } from '../core/context.js';
import { CalendarAddEdit, CalendarAddEditInput, CalendarChoiceItem, CalendarCollectionItem } from '../schema/calendars.js';
import { ListOptionsInput, LookupChoiceInt } from '../schema/common.js';
import * as calendars from '../services/calendars/calendars.js';

/** A calendar to save: 0 creates. */
const CALENDAR_ID_RULE = rangeRule(0, 2147483647);

@Resolver()
export class CalendarResolver {
  @Authorized('staff')
  @Query(() => [CalendarCollectionItem], { description: 'The calendars, one page at a time (staff).' })
  calendars(@Ctx() ctx: RequestContext, @Arg('options', () => ListOptionsInput, { nullable: true }) options?: ListOptionsInput | null) {
    return calendars.listCalendars(ctx, options);
  }

  @Authorized('staff')
  @Query(() => CalendarAddEdit, { description: 'One calendar, for editing (staff).' })
  calendar(@Ctx() ctx: RequestContext, @Arg('calendarId', () => Int) calendarId: number) {
    return calendars.getCalendar(ctx, calendarId);
  }

  @Authorized()
  @Query(() => [LookupChoiceInt], { description: 'Active calendars as choices: every one for staff, the member- or public-viewable ones for members (by name, at most 1000).' })
  calendarLookup(@Ctx() ctx: RequestContext) {
    return calendars.calendarLookup(ctx);
  }

  @Authorized()
  @Query(() => [CalendarChoiceItem], { description: "The active calendars of a chapter the caller may see (404 when the id is not one of the tenant's chapters)." })
  calendarChapterLookup(@Ctx() ctx: RequestContext, @Arg('chapterId', () => Int) chapterId: number) {
    return calendars.chapterCalendarLookup(ctx, chapterId);
  }

  @Authorized('staff')
  @Mutation(() => CalendarCollectionItem, { description: 'Creates (id 0) or updates a calendar (staff).' })
  saveCalendar(
    @Ctx() ctx: RequestContext,
    @Arg('input', () => CalendarAddEditInput) input: CalendarAddEditInput,
    @RuledArg('calendarId', CALENDAR_ID_RULE, { type: () => Int, nullable: true, description: 'The calendar to update, 0 to create; wins over input.CalendarId (REST: the path).' }) calendarId: number | null,
  ) {
    return calendars.saveCalendar(ctx, calendarId, input);
  }

  @Authorized('staff')
  @Mutation(() => Int, { description: 'Deletes a calendar if it is still version auditId (else 409); answers its id (REST: empty 200).' })
  deleteCalendar(
    @Ctx() ctx: RequestContext,
    @Arg('calendarId', () => Int) calendarId: number,
    @Arg('auditId', () => Int, { description: 'The AuditId read with the calendar.' }) auditId: number,
  ) {
    return calendars.deleteCalendar(ctx, calendarId, auditId);
  }
}
