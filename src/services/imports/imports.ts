import type { MikroORM } from '@mikro-orm/postgresql';
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { configOnFirstUse, type Config } from '../../core/config.js';
import { confineToTenant, type RequestContext } from '../../core/context.js';
import { inTransaction } from '../../core/data/records.js';
import { TENANT, tenantIs, tenantSql } from '../../core/data/tenant-sql.js';
import { BadInput, Conflict, NotFound } from '../../core/errors.js';
import { inPumpTransaction, type JobDefinition, type JobRun } from '../../core/runtime/jobs.js';
import { jobContext } from '../../core/runtime/job-context.js';
import { ContactImport, type ContactImportState } from '../../entities/contact-import.js';
import type {
  ContactImportRowsInput, ContactImportStartInput, ImportColumnMapping, ImportPreview, ImportRowResult, ImportRowResults, ImportStatus, ImportDownload,
} from '../../schema/imports.js';
import { fileChunks, findFile, StreamedFileWriter } from '../files/files.js';
import { forgetDryRunState } from './dry-run.js';
import { applyBatch, readMembershipTypes, readRow, RECORDSET, recordsetParam, type CustomFieldSets, type ImportPlan, type ReadRow, type RowResult } from './apply.js';
import { customFieldsFor } from '../custom-fields/custom-fields.js';
import { CUSTOM_FIELD_PREFIX, customFieldColumnName, IMPORT_FIELDS, MATCH_KEYS, suggestMapping, suggestMatchKey, type CustomFieldColumn, type MatchKey } from './columns.js';
import { openCsv, type CsvDelimiter } from './csv.js';

/*
 * Contact imports: upload → preview → dry run → import, the last two as one pg-boss job over the
 * stored file (read as a stream from the file service, never whole).
 * - The upload streams the file into storage and reads it once for the preview (headers, the
 *   first rows, the row count); a file that is not a readable CSV is refused (400) and not kept.
 * - A start (dry run or import) stores the mapping and the match key and queues the run; the
 *   worker instances' pump gives it its job, and hands a running import whose checkpoint has not
 *   moved for IMPORT_STALE_SECONDS (its process died) to a new job.
 * - A run reads the file from its start, skips the rows its checkpoint (`rows_done`) says are
 *   settled, and applies batches of IMPORT_BATCH_ROWS rows (apply.ts); it reads and checks the next
 *   batch's rows while the database works on the current one (never more than those two batches
 *   in memory; batches commit one after the other, in order). An import commits each
 *   batch's writes, its rejected rows and the moved checkpoint in one transaction, which moves the
 *   checkpoint only from the value the run read: a process killed at any point leaves a batch
 *   either committed whole or not at all, and two jobs of one import can never both commit one
 *   batch. A dry run writes every row's outcome and, instead of the batch's writes, the state the
 *   import would have left (dry-run.ts), in the same transaction: its outcomes are the import's,
 *   a key repeated in a later batch included; a contact it would create has no ContactId.
 * - A cancel stops the run after its current batch; what committed stays (a new start resumes
 *   nothing: it runs the file again, which updates or leaves unchanged what is there).
 */

export const CONTACT_IMPORT_QUEUE = 'contact-import';
const DEAD_QUEUE = 'contact-import-dead';
export const CONTACT_IMPORT_PURPOSE = 'contact-imports';
export const CSV_MEDIA_TYPE = 'text/csv; charset=utf-8';
/** Rows the preview shows. */
const PREVIEW_ROWS = 10;
/** Columns a file may have (a header row of more is refused). */
const MAX_COLUMNS = 200;
/** The column the report of rejected rows adds after the file's own. */
export const REASON_COLUMN = 'ImportError';

export interface ContactImportJobData { importId: number; tenantId: number }

export interface ContactImportJobSettings {
  /** How often the pump looks for queued and stalled imports (default 1000 ms). */
  pumpEveryMs?: number;
  config?: Config;
}

/** The import queue (and its dead-letter queue, first), for the manifest. */
export function contactImportJobs(settings: ContactImportJobSettings = {}): JobDefinition[] {
  const config = configOnFirstUse(settings.config);
  return [
    { name: DEAD_QUEUE, handle: (orm, data) => markFailed(orm, jobData(data), 'The import was given up after repeated failures.') },
    {
      name: CONTACT_IMPORT_QUEUE,
      // A long import outlives any expiry we could pick: a dead worker is noticed by the pump
      // (the checkpoint stops moving), not by pg-boss's expiry.
      queue: { retryLimit: 3, retryDelay: 5, retryBackoff: true, expireInSeconds: 86_400, deadLetter: DEAD_QUEUE },
      pump: { everyMs: settings.pumpEveryMs ?? 1000, run: (client, boss) => queueImports(client, boss, config().IMPORT_STALE_SECONDS) },
      handle: (orm, data, job) => runImportJob(orm, jobData(data), job, config().IMPORT_BATCH_ROWS),
    },
  ];
}

function jobData(data: unknown): ContactImportJobData | null {
  const { importId, tenantId } = (data ?? {}) as Partial<ContactImportJobData>;
  return Number.isInteger(importId) && Number.isInteger(tenantId) ? { importId: importId!, tenantId: tenantId! } : null;
}

/** Gives queued imports, and running ones whose checkpoint stalled, their jobs (up to 100 a batch). */
export function queueImports(client: pg.ClientBase, boss: PgBoss, staleSeconds: number): Promise<number> {
  return inPumpTransaction(client, boss, async (queue) => {
    const { rows } = await client.query<{ id: number; tenant_id: number }>(
      `UPDATE contact_import SET enqueued_at = now(), updated_at = now() WHERE id IN (
         SELECT id FROM contact_import
          WHERE (state = 'queued' AND enqueued_at IS NULL) OR (state = 'running' AND updated_at < now() - make_interval(secs => $1))
          ORDER BY id LIMIT 100 FOR UPDATE SKIP LOCKED
       ) RETURNING id, tenant_id`, [staleSeconds]);
    await queue(CONTACT_IMPORT_QUEUE, rows.map((row) => ({ data: { importId: row.id, tenantId: row.tenant_id } satisfies ContactImportJobData })));
    return rows.length;
  });
}

// ---- the upload ----

/**
 * Stores an uploaded CSV (streamed into the file service) and reads it once for the preview;
 * answers the new import. A file that is not a readable CSV leaves nothing behind (400).
 */
export async function receiveImportFile(ctx: RequestContext, fileName: string | null, bytes: AsyncIterable<Buffer>): Promise<ImportStatus> {
  const name = (fileName ?? 'import.csv').replace(/[^\w .-]+/g, '_').trim().slice(0, 200) || 'import.csv';
  const id = await inTransaction(ctx, async () => {
    const writer = await StreamedFileWriter.open(ctx.em, { tenantId: ctx.tenantId, uploadedBy: ctx.caller?.loginId ?? null, config: ctx.app.config });
    for await (const piece of bytes) await writer.write(piece);
    const file = await writer.finish({ name, mediaType: 'text/csv', purpose: CONTACT_IMPORT_PURPOSE });
    const { delimiter, records } = await openCsv(fileChunks(ctx, file));
    let headers: string[] | null = null;
    const sampleRows: string[][] = [];
    let rowsTotal = 0;
    for await (const record of records) {
      if (!headers) {
        headers = record.map((header) => header.trim());
        if (headers.length > MAX_COLUMNS) throw BadInput.field('file', `has more than ${MAX_COLUMNS} columns`);
        continue;
      }
      if (sampleRows.length < PREVIEW_ROWS) sampleRows.push(record.slice(0, MAX_COLUMNS));
      rowsTotal++;
    }
    if (!headers) throw BadInput.field('file', 'is empty: the first line must name the columns');
    const contactImport = ctx.em.create(ContactImport, {
      tenant: ctx.tenantId, file: file.id, requestedBy: ctx.caller?.loginId || null, fileName: name, delimiter, headers, sampleRows, rowsTotal,
      mapping: null, matchOn: null, error: null, enqueuedAt: null, startedAt: null, finishedAt: null,
    });
    await ctx.em.persist(contactImport).flush();
    return contactImport.id;
  });
  return contactImportStatus(ctx, id);
}

// ---- reading ----

interface ImportRow {
  id: number; file_name: string; state: ContactImportState; dry_run: boolean; rows_total: number; rows_done: number; created: number; updated: number;
  unchanged: number; rejected: number; error: string | null; match_on: string | null; mapping: Record<string, string> | null; headers: string[];
  sample_rows: string[][]; delimiter: CsvDelimiter; file_id: number; created_at: Date; finished_at: Date | null;
}

async function readImport(ctx: RequestContext, importId: number): Promise<ImportRow> {
  const row = await tenantSql(ctx).get<ImportRow>(`select * from contact_import i where i.id = ? and ${tenantIs('i')}`, [importId]);
  if (!row) throw new NotFound('The import');
  return row;
}

function statusOf(row: ImportRow): ImportStatus {
  return {
    ImportId: row.id, FileName: row.file_name, State: row.state, DryRun: row.dry_run, RowsTotal: row.rows_total, RowsDone: row.rows_done,
    Progress: row.rows_total === 0 ? (row.state === 'completed' ? 100 : 0) : Math.floor((row.rows_done * 100) / row.rows_total),
    Created: row.created, Updated: row.updated, Unchanged: row.unchanged, Rejected: row.rejected, Error: row.error, MatchOn: row.match_on,
    Mapping: row.mapping ? mappingList(row.mapping) : null,
    CreatedAt: new Date(row.created_at).toISOString(), FinishedAt: row.finished_at ? new Date(row.finished_at).toISOString() : null,
  };
}

const mappingList = (mapping: Record<string, string>): ImportColumnMapping[] => Object.entries(mapping).map(([Column, Field]) => ({ Column, Field }));

export async function contactImportStatus(ctx: RequestContext, importId: number): Promise<ImportStatus> {
  return statusOf(await readImport(ctx, importId));
}

/** The tenant's custom fields (retired ones included: their values still round-trip) of people, organizations and memberships. */
export async function customFieldSets(ctx: RequestContext): Promise<CustomFieldSets> {
  const [person, organization, membership] = await Promise.all((['person', 'organization', 'membership'] as const).map((target) => customFieldsFor(ctx, target, { includeRetired: true })));
  return { person, organization, membership };
}

/** The custom fields as columns, in the export's order: contacts' (a key people and organizations share is one column), then memberships'. */
export function customFieldColumns(sets: CustomFieldSets): CustomFieldColumn[] {
  const columns = new Map<string, CustomFieldColumn>();
  for (const field of [...sets.person, ...sets.organization]) {
    const name = customFieldColumnName('contact', field.key);
    if (!columns.has(name)) columns.set(name, { field: name, label: field.label });
  }
  for (const field of sets.membership) columns.set(customFieldColumnName('membership', field.key), { field: customFieldColumnName('membership', field.key), label: field.label });
  return [...columns.values()];
}

/** The fields a column may map to: ours, then the custom fields (`cf:<key>`, `cf:membership:<key>`). */
function mappableFields(sets: CustomFieldSets): string[] {
  return [...IMPORT_FIELDS, ...customFieldColumns(sets).map((column) => column.field)];
}

export async function contactImportPreview(ctx: RequestContext, importId: number): Promise<ImportPreview> {
  const row = await readImport(ctx, importId);
  const sets = await customFieldSets(ctx);
  const suggested = suggestMapping(row.headers, customFieldColumns(sets));
  return {
    ImportId: row.id, Delimiter: row.delimiter, Headers: row.headers, Rows: row.sample_rows, RowsTotal: row.rows_total,
    SuggestedMapping: mappingList(suggested), SuggestedMatchOn: suggestMatchKey(suggested), Fields: mappableFields(sets), MatchKeys: [...MATCH_KEYS],
  };
}

export async function contactImportRows(ctx: RequestContext, importId: number, input: ContactImportRowsInput | null | undefined): Promise<ImportRowResults> {
  const row = await readImport(ctx, importId);
  const dryRun = input?.DryRun ?? row.dry_run;
  const take = input?.Take ?? 100;
  const skip = input?.Skip ?? 0;
  const outcome = input?.Outcome ?? null;
  const sql = tenantSql(ctx);
  const where = `${tenantIs('r')} and r.contact_import_id = ? and r.dry_run = ? and (?::text is null or r.outcome = ?)`;
  const params = [importId, dryRun, outcome, outcome];
  const results = await sql.all<{ row_number: number; outcome: string; reason: string | null; contact_id: number | null }>(
    `select r.row_number, r.outcome, r.reason, r.contact_id from contact_import_row r where ${where} order by r.row_number limit ? offset ?`, [...params, take, skip]);
  const [{ total }] = await sql.all<{ total: number }>(`select count(*)::int as total from contact_import_row r where ${where}`, params);
  return {
    Total: total,
    Results: results.map((result): ImportRowResult => ({ RowNumber: result.row_number, Outcome: result.outcome, Reason: result.reason, ContactId: result.contact_id })),
  };
}

/** An import whose last run has finished (409 while one is queued or running, or none ran). */
async function finishedImport(ctx: RequestContext, importId: number): Promise<ImportRow> {
  const row = await readImport(ctx, importId);
  if (row.state !== 'completed' && row.state !== 'cancelled' && row.state !== 'failed') throw new Conflict('The import has not finished a run: its report of rejected rows is not complete.');
  return row;
}

/** Where the report of rejected rows of an import's last run is downloaded. */
export async function contactImportRejectedCsv(ctx: RequestContext, importId: number): Promise<ImportDownload> {
  const row = await finishedImport(ctx, importId);
  return { FileName: `rejected-${row.id}.csv`, MediaType: CSV_MEDIA_TYPE, Url: `/api/imports/${row.id}/rejected` };
}

/**
 * The report of rejected rows as CSV lines: the file's own header plus ImportError, then each
 * rejected row's cells as read and its reason — fix the cells and import the report again.
 */
export async function* rejectedRowsCsv(ctx: RequestContext, importId: number): AsyncGenerator<string[]> {
  const row = await finishedImport(ctx, importId);
  yield [...row.headers, REASON_COLUMN];
  for (let after = 0; ;) {
    const rows = await tenantSql(ctx).all<{ row_number: number; cells: string[] | null; reason: string | null }>(
      `select r.row_number, r.cells, r.reason from contact_import_row r
        where ${tenantIs('r')} and r.contact_import_id = ? and r.dry_run = ? and r.outcome = 'rejected' and r.row_number > ? order by r.row_number limit 500`,
      [importId, row.dry_run, after]);
    for (const rejected of rows) {
      const cells = rejected.cells ?? [];
      yield [...row.headers.map((_header, index) => cells[index] ?? ''), rejected.reason ?? ''];
    }
    if (rows.length < 500) return;
    after = rows[rows.length - 1].row_number;
  }
}

// ---- starting and cancelling ----

/** The mapping a start gives, checked against the file's headers and the fields. */
function checkedMapping(headers: string[], sets: CustomFieldSets, input: ContactImportStartInput): { mapping: Record<string, string>; matchOn: MatchKey } {
  const mapping: Record<string, string> = {};
  const fields = new Set<string>();
  const known = new Set(mappableFields(sets));
  for (const [index, entry] of (input.Mapping ?? []).entries()) {
    if (!headers.includes(entry.Column)) throw BadInput.field(`Mapping[${index}].Column`, `is not a column of the file ("${entry.Column}")`);
    if (!entry.Field) continue; // left unmapped
    if (!known.has(entry.Field) && !entry.Field.startsWith(CUSTOM_FIELD_PREFIX)) throw BadInput.field(`Mapping[${index}].Field`, `is not a field an import takes ("${entry.Field}")`);
    if (!known.has(entry.Field)) throw BadInput.field(`Mapping[${index}].Field`, `is not a custom field ("${entry.Field}")`);
    if (fields.has(entry.Field)) throw BadInput.field(`Mapping[${index}].Field`, `maps a second column to ${entry.Field}`);
    fields.add(entry.Field);
    mapping[entry.Column] = entry.Field;
  }
  const matchOn = (input.MatchOn ?? suggestMatchKey(mapping)) as MatchKey;
  if (!(MATCH_KEYS as readonly string[]).includes(matchOn)) throw BadInput.field('MatchOn', `must be one of ${MATCH_KEYS.join(', ')}`);
  if (!fields.has(matchOn)) throw BadInput.field('MatchOn', `no column is mapped to ${matchOn}`);
  return { mapping, matchOn };
}

/** Starts a dry run or the import of an uploaded file (409 while a run of it is queued or running). */
export async function startContactImport(ctx: RequestContext, importId: number, input: ContactImportStartInput): Promise<ImportStatus> {
  const row = await readImport(ctx, importId);
  const sets = await customFieldSets(ctx);
  const { mapping, matchOn } = checkedMapping(row.headers, sets, input.Mapping ? input : { ...input, Mapping: mappingList(suggestMapping(row.headers, customFieldColumns(sets))) });
  const dryRun = input.DryRun ?? false;
  await inTransaction(ctx, async () => {
    const sql = tenantSql(ctx);
    const started = await sql.run(
      `update contact_import i set state = 'queued', dry_run = ?, mapping = ?::jsonb, match_on = ?, rows_done = 0, created = 0, updated = 0, unchanged = 0, rejected = 0,
         error = null, attempts = 0, enqueued_at = null, started_at = null, finished_at = null, updated_at = now()
        where i.id = ? and ${tenantIs('i')} and i.state not in ('queued', 'running')`,
      [dryRun, JSON.stringify(mapping), matchOn, importId]);
    if (started.affectedRows !== 1) throw new Conflict('A run of this import is queued or running: wait for it, or cancel it.');
    await sql.run(`delete from contact_import_row r where ${tenantIs('r')} and r.contact_import_id = ? and r.dry_run = ?`, [importId, dryRun]);
    await forgetDryRunState(sql, importId);
  });
  return contactImportStatus(ctx, importId);
}

/** Cancels a queued or running run: it stops after its current batch (409 when none is under way). */
export async function cancelContactImport(ctx: RequestContext, importId: number): Promise<ImportStatus> {
  await readImport(ctx, importId);
  const cancelled = await tenantSql(ctx).run(
    `update contact_import i set state = 'cancelled', finished_at = now(), updated_at = now() where i.id = ? and ${tenantIs('i')} and i.state in ('queued', 'running')`, [importId]);
  if (cancelled.affectedRows !== 1) throw new Conflict('The import has no run under way to cancel.');
  return contactImportStatus(ctx, importId);
}

// ---- the run ----

/** One attempt at a run (see the top of this file). */
export async function runImportJob(orm: MikroORM, data: ContactImportJobData | null, job: JobRun, batchRows: number): Promise<void> {
  if (!data) return;
  const em = orm.em.fork();
  confineToTenant(em, data.tenantId);
  const sql = tenantSql({ em, tenantId: data.tenantId });
  const claimed = await sql.get<ImportRow>(
    `update contact_import i set state = 'running', attempts = attempts + 1, started_at = coalesce(started_at, now()), updated_at = now()
      where i.id = ? and ${tenantIs('i')} and i.state in ('queued', 'running') returning *`, [data.importId]);
  if (!claimed) return; // finished, cancelled or deleted: nothing to do
  try {
    await run(orm, data, claimed, batchRows, job.signal);
  } catch (error) {
    if (error instanceof RunStopped && !job.signal?.aborted) return; // cancelled, or another job of it moved on
    if (job.retryCount >= job.retryLimit) await markFailed(orm, data, 'The import could not be completed.');
    throw error;
  }
}

class RunStopped extends Error {}

async function run(orm: MikroORM, data: ContactImportJobData, claimed: ImportRow, batchRows: number, signal?: AbortSignal): Promise<void> {
  const reader = orm.em.fork();
  confineToTenant(reader, data.tenantId);
  const ctx = jobContext(reader, data.tenantId);
  const types = await readMembershipTypes(tenantSql({ em: reader, tenantId: data.tenantId }));
  const plan: ImportPlan = {
    matchOn: claimed.match_on as MatchKey,
    customFields: await customFieldSets(ctx),
    fields: new Map(claimed.headers.flatMap((header, index) => (claimed.mapping?.[header] ? [[index, claimed.mapping[header]] as const] : []))),
  };
  const { records } = await openCsv(fileChunks(ctx, await findFile(ctx, claimed.file_id)), claimed.delimiter);
  let checkpoint = claimed.rows_done;
  /** The batch the database works on while the next one is read (settled: the checkpoint moved). */
  let inFlight = null as Promise<void> | null;
  const settle = async (batch: ReadRow[]) => {
    if (inFlight) await inFlight; // in order: each batch moves the checkpoint from where the one before left it
    if (signal?.aborted) throw new RunStopped();
    inFlight = settleBatch(orm, data.tenantId, claimed, checkpoint, batch, (em) => applyBatch(em, data.tenantId, plan, types, batch, claimed.dry_run ? claimed.id : null))
      .then((next) => { checkpoint = next; });
    inFlight.catch(() => {}); // it fails where it is awaited, not as an unhandled rejection while the next batch is read
  };
  try {
    let rowNumber = 0;
    let batch: ReadRow[] = [];
    let header = true;
    for await (const record of records) {
      if (header) { header = false; continue; }
      rowNumber++;
      if (rowNumber <= claimed.rows_done) continue; // settled by an earlier attempt
      batch.push(readRow(plan, { rowNumber, cells: record.slice(0, MAX_COLUMNS) }));
      if (batch.length >= batchRows) {
        await settle(batch);
        batch = [];
      }
    }
    if (batch.length) await settle(batch);
    await inFlight;
  } finally {
    // A run that stops (a bad record, a failed batch) ends with no batch of it still committing.
    await inFlight?.catch(() => {});
  }
  const finisher = orm.em.fork();
  confineToTenant(finisher, data.tenantId);
  await finisher.transactional(async (tx) => {
    const sql = tenantSql({ em: tx, tenantId: data.tenantId });
    const completed = await sql.run(
      `update contact_import i set state = 'completed', finished_at = now(), updated_at = now() where i.id = ? and ${tenantIs('i')} and i.state = 'running' and i.rows_done = ?`,
      [data.importId, checkpoint]);
    if (completed.affectedRows === 1 && claimed.dry_run) await forgetDryRunState(sql, data.importId);
  });
}

/**
 * One batch: its writes (a dry run's: its state), its outcomes and the checkpoint moved from
 * `checkpoint` in one transaction. Stops the run (cancelled, or another job moved on) when the
 * checkpoint is no longer where this run left it.
 */
async function settleBatch(
  orm: MikroORM, tenantId: number, claimed: ImportRow, checkpoint: number, batch: readonly ReadRow[], apply: (em: MikroORM['em']) => Promise<RowResult[]>,
): Promise<number> {
  const em = orm.em.fork();
  confineToTenant(em, tenantId);
  const next = batch[batch.length - 1].rowNumber;
  let results: RowResult[] = [];
  const moved = await em.transactional(async (tx) => {
    results = await apply(tx);
    const sql = tenantSql({ em: tx, tenantId });
    const cells = new Map(batch.map((row) => [row.rowNumber, row.cells]));
    const kept = claimed.dry_run ? results : results.filter((result) => result.outcome === 'rejected');
    if (kept.length) {
      await sql.run(`insert into contact_import_row (tenant_id, contact_import_id, dry_run, row_number, outcome, reason, contact_id, cells)
        select ${TENANT}, ?, ?, r.row_number, r.outcome, r.reason, r.contact_id, r.cells from ${RECORDSET} as r(row_number int, outcome text, reason text, contact_id int, cells jsonb)`,
      [claimed.id, claimed.dry_run, recordsetParam(kept.map((result) => ({
        row_number: result.rowNumber, outcome: result.outcome, reason: result.reason, contact_id: result.contactId, cells: result.outcome === 'rejected' ? cells.get(result.rowNumber) : null,
      })))]);
    }
    const count = (outcome: string) => results.filter((result) => result.outcome === outcome).length;
    const updated = await sql.run(
      `update contact_import i set rows_done = ?, created = created + ?, updated = updated + ?, unchanged = unchanged + ?, rejected = rejected + ?, updated_at = now()
        where i.id = ? and ${tenantIs('i')} and i.state = 'running' and i.rows_done = ?`,
      [next, count('created'), count('updated'), count('unchanged'), count('rejected'), claimed.id, checkpoint]);
    if (updated.affectedRows !== 1) throw new RunStopped();
    return true;
  }).catch((error: unknown) => {
    if (error instanceof RunStopped) return false;
    throw error;
  });
  if (!moved) throw new RunStopped();
  return next;
}

async function markFailed(orm: MikroORM, data: ContactImportJobData | null, message: string): Promise<void> {
  if (!data) return;
  await tenantSql({ em: orm.em.fork(), tenantId: data.tenantId }).run(
    `update contact_import i set state = 'failed', error = ?, finished_at = now(), updated_at = now() where i.id = ? and ${tenantIs('i')} and i.state in ('queued', 'running')`,
    [message, data.importId]);
}
