import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../core/context.js';
import { BadInput, NotFound } from '../../core/errors.js';
import { idOf, leanRows } from '../../core/data/lean-read.js';
import { listQuery, MAX_PAGE_SIZE, defineList } from '../../core/data/list-query.js';
import { assertCurrentVersion, deleteRecord, findOr404, readOr404 } from '../../core/data/records.js';
import { Calendar, isFeedPublished } from '../../entities/calendar.js';
import { Contact, Tenant } from '../../entities/index.js';
import { displayName } from '../../entities/contact.js';
import { CalendarAddEdit, CalendarChoiceItem, CalendarCollectionItem, type CalendarAddEditInput } from '../../schema/calendars.js';
import { lookupChoices, rowActions, type ListOptionsInput, type LookupChoiceInt } from '../../schema/common.js';

/*
 * Calendars. Management (list, read for editing, save, delete) is staff-only; the two lookups are
 * open to any signed-in login: staff see every active calendar, members only the active ones that
 * are member- or public-viewable. A calendar belongs to at most one chapter (GroupId, see
 * entities/calendar.ts). A published calendar is served as an iCalendar feed by http/calendars.ts.
 */

const calendarList = defineList(Calendar, {
  operations: ['Query.calendars'],
  orderBy: { Name: 'name', Description: 'description', IsActive: 'isActive', CalendarId: 'id' },
  defaultOrder: 'Name',
  search: ['name', 'description'],
});

const LIST_FIELDS = ['id', 'auditId', 'name', 'description', 'isActive', 'chapter'] as const;
const EDIT_FIELDS = [
  ...LIST_FIELDS, 'isPublicViewable', 'isMemberViewable', 'allowPublicSubmission', 'allowMemberSubmission',
  'isICalPublishingEnabled', 'addCalendarICalMessage',
] as const;

type ListRow = Pick<Calendar, (typeof LIST_FIELDS)[number]>;
type EditRow = Pick<Calendar, (typeof EDIT_FIELDS)[number]>;

const NOUN = 'The calendar';

export async function listCalendars(ctx: RequestContext, options: ListOptionsInput | null | undefined): Promise<CalendarCollectionItem[]> {
  const { rows } = await listQuery(ctx, Calendar, calendarList, options, { fields: LIST_FIELDS });
  return Promise.all(rows.map((row) => toCollectionItem(ctx, row)));
}

export async function getCalendar(ctx: RequestContext, calendarId: number): Promise<CalendarAddEdit> {
  const row = await readOr404(ctx, Calendar, EDIT_FIELDS, calendarId, NOUN);
  return toAddEdit(ctx, row, await ctx.loaders.byId(Tenant).load(ctx.tenantId));
}

/**
 * Create-or-update: id 0 creates, an existing id updates, an unknown id is 404. `calendarId` (the
 * path, or the GraphQL argument) wins over `input.CalendarId`. Left-out fields keep their value.
 */
export async function saveCalendar(ctx: RequestContext, calendarId: number | null | undefined, input: CalendarAddEditInput): Promise<CalendarCollectionItem> {
  const id = calendarId ?? input.CalendarId ?? 0;
  const existing = id ? await findOr404(ctx, Calendar, id, NOUN) : null;
  if (existing) assertCurrentVersion(existing, input.AuditId);

  const fields: Partial<Calendar> = { name: input.Name.trim() };
  if (input.Description !== undefined) fields.description = input.Description || null;
  if (input.AddCalendarICalMessage !== undefined) fields.addCalendarICalMessage = input.AddCalendarICalMessage || null;
  for (const [key, property] of FLAGS) {
    const value = input[key];
    if (value !== undefined && value !== null) fields[property] = value;
  }
  if (input.GroupId !== undefined) {
    const chapterId = input.GroupId?.trim() ? Number(input.GroupId) : null;
    if (chapterId !== null && !(await chapterExists(ctx, chapterId))) throw BadInput.field('GroupId', 'is not a chapter of this association');
    fields.chapter = chapterId === null ? null : ctx.em.getReference(Contact, chapterId);
  }

  const calendar = existing ? ctx.em.assign(existing, fields) : ctx.em.create(Calendar, { tenant: ctx.tenantId, ...fields, name: fields.name! });
  await ctx.em.persist(calendar).flush();
  return toCollectionItem(ctx, calendar);
}

/** Deletes a calendar only if it is still version `auditId` (else 409, nothing deleted); answers its id. */
export function deleteCalendar(ctx: RequestContext, calendarId: number, auditId: number): Promise<number> {
  return deleteRecord(ctx, Calendar, calendarId, auditId, NOUN);
}

/** Active calendars the caller may see, as LookupChoiceInt (at most MAX_PAGE_SIZE, by name). */
export async function calendarLookup(ctx: RequestContext): Promise<LookupChoiceInt[]> {
  const { rows } = await listQuery(ctx, Calendar, calendarList, { Take: MAX_PAGE_SIZE }, { fields: ['id', 'name'], where: visibleTo(ctx) });
  return lookupChoices(rows);
}

/** The active calendars of chapter `chapterId` the caller may see; 404 when it is not a chapter of the tenant. */
export async function chapterCalendarLookup(ctx: RequestContext, chapterId: number): Promise<CalendarChoiceItem[]> {
  if (!(await chapterExists(ctx, chapterId))) throw new NotFound('The chapter');
  const { rows } = await listQuery(ctx, Calendar, calendarList, { Take: MAX_PAGE_SIZE }, {
    fields: ['id', 'name', 'description'], where: { ...visibleTo(ctx), chapter: chapterId },
  });
  return rows.map((row) => ({ Id: row.id, Name: row.name, CalendarDescription: row.description }));
}

/** The published feed's calendar: found by tenant key and id without a caller; null unless its feed is served. */
export async function publishedCalendar(ctx: RequestContext, tenantKey: string, calendarId: number) {
  const tenant = await ctx.em.findOne(Tenant, { key: tenantKey.toLowerCase() }, { filters: false });
  if (!tenant) return null;
  const calendar = await ctx.em.findOne(Calendar, { id: calendarId, tenant: tenant.id }, { filters: false });
  if (!calendar || !isFeedPublished(calendar)) return null;
  return { calendar, url: feedUrl(ctx, tenant, calendar.id) };
}

/** Where a tenant's calendar feed is served: this service's public address, not the tenant's portal domain. */
export function feedUrl(ctx: RequestContext, tenant: Pick<Tenant, 'key'>, calendarId: number): string {
  return `${ctx.app.publicBaseUrl}/ical/${encodeURIComponent(tenant.key)}/${calendarId}.ics`;
}

const FLAGS = [
  ['IsActive', 'isActive'],
  ['IsPublicViewable', 'isPublicViewable'],
  ['IsMemberViewable', 'isMemberViewable'],
  ['AllowPublicSubmission', 'allowPublicSubmission'],
  ['AllowMemberSubmission', 'allowMemberSubmission'],
  ['IsICalPublishingEnabled', 'isICalPublishingEnabled'],
] as const;

function visibleTo(ctx: RequestContext) {
  return ctx.isStaff
    ? { isActive: true }
    : { isActive: true, $or: [{ isMemberViewable: true }, { isPublicViewable: true }] };
}

/** A chapter: an organization (not deleted) with a parent organization, in the caller's tenant. */
async function chapterExists(ctx: RequestContext, chapterId: number): Promise<boolean> {
  const [chapter] = await leanRows(ctx.reader, Contact, {
    fields: ['id'], where: { id: chapterId, kind: 'organization', parent: { $ne: null } }, limit: 1,
  });
  return Boolean(chapter);
}

/** The chapter's name through the per-request Contact loader (one query per list, not per row). */
async function groupName(ctx: RequestContext, chapter: Contact | number | null): Promise<string | null> {
  const chapterId = idOf(chapter);
  if (chapterId === null) return null;
  const contact = await ctx.loaders.byId(Contact).load(chapterId);
  return contact ? displayName(contact) : null;
}

async function toCollectionItem(ctx: RequestContext, row: ListRow): Promise<CalendarCollectionItem> {
  return {
    CalendarId: row.id,
    AuditId: row.auditId,
    Name: row.name,
    Description: row.description,
    GroupName: await groupName(ctx, row.chapter),
    IsActive: row.isActive,
    Actions: rowActions(ctx.isStaff),
  };
}

function toAddEdit(ctx: RequestContext, row: EditRow, tenant: Tenant | null): CalendarAddEdit {
  const chapterId = idOf(row.chapter);
  return {
    CalendarId: row.id,
    AuditId: row.auditId,
    Name: row.name,
    Description: row.description,
    IsActive: row.isActive,
    IsPublicViewable: row.isPublicViewable,
    IsMemberViewable: row.isMemberViewable,
    AllowPublicSubmission: row.allowPublicSubmission,
    AllowMemberSubmission: row.allowMemberSubmission,
    IsICalPublishingEnabled: row.isICalPublishingEnabled,
    PrimaryDomain: tenant?.domain ?? null,
    EntireUrl: tenant && isFeedPublished(row) ? feedUrl(ctx, tenant, row.id) : null,
    AddCalendarICalMessage: row.addCalendarICalMessage,
    GroupId: chapterId === null ? null : String(chapterId),
  };
}

/** Demo calendars for a new tenant: one published as an iCalendar feed, one for staff only. */
export async function seedCalendars(em: EntityManager, tenant: Tenant, marker: string): Promise<void> {
  em.create(Calendar, {
    tenant, name: `${marker}Community events`, description: `${marker}Meetings, mixers and workshops open to all`,
    isActive: true, isPublicViewable: true, isMemberViewable: true, isICalPublishingEnabled: true,
  });
  em.create(Calendar, { tenant, name: `${marker}Board meetings`, description: `${marker}Staff only`, isActive: true });
  await em.flush();
}
