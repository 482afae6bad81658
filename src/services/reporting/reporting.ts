import type { FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { loadConfig } from '../../core/config.js';
import type { RequestContext } from '../../core/context.js';
import { BadInput, Conflict, NotFound } from '../../core/errors.js';
import { allOf, deleteReturning, idOf, insertIgnoringDuplicates, leanRows } from '../../core/data/lean-read.js';
import { escapeLike, listQuery, parseListOptions, defineList } from '../../core/data/list-query.js';
import { deleteRecord, inTransaction, readOr404 } from '../../core/data/records.js';
import { Contact } from '../../entities/contact.js';
import { Login } from '../../entities/login.js';
import { Report, ReportFavorite, ReportRun } from '../../entities/report.js';
import type { Tenant } from '../../entities/tenant.js';
import { listResult, type ListResultOf, type LookupChoiceInt } from '../../schema/common.js';
import {
  REPORT_TYPE_RULE,
  type ContactReportItem, type ContactReports, type ItemChoice, type ReportAddInput, type ReportAdvancedFilterInput, type ReportCollection, type ReportFavorites, type ReportListCriteria,
  type ReportRunCsv, type ReportRunInput, type ReportRunStatus,
} from '../../schema/reporting.js';
import { findFile, releaseFiles, storeTenantFile, type FileRecord } from '../files/files.js';
import { REPORT_RESULT_PURPOSE } from './report-runs.js';
import { categoryOf, REPORT_CATEGORIES, SYSTEM_REPORTS } from './report-sources.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';

/*
 * Reporting (decided where the documents are silent): staff only. Every tenant's catalog holds
 * the system reports (SYSTEM_REPORTS), seeded the first time the tenant's reports are read (one
 * INSERT … ON CONFLICT DO NOTHING on the unique (tenant, system key), so concurrent first reads
 * seed once) and not deletable (409); staff add custom reports (`add`), private to their creator
 * when IsPrivateForUser (another login does not see them at all: 404). Favorites are per login
 * (GraphQL setReportFavorite). Running a report (GraphQL runReport) stores a run that a
 * background job turns into CSV (services/reporting/report-runs.ts); reportRun and reportRunCsv read it.
 */

const NOUN = 'The report';
const FIELDS = [
  'id', 'auditId', 'name', 'description', 'reportTypeId', 'categoryId', 'isSystem', 'isPrivateForUser', 'appliesToContact', 'createdBy', 'lastUsed', 'createdAt',
] as const;
type ReportRow = Pick<Report, (typeof FIELDS)[number]>;

const reportList = defineList(Report, {
  operations: ['Query.reports'],
  orderBy: { Name: 'name', ReportId: 'id', DateAdded: 'createdAt', LastUsed: 'lastUsed', ReportCategoryId: 'categoryId' },
  defaultOrder: 'Name',
  search: ['name', 'description'],
});

/**
 * Tenants whose system reports this process has seeded already (seeding again would add nothing,
 * but costs a statement), per database (the driver: tests run several databases in one process).
 */
const seededTenants = new WeakMap<object, Set<number>>();

/** The reports the caller may see: shared ones, and the caller's private ones. */
function visibleTo(ctx: RequestContext): { $or: FilterQuery<Report>[] } {
  return { $or: [{ isPrivateForUser: false }, { createdBy: ctx.requireCaller().loginId }] };
}

/** GET/POST /api/reporting: the catalog as a ListResult (ReportAdvancedFilter; `category` of the GET as ReportCategoryId). */
export async function listReports(
  ctx: RequestContext, filter: ReportAdvancedFilterInput | null | undefined, category: string | null | undefined,
): Promise<ListResultOf<ReportCollection, ReportListCriteria>> {
  const list = parseListOptions(filter, reportList, '');
  const criteria: ReportListCriteria = {
    ReportCategoryId: text(category, 'category') ?? text(filter?.ReportCategoryId, 'ReportCategoryId'),
    IsCustom: filter?.IsCustom ?? null, IsPrivate: filter?.IsPrivate ?? null, IsFavorite: filter?.IsFavorite ?? null, Criteria: text(filter?.Criteria, 'Criteria'),
  };
  await seedSystemReports(ctx);
  const loginId = ctx.requireCaller().loginId;
  const conditions: FilterQuery<Report>[] = [visibleTo(ctx)];
  if (criteria.ReportCategoryId) conditions.push({ categoryId: { $ilike: escapeLike(criteria.ReportCategoryId) } });
  if (criteria.IsCustom !== null) conditions.push({ isSystem: !criteria.IsCustom });
  if (criteria.IsPrivate !== null) conditions.push({ isPrivateForUser: criteria.IsPrivate });
  if (criteria.IsFavorite !== null) conditions.push({ favorites: { [criteria.IsFavorite ? '$some' : '$none']: { login: loginId } } });
  if (criteria.Criteria) conditions.push({ reportTypeId: { $ilike: escapeLike(criteria.Criteria) } });
  const { rows, total } = await listQuery(ctx, Report, reportList, list, { fields: FIELDS, where: { $and: conditions }, total: true });
  const hasCriteria = Object.values(criteria).some((value) => value !== null);
  const categories: LookupChoiceInt[] = REPORT_CATEGORIES.map((name, index) => ({
    Id: index + 1, Name: name, ExtraData: null, CssColor: null, IsSelected: name.toLowerCase() === criteria.ReportCategoryId?.toLowerCase(), IsDeleted: false, Order: index,
  }));
  return listResult({ criteria: hasCriteria ? criteria : null, criteriaItems: categories, total: total ?? 0, results: await toCollection(ctx, rows) });
}

/** POST /api/reporting/add: a custom report (contacts unless ReportTypeId says otherwise). */
export async function addReport(ctx: RequestContext, input: ReportAddInput): Promise<ReportCollection> {
  const type = input.ReportTypeId?.trim() ? REPORT_TYPE_RULE.parse(input.ReportTypeId, 'ReportTypeId') : 'contacts';
  const report = ctx.em.create(Report, {
    tenant: ctx.tenantId, name: input.Name.trim(), description: input.Description?.trim() || null, reportTypeId: type, categoryId: categoryOf(type),
    isSystem: false, isPrivateForUser: input.IsPrivateForUser ?? false, createdBy: ctx.requireCaller().loginId,
  });
  await ctx.em.persist(report).flush();
  const [item] = await toCollection(ctx, [report]);
  return item;
}

/** DELETE /api/reporting/{reportid}/{auditid}: a custom report the caller can see (system reports: 409); its runs' files are released. */
export async function deleteReport(ctx: RequestContext, reportId: number, auditId: number): Promise<number> {
  const report = await readOr404(ctx, Report, ['isSystem'], reportId, NOUN, visibleTo(ctx));
  if (report.isSystem) throw new Conflict('A system report cannot be deleted.');
  const fileIds = await inTransaction(ctx, async () => {
    // The runs first, to learn their CSV files (released after the commit); a refused delete rolls them back.
    const runs = await deleteReturning(ctx.em, ReportRun, { report: reportId, tenant: ctx.tenantId }, ['file']);
    await deleteRecord(ctx, Report, reportId, auditId, NOUN, allOf<Report>({ isSystem: false }, visibleTo(ctx)));
    return runs.map((run) => idOf(run.file));
  });
  await releaseFiles(ctx, fileIds);
  return reportId;
}

/** GET /api/reporting/contactreports/{contactid}: the reports about one contact. */
export async function contactReports(ctx: RequestContext, contactIdText: string): Promise<ContactReports> {
  const contactId = await existingContact(ctx, contactIdText);
  return { ContactId: String(contactId), ReportsList: await contactReportItems(ctx, contactId, null) };
}

/** POST /api/reporting/contactreports/{contactid}?category=: the reports about one contact, of a category (the body is accepted and not used). */
export async function contactReportList(ctx: RequestContext, contactIdText: string, category: string | null | undefined): Promise<ContactReportItem[]> {
  const contactId = await existingContact(ctx, contactIdText);
  return contactReportItems(ctx, contactId, text(category, 'category'));
}

/** GET /api/reporting/tenantreports: the visible reports whose name holds `this[]`, as choices (at most 100). */
export async function tenantReports(ctx: RequestContext, search: string | null | undefined): Promise<ItemChoice[]> {
  const filter = text(search, 'this[]');
  await seedSystemReports(ctx);
  const { rows } = await listQuery(ctx, Report, reportList, { Filter: filter ?? undefined }, { fields: ['id', 'name'], where: visibleTo(ctx) });
  return rows.map((row, index) => ({ IsSelected: false, PreviouslySelected: false, Id: row.id, Name: row.name, Order: index }));
}

/** GET /api/reporting/widget/reportfavorites: the caller's favorites (at most 100, by name). */
export async function reportFavorites(ctx: RequestContext): Promise<ReportFavorites> {
  const where = { $and: [visibleTo(ctx), { favorites: { $some: { login: ctx.requireCaller().loginId } } }] };
  const { rows, total } = await listQuery(ctx, Report, reportList, null, { fields: FIELDS, where, total: true });
  return { ModelType: 'ReportCollection', Items: await toCollection(ctx, rows), TotalRecordAvailable: String(total ?? 0) };
}

/** Marks or unmarks a report as one of the caller's favorites (idempotent either way). */
export async function setReportFavorite(ctx: RequestContext, reportId: number, isFavorite: boolean): Promise<boolean> {
  await readOr404(ctx, Report, ['id'], reportId, NOUN, visibleTo(ctx));
  const loginId = ctx.requireCaller().loginId;
  if (isFavorite) {
    // A concurrent delete of the report makes the insert fail its foreign key: that is a 404.
    await insertIgnoringDuplicates(ctx.em, ReportFavorite, [{ tenant: ctx.tenantId, report: reportId, login: loginId }], ['report', 'login'])
      .catch(async (error: unknown) => {
        await readOr404(ctx, Report, ['id'], reportId, NOUN);
        throw error;
      });
  } else {
    await ctx.em.nativeDelete(ReportFavorite, { report: reportId, login: loginId, tenant: ctx.tenantId });
  }
  return isFavorite;
}

/** Starts a run of a report (GraphQL-only): stored queued, produced by a background job. */
export async function runReport(ctx: RequestContext, input: ReportRunInput): Promise<ReportRunStatus> {
  const report = await readOr404(ctx, Report, ['id', 'appliesToContact'], input.ReportId, NOUN, visibleTo(ctx));
  const contactId = input.ContactId ?? null;
  if (report.appliesToContact && contactId === null) throw BadInput.field('ContactId', 'is required: the report is about one contact');
  if (contactId !== null) await readOr404(ctx, Contact, ['id'], contactId, 'The contact');
  const run = ctx.em.create(ReportRun, { tenant: ctx.tenantId, report: report.id, contact: contactId, requestedBy: ctx.requireCaller().loginId });
  await ctx.em.persist(run).flush();
  // Raw, so that the version stays: running a report is not an edit (a delete with the AuditId read before still succeeds).
  await tenantSql(ctx).all(`UPDATE report SET last_used = now() WHERE id = ? AND ${tenantIs()}`, [report.id]);
  return toRunStatus(run);
}

const RUN_FIELDS = ['id', 'report', 'contact', 'state', 'progress', 'rowsTotal', 'rowsWritten', 'rowsSkipped', 'error', 'file', 'createdAt', 'finishedAt'] as const;

/** One run of a report the caller can see (GraphQL-only). */
export async function reportRun(ctx: RequestContext, runId: number): Promise<ReportRunStatus> {
  return toRunStatus(await readOr404(ctx, ReportRun, RUN_FIELDS, runId, 'The report run', { report: visibleTo(ctx) }));
}

/** Where a run's CSV is downloaded (http/reporting.ts). */
export const reportRunCsvPath = (runId: number) => `/api/reporting/runs/${runId}/csv`;

/** Where the CSV of a completed run is (GraphQL-only; 409 while it is not completed). */
export async function reportRunCsv(ctx: RequestContext, runId: number): Promise<ReportRunCsv> {
  const file = await reportRunFile(ctx, runId);
  return { FileName: file.name, MediaType: CSV_MEDIA_TYPE, Size: file.size, Url: reportRunCsvPath(runId) };
}

/** The CSV file of a completed run the caller can see (404 otherwise, 409 while it is not completed), for the download route. */
export async function reportRunFile(ctx: RequestContext, runId: number): Promise<FileRecord> {
  const run = await readOr404(ctx, ReportRun, ['state', 'file'], runId, 'The report run', { report: visibleTo(ctx) });
  if (run.state !== 'completed' || run.file === null) throw new Conflict(`The report run is ${run.state}; its CSV is there once it is completed.`);
  return findFile(ctx, idOf(run.file), [REPORT_RESULT_PURPOSE]);
}

export const CSV_MEDIA_TYPE = 'text/csv; charset=utf-8';

/** Demo reporting: the system reports, a shared and a private custom report, a favorite and a completed run with its CSV. */
export async function seedReports(em: EntityManager, tenant: Tenant, marker: string): Promise<void> {
  await insertSystemReports(em, tenant.id);
  const login = await em.findOne(Login, { tenant }, { filters: false, orderBy: { id: 'asc' } });
  const shared = em.create(Report, { tenant, name: `${marker}Board contacts`, description: `${marker}Contacts for the board`, reportTypeId: 'contacts', categoryId: 'Contacts', createdBy: login });
  em.create(Report, { tenant, name: `${marker}My memberships`, reportTypeId: 'memberships', categoryId: 'Membership', isPrivateForUser: true, createdBy: login });
  await em.flush();
  if (login) em.create(ReportFavorite, { tenant, report: shared, login });
  const file = await storeTenantFile(em, { tenantId: tenant.id, uploadedBy: null, config: loadConfig() }, {
    name: `${marker}board-contacts.csv`, mediaType: 'text/csv', bytes: Buffer.from(`ContactId,Name\n1,${marker}Ada\n`), purpose: REPORT_RESULT_PURPOSE,
  });
  em.create(ReportRun, { tenant, report: shared, requestedBy: login, state: 'completed', progress: 100, rowsTotal: 1, rowsWritten: 1, file: file.id, finishedAt: new Date() });
  await em.flush();
}

// ---------------------------------------------------------------------------------------------

/** The system reports of the caller's tenant, seeded once per tenant (race-free: ON CONFLICT DO NOTHING). */
async function seedSystemReports(ctx: RequestContext): Promise<void> {
  const tenantId = ctx.tenantId;
  const database = ctx.em.getDriver();
  const seeded = seededTenants.get(database) ?? new Set<number>();
  if (seeded.has(tenantId)) return;
  await insertSystemReports(ctx.em, tenantId);
  seededTenants.set(database, seeded.add(tenantId));
}

function insertSystemReports(em: EntityManager, tenantId: number): Promise<number> {
  return insertIgnoringDuplicates(em, Report, SYSTEM_REPORTS.map((report) => ({
    tenant: tenantId, systemKey: report.key, name: report.name, description: report.description, reportTypeId: report.type, categoryId: report.category,
    isSystem: true, isPrivateForUser: false, appliesToContact: report.appliesToContact ?? false,
  })), ['tenant', 'systemKey']);
}

/** A contact of the caller's tenant by a path segment documented str: not an integer or not there → 404. */
async function existingContact(ctx: RequestContext, text: string): Promise<number> {
  if (!/^\d{1,9}$/.test(text.trim())) throw new NotFound('The contact');
  return (await readOr404(ctx, Contact, ['id'], Number(text.trim()), 'The contact')).id;
}

async function contactReportItems(ctx: RequestContext, contactId: number, category: string | null): Promise<ContactReportItem[]> {
  await seedSystemReports(ctx);
  const where: FilterQuery<Report> = { $and: [visibleTo(ctx), { appliesToContact: true }, category ? { categoryId: { $ilike: escapeLike(category) } } : {}] };
  const { rows } = await listQuery(ctx, Report, reportList, null, { fields: ['id', 'auditId', 'isSystem', 'name', 'description', 'reportTypeId'], where });
  return rows.map((row) => ({
    ImageUrl: null, ImageShortDescription: null, ReportId: row.id, AuditId: row.auditId, IsSystem: row.isSystem, ContactId: contactId, Name: row.name,
    Description: row.description, ReportTypeId: row.reportTypeId, Path: reportPath(row.id, contactId),
  }));
}

function reportPath(reportId: number, contactId?: number): string {
  return `/graphql#runReport(ReportId:${reportId}${contactId ? `,ContactId:${contactId}` : ''})`;
}

/** Optional text criteria: trimmed, at most 200 characters, no NUL (400 naming `field`). */
function text(value: string | null | undefined, field: string): string | null {
  if (value === null || value === undefined || value.trim() === '') return null;
  if (value.length > 200) throw BadInput.field(field, 'must be at most 200 characters');
  if (value.includes('\u0000')) throw BadInput.field(field, 'must not contain NUL characters');
  return value.trim();
}

/** Collection items for a page of reports, with the caller's favorites among them in one statement. */
async function toCollection(ctx: RequestContext, rows: ReportRow[]): Promise<ReportCollection[]> {
  const loginId = ctx.requireCaller().loginId;
  const favorites = rows.length === 0 ? [] : await leanRows(ctx.reader, ReportFavorite, { fields: ['report'], where: { login: loginId, report: { $in: rows.map((row) => row.id) } } });
  const favoriteIds = new Set(favorites.map((favorite) => idOf(favorite.report)));
  return rows.map((row) => ({
    ImageUrl: null, ImageShortDescription: null, ReportId: row.id, AuditId: row.auditId, IsSystem: row.isSystem, Name: row.name, Description: row.description,
    ReportTypeId: row.reportTypeId, ReportCategoryId: row.categoryId, DateAdded: row.createdAt.toISOString(), LastUsed: row.lastUsed?.toISOString() ?? null,
    IsFavorite: favoriteIds.has(row.id), Path: reportPath(row.id), IsPrivateForUser: row.isPrivateForUser,
    CreatedBy: row.createdBy === null ? null : idOf(row.createdBy), Parameters: row.appliesToContact ? ['ContactId'] : [],
    Actions: row.isSystem ? ['Run'] : ['Run', 'Delete'], SecurableAreaId: null, SecurableItemId: null, IsChapterSafe: false, RequiredModules: [],
    UserHaveDeleteAccess: !row.isSystem,
  }));
}

function toRunStatus(run: Pick<ReportRun, (typeof RUN_FIELDS)[number]>): ReportRunStatus {
  return {
    ReportRunId: run.id, ReportId: idOf(run.report), ContactId: run.contact === null ? null : idOf(run.contact), State: run.state, Progress: run.progress,
    RowsTotal: run.rowsTotal, RowsWritten: run.rowsWritten, RowsSkipped: run.rowsSkipped, Error: run.error, FileId: run.file === null ? null : idOf(run.file),
    CreatedAt: run.createdAt.toISOString(), FinishedAt: run.finishedAt?.toISOString() ?? null,
  };
}
