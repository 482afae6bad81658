import type { EntityClass } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { stringify } from 'csv-stringify/sync';
import { confineToTenant, type AppDeps, type RequestContext } from '../../core/context.js';
import { addDays, addMonths, calendarDay, todayUtc } from '../../core/dates.js';
import { BadInput, Conflict } from '../../core/errors.js';
import { jobContext } from '../../core/runtime/job-context.js';
import { queueJob, type JobDefinition } from '../../core/runtime/jobs.js';
import { allOf, idOf, leanRows } from '../../core/data/lean-read.js';
import { escapeLike, listPages, listQuery, parseListOptions, defineList } from '../../core/data/list-query.js';
import { money, parseMoney, sumMoney, toMoneyNumber, toMoneyString } from '../../core/money.js';
import { inTransaction, readOr404 } from '../../core/data/records.js';
import {
  ScheduledBilling, ScheduledBillingDownload, ScheduledBillingRunItem, ScheduledBillingRunRecord, type RunParameters,
} from '../../entities/billing.js';
import { SaleableItem } from '../../entities/commerce.js';
import { Contact, displayName } from '../../entities/contact.js';
import { Membership, MembershipLevel, MembershipType } from '../../entities/membership.js';
import type { Tenant } from '../../entities/tenant.js';
import { lookupChoices, type ListOptionsInput, type ListResultOf } from '../../schema/common.js';
import { piecewiseDownload, textDownload, type FileDownload } from '../../schema/file-download.js';
import type {
  PendingFileDownloadResult, ScheduledBillingCriteria, ScheduledBillingFilterInput, ScheduledBillingHistory, ScheduledBillingHistoryItem, ScheduledBillingItem,
  ScheduledBillingRun, ScheduledBillingRunInput, ScheduledBillingRunItemView,
} from '../../schema/scheduled-billing.js';
import { createInvoice } from '../commerce/invoices.js';
import { membershipChangeLabel, membershipProblem } from './membership-changes.js';
import { fileChunks, StreamedFileWriter } from '../files/files.js';
import { loadConfig, wholeSecondsFromEnv } from '../../core/config.js';
import { TENANT, tenantIs, tenantSql } from '../../core/data/tenant-sql.js';

/*
 * How billing (this file, payment-gateways.ts, payment-plans.ts, commerce/invoices.ts) talks to
 * the database — one way per kind of statement:
 * - reads: `leanRows` / `listQuery` (plain rows, tenant filter applied by the ORM);
 * - writes of records: entities (`em.create` + flush, `nativeUpdate`, core/data/records.ts);
 * - every raw statement (row locks, counters moved in one UPDATE, advisory locks, INSERT …
 *   RETURNING): `tenantSql` (`all`/`get` when rows come back, `run` when none do), never
 *   `em.execute` — so each one carries its tenant condition and tenant scope.
 */

/*
 * Scheduled billing (decided where the documents are silent):
 * - A schedule bills `amount` of its saleable item every `frequencyMonths` from `nextBillDate`.
 *   A run bills the active schedules matching its filter that are due on its bill date (the
 *   filter's NextBillDate, today when absent): ONE period per schedule per run (a schedule more
 *   than a period behind catches up over several runs).
 * - Exactly once: each item is billed in its own transaction that locks the schedule row, checks
 *   it is still due, raises the invoice with sourceKey `scheduled-billing:<id>:<periodStart>`
 *   (unique per tenant: a second invoice for the same period cannot exist), advances the next bill
 *   date (and the schedule's version), and records the item — with the membership change the run
 *   asks for, which the invoice's payment makes (membership-changes.ts) — and the run's counters. A run
 *   started twice, a job retried after its worker died, or two workers on one run, therefore
 *   never bill a period twice; whoever comes second finds the item no longer due (skipped).
 * - A poison item (its contact deleted, a membership change it cannot take, any error) is
 *   recorded as failed with its reason; the run goes on.
 * - The preview (`items/run/setup`) applies the same selection and the same checks without
 *   writing: its due items, total and membership changes are what the run then does.
 * - A run is a pg-boss job (`scheduled-billing-run`); an instance without a job queue (the CLI,
 *   tests without jobs) runs it within the request instead.
 * - Run results download: `run/history/download/{systemjobid}` starts a job that writes the
 *   run's items as CSV (to the file service, piece by piece) and answers PendingFileDownloadResult; the file is then served by
 *   `GET /api/scheduledbilling/membershiptype/run/history/download/file/{pendingdownloadfileid}`
 *   (our addition) and the GraphQL query `scheduledBillingDownloadFile` (409 while pending).
 */

export const RUN_QUEUE = 'scheduled-billing-run';
/** The sourceKey prefix of the invoices a run raises (`scheduled-billing:<schedule>:<period start>`), and of their paid-invoice handler. */
export const BILLING_SOURCE = 'scheduled-billing';
export const DOWNLOAD_QUEUE = 'scheduled-billing-download';
/** The most items a preview lists (its count and totals cover all of them). */
export const PREVIEW_ITEM_LIMIT = 1000;
/** The most schedules one export writes. */
export const EXPORT_LIMIT = 100_000;

export const SCHEDULE_FIELDS = [
  'id', 'contact', 'membership', 'saleableItem', 'description', 'amount', 'frequencyMonths', 'startDate', 'nextBillDate', 'status', 'paymentProfile',
  'groupId', 'categoryItemId', 'eventId', 'tags',
] as const;
export type ScheduleRow = Pick<ScheduledBilling, (typeof SCHEDULE_FIELDS)[number]>;

const scheduleList = defineList(ScheduledBilling, {
  operations: ['Query.scheduledBillingItems', 'Query.scheduledBillingExport'],
  orderBy: { NextBillDate: 'nextBillDate', Amount: 'amount', Description: 'description', StartDate: 'startDate', ScheduledBillingId: 'id' },
  defaultOrder: 'NextBillDate',
  search: ['description', 'contact.lastName', 'contact.firstName', 'contact.name'],
}, 'many');

const runList = defineList(ScheduledBillingRunRecord, {
  operations: ['Query.scheduledBillingRunHistory'],
  orderBy: { SystemJobId: 'id', RequestedAt: 'createdAt' },
  defaultOrder: 'SystemJobId desc',
  search: ['state'],
});

// ---------------------------------------------------------------------------------------------
// Listing and export

/** The schedules matching a ScheduledBillingFilter, one page, with the count of all that match. */
export async function listSchedules(ctx: RequestContext, filter: ScheduledBillingFilterInput | null | undefined): Promise<ListResultOf<ScheduledBillingItem, ScheduledBillingCriteria>> {
  const list = parseListOptions(filter, scheduleList, '');
  const [{ rows, total }, types] = await Promise.all([
    listQuery(ctx, ScheduledBilling, scheduleList, list, { fields: SCHEDULE_FIELDS, where: scheduleWhere(filter), total: true }),
    leanRows(ctx.reader, MembershipType, { fields: ['id', 'name'], where: {}, orderBy: [{ name: 'asc' }, { id: 'asc' }], limit: 1000 }),
  ]);
  const items = await toItems(ctx, rows);
  const saleable = new Map(items.map((item) => [item.SaleableItemId, item.SaleableItemName]));
  return {
    Criteria: criteriaOf(filter),
    CriteriaItems: lookupChoices(types.map((type) => ({ ...type, selected: filter?.MembershipTypeIds?.includes(type.id) ?? false }))),
    TotalRecordAvailable: String(total ?? 0),
    ModelItems: lookupChoices([...saleable].map(([id, name]) => ({ id, name }))),
    Results: items,
  };
}

/**
 * Every schedule matching the filter (at most EXPORT_LIMIT, in the list's order) as a CSV file,
 * made page by page (keyset pages of EXPORT_PAGE_SIZE) as it is sent: one page is held at a time.
 */
export async function exportSchedules(ctx: RequestContext, filter: ScheduledBillingFilterInput | null | undefined): Promise<FileDownload> {
  const list = parseListOptions(filter, scheduleList, '');
  const pages = listPages(ctx, ScheduledBilling, scheduleList, list, { fields: SCHEDULE_FIELDS, where: scheduleWhere(filter), pageSize: EXPORT_PAGE_SIZE, limit: EXPORT_LIMIT });
  return piecewiseDownload(ctx, `scheduled-billing-${todayUtc()}.csv`, 'text/csv; charset=utf-8', csvPieces(EXPORT_COLUMNS, itemPages(ctx, pages)));
}

/** Schedules read (and their CSV lines made) per page of an export. */
const EXPORT_PAGE_SIZE = 1000;
const EXPORT_COLUMNS = [
  'ScheduledBillingId', 'ContactId', 'ContactName', 'MembershipId', 'MembershipTypeName', 'MembershipLevelName', 'SaleableItemName', 'Description',
  'Amount', 'FrequencyMonths', 'StartDate', 'NextBillDate', 'Status', 'HasProfile',
] as const;

async function* itemPages(ctx: RequestContext, pages: AsyncIterable<ScheduleRow[]>): AsyncGenerator<ScheduledBillingItem[]> {
  for await (const rows of pages) yield toItems(ctx, rows);
}

/** Each filter field as a condition; all must hold. */
function scheduleWhere(filter: ScheduledBillingFilterInput | null | undefined): object {
  if (!filter) return {};
  const amount = filter.AmountBetween;
  const from = amount?.From == null ? null : toMoneyString(parseMoney(amount.From, 'AmountBetween.From', { allowNegative: true }));
  const to = amount?.To == null ? null : toMoneyString(parseMoney(amount.To, 'AmountBetween.To', { allowNegative: true }));
  const start = filter.DateRange?.Start ? calendarDay(filter.DateRange.Start, 'DateRange.Start') : null;
  const end = filter.DateRange?.End ? calendarDay(filter.DateRange.End, 'DateRange.End') : null;
  const tags = (filter.Tags ?? []).map((tag) => tag.trim().toLowerCase()).filter(Boolean);
  return allOf<object>(
    filter.MembershipTypeIds?.length ? { membership: { membershipType: { $in: filter.MembershipTypeIds } } } : null,
    filter.MembershipTypeId ? { membership: { membershipType: filter.MembershipTypeId } } : null,
    filter.MembershipLevelId ? { membership: { membershipLevel: filter.MembershipLevelId } } : null,
    filter.SaleableItemId ? { saleableItem: filter.SaleableItemId } : null,
    filter.SaleableItemType ? { saleableItem: { itemType: filter.SaleableItemType } } : null,
    filter.StatusTypeOptions?.length ? { status: { $in: filter.StatusTypeOptions } } : null,
    from !== null ? { amount: { $gte: from } } : null,
    to !== null ? { amount: { $lte: to } } : null,
    start ? { startDate: { $gte: start } } : null,
    end ? { startDate: { $lte: end } } : null,
    filter.NextBillDate ? { nextBillDate: { $lte: calendarDay(filter.NextBillDate, 'NextBillDate') } } : null,
    filter.DescriptionEquals ? { description: { $ilike: escapeLike(filter.DescriptionEquals.trim()) } } : null,
    filter.DescriptionLike ? { description: { $ilike: `%${escapeLike(filter.DescriptionLike.trim())}%` } } : null,
    filter.GroupId ? { groupId: filter.GroupId } : null,
    filter.CategoryItemId ? { categoryItemId: filter.CategoryItemId } : null,
    filter.EventId ? { eventId: filter.EventId } : null,
    tags.length ? { tags: { $hasSomeKeys: tags } } : null,
    filter.HasProfile ? { paymentProfile: { $ne: null } } : null,
    filter.HasNoProfile ? { paymentProfile: null } : null,
    filter.HasNoMembership ? { membership: null } : null,
  );
}

function criteriaOf(filter: ScheduledBillingFilterInput | null | undefined): ScheduledBillingCriteria | null {
  if (!filter) return null;
  return {
    MembershipTypeIds: filter.MembershipTypeIds ?? null, SaleableItemId: filter.SaleableItemId ?? null, SaleableItemType: filter.SaleableItemType ?? null,
    StatusTypeOptions: filter.StatusTypeOptions ?? null,
    AmountBetween: filter.AmountBetween ? { From: filter.AmountBetween.From ?? null, To: filter.AmountBetween.To ?? null } : null,
    DateRange: filter.DateRange ? { Start: filter.DateRange.Start ?? null, End: filter.DateRange.End ?? null } : null,
    NextBillDate: filter.NextBillDate ?? null, DescriptionEquals: filter.DescriptionEquals ?? null, DescriptionLike: filter.DescriptionLike ?? null,
    MembershipTypeId: filter.MembershipTypeId ?? null, MembershipLevelId: filter.MembershipLevelId ?? null, GroupId: filter.GroupId ?? null,
    CategoryItemId: filter.CategoryItemId ?? null, EventId: filter.EventId ?? null, Tags: filter.Tags ?? null,
    HasProfile: filter.HasProfile ?? null, HasNoProfile: filter.HasNoProfile ?? null, HasNoMembership: filter.HasNoMembership ?? null, Filter: filter.Filter ?? null,
  };
}

/** Rows as ScheduledBillingItems: their contacts, memberships (with types and levels) and items in batched loads. */
export async function toItems(ctx: RequestContext, rows: ScheduleRow[]): Promise<ScheduledBillingItem[]> {
  const [contacts, memberships, saleableItems] = await Promise.all([
    loadAll(ctx, Contact, rows.map((row) => idOf(row.contact))),
    loadAll(ctx, Membership, rows.map((row) => idOf(row.membership))),
    loadAll(ctx, SaleableItem, rows.map((row) => idOf(row.saleableItem))),
  ]);
  const [types, levels] = await Promise.all([
    loadAll(ctx, MembershipType, [...memberships.values()].map((membership) => idOf(membership.membershipType))),
    loadAll(ctx, MembershipLevel, [...memberships.values()].map((membership) => idOf(membership.membershipLevel))),
  ]);
  return rows.map((row) => {
    const contact = contacts.get(idOf(row.contact));
    const membership = row.membership === null ? undefined : memberships.get(idOf(row.membership));
    const typeId = membership ? idOf(membership.membershipType) : null;
    const levelId = membership ? idOf(membership.membershipLevel) : null;
    const item = saleableItems.get(idOf(row.saleableItem));
    return {
      ScheduledBillingId: row.id, ContactId: idOf(row.contact), ContactName: contact ? displayName(contact) : null,
      MembershipId: idOf(row.membership), MembershipTypeId: typeId, MembershipTypeName: typeId === null ? null : types.get(typeId)?.name ?? null,
      MembershipLevelId: levelId, MembershipLevelName: levelId === null ? null : levels.get(levelId)?.name ?? null,
      SaleableItemId: idOf(row.saleableItem), SaleableItemName: item?.name ?? null, SaleableItemType: item?.itemType ?? null,
      Description: row.description, Amount: toMoneyNumber(row.amount), FrequencyMonths: row.frequencyMonths, StartDate: row.startDate,
      NextBillDate: row.nextBillDate, Status: row.status, HasProfile: row.paymentProfile !== null, GroupId: row.groupId,
      CategoryItemId: row.categoryItemId, EventId: row.eventId, Tags: row.tags,
    };
  });
}

/** The records of `entity` with these ids (nulls and repeats skipped), through the request's loader: one statement. */
async function loadAll<T extends { id: number }>(ctx: RequestContext, entity: EntityClass<T>, ids: (number | null)[]): Promise<Map<number, T>> {
  const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
  const found: (T | null | Error)[] = await ctx.loaders.byId<T>(entity).loadMany(wanted);
  const map = new Map<number, T>();
  for (const record of found) if (record && !(record instanceof Error)) map.set(record.id, record);
  return map;
}

// ---------------------------------------------------------------------------------------------
// Runs: preview, start, execute

/** What a run would do, without changing anything. */
export async function previewRun(ctx: RequestContext, input: ScheduledBillingRunInput): Promise<ScheduledBillingRun> {
  const parameters = await runParameters(ctx, input);
  const plan = await planRun(ctx, parameters);
  const due = plan.filter((item) => item.Outcome === 'due');
  return {
    CurrentAdvancedFilter: criteriaOf(input.CurrentAdvancedFilter),
    MembershipTypeId: parameters.membershipTypeId, MembershipLevelId: parameters.membershipLevelId,
    ChangeCurrentMembership: parameters.changeCurrentMembership, CreateMembership: parameters.createMembership, RemoveMembership: parameters.removeMembership,
    RecordCount: plan.length,
    ScheduledBillings: {
      BillDate: parameters.billDate,
      TotalAmount: toMoneyNumber(sumMoney(due.map((item) => money(item.Amount)))),
      MembershipChanges: due.filter((item) => item.MembershipChange !== null).length,
      Items: plan.slice(0, PREVIEW_ITEM_LIMIT),
    },
  };
}

/** Records a run and queues its job (or, on an instance without a job queue, runs it now). Answers the run. */
export async function startRun(ctx: RequestContext, input: ScheduledBillingRunInput): Promise<ScheduledBillingHistoryItem> {
  const parameters = await runParameters(ctx, input);
  const run = ctx.em.create(ScheduledBillingRunRecord, { tenant: ctx.tenantId, parameters, requestedBy: ctx.caller?.loginId ?? null });
  await ctx.em.persist(run).flush();
  const boss = ctx.app.jobs;
  if (boss) {
    try {
      const jobId = await queueJob(boss, ctx.em, RUN_QUEUE, { tenantId: ctx.tenantId, runId: run.id });
      await ctx.em.nativeUpdate(ScheduledBillingRunRecord, { id: run.id, tenant: ctx.tenantId }, { jobId });
    } catch (error) {
      await ctx.em.nativeUpdate(ScheduledBillingRunRecord, { id: run.id, tenant: ctx.tenantId }, { state: 'failed', error: 'The run could not be queued.', finishedAt: new Date() });
      throw error;
    }
  } else {
    await executeRun(ctx.em, ctx.tenantId, run.id, ctx.app);
  }
  return historyItem(ctx, run.id);
}

/** The checked parameters of a run (400 naming the documented field). */
async function runParameters(ctx: RequestContext, input: ScheduledBillingRunInput): Promise<RunParameters> {
  const filter = input.CurrentAdvancedFilter ?? null;
  const billDate = filter?.NextBillDate ? calendarDay(filter.NextBillDate, 'CurrentAdvancedFilter.NextBillDate') : todayUtc();
  scheduleWhere(filter); // checks the filter's values now, not in the job
  parseListOptions(filter, scheduleList, 'CurrentAdvancedFilter');
  const membershipTypeId = input.MembershipTypeId || null;
  const membershipLevelId = input.MembershipLevelId || null;
  if (membershipTypeId && !(await leanRows(ctx.reader, MembershipType, { fields: ['id'], where: { id: membershipTypeId }, limit: 1 })).length) {
    throw BadInput.field('MembershipTypeId', 'names no membership type');
  }
  if (membershipLevelId) {
    const [level] = await leanRows(ctx.reader, MembershipLevel, { fields: ['membershipType'], where: { id: membershipLevelId }, limit: 1 });
    if (!level) throw BadInput.field('MembershipLevelId', 'names no membership level');
    if (membershipTypeId && idOf(level.membershipType) !== membershipTypeId) throw BadInput.field('MembershipLevelId', 'is not a level of MembershipTypeId');
  }
  // ChangeCurrentMembership needs MembershipTypeId and excludes CreateMembership: the input's rules (schema/scheduled-billing.ts).
  const plain = filter ? JSON.parse(JSON.stringify(filter)) as Record<string, unknown> : {};
  return {
    filter: plain,
    billDate,
    membershipTypeId, membershipLevelId,
    changeCurrentMembership: input.ChangeCurrentMembership ?? false,
    createMembership: input.CreateMembership ?? false,
    removeMembership: input.RemoveMembership ?? false,
    scheduleIds: input.ScheduledBillings?.Items?.length ? [...new Set(input.ScheduledBillings.Items.map((item) => item.ScheduledBillingId))] : null,
  };
}

/** The schedules a run bills: matching its filter (and selection), active, due by its bill date; in id order. */
async function dueSchedules(ctx: RequestContext, parameters: RunParameters): Promise<ScheduleRow[]> {
  const filter = parameters.filter as ScheduledBillingFilterInput;
  return leanRows(ctx.reader, ScheduledBilling, {
    fields: [...SCHEDULE_FIELDS],
    where: allOf<ScheduledBilling>(
      scheduleWhere(filter),
      filter.Filter ? { $or: scheduleList.search.map((path) => nested(path, { $ilike: `%${escapeLike(String(filter.Filter).trim())}%` })) } : null,
      { status: 'active', nextBillDate: { $lte: parameters.billDate } },
      parameters.scheduleIds ? { id: { $in: parameters.scheduleIds } } : null,
    ),
    orderBy: [{ id: 'asc' }],
  });
}

function nested(path: string, condition: object): object {
  return path.split('.').reduceRight<object>((inner, key) => ({ [key]: inner }), condition);
}

/** Each due schedule with what the run does with it: `due` (billed, with its membership change) or `failed` (why). */
async function planRun(ctx: RequestContext, parameters: RunParameters): Promise<ScheduledBillingRunItemView[]> {
  const rows = await dueSchedules(ctx, parameters);
  const [contacts, memberships] = await Promise.all([
    loadAll(ctx, Contact, rows.map((row) => idOf(row.contact))),
    loadAll(ctx, Membership, rows.map((row) => idOf(row.membership))),
  ]);
  return rows.map((row) => {
    const contact = contacts.get(idOf(row.contact));
    const problem = contact ? membershipProblem(parameters, memberships.get(idOf(row.membership) ?? 0) ?? null) : 'The contact was deleted.';
    return {
      ScheduledBillingId: row.id, ContactId: idOf(row.contact), ContactName: contact ? displayName(contact) : null, Description: row.description,
      PeriodStart: row.nextBillDate, Amount: toMoneyNumber(row.amount), MembershipChange: problem ? null : membershipChangeLabel(parameters), MembershipChangedAt: null,
      Outcome: problem ? 'failed' : 'due', InvoiceId: null, Reason: problem,
    };
  });
}

/** A poison item: recorded as failed with this reason, the run goes on. */
class ItemRefused extends Error {}

/**
 * Runs (or resumes) a run: each due schedule billed in its own transaction, progress and outcome
 * on the run record. Safe to run again or concurrently for the same run (see the top of the file).
 */
export async function executeRun(em: EntityManager, tenantId: number, runId: number, deps?: AppDeps, signal?: AbortSignal): Promise<void> {
  const base = em.fork();
  confineToTenant(base, tenantId);
  const [run] = await leanRows(base, ScheduledBillingRunRecord, { fields: ['id', 'state', 'parameters'], where: { id: runId }, limit: 1 });
  if (!run || run.state === 'completed' || run.state === 'failed') return;
  await base.nativeUpdate(ScheduledBillingRunRecord, { id: runId, tenant: tenantId }, { state: 'running', startedAt: new Date() });
  const ctx = jobContext(base, tenantId, deps);
  // Due schedules first, then the items already recorded: an item another worker bills between the
  // two reads (its date moved and its item recorded in one transaction) is then among the recorded
  // ones, so the count below is exact. The other order could miss it in both (39 of 40).
  const due = await dueSchedules(ctx, run.parameters);
  const done = new Set((await leanRows(base, ScheduledBillingRunItem, { fields: ['schedule'], where: { run: runId } })).map((item) => idOf(item.schedule)));
  const remaining = due.filter((row) => !done.has(row.id));
  await base.nativeUpdate(ScheduledBillingRunRecord, { id: runId, tenant: tenantId }, { itemCount: done.size + remaining.length });
  for (const row of remaining) {
    // Handed back by a shutdown: stop between items; the retry resumes with the items not yet recorded.
    if (signal?.aborted) throw new Error('The run was handed back by a shutdown; its retry resumes it.');
    const itemCtx = jobContext(base.fork(), tenantId, deps);
    confineToTenant(itemCtx.em, tenantId);
    try {
      await billItem(itemCtx, runId, run.parameters, row.id);
    } catch (error) {
      // Lost the database (not the item's fault): stop, so pg-boss retries the run and this item with it.
      if (!(error instanceof ItemRefused) && !(await databaseReachable(base, tenantId))) throw error;
      await recordItem(jobContext(base.fork(), tenantId, deps), runId, {
        scheduleId: row.id, periodStart: row.nextBillDate, outcome: 'failed', amount: row.amount,
        reason: error instanceof ItemRefused ? error.message : `Billing failed: ${error instanceof Error ? error.message : String(error)}`.slice(0, 2000),
      });
    }
  }
  await tenantSql({ em: base, tenantId }).run(
    `UPDATE scheduled_billing_run_record SET state = 'completed', finished_at = now(), updated_at = now() WHERE id = ? AND ${tenantIs()} AND state = 'running'`,
    [runId],
  );
}

interface LockedSchedule {
  id: number;
  contact_id: number;
  membership_id: number | null;
  saleable_item_id: number;
  description: string;
  amount: string;
  frequency_months: number;
  next_bill_date: string;
  status: string;
}

async function databaseReachable(em: EntityManager, tenantId: number): Promise<boolean> {
  try {
    await tenantSql({ em: em.fork(), tenantId }).get('SELECT 1');
    return true;
  } catch {
    return false;
  }
}

/** One schedule of a run, in one transaction: locked, still due, invoiced once, advanced, membership changed, recorded. */
async function billItem(ctx: RequestContext, runId: number, parameters: RunParameters, scheduleId: number): Promise<void> {
  const tenantId = ctx.tenantId;
  await inTransaction(ctx, async () => {
    const [schedule] = await tenantSql({ em: ctx.em, tenantId }).all<LockedSchedule>(
      `SELECT id, contact_id, membership_id, saleable_item_id, description, amount::text AS amount, frequency_months, to_char(next_bill_date, 'YYYY-MM-DD') AS next_bill_date, status
       FROM scheduled_billing WHERE id = ? AND ${tenantIs()} FOR UPDATE`, [scheduleId]);
    if (!schedule) {
      // Deleted since the run selected it: nothing to bill, and no item to record (it would name no schedule).
      await tenantSql({ em: ctx.em, tenantId }).run(
        `UPDATE scheduled_billing_run_record SET item_count = item_count - 1, updated_at = now() WHERE id = ? AND ${tenantIs()}`, [runId]);
      return;
    }
    if (schedule.status !== 'active' || schedule.next_bill_date > parameters.billDate) {
      // Billed meanwhile by another run (or paused or ended): nothing to bill for this run.
      await recordItem(ctx, runId, {
        scheduleId, periodStart: schedule.next_bill_date, outcome: 'skipped', amount: schedule.amount, reason: 'No longer due: billed by another run, paused or ended.',
      });
      return;
    }
    const [contact] = await leanRows(ctx.reader, Contact, { fields: ['id'], where: { id: schedule.contact_id }, limit: 1 });
    if (!contact) throw new ItemRefused('The contact was deleted.');
    const [membership] = schedule.membership_id === null ? [] : await leanRows(ctx.reader, Membership, { fields: ['id'], where: { id: schedule.membership_id }, limit: 1 });
    const problem = membershipProblem(parameters, membership ?? null);
    if (problem) throw new ItemRefused(problem);

    const periodStart = schedule.next_bill_date;
    const periodEnd = addDays(addMonths(periodStart, schedule.frequency_months), -1);
    const { invoice, created } = await createInvoice(ctx, {
      contactId: schedule.contact_id,
      lines: [{ saleableItemId: schedule.saleable_item_id, description: schedule.description, quantity: 1, unitPrice: schedule.amount }],
      source: 'scheduled-billing',
      sourceKey: `${BILLING_SOURCE}:${schedule.id}:${periodStart}`,
      invoiceDate: parameters.billDate,
      dueDate: periodStart > parameters.billDate ? periodStart : parameters.billDate,
      memo: `${schedule.description} (${periodStart} to ${periodEnd})`,
    });
    await tenantSql({ em: ctx.em, tenantId }).run(
      `UPDATE scheduled_billing SET next_bill_date = ?, audit_id = audit_id + 1, updated_at = now() WHERE id = ? AND ${tenantIs()}`, [addDays(periodEnd, 1), schedule.id]);
    // The membership change is only recorded here; the payment of the invoice makes it (membership-changes.ts).
    await recordItem(ctx, runId, created
      ? {
        scheduleId, periodStart, periodEnd, outcome: 'billed', amount: schedule.amount, invoiceId: invoice.id,
        membershipChange: membershipChangeLabel(parameters), membershipId: membership?.id ?? null,
      }
      : { scheduleId, periodStart, outcome: 'skipped', amount: schedule.amount, invoiceId: invoice.id, reason: `Billed already (invoice ${invoice.number}).` });
  });
}

/** What a run did with one schedule: billed (with the membership change its payment makes), skipped or failed (why). */
interface ItemRecord {
  scheduleId: number;
  periodStart: string;
  periodEnd?: string;
  outcome: 'billed' | 'skipped' | 'failed';
  amount: string;
  invoiceId?: number;
  membershipChange?: string | null;
  membershipId?: number | null;
  reason?: string;
}

/** Records what happened to one schedule and moves the run's counters, once per (run, schedule). */
async function recordItem(ctx: RequestContext, runId: number, item: ItemRecord): Promise<void> {
  await tenantSql(ctx).run(
    `WITH recorded AS (
       INSERT INTO scheduled_billing_run_item
         (tenant_id, run_id, schedule_id, period_start, period_end, outcome, amount, invoice_id, membership_change, membership_id, reason, created_at, updated_at)
       VALUES (${TENANT}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, now(), now())
       ON CONFLICT (run_id, schedule_id) DO NOTHING
       RETURNING outcome, amount
     )
     UPDATE scheduled_billing_run_record r SET
       processed_count = r.processed_count + 1,
       billed_count = r.billed_count + (CASE WHEN recorded.outcome = 'billed' THEN 1 ELSE 0 END),
       skipped_count = r.skipped_count + (CASE WHEN recorded.outcome = 'skipped' THEN 1 ELSE 0 END),
       failed_count = r.failed_count + (CASE WHEN recorded.outcome = 'failed' THEN 1 ELSE 0 END),
       billed_amount = r.billed_amount + (CASE WHEN recorded.outcome = 'billed' THEN recorded.amount ELSE 0 END),
       updated_at = now()
     FROM recorded WHERE r.id = ? AND ${tenantIs('r')}`,
    [runId, item.scheduleId, item.periodStart, item.periodEnd ?? null, item.outcome, item.amount, item.invoiceId ?? null, item.membershipChange ?? null,
      item.membershipId ?? null, item.reason ?? null, runId],
  );
}

// ---------------------------------------------------------------------------------------------
// History and result downloads

export async function runHistory(ctx: RequestContext, options: ListOptionsInput | null | undefined): Promise<ScheduledBillingHistory> {
  const { rows } = await listQuery(ctx, ScheduledBillingRunRecord, runList, options, { fields: RUN_FIELDS });
  return { HistoryItems: rows.map(toHistoryItem) };
}

/** The items a run processed (GraphQL only). */
export async function runItems(ctx: RequestContext, runId: number): Promise<ScheduledBillingRunItemView[]> {
  await readOr404(ctx, ScheduledBillingRunRecord, ['id'], runId, RUN_NOUN);
  return runItemViews(ctx, await leanRows(ctx.reader, ScheduledBillingRunItem, { fields: [...RUN_ITEM_FIELDS], where: { run: runId }, orderBy: [{ schedule: 'asc' }] }));
}

const RUN_ITEM_FIELDS = ['schedule', 'periodStart', 'outcome', 'amount', 'invoiceId', 'membershipChange', 'membershipAppliedAt', 'reason'] as const;

/** Run items as views: their schedules and contacts in batched loads. */
async function runItemViews(ctx: RequestContext, items: Pick<ScheduledBillingRunItem, (typeof RUN_ITEM_FIELDS)[number]>[]): Promise<ScheduledBillingRunItemView[]> {
  const schedules = await loadAll(ctx, ScheduledBilling, items.map((item) => idOf(item.schedule)));
  const contacts = await loadAll(ctx, Contact, [...schedules.values()].map((schedule) => idOf(schedule.contact)));
  return items.map((item) => {
    const schedule = schedules.get(idOf(item.schedule));
    const contact = schedule ? contacts.get(idOf(schedule.contact)) : undefined;
    return {
      ScheduledBillingId: idOf(item.schedule), ContactId: schedule ? idOf(schedule.contact) : null, ContactName: contact ? displayName(contact) : null,
      Description: schedule?.description ?? null, PeriodStart: item.periodStart, Amount: toMoneyNumber(item.amount), MembershipChange: item.membershipChange,
      MembershipChangedAt: item.membershipAppliedAt === null ? null : new Date(item.membershipAppliedAt).toISOString(),
      Outcome: item.outcome, InvoiceId: item.invoiceId, Reason: item.reason,
    };
  });
}

const RUN_NOUN = 'The scheduled billing run';
const RUN_FIELDS = [
  'id', 'state', 'parameters', 'createdAt', 'startedAt', 'finishedAt', 'itemCount', 'processedCount', 'billedCount', 'skippedCount', 'failedCount', 'billedAmount', 'error',
] as const;

async function historyItem(ctx: RequestContext, runId: number): Promise<ScheduledBillingHistoryItem> {
  return toHistoryItem(await readOr404(ctx, ScheduledBillingRunRecord, RUN_FIELDS, runId, RUN_NOUN));
}

function toHistoryItem(row: Pick<ScheduledBillingRunRecord, (typeof RUN_FIELDS)[number]>): ScheduledBillingHistoryItem {
  const iso = (date: Date | string | null) => (date === null ? null : new Date(date).toISOString());
  return {
    SystemJobId: row.id, State: row.state, BillDate: row.parameters.billDate, RequestedAt: iso(row.createdAt)!, StartedAt: iso(row.startedAt), FinishedAt: iso(row.finishedAt),
    ItemCount: row.itemCount, ProcessedCount: row.processedCount,
    Progress: row.itemCount === 0 ? (row.state === 'completed' ? 100 : 0) : Math.floor((row.processedCount * 100) / row.itemCount),
    BilledCount: row.billedCount, SkippedCount: row.skippedCount, FailedCount: row.failedCount, BilledAmount: toMoneyNumber(row.billedAmount), Error: row.error,
  };
}

/** Starts writing a run's results as a CSV file (a job; inline without a job queue); answers where to fetch it. */
export async function requestRunDownload(ctx: RequestContext, runId: number): Promise<PendingFileDownloadResult> {
  const run = await readOr404(ctx, ScheduledBillingRunRecord, ['id', 'itemCount'], runId, RUN_NOUN);
  const download = ctx.em.create(ScheduledBillingDownload, { tenant: ctx.tenantId, run: run.id, fileName: `scheduled-billing-run-${run.id}.csv` });
  await ctx.em.persist(download).flush();
  let jobId: string | null = null;
  if (ctx.app.jobs) {
    jobId = await queueJob(ctx.app.jobs, ctx.em, DOWNLOAD_QUEUE, { tenantId: ctx.tenantId, downloadId: download.id });
    await ctx.em.nativeUpdate(ScheduledBillingDownload, { id: download.id, tenant: ctx.tenantId }, { jobId });
  } else {
    await writeRunDownload(ctx.em, ctx.tenantId, download.id);
  }
  const [state] = await leanRows(ctx.reader, ScheduledBillingDownload, { fields: ['state'], where: { id: download.id }, limit: 1 });
  return {
    JobType: 'ScheduledBillingRunResults',
    Message: state?.state === 'ready' ? 'The file is ready.' : 'The file is being prepared; fetch it with PendingDownloadFileId.',
    Result: state?.state ?? 'pending',
    BackgroundJobEstimatedSeconds: 1 + Math.ceil(run.itemCount / 10_000),
    JobId: jobId,
    PendingDownloadFileId: download.id,
  };
}

/** The prepared file (409 while it is being prepared), sent from storage piece by piece (one written before migration 0032 from its text). */
export async function runDownloadFile(ctx: RequestContext, pendingDownloadFileId: number): Promise<FileDownload> {
  const download = await readOr404(ctx, ScheduledBillingDownload, ['state', 'fileName', 'file', 'content'], pendingDownloadFileId, 'The download');
  if (download.state !== 'ready' || (download.file === null && download.content === null)) {
    throw new Conflict(download.state === 'failed' ? 'The file could not be prepared; request it again.' : 'The file is still being prepared; try again shortly.');
  }
  if (download.file === null) return textDownload(download.fileName, 'text/csv; charset=utf-8', download.content!);
  return piecewiseDownload(ctx, download.fileName, 'text/csv; charset=utf-8', fileChunks(ctx, { id: idOf(download.file) }));
}

export const DOWNLOAD_FILE_PURPOSE = 'scheduled-billing-downloads';
/** Run items read (and their CSV lines written) per page of a results file. */
const DOWNLOAD_PAGE_SIZE = 1000;

/**
 * Writes the CSV of a download's run to the file service, page by page (keyset pages of its
 * items), in one transaction that also marks the download ready (idempotent: a ready download is
 * left alone, and a second writer racing the first rolls its file back).
 */
export async function writeRunDownload(em: EntityManager, tenantId: number, downloadId: number): Promise<void> {
  const ctx = jobContext(em.fork(), tenantId);
  confineToTenant(ctx.em, tenantId);
  const [download] = await leanRows(ctx.reader, ScheduledBillingDownload, { fields: ['run', 'state', 'fileName'], where: { id: downloadId }, limit: 1 });
  if (!download || download.state === 'ready') return;
  const runId = idOf(download.run);
  const columns = ['ScheduledBillingId', 'ContactId', 'ContactName', 'Description', 'PeriodStart', 'Amount', 'Outcome', 'InvoiceId', 'MembershipChange', 'Reason'] as const;
  await ctx.em.fork().transactional(async (tx) => {
    const csv = await StreamedFileWriter.open(tx, { tenantId, uploadedBy: null, config: loadConfig() });
    for await (const piece of csvPieces(columns, runItemPages(ctx, runId))) await csv.write(piece);
    const file = await csv.finish({ name: download.fileName, mediaType: 'text/csv', purpose: DOWNLOAD_FILE_PURPOSE });
    const marked = await tx.nativeUpdate(ScheduledBillingDownload, { id: downloadId, tenant: tenantId, state: { $ne: 'ready' } }, { state: 'ready', file: file.id });
    if (marked !== 1) throw new DownloadSettled();
  }).catch((error: unknown) => {
    if (!(error instanceof DownloadSettled)) throw error;
  });
}

/** The download was made ready (or removed) by another writer meanwhile: this one's file is rolled back. */
class DownloadSettled extends Error {}

/** A run's items as views, a keyset page at a time in schedule order. */
async function* runItemPages(ctx: RequestContext, runId: number): AsyncGenerator<ScheduledBillingRunItemView[]> {
  for (let afterSchedule = 0; ;) {
    const items = await leanRows(ctx.reader, ScheduledBillingRunItem, {
      fields: [...RUN_ITEM_FIELDS], where: { run: runId, schedule: { $gt: afterSchedule } }, orderBy: [{ schedule: 'asc' }], limit: DOWNLOAD_PAGE_SIZE,
    });
    if (items.length > 0) yield runItemViews(ctx, items);
    if (items.length < DOWNLOAD_PAGE_SIZE) return;
    afterSchedule = idOf(items[items.length - 1].schedule);
  }
}

// ---------------------------------------------------------------------------------------------
// Jobs

export interface BillingJobSettings {
  /** Seconds after which a run still active is taken to have died with its worker, and retried. */
  expireInSeconds: number;
  retryDelaySeconds: number;
  pollingIntervalSeconds: number;
}

export const DEFAULT_BILLING_JOB_SETTINGS: BillingJobSettings = { expireInSeconds: 900, retryDelaySeconds: 5, pollingIntervalSeconds: 2 };

/**
 * The run job's settings from the environment: `BILLING_RUN_EXPIRE_SECONDS` (default 900, at
 * least 10) is how long a run may stay active before it is taken to have died with its worker
 * and retried. Shorter only for tests that kill a worker mid-run; a healthy run that outlives it
 * is retried alongside itself (still billing each item once, as two workers on one run do).
 */
export function billingJobSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<BillingJobSettings> {
  const seconds = wholeSecondsFromEnv(env, 'BILLING_RUN_EXPIRE_SECONDS', 10);
  return seconds === undefined ? {} : { expireInSeconds: seconds };
}

/** The jobs of scheduled billing: runs, and run result downloads. Tests shorten the delays. */
export function scheduledBillingJobs(settings: Partial<BillingJobSettings> = {}): JobDefinition[] {
  const { expireInSeconds, retryDelaySeconds, pollingIntervalSeconds } = { ...DEFAULT_BILLING_JOB_SETTINGS, ...settings };
  return [
    {
      name: RUN_QUEUE,
      queue: { retryLimit: 5, retryDelay: retryDelaySeconds, retryBackoff: true, expireInSeconds },
      work: { pollingIntervalSeconds },
      handle: (orm, data, job) => runJob(orm, data, job.retryCount >= job.retryLimit, job.signal),
    },
    {
      name: DOWNLOAD_QUEUE,
      queue: { retryLimit: 3, retryDelay: retryDelaySeconds, retryBackoff: true, expireInSeconds: 300 },
      work: { pollingIntervalSeconds },
      handle: async (orm, data) => {
        const { tenantId, downloadId } = (data ?? {}) as { tenantId?: unknown; downloadId?: unknown };
        if (Number.isInteger(tenantId) && Number.isInteger(downloadId)) await writeRunDownload(orm.em, tenantId as number, downloadId as number);
      },
    },
  ];
}

async function runJob(orm: MikroORM, data: unknown, lastAttempt: boolean, signal?: AbortSignal): Promise<void> {
  const { tenantId, runId } = (data ?? {}) as { tenantId?: unknown; runId?: unknown };
  if (!Number.isInteger(tenantId) || !Number.isInteger(runId)) return;
  try {
    await executeRun(orm.em, tenantId as number, runId as number, undefined, signal);
  } catch (error) {
    // Retried by pg-boss (the items billed so far stay billed, once); the last failure is kept on the run.
    if (lastAttempt) {
      await tenantSql({ em: orm.em.fork(), tenantId: tenantId as number }).run(
        `UPDATE scheduled_billing_run_record SET state = 'failed', error = ?, finished_at = now(), updated_at = now() WHERE id = ? AND ${tenantIs()} AND state <> 'completed'`,
        [String(error instanceof Error ? error.message : error).slice(0, 2000), runId],
      );
    }
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// CSV

/** A CSV's header line (CRLF, as every line). */
function csvHeader(columns: readonly string[]): string {
  return stringify([columns], { record_delimiter: 'windows' });
}

/** Records as CSV lines of `columns` (Amount as money text), cells made safe by `csvCell`. */
function csvLines<C extends string>(columns: readonly C[], records: readonly Record<C, string | number | boolean | null | undefined>[]): string {
  return stringify(records.map((record) => columns.map((column) => csvCell(column === 'Amount' ? toMoneyString(record[column] as number) : record[column]))), {
    record_delimiter: 'windows',
  });
}

/** A CSV file piece by piece (UTF-8): its header, then the lines of each batch of records as the batch comes. */
async function* csvPieces<C extends string>(columns: readonly C[], batches: AsyncIterable<readonly Record<C, string | number | boolean | null | undefined>[]>): AsyncGenerator<Buffer> {
  yield Buffer.from(csvHeader(columns), 'utf8');
  for await (const records of batches) yield Buffer.from(csvLines(columns, records), 'utf8');
}

/** A CSV cell: text that a spreadsheet would run as a formula (=, +, -, @) is prefixed with an apostrophe. */
function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return typeof value === 'string' && /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

// ---------------------------------------------------------------------------------------------
// Demo

/** Demo: a member's yearly dues schedule, a completed run that billed it, and its results file. */
export async function seedScheduledBilling(em: EntityManager, tenant: Tenant, marker: string): Promise<void> {
  const contact = em.create(Contact, { tenant, kind: 'person', firstName: 'Billed', lastName: marker });
  const type = em.create(MembershipType, { tenant, name: `Billed members ${marker}` });
  const membership = em.create(Membership, { tenant, contact, membershipType: type, startDate: '2026-01-01', endDate: '2026-12-31', status: 'active' });
  const item = em.create(SaleableItem, { tenant, name: `Yearly dues ${marker}`, itemType: 'membership', price: '120.00' });
  const schedule = em.create(ScheduledBilling, {
    tenant, contact, membership, saleableItem: item, description: `Yearly dues ${marker}`, amount: '120.00', frequencyMonths: 12, startDate: '2025-01-01',
    nextBillDate: '2027-01-01', paymentProfile: `card ${marker}`, tags: ['dues'],
  });
  const parameters: RunParameters = {
    filter: { DescriptionLike: marker }, billDate: '2026-01-01', membershipTypeId: null, membershipLevelId: null,
    changeCurrentMembership: false, createMembership: false, removeMembership: false, scheduleIds: null,
  };
  const run = em.create(ScheduledBillingRunRecord, {
    tenant, parameters, state: 'completed', itemCount: 1, processedCount: 1, billedCount: 1, billedAmount: '120.00', startedAt: new Date('2026-01-01T06:00:00Z'),
    finishedAt: new Date('2026-01-01T06:00:01Z'), error: `demo ${marker}`,
  });
  em.create(ScheduledBillingRunItem, { tenant, run, schedule, periodStart: '2026-01-01', outcome: 'billed', amount: '120.00', reason: `demo ${marker}` });
  em.create(ScheduledBillingDownload, { tenant, run, state: 'ready', fileName: `run-${marker}.csv`, content: `ScheduledBillingId,Description\r\n1,${marker}\r\n` });
  await em.flush();
}
