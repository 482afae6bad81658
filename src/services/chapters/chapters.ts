import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../core/context.js';
import { BadInput, Conflict, NotFound, staleAuditId } from '../../core/errors.js';
import { idOf, leanCount, leanRows } from '../../core/data/lean-read.js';
import { listQuery, defineList } from '../../core/data/list-query.js';
import { assertCurrentVersion, nextVersion } from '../../core/data/records.js';
import { Calendar } from '../../entities/calendar.js';
import { Chapter, ContactChapter } from '../../entities/chapter.js';
import { Contact, type PostalAddress } from '../../entities/contact.js';
import type { Tenant } from '../../entities/tenant.js';
import type { ChapterAddEdit, ChapterAddEditInput, ChapterCollection, ChapterContactSelect } from '../../schema/chapters.js';
import { lookupChoices, type ListOptionsInput, type LookupChoiceInt } from '../../schema/common.js';
import { nullableLookupChoices, type LookupChoiceNullable } from '../../schema/lookup-choice-nullable.js';
import { chapterDirectoryId, linkChapterDirectory, unlinkChapterDirectory } from '../directories/chapter-directory.js';
import { promotePrimaries } from './chapter-links.js';
import {
  ancestorIds, callerOrganizationId, descendantsOf, effectiveGateway, foldKey, readHierarchy, topLevelOrganizationId, withChapterLock, type Organization,
} from './chapter-hierarchy.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';

/*
 * Chapters (decided where the documents are silent):
 * - ChapterId is the id of the chapter's organization contact (as the calendars' GroupId is).
 *   Staff manage chapters and read them for editing; any signed-in login reads the lookups.
 * - ParentOrganizationId absent or 0 puts the chapter under the tenant's top-level organization
 *   (chapter-hierarchy.ts). A parent that would make the chapter its own ancestor is a 400.
 * - Likely duplicates: another chapter with the same name or the same number (case and spaces
 *   ignored): 409 listing them unless forcesave (path) or ForceSave (body) is true.
 * - Every chapter save and delete runs under one lock per tenant, so neither two concurrent
 *   re-parentings (each fine alone) can make a cycle together nor two saves of one name pass the
 *   duplicate check together.
 * - Deleting a chapter that still has child chapters is a 409. Deleting removes its chapter row
 *   and contact links (contacts whose primary it was get their oldest other chapter as primary)
 *   and soft-deletes its organization contact.
 * - Owners, OrganizationContactId and PrimaryCalenderId must be records of the tenant (400).
 *   Groups are another area's records: their ids are kept as given.
 * - DirectoryId is the directory whose ChapterId is the chapter (the one link:
 *   services/directories/chapter-directory.ts). A save with another DirectoryId moves the
 *   chapter there (400 for no directory, 409 for another chapter's) and copies its contacts'
 *   listings; RemoveContactsFromPreviousDirectory removes them from the previous directory;
 *   PreviousDirectoryId, when sent, must be the chapter's directory before the save (409). A
 *   save without DirectoryId leaves the chapter without a directory. Both are instructions of the
 *   save: a read answers null and false.
 * - Lookups answer at most HIERARCHY_LIMIT organizations.
 */

const NOUN = 'The chapter';

const chapterList = defineList(Chapter, {
  operations: ['Query.chapters'],
  orderBy: { OrganizationName: 'name', ChapterId: 'contact', ChapterNumber: 'number' },
  defaultOrder: 'OrganizationName',
  search: ['name', 'number'],
});

/** Chapters (never the top level) whose organization contact is not deleted; `contactId`: that one chapter. */
function liveChapters(contactId?: number) {
  return { isTopLevel: false, contact: { deletedAt: null, ...(contactId === undefined ? {} : { id: contactId }) } };
}

/** `GET /api/chapters/items`: one page of chapters. */
export async function listChapters(ctx: RequestContext, options: ListOptionsInput | null | undefined): Promise<ChapterCollection[]> {
  const { rows } = await listQuery(ctx, Chapter, chapterList, options, { fields: ['contact', 'name', 'auditId'], where: liveChapters() });
  return toCollections(ctx, rows.map((row) => ({ contactId: idOf(row.contact), name: row.name, auditId: row.auditId })));
}

/** One chapter, for editing. */
export async function getChapter(ctx: RequestContext, chapterId: number): Promise<ChapterAddEdit> {
  const [chapter, directoryId] = await Promise.all([
    ctx.em.findOne(Chapter, liveChapters(chapterId), { populate: ['contact'] }),
    chapterDirectoryId(ctx, chapterId),
  ]);
  if (!chapter) throw new NotFound(NOUN);
  return {
    ChapterId: chapter.contact.id, OrganizationId: chapter.contact.id, ChapterName: chapter.name, ChapterNumber: chapter.number, ChapterDescription: chapter.description,
    OrganizationContactId: idText(idOf(chapter.organizationContact)), ParentOrganizationId: idOf(chapter.contact.parent),
    PrimaryCalenderId: idText(idOf(chapter.primaryCalendar)), CalendarDescription: chapter.calendarDescription,
    GroupTypeId: chapter.groupTypeId, PrimaryGroupId: chapter.primaryGroupId, DirectoryId: idText(directoryId),
    PaymentGatewayId: chapter.paymentGatewayId, PaymentGatewayType: chapter.paymentGatewayType, PreviousDirectoryId: null, RemoveContactsFromPreviousDirectory: false,
    Owners: chapter.owners, PostalCodesJson: chapter.postalCodes, IsDefaultPostalCodeEmpty: chapter.isDefaultPostalCodeEmpty,
    AffiliateTenantModel: chapter.affiliateTenant, ShouldAllowChapterTenantEditing: chapter.allowChapterTenantEditing, ForceSave: false, AuditId: chapter.auditId,
  };
}

/** Create-or-update (chapterId 0 creates): the organization contact and its chapter settings. */
export async function saveChapter(ctx: RequestContext, chapterId: number, forceSave: boolean, input: ChapterAddEditInput): Promise<ChapterCollection> {
  const name = input.ChapterName.trim();
  const number = input.ChapterNumber?.trim() || null;
  const references = {
    organizationContact: idFromText(input.OrganizationContactId, 'OrganizationContactId'),
    primaryCalendar: idFromText(input.PrimaryCalenderId, 'PrimaryCalenderId'),
  };
  const directory = {
    directoryId: idFromText(input.DirectoryId, 'DirectoryId'),
    previousDirectoryId: idFromText(input.PreviousDirectoryId, 'PreviousDirectoryId'),
    removeContacts: input.RemoveContactsFromPreviousDirectory ?? false,
  };
  const owners = input.Owners ? [...new Set(input.Owners)] : null;
  const postalCodes = input.PostalCodesJson ? [...new Set(input.PostalCodesJson.map(normalizePostalCode).filter(Boolean))] : null;
  const topLevel = await topLevelOrganizationId(ctx);
  return withChapterLock(ctx, async () => {
    const current = chapterId ? await ctx.em.findOne(Chapter, liveChapters(chapterId), { populate: ['contact'] }) : null;
    if (chapterId && !current) throw new NotFound(NOUN);
    if (current) assertCurrentVersion(current, input.AuditId);
    const parentId = input.ParentOrganizationId || topLevel;
    await checkParent(ctx, current?.contact.id ?? null, parentId);
    if (!forceSave && !input.ForceSave) await refuseLikelyDuplicates(ctx, name, number, current?.id ?? null);
    await checkReferences(ctx, owners, references.organizationContact, references.primaryCalendar);

    const contact = current?.contact ?? ctx.em.create(Contact, { tenant: ctx.tenantId, kind: 'organization', name });
    ctx.em.assign(contact, { name, parent: ctx.em.getReference(Contact, parentId) });
    const fields = {
      name, nameKey: foldKey(name), number, numberKey: number ? foldKey(number) : null, description: input.ChapterDescription?.trim() || null,
      organizationContact: references.organizationContact ? ctx.em.getReference(Contact, references.organizationContact) : null,
      primaryCalendar: references.primaryCalendar ? ctx.em.getReference(Calendar, references.primaryCalendar) : null,
      calendarDescription: input.CalendarDescription?.trim() || null, groupTypeId: input.GroupTypeId?.trim() || null, primaryGroupId: input.PrimaryGroupId?.trim() || null,
      paymentGatewayId: input.PaymentGatewayId?.trim() || null, paymentGatewayType: input.PaymentGatewayType?.trim() || null,
      ...(owners ? { owners } : {}), ...(postalCodes ? { postalCodes } : {}),
      isDefaultPostalCodeEmpty: input.IsDefaultPostalCodeEmpty ?? false, affiliateTenant: input.AffiliateTenantModel ?? null,
      allowChapterTenantEditing: input.ShouldAllowChapterTenantEditing ?? false,
      // Always moves, so that a save changing only the contact (its parent) still moves the AuditId on.
      updatedAt: new Date(),
    };
    const chapter = current ? ctx.em.assign(current, fields) : ctx.em.create(Chapter, { tenant: ctx.tenantId, contact, ...fields });
    await ctx.em.persist([contact, chapter]).flush();
    await linkChapterDirectory(ctx, contact.id, directory);
    const [collection] = await toCollections(ctx, [{ contactId: contact.id, name: chapter.name, auditId: chapter.auditId }]);
    return collection;
  });
}

/** Deletes a chapter without child chapters (409 otherwise); `auditId`, when given, must be current. Answers its id. */
export function deleteChapter(ctx: RequestContext, chapterId: number, auditId: number | null | undefined): Promise<number> {
  return withChapterLock(ctx, async () => {
    const [chapter] = await leanRows(ctx.reader, Chapter, { fields: ['id', 'auditId'], where: liveChapters(chapterId), limit: 1 });
    if (!chapter) throw new NotFound(NOUN);
    if (auditId != null && auditId !== chapter.auditId) throw staleAuditId();
    if (await leanCount(ctx.reader, Contact, { parent: chapterId })) {
      throw new Conflict('The chapter has child chapters; move or delete them first.', [{ field: 'ChapterId', message: 'has child chapters' }]);
    }
    // The linked contacts are locked first, in id order, as every change of a primary does.
    await tenantSql(ctx).all(`SELECT id FROM contact WHERE ${tenantIs()} AND id IN (SELECT contact_id FROM contact_chapter WHERE ${tenantIs()} AND chapter_id = ?)
      ORDER BY id FOR UPDATE`, [chapterId]);
    const links = await tenantSql(ctx).all<{ contact_id: number; is_primary: boolean }>(
      `DELETE FROM contact_chapter WHERE ${tenantIs()} AND chapter_id = ? RETURNING contact_id, is_primary`, [chapterId]);
    await promotePrimaries(ctx.em, ctx.tenantId, links.filter((link) => link.is_primary).map((link) => link.contact_id));
    await ctx.em.nativeDelete(Chapter, { id: chapter.id, tenant: ctx.tenantId });
    await unlinkChapterDirectory(ctx, chapterId);
    await ctx.em.nativeUpdate(Contact, { id: chapterId, tenant: ctx.tenantId }, { deletedAt: new Date(), updatedAt: new Date(), auditId: nextVersion() });
    return chapterId;
  });
}

/** Every chapter (`chapters/lookup`). */
export async function chaptersLookup(ctx: RequestContext): Promise<LookupChoiceInt[]> {
  return lookupChoices((await readHierarchy(ctx)).filter((org) => !org.isTopLevel));
}

/** Where a chapter may be put (`parentchapter/lookup`): the top level and the chapters, but `chapterId` itself and those below it. */
export async function parentChapterLookup(ctx: RequestContext, chapterId: number | null | undefined): Promise<LookupChoiceInt[]> {
  await topLevelOrganizationId(ctx);
  const hierarchy = await readHierarchy(ctx);
  const excluded = new Set(chapterId ? [chapterId, ...descendantsOf(hierarchy, chapterId).map((org) => org.id)] : []);
  return lookupChoices(hierarchy.filter((org) => !excluded.has(org.id)));
}

/** The chapters below the caller's current organization (`childchapters/lookup`). */
export async function childChaptersLookup(ctx: RequestContext): Promise<LookupChoiceInt[]> {
  return lookupChoices(await callerDescendants(ctx));
}

/** The same chapters as LookupChoiceNullable (`childchapterids/lookup`). */
export async function childChapterIdsLookup(ctx: RequestContext): Promise<LookupChoiceNullable[]> {
  return nullableLookupChoices(await callerDescendants(ctx));
}

/** `membershiptypeoptionchildchapterids/lookup/{includetoplevelselection}`: the caller's chapters below it, after a null-Id "Top level" choice when asked. */
export async function membershipTypeOptionChildChapterIds(ctx: RequestContext, includeTopLevelSelection: boolean): Promise<LookupChoiceNullable[]> {
  const chapters = await callerDescendants(ctx);
  return nullableLookupChoices([...(includeTopLevelSelection ? [{ id: null, name: 'Top level' }] : []), ...chapters]);
}

/** `chapters/contacts/lookup/{includeparent}`: the chapters with their own payment gateway, after the top-level organization when asked. */
export async function chapterContactsLookup(ctx: RequestContext, include: boolean): Promise<ChapterContactSelect[]> {
  if (include) await topLevelOrganizationId(ctx);
  const hierarchy = await readHierarchy(ctx);
  return hierarchy.filter((org) => include || !org.isTopLevel).map((org) => contactSelect(org, org.paymentGatewayId));
}

/** `chaptersformembership/lookup`: the top level and every chapter, each with the gateway its membership payments go through (its own or its nearest ancestor's). */
export async function chaptersForMembershipLookup(ctx: RequestContext): Promise<ChapterContactSelect[]> {
  await topLevelOrganizationId(ctx);
  const hierarchy = await readHierarchy(ctx);
  const gateway = effectiveGateway(hierarchy);
  return hierarchy.map((org) => contactSelect(org, gateway(org)));
}

/** `chaptersformembership/contacts/lookup`: the chapters the caller's own contact belongs to (primary first), with their membership gateway. */
export async function chaptersForMembershipOfCaller(ctx: RequestContext): Promise<ChapterContactSelect[]> {
  const contactId = ctx.caller?.contactId;
  if (!contactId) return [];
  const [hierarchy, links] = await Promise.all([
    readHierarchy(ctx),
    leanRows(ctx.reader, ContactChapter, { fields: ['chapter', 'isPrimary'], where: { contact: contactId }, orderBy: [{ isPrimary: 'desc' }, { id: 'asc' }] }),
  ]);
  const gateway = effectiveGateway(hierarchy);
  const byId = new Map(hierarchy.map((org) => [org.id, org]));
  return links.flatMap((link) => {
    const org = byId.get(idOf(link.chapter));
    return org ? [contactSelect(org, gateway(org))] : [];
  });
}

/** Demo chapters for a new tenant: the top level, two chapters (one below the other) with postal codes, and a member of one. */
export async function seedChapters(em: EntityManager, tenant: Tenant, marker: string): Promise<void> {
  const top = em.create(Contact, { tenant, kind: 'organization', name: `${marker}Association` });
  em.create(Chapter, { tenant, contact: top, isTopLevel: true, name: `${marker}Association`, nameKey: foldKey(`${marker}Association`) });
  const north = em.create(Contact, { tenant, kind: 'organization', name: `${marker}North`, parent: top, addresses: [{ kind: 'primary', city: `${marker}Oslo`, region: 'NO' }] });
  em.create(Chapter, { tenant, contact: north, name: `${marker}North`, nameKey: foldKey(`${marker}North`), number: 'N1', numberKey: 'n1', postalCodes: ['0150'], paymentGatewayId: `${marker}gw` });
  const fjord = em.create(Contact, { tenant, kind: 'organization', name: `${marker}Fjord`, parent: north });
  em.create(Chapter, { tenant, contact: fjord, name: `${marker}Fjord`, nameKey: foldKey(`${marker}Fjord`), postalCodes: ['5003'] });
  const member = em.create(Contact, { tenant, kind: 'person', firstName: `${marker}Pat`, lastName: `${marker}Member`, addresses: [{ kind: 'primary', postalCode: '0150' }] });
  em.create(ContactChapter, { tenant, contact: member, chapter: north, isPrimary: true });
  em.create(ContactChapter, { tenant, contact: member, chapter: fjord, isPrimary: false });
  await em.flush();
}

// ---------------------------------------------------------------------------------------------

async function callerDescendants(ctx: RequestContext): Promise<Organization[]> {
  const hierarchy = await readHierarchy(ctx);
  const root = await callerOrganizationId(ctx, hierarchy);
  if (root === null) return hierarchy.filter((org) => !org.isTopLevel); // no top level yet: every chapter is below it
  return descendantsOf(hierarchy, root);
}

/** The parent must be an organization of the hierarchy, and not the chapter itself or one below it (400). */
async function checkParent(ctx: RequestContext, chapterId: number | null, parentId: number): Promise<void> {
  const [parent] = await leanRows(ctx.reader, Chapter, { fields: ['id'], where: { contact: { id: parentId, deletedAt: null } }, limit: 1 });
  if (!parent) throw BadInput.field('ParentOrganizationId', 'names no chapter nor the top-level organization');
  if (chapterId !== null && (parentId === chapterId || (await ancestorIds(ctx, parentId)).includes(chapterId))) {
    throw BadInput.field('ParentOrganizationId', 'would make the chapter its own ancestor (a cycle in the hierarchy)');
  }
}

async function refuseLikelyDuplicates(ctx: RequestContext, name: string, number: string | null, exceptId: number | null): Promise<void> {
  const same = [{ nameKey: foldKey(name) }, ...(number ? [{ numberKey: foldKey(number) }] : [])];
  const duplicates = await leanRows(ctx.reader, Chapter, {
    fields: ['contact', 'name', 'number', 'nameKey'],
    where: { ...liveChapters(), $or: same, ...(exceptId ? { id: { $ne: exceptId } } : {}) },
    orderBy: [{ id: 'asc' }], limit: 100,
  });
  if (duplicates.length) {
    throw new Conflict('A chapter with the same name or number exists; send forcesave true to save anyway.', duplicates.map((duplicate) => ({
      field: duplicate.nameKey === foldKey(name) ? 'ChapterName' : 'ChapterNumber',
      message: `same ${duplicate.nameKey === foldKey(name) ? 'name' : 'number'} as ChapterId ${idOf(duplicate.contact)} ("${duplicate.name}"${duplicate.number ? `, number ${duplicate.number}` : ''})`,
    })));
  }
}

async function checkReferences(ctx: RequestContext, owners: number[] | null, organizationContact: number | null, primaryCalendar: number | null): Promise<void> {
  if (owners?.length) {
    const found = await leanRows(ctx.reader, Contact, { fields: ['id'], where: { id: { $in: owners } } });
    const missing = owners.findIndex((id) => !found.some((row) => row.id === id));
    if (missing >= 0) throw BadInput.field(`Owners.${missing}`, 'is not a contact');
  }
  if (organizationContact !== null && !(await leanCount(ctx.reader, Contact, { id: organizationContact }))) throw BadInput.field('OrganizationContactId', 'is not a contact');
  if (primaryCalendar !== null && !(await leanCount(ctx.reader, Calendar, { id: primaryCalendar }))) throw BadInput.field('PrimaryCalenderId', 'is not a calendar');
}

/** Chapter rows as ChapterCollection: their contacts and parents through the contact loader (two batched statements per page). */
async function toCollections(ctx: RequestContext, rows: { contactId: number; name: string; auditId: number }[]): Promise<ChapterCollection[]> {
  const contactLoader = ctx.loaders.byId(Contact);
  const contacts = await contactLoader.loadMany(rows.map((row) => row.contactId));
  const parentIds = contacts.map((contact) => (contact instanceof Contact ? idOf(contact.parent) : null));
  const parents = await contactLoader.loadMany(parentIds.filter((id): id is number => id !== null));
  const parentNames = new Map(parents.flatMap((parent) => (parent instanceof Contact ? [[parent.id, parent.name] as const] : [])));
  return rows.map((row, index) => {
    const contact = contacts[index];
    const address = contact instanceof Contact ? primaryAddress(contact.addresses) : null;
    const parentId = parentIds[index];
    return {
      ChapterId: row.contactId, AuditId: row.auditId, OrganizationName: row.name, ParentOrganizationId: parentId,
      ParentOrganizationName: parentId === null ? null : parentNames.get(parentId) ?? null, City: address?.city ?? null, State: address?.region ?? null,
    };
  });
}

/** The address marked primary, else the first. */
export function primaryAddress(addresses: PostalAddress[] | null): PostalAddress | null {
  if (!Array.isArray(addresses)) return null;
  return addresses.find((address) => address?.kind?.toLowerCase() === 'primary') ?? addresses[0] ?? null;
}

/** A postal code as compared: upper case, no whitespace. */
export function normalizePostalCode(code: string): string {
  return code.replace(/\s+/g, '').toUpperCase();
}

function contactSelect(org: Organization, paymentGatewayId: string | null): ChapterContactSelect {
  return { Id: org.id, Name: org.name, PaymentGatewayId: paymentGatewayId };
}

/** A record id documented as str: digits (or empty: none). Anything else was refused by the input's rules; 0 is none. */
function idFromText(value: string | null | undefined, field: string): number | null {
  const text = value?.trim() ?? '';
  if (text === '') return null;
  const id = Number(text);
  if (!Number.isSafeInteger(id) || id > 2147483647) throw BadInput.field(field, 'must be a record id');
  return id || null;
}

function idText(id: number | null): string | null {
  return id === null ? null : String(id);
}
