import type { RequestContext } from '../../core/context.js';
import { jsonText } from '../../core/values.js';
import { BadInput, Conflict, NotFound } from '../../core/errors.js';
import { allOf, countsBy, idOf, leanRows } from '../../core/data/lean-read.js';
import { listQuery, parseListOptions, defineList } from '../../core/data/list-query.js';
import { deleteRecord, inTransaction, readOr404, saveRecord } from '../../core/data/records.js';
import { DEFAULT_SEARCH_SETTINGS, Directory, DirectoryListing, DirectoryListingType, type DirectorySearchSettings } from '../../entities/directory.js';
import { lookupChoices, rowActions, type ListOptionsInput, type ListResultOf } from '../../schema/common.js';
import type {
  DirectoriesListCriteria, DirectoriesListFilterInput, DirectoriesListItem, DirectoryAddEdit, DirectoryAddEditInput, DirectoryListingType as DirectoryListingTypeModel,
  DirectoryListingTypeInput, DirectoryListingTypeListItem, DirectorySearchSettingsInput,
} from '../../schema/directories.js';
import { checkDirectoryChapter } from './chapter-directory.js';
import { reconcileTenantListings } from './directory-listings.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';

/*
 * Directory setup (decided where the documents are silent): staff create, change and delete
 * directories and listing types; any signed-in login may list the directories (members see
 * those not in development). ChapterId must be a chapter without another directory (400 / 409:
 * chapter-directory.ts). A directory id typed str in a path that is not an integer finds no
 * directory (404). Deleting a directory stamps it and its listings deleted (synchronization
 * clients see the listings go); a listing type a directory or listing uses cannot be deleted (409).
 */

const DIRECTORY_NOUN = 'The directory';
const TYPE_NOUN = 'The directory listing type';

const directoryList = defineList(Directory, {
  operations: ['Query.directories', 'Query.chapterDirectories', 'Query.directoriesSetup'],
  orderBy: { Name: 'name', SortOrder: 'sortOrder', DirectoryId: 'id' },
  defaultOrder: 'Name',
  search: ['name', 'displayName', 'description'],
});

const typeList = defineList(DirectoryListingType, {
  operations: ['Query.directoryListingTypes'],
  orderBy: { Name: 'name', DirectoryListingTypeId: 'id' },
  defaultOrder: 'Name',
  search: ['name', 'description'],
});

const LIST_FIELDS = ['id', 'name', 'displayName', 'description', 'listingType', 'isPublic', 'isHub', 'inDevelopment', 'automaticallyAddRemoveMembers', 'auditId'] as const;
type DirectoryListRow = Pick<Directory, (typeof LIST_FIELDS)[number]>;

const EDIT_FIELDS = [
  ...LIST_FIELDS, 'sortOrder', 'categoryListId', 'categoryListIds', 'orderCategoryResults', 'hubIconCssClass', 'searchSettings', 'keywordSearchOptions', 'customFields',
  'isMultiTenant', 'objectTypeId', 'searchObjectTypeId', 'showIsPublicProperty', 'chapterId', 'membershipTypeIds',
] as const;

const TYPE_FIELDS = [
  'id', 'auditId', 'name', 'description', 'defaultRank', 'showIndividualDetails', 'showContactDetails', 'showCustomFields', 'showRelatedContacts', 'showContactsWithMemberships',
  'showPrimaryContact', 'directLinkToDestinationSite', 'openLinksInNewTab', 'options', 'retargeting', 'enhancedOnMap', 'showRetsDirectoryLinkOption',
] as const;

/** Members see only directories out of development. */
function visibleToCaller(ctx: RequestContext) {
  return ctx.isStaff ? null : { inDevelopment: false };
}

/** A directory id given as a string (documented str): not an integer finds nothing. */
export function directoryIdOf(value: string | number): number {
  const id = typeof value === 'number' ? value : /^\s*\d{1,9}\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(id) || id < 1) throw new NotFound(DIRECTORY_NOUN);
  return id;
}

export async function listDirectories(ctx: RequestContext, options: ListOptionsInput | null | undefined, chapterId?: number): Promise<DirectoriesListItem[]> {
  const where = allOf<Directory>(visibleToCaller(ctx), chapterId === undefined ? null : { chapterId });
  const { rows } = await listQuery(ctx, Directory, directoryList, options, { fields: LIST_FIELDS, where });
  return toListItems(ctx, rows);
}

/** The setup list (ListResult): FilterBase paging and Filter, Criteria IsPublic and ChapterId, the listing types as CriteriaItems. */
export async function directoriesSetup(
  ctx: RequestContext, filter: DirectoriesListFilterInput | null | undefined,
): Promise<ListResultOf<DirectoriesListItem, DirectoriesListCriteria>> {
  const list = parseListOptions(filter, directoryList, '');
  const criteria = filter?.Criteria ? { IsPublic: filter.Criteria.IsPublic ?? null, ChapterId: filter.Criteria.ChapterId ?? null } : null;
  const where = allOf<Directory>(
    criteria?.IsPublic == null ? null : { isPublic: criteria.IsPublic },
    criteria?.ChapterId == null ? null : { chapterId: criteria.ChapterId },
  );
  const [{ rows, total }, types] = await Promise.all([
    listQuery(ctx, Directory, directoryList, list, { fields: LIST_FIELDS, where, total: true }),
    leanRows(ctx.reader, DirectoryListingType, { fields: ['id', 'name'], where: {}, orderBy: [{ name: 'asc' }, { id: 'asc' }], limit: 1000 }),
  ]);
  return { Criteria: criteria, CriteriaItems: lookupChoices(types), TotalRecordAvailable: String(total ?? 0), ModelItems: [], Results: await toListItems(ctx, rows) };
}

export async function getDirectory(ctx: RequestContext, directoryId: string | number): Promise<DirectoryAddEdit> {
  const row = await readOr404(ctx, Directory, EDIT_FIELDS, directoryIdOf(directoryId), DIRECTORY_NOUN);
  return {
    DirectoryId: row.id, Name: row.name, DisplayName: row.displayName, Description: row.description, DirectoryListingTypeId: idOf(row.listingType),
    SortOrder: row.sortOrder, CategoryListId: row.categoryListId, CatLists: row.categoryListIds, OrderCategoryResults: row.orderCategoryResults,
    IsPublic: row.isPublic, IsHub: row.isHub, HubIconCssClass: row.hubIconCssClass, SearchFilterOptions: { ...DEFAULT_SEARCH_SETTINGS, ...row.searchSettings },
    KeywordSearchOptions: jsonText(row.keywordSearchOptions), CustomFields: jsonText(row.customFields), IsMultiTenant: row.isMultiTenant,
    AutomaticallyAddRemoveMembers: row.automaticallyAddRemoveMembers, ObjectTypeId: row.objectTypeId, SearchObjectTypeId: row.searchObjectTypeId,
    ShowIsPublicProperty: row.showIsPublicProperty, InDevelopment: row.inDevelopment, ChapterId: row.chapterId, MembershipTypeIds: row.membershipTypeIds,
    AuditId: row.auditId,
  };
}

/**
 * CategoryListId and CatLists name category lists of the tenant (400 naming the field). The lists
 * are share-locked until the save commits, so a list deleted at the same moment either goes
 * first (and is refused here) or waits and then leaves the directory (migration 0044).
 */
async function checkCategoryLists(ctx: RequestContext, input: DirectoryAddEditInput): Promise<void> {
  const named = [...new Set([...(input.CatLists ?? []), ...(input.CategoryListId != null ? [input.CategoryListId] : [])])];
  if (named.length === 0) return;
  const found = new Set((await tenantSql(ctx).all<{ id: number }>(
    `select id from category_list where ${tenantIs()} and id in (${named.map(() => '?').join(', ')}) for share`, named)).map((row) => row.id));
  if (input.CategoryListId != null && !found.has(input.CategoryListId)) throw BadInput.field('CategoryListId', 'names no category list');
  const unknown = (input.CatLists ?? []).findIndex((id) => !found.has(id));
  if (unknown >= 0) throw BadInput.field(`CatLists[${unknown}]`, 'names no category list');
}

/**
 * Create-or-update (0 creates, the path id wins). With AutomaticallyAddRemoveMembers on, the
 * holders of the directory's membership types are listed (and lapsed ones unlisted) at once, in
 * the same transaction; later membership changes are caught up by the reconcile job.
 */
export async function saveDirectory(ctx: RequestContext, directoryId: number, input: DirectoryAddEditInput): Promise<DirectoriesListItem> {
  return inTransaction(ctx, async () => {
    const listingType = input.DirectoryListingTypeId ? await listingTypeRef(ctx, input.DirectoryListingTypeId) : null;
    const current = directoryId ? await readOr404(ctx, Directory, ['searchSettings'], directoryId, DIRECTORY_NOUN) : null;
    if (input.ChapterId != null) await checkDirectoryChapter(ctx, directoryId, input.ChapterId);
    await checkCategoryLists(ctx, input);
    const fields = {
      name: input.Name.trim(), displayName: input.DisplayName?.trim() || null, description: input.Description?.trim() || null, listingType,
      sortOrder: input.SortOrder ?? 0, categoryListId: input.CategoryListId ?? null, categoryListIds: input.CatLists ?? [],
      orderCategoryResults: input.OrderCategoryResults ?? null, isPublic: input.IsPublic ?? false, isHub: input.IsHub ?? false,
      hubIconCssClass: input.HubIconCssClass ?? null, searchSettings: searchSettings(current?.searchSettings, input.SearchFilterOptions),
      keywordSearchOptions: input.KeywordSearchOptions ?? null, customFields: input.CustomFields ?? null, isMultiTenant: input.IsMultiTenant ?? false,
      automaticallyAddRemoveMembers: input.AutomaticallyAddRemoveMembers ?? false, objectTypeId: input.ObjectTypeId ?? null,
      searchObjectTypeId: input.SearchObjectTypeId ?? null, showIsPublicProperty: input.ShowIsPublicProperty ?? false, inDevelopment: input.InDevelopment ?? false,
      chapterId: input.ChapterId ?? null,
    };
    const saved = await saveRecord(ctx, Directory, { id: directoryId, auditId: input.AuditId }, fields, DIRECTORY_NOUN);
    if (saved.automaticallyAddRemoveMembers) await reconcileTenantListings(ctx.em, ctx.tenantId, saved.id);
    const [item] = await toListItems(ctx, [saved]);
    return item;
  });
}

/** Stamps the directory and its live listings deleted, in one transaction; 404 when it is not there. */
export async function deleteDirectory(ctx: RequestContext, directoryId: number): Promise<number> {
  return inTransaction(ctx, async () => {
    const stamped = await tenantSql(ctx).all<{ id: number }>(
      `update directory set deleted_at = now(), updated_at = now(), audit_id = audit_id + 1, listing_type_id = null where id = ? and ${tenantIs()} and deleted_at is null returning id`, [directoryId]);
    if (stamped.length === 0) throw new NotFound(DIRECTORY_NOUN);
    await tenantSql(ctx).run(
      `update directory_listing set deleted_at = now(), updated_at = now(), audit_id = audit_id + 1, listing_type_id = null where directory_id = ? and ${tenantIs()} and deleted_at is null`, [directoryId]);
    return directoryId;
  });
}

// ---------------------------------------------------------------------------------------------
// Listing types

export async function listListingTypes(ctx: RequestContext, options: ListOptionsInput | null | undefined): Promise<DirectoryListingTypeListItem[]> {
  const { rows } = await listQuery(ctx, DirectoryListingType, typeList, options, { fields: ['id', 'name', 'description', 'auditId'] });
  const counts = await listingCounts(ctx, rows.map((row) => row.id));
  return rows.map((row) => ({
    DirectoryListingTypeId: row.id, Id: row.id, AuditId: row.auditId, Name: row.name, Description: row.description,
    Count: counts.get(row.id) ?? 0, Actions: rowActions(ctx.isStaff),
  }));
}

export async function getListingType(ctx: RequestContext, listingTypeId: number): Promise<DirectoryListingTypeModel> {
  const row = await readOr404(ctx, DirectoryListingType, TYPE_FIELDS, listingTypeId, TYPE_NOUN);
  return toListingType(row, await usage(ctx, listingTypeId));
}

export async function saveListingType(ctx: RequestContext, input: DirectoryListingTypeInput): Promise<DirectoryListingTypeModel> {
  const id = input.DirectoryListingTypeId || input.Id || 0;
  const fields = {
    name: input.Name.trim(), description: input.Description?.trim() || null, defaultRank: input.DefaultRank ?? null,
    showIndividualDetails: input.ShowIndividualDetails ?? null, showContactDetails: input.ShowContactDetails ?? null, showCustomFields: input.ShowCustomFields ?? null,
    showRelatedContacts: input.ShowRelatedContacts ?? false, showContactsWithMemberships: input.ShowContactsWithMemberships ?? false,
    showPrimaryContact: input.ShowPrimaryContact ?? false, directLinkToDestinationSite: input.DirectLinkToDestinationSite ?? false,
    openLinksInNewTab: input.OpenLinksInNewTab ?? false, options: input.Options ?? null, retargeting: input.Retargeting ?? null,
    enhancedOnMap: input.EnhancedOnMap ?? false, showRetsDirectoryLinkOption: input.ShowRETSDirectoryLinkOption ?? false,
  };
  const saved = await saveRecord(ctx, DirectoryListingType, { id, auditId: input.AuditId }, fields, TYPE_NOUN);
  return toListingType(saved, id ? await usage(ctx, saved.id) : { directories: 0, listings: 0 });
}

/**
 * Deletes a listing type no directory or live listing uses (409 naming the count otherwise; the
 * foreign keys refuse one that became used meanwhile). A stale AuditId is 409 too.
 */
export async function deleteListingType(ctx: RequestContext, listingTypeId: number, auditId: number): Promise<number> {
  return inTransaction(ctx, async () => {
    const used = await usage(ctx, listingTypeId);
    if (used.directories + used.listings > 0) {
      throw new Conflict(`The directory listing type is used by ${used.directories} directories and ${used.listings} listings.`, [{ field: 'Count', message: String(used.listings) }]);
    }
    // Removed listings keep no type (their rows stay for synchronization only).
    await tenantSql(ctx).run(
      `update directory_listing set listing_type_id = null where listing_type_id = ? and ${tenantIs()} and deleted_at is not null`, [listingTypeId]);
    return deleteRecord(ctx, DirectoryListingType, listingTypeId, auditId, TYPE_NOUN);
  });
}

// ---------------------------------------------------------------------------------------------

async function listingTypeRef(ctx: RequestContext, id: number): Promise<DirectoryListingType> {
  const [row] = await leanRows(ctx.reader, DirectoryListingType, { fields: ['id'], where: { id }, limit: 1 });
  if (!row) throw new NotFound(TYPE_NOUN);
  return ctx.em.getReference(DirectoryListingType, id);
}

function searchSettings(current: DirectorySearchSettings | undefined, given: DirectorySearchSettingsInput | null | undefined): DirectorySearchSettings {
  const base = { ...DEFAULT_SEARCH_SETTINGS, ...current };
  if (!given) return base;
  const defined = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== null && value !== undefined));
  return { ...base, ...defined };
}

async function toListItems(ctx: RequestContext, rows: DirectoryListRow[]): Promise<DirectoriesListItem[]> {
  const typeIds = [...new Set(rows.map((row) => idOf(row.listingType)).filter((id): id is number => id !== null))];
  const types = typeIds.length ? await leanRows(ctx.reader, DirectoryListingType, { fields: ['id', 'name'], where: { id: { $in: typeIds } } }) : [];
  const names = new Map(types.map((type) => [type.id, type.name]));
  return rows.map((row) => {
    const typeId = idOf(row.listingType);
    return {
      Id: row.id, DirectoryId: row.id, Name: row.name, AuditId: row.auditId, Localize: row.displayName ?? row.name, Description: row.description,
      DirectoryListingTypeId: typeId, DirectoryListingTypeName: typeId === null ? null : names.get(typeId) ?? null, IsPublic: row.isPublic, ExtraData: row.isHub,
      IsVisibleToMembers: !row.inDevelopment, Availability: row.inDevelopment ? 'In development' : row.isPublic ? 'Public' : 'Members',
      AutomaticallyAddRemoveMembers: row.automaticallyAddRemoveMembers, Actions: rowActions(ctx.isStaff),
    };
  });
}

/** Live listings per listing type, for a page of types: one grouped statement. */
async function listingCounts(ctx: RequestContext, typeIds: number[]): Promise<Map<unknown, number>> {
  if (typeIds.length === 0) return new Map();
  return countsBy(ctx.reader, DirectoryListing, 'listingType', { listingType: { $in: typeIds }, deletedAt: null });
}

async function usage(ctx: RequestContext, typeId: number): Promise<{ directories: number; listings: number }> {
  const [directories, listings] = await Promise.all([
    countsBy(ctx.reader, Directory, 'listingType', { listingType: typeId }),
    listingCounts(ctx, [typeId]),
  ]);
  return { directories: directories.get(typeId) ?? 0, listings: listings.get(typeId) ?? 0 };
}

function toListingType(row: Pick<DirectoryListingType, (typeof TYPE_FIELDS)[number]>, used: { directories: number; listings: number }): DirectoryListingTypeModel {
  return {
    DirectoryListingTypeId: row.id, Id: row.id, AuditId: row.auditId, Name: row.name, Description: row.description, DefaultRank: row.defaultRank,
    ShowIndividualDetails: row.showIndividualDetails, ShowContactDetails: row.showContactDetails, ShowCustomFields: row.showCustomFields,
    ShowRelatedContacts: row.showRelatedContacts, ShowContactsWithMemberships: row.showContactsWithMemberships, ShowPrimaryContact: row.showPrimaryContact,
    DirectLinkToDestinationSite: row.directLinkToDestinationSite, OpenLinksInNewTab: row.openLinksInNewTab, Options: jsonText(row.options), Retargeting: row.retargeting,
    EnhancedOnMap: row.enhancedOnMap, IsDeletable: used.directories + used.listings === 0, Count: used.listings, ShowRETSDirectoryLinkOption: row.showRetsDirectoryLinkOption,
  };
}
