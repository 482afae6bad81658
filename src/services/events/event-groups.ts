import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { RequestContext } from '../../core/context.js';
import { BadInput, Conflict, NotFound } from '../../core/errors.js';
import { idOf, leanRows } from '../../core/data/lean-read.js';
import { inTransaction, readOr404, saveRecord } from '../../core/data/records.js';
import { Event, EventGroup, EventGroupMember, EventRegistration, EventRegistrationType, EventSession } from '../../entities/event.js';
import type { EventGroup as EventGroupView, EventGroupInput, EventGroupMember as EventGroupMemberView, EventTableManagement } from '../../schema/events.js';
import { EVENT_NOUN } from './events.js';
import { TENANT, tenantIs, tenantSql } from '../../core/data/tenant-sql.js';

/*
 * Event groups: the tables of an event (or of one of its sessions). Staff only. Decisions: an
 * attendee (a registered EventRegistration) sits at one table per session — the whole event counts
 * as session 0 — enforced by a unique index; MaxToAssign is checked with the group's row locked, so
 * concurrent assignments never overfill a table; a group may be deleted only when empty, in one
 * DELETE … WHERE NOT EXISTS (members), and the members' foreign key backs that up. The candidates
 * are the registered attendees seated at no table of the event. Setting a group's members replaces
 * them with the list sent.
 */

const NOUN = 'The event group';
const GROUP_FIELDS = ['id', 'event', 'session', 'registrationType', 'name', 'maxToAssign', 'groupNumber', 'groupOrder', 'auditId'] as const;
type GroupRow = Pick<EventGroup, (typeof GROUP_FIELDS)[number]>;
const SEATED_FIELDS = ['id', 'contact', 'registrationType', 'firstName', 'lastName'] as const;
type SeatedRow = Pick<EventRegistration, (typeof SEATED_FIELDS)[number]>;
/** The most attendees an event's table plan reads at once. */
const MAX_ATTENDEES = 10_000;

export async function eventTableManagement(ctx: RequestContext, eventId: number): Promise<EventTableManagement> {
  await readOr404(ctx, Event, ['id'], eventId, EVENT_NOUN);
  const [groups, attendees] = await Promise.all([
    leanRows(ctx.reader, EventGroup, { fields: [...GROUP_FIELDS], where: { event: eventId }, orderBy: [{ groupOrder: 'asc' }, { groupNumber: 'asc' }, { id: 'asc' }], limit: 1000 }),
    leanRows(ctx.reader, EventRegistration, { fields: [...SEATED_FIELDS], where: { event: eventId, status: 'registered' }, orderBy: [{ lastName: 'asc' }, { firstName: 'asc' }, { id: 'asc' }], limit: MAX_ATTENDEES }),
  ]);
  const members = groups.length
    ? await leanRows(ctx.reader, EventGroupMember, { fields: ['group', 'registration'], where: { group: { $in: groups.map((group) => group.id) } }, orderBy: [{ id: 'asc' }] })
    : [];
  const seated = new Set(members.map((member) => idOf(member.registration)));
  const views = await groupViews(ctx, groups, members, attendees);
  return { EventId: eventId, Groups: views, Candidates: await memberViews(ctx, attendees.filter((attendee) => !seated.has(attendee.id))) };
}

/** One group of an event (both ids documented str: text that is no id finds nothing). */
export async function getEventGroup(ctx: RequestContext, eventId: string, eventGroupId: string): Promise<EventGroupView> {
  const [event, group] = [recordId(eventId), recordId(eventGroupId)];
  if (event === null || group === null) throw new NotFound(NOUN);
  const [row] = await leanRows(ctx.reader, EventGroup, { fields: [...GROUP_FIELDS], where: { id: group, event }, limit: 1 });
  if (!row) throw new NotFound(NOUN);
  return groupView(ctx, row);
}

/** Create (0) or update a group; the path id wins over EventGroupId. Members are set with setEventGroupMembers. */
export async function saveEventGroup(ctx: RequestContext, eventGroupId: number, input: EventGroupInput): Promise<EventGroupView> {
  const current = eventGroupId ? await readOr404(ctx, EventGroup, GROUP_FIELDS, eventGroupId, NOUN) : null;
  const eventId = current ? idOf(current.event) : input.EventId;
  if (!eventId) throw BadInput.field('EventId', 'is required to create a group');
  if (current && input.EventId && input.EventId !== eventId) throw BadInput.field('EventId', 'cannot move a group to another event');
  await readOr404(ctx, Event, ['id'], eventId, EVENT_NOUN);
  const name = input.Name?.trim() ?? current?.name;
  if (!name) throw BadInput.field('Name', 'is required');
  const typeId = input.EventRegistrationTypeId ? Number(input.EventRegistrationTypeId) : null;
  const sessionId = input.EventSessionId ? Number(input.EventSessionId) : null;
  const maxToAssign = input.MaxToAssign ? Number(input.MaxToAssign) : null;
  if (maxToAssign !== null && (maxToAssign < 1 || maxToAssign > 10_000)) throw BadInput.field('MaxToAssign', 'must be from 1 to 10000');
  const [types, sessions] = await Promise.all([
    typeId ? leanRows(ctx.reader, EventRegistrationType, { fields: ['id'], where: { id: typeId, event: eventId }, limit: 1 }) : Promise.resolve([{}]),
    sessionId ? leanRows(ctx.reader, EventSession, { fields: ['id'], where: { id: sessionId, event: eventId }, limit: 1 }) : Promise.resolve([{}]),
  ]);
  if (!types.length) throw BadInput.field('EventRegistrationTypeId', 'names no registration type of the event');
  if (!sessions.length) throw BadInput.field('EventSessionId', 'names no session of the event');
  if (current) {
    const members = await leanRows(ctx.reader, EventGroupMember, { fields: ['id'], where: { group: current.id }, limit: MAX_ATTENDEES });
    if (maxToAssign !== null && members.length > maxToAssign) throw new Conflict(`The group has ${members.length} members, more than ${maxToAssign}.`, [{ field: 'MaxToAssign', message: 'is less than the members assigned' }]);
    if (members.length && sessionId !== idOf(current.session)) throw new Conflict('A group with members cannot move to another session.', [{ field: 'EventSessionId', message: 'cannot change while the group has members' }]);
  }
  const groupNumber = input.GroupNumber ?? current?.groupNumber ?? await nextGroupNumber(ctx, eventId);
  const fields = {
    name, registrationType: typeId, session: sessionId, maxToAssign, groupNumber,
    groupOrder: input.GroupOrder ? Number(input.GroupOrder) : current?.groupOrder ?? groupNumber,
  };
  const saved = await saveRecord(ctx, EventGroup, { id: eventGroupId, auditId: input.AuditId }, fields, NOUN, { event: eventId });
  return groupView(ctx, saved);
}

/** Deletes an empty group in one statement; 409 while it has members. Answers the group as deleted. */
export async function deleteEventGroup(ctx: RequestContext, eventGroupId: number): Promise<EventGroupView> {
  const deleted = await tenantSql(ctx).all<{ id: number }>(
    `delete from event_group g where g.id = ? and ${tenantIs('g')}
        and not exists (select 1 from event_group_member m where m.group_id = g.id) returning g.id`, [eventGroupId]);
  if (!deleted.length) {
    await readOr404(ctx, EventGroup, ['id'], eventGroupId, NOUN);
    throw new Conflict('The group has members: unassign them before deleting it.');
  }
  return { ...deletedView, EventGroupId: eventGroupId };
}

/** Sets the group's members to exactly the attendees listed (MaxToAssign, type and one-table-per-session checked). */
export async function setEventGroupMembers(ctx: RequestContext, eventGroupId: number, input: EventGroupInput): Promise<boolean> {
  const wanted = [...new Set((input.Members ?? []).map((member) => member.EventRegistrationId))];
  await inTransaction(ctx, async () => {
    const [group] = await tenantSql(ctx).all<{ event_id: number; session_id: number | null; registration_type_id: number | null; max_to_assign: number | null }>(
      `select event_id, session_id, registration_type_id, max_to_assign from event_group where id = ? and ${tenantIs()} for update`, [eventGroupId]);
    if (!group) throw new NotFound(NOUN);
    if (group.max_to_assign !== null && wanted.length > group.max_to_assign) throw BadInput.field('Members', `at most ${group.max_to_assign} may be assigned to this group (MaxToAssign)`);
    const registrations = wanted.length
      ? await leanRows(ctx.reader, EventRegistration, { fields: ['id', 'registrationType'], where: { id: { $in: wanted }, event: group.event_id, status: 'registered' } })
      : [];
    const byId = new Map(registrations.map((registration) => [registration.id, registration]));
    wanted.forEach((id, index) => {
      const registration = byId.get(id);
      if (!registration) throw BadInput.field(`Members[${index}].EventRegistrationId`, 'names no attendee of the event');
      if (group.registration_type_id !== null && idOf(registration.registrationType) !== group.registration_type_id) {
        throw BadInput.field(`Members[${index}].EventRegistrationId`, 'has another registration type than the group takes');
      }
    });
    // The ids as one PostgreSQL array literal (a bound JS array would be expanded into a list).
    const idArray = `{${wanted.join(',')}}`;
    await tenantSql(ctx).all(`delete from event_group_member where ${tenantIs()} and group_id = ? and not (registration_id = any(?::int[]))`, [eventGroupId, idArray]);
    if (wanted.length) {
      try {
        await tenantSql(ctx).all(
          `insert into event_group_member (tenant_id, group_id, registration_id, session_key)
           select ${TENANT}, ?, r, ? from unnest(?::int[]) r
            where not exists (select 1 from event_group_member m where m.group_id = ? and m.registration_id = r)`,
          [eventGroupId, group.session_id ?? 0, idArray, eventGroupId],
        );
      } catch (error) {
        if (error instanceof UniqueConstraintViolationException) throw new Conflict('An attendee is already seated at another group of this session.', [{ field: 'Members', message: 'already seated elsewhere' }]);
        throw error;
      }
    }
  });
  return true;
}

// ---------- views ----------

const deletedView: Omit<EventGroupView, 'EventGroupId'> = {
  EventId: 0, Name: '', EventRegistrationTypeId: null, EventRegistrationTypeName: null, MaxToAssign: null, GroupNumber: 0, GroupOrder: '0',
  EventSessionId: null, Members: [], IsDeleted: true, IsDeletable: false, AuditId: 0,
};

async function groupView(ctx: RequestContext, group: GroupRow): Promise<EventGroupView> {
  const members = await leanRows(ctx.reader, EventGroupMember, { fields: ['group', 'registration'], where: { group: group.id }, orderBy: [{ id: 'asc' }], limit: MAX_ATTENDEES });
  const attendees = members.length
    ? await leanRows(ctx.reader, EventRegistration, { fields: [...SEATED_FIELDS], where: { id: { $in: members.map((member) => idOf(member.registration)) } } })
    : [];
  return (await groupViews(ctx, [group], members, attendees))[0];
}

async function groupViews(
  ctx: RequestContext, groups: readonly GroupRow[], members: readonly Pick<EventGroupMember, 'group' | 'registration'>[], attendees: readonly SeatedRow[],
): Promise<EventGroupView[]> {
  const attendeeById = new Map(attendees.map((attendee) => [attendee.id, attendee]));
  const types = ctx.loaders.byId(EventRegistrationType);
  return Promise.all(groups.map(async (group) => {
    const seated = members.filter((member) => idOf(member.group) === group.id).map((member) => attendeeById.get(idOf(member.registration))).filter((row): row is SeatedRow => Boolean(row));
    const typeId = idOf(group.registrationType);
    const [type, memberList] = await Promise.all([typeId ? types.load(typeId) : Promise.resolve(null), memberViews(ctx, seated)]);
    return {
      EventGroupId: group.id, EventId: idOf(group.event), Name: group.name, EventRegistrationTypeId: typeId === null ? null : String(typeId),
      EventRegistrationTypeName: type?.name ?? null, MaxToAssign: group.maxToAssign === null ? null : String(group.maxToAssign), GroupNumber: group.groupNumber,
      GroupOrder: String(group.groupOrder), EventSessionId: idOf(group.session) === null ? null : String(idOf(group.session)), Members: memberList,
      IsDeleted: false, IsDeletable: memberList.length === 0, AuditId: group.auditId,
    };
  }));
}

async function memberViews(ctx: RequestContext, rows: readonly SeatedRow[]): Promise<EventGroupMemberView[]> {
  const types = ctx.loaders.byId(EventRegistrationType);
  return Promise.all(rows.map(async (row) => ({
    EventRegistrationId: row.id, ContactId: idOf(row.contact), Name: `${row.firstName} ${row.lastName}`, EventRegistrationTypeId: idOf(row.registrationType),
    EventRegistrationTypeName: (await types.load(idOf(row.registrationType)))?.name ?? '',
  })));
}

async function nextGroupNumber(ctx: RequestContext, eventId: number): Promise<number> {
  const [row] = await tenantSql(ctx).all<{ next: number }>(`select coalesce(max(group_number), 0) + 1 as next from event_group where ${tenantIs()} and event_id = ?`, [eventId]);
  return Number(row?.next ?? 1);
}

function recordId(value: string): number | null {
  return /^\d{1,9}$/.test(value.trim()) ? Number(value.trim()) : null;
}
