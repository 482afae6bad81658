import type { MikroORM } from '@mikro-orm/postgresql';
import { stringify } from 'csv-stringify/sync';
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { loadConfig } from '../../core/config.js';
import { inPumpTransaction, type JobDefinition, type JobRun } from '../../core/runtime/jobs.js';
import { confineToTenant } from '../../core/context.js';
import { ReportRun } from '../../entities/report.js';
import { StreamedFileWriter } from '../files/files.js';
import { REPORT_SOURCES, SYSTEM_REPORTS, type ReportScope, type ReportTypeId } from './report-sources.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';

/*
 * Report runs as background work. A request stores the run (`queued`) and answers at once; the
 * worker instances' pump gives queued runs their pg-boss jobs (in the same transaction as
 * marking them enqueued, so a run stored just before a crash is queued after the restart). A
 * job claims its run (`running`, attempt counted), reads the report's rows in batches (keyset
 * pages), writes each batch's CSV lines (csv-stringify) to the file service as they come
 * (`StreamedFileWriter`, in one transaction that also completes the run) and records progress
 * after each batch. A completed, failed or deleted run
 * is left alone, so a job that runs twice changes nothing; a job cut off mid-run (a restart) is
 * retried by pg-boss and starts the run over. A row that cannot be written is skipped and
 * counted (RowsSkipped), not fatal; a run that fails on its last attempt is marked failed.
 */

export const REPORT_RUN_QUEUE = 'report-run';
const DEAD_QUEUE = 'report-run-dead';
export const REPORT_RESULT_PURPOSE = 'report-results';

export interface ReportJobData {
  runId: number;
  tenantId: number;
}

export interface ReportJobSettings {
  /** Rows read and written per batch (progress is recorded after each). */
  batchSize?: number;
  /** How often the pump looks for queued runs. */
  pumpEveryMs?: number;
  retryDelaySeconds?: number;
}

/** The report run queue (and its dead-letter queue, first), for the manifest. */
export function reportRunJobs(settings: ReportJobSettings = {}): JobDefinition[] {
  const batchSize = settings.batchSize ?? 500;
  return [
    { name: DEAD_QUEUE, handle: (orm, data) => markFailed(orm, jobData(data), 'The run was given up after repeated failures.') },
    {
      name: REPORT_RUN_QUEUE,
      queue: { retryLimit: 3, retryDelay: settings.retryDelaySeconds ?? 5, retryBackoff: true, expireInSeconds: 900, deadLetter: DEAD_QUEUE },
      pump: { everyMs: settings.pumpEveryMs ?? 1000, run: (client, boss) => queueReportRuns(client, boss) },
      handle: (orm, data, run) => runReportJob(orm, jobData(data), run, batchSize),
    },
  ];
}

function jobData(data: unknown): ReportJobData | null {
  const { runId, tenantId } = (data ?? {}) as Partial<ReportJobData>;
  return Number.isInteger(runId) && Number.isInteger(tenantId) ? { runId: runId!, tenantId: tenantId! } : null;
}

/** Gives queued runs without a job their jobs, up to 100 at a time, each batch in one transaction. */
export function queueReportRuns(client: pg.ClientBase, boss: PgBoss): Promise<number> {
  return inPumpTransaction(client, boss, async (queue) => {
    const { rows } = await client.query<{ id: number; tenant_id: number }>(
      `UPDATE report_run SET enqueued_at = now() WHERE id IN (
         SELECT id FROM report_run WHERE state = 'queued' AND enqueued_at IS NULL ORDER BY id LIMIT 100 FOR UPDATE SKIP LOCKED
       ) RETURNING id, tenant_id`);
    await queue(REPORT_RUN_QUEUE, rows.map((row) => ({ data: { runId: row.id, tenantId: row.tenant_id } satisfies ReportJobData })));
    return rows.length;
  });
}

interface ClaimedRun {
  report_id: number;
  contact_id: number | null;
  requested_by_id: number | null;
}

/** One attempt at a run (see the top of this file). */
export async function runReportJob(orm: MikroORM, data: ReportJobData | null, job: JobRun, batchSize = 500): Promise<void> {
  if (!data) return;
  const em = orm.em.fork();
  const [claimed] = await tenantSql({ em, tenantId: data.tenantId }).all<ClaimedRun>(
    `UPDATE report_run SET state = 'running', attempts = attempts + 1, started_at = now(), progress = 0, rows_written = 0, rows_skipped = 0,
       error = NULL, updated_at = now()
     WHERE id = ? AND ${tenantIs()} AND state IN ('queued', 'running') RETURNING report_id, contact_id, requested_by_id`, [data.runId]);
  if (!claimed) return; // completed, failed or deleted: nothing to do
  try {
    await produce(orm, data, claimed, batchSize);
  } catch (error) {
    if (job.retryCount >= job.retryLimit) await markFailed(orm, data, 'The report could not be produced.');
    throw error;
  }
}

async function produce(orm: MikroORM, data: ReportJobData, claimed: ClaimedRun, batchSize: number): Promise<void> {
  const em = orm.em.fork();
  confineToTenant(em, data.tenantId);
  const [report] = await tenantSql({ em, tenantId: data.tenantId }).all<{ name: string; report_type_id: string; system_key: string | null }>(
    `SELECT name, report_type_id, system_key FROM report WHERE id = ? AND ${tenantIs()}`, [claimed.report_id]);
  if (!report) return; // deleted meanwhile (the run went with it)
  const type = report.report_type_id as ReportTypeId;
  const source = REPORT_SOURCES[type];
  if (!source) throw new Error(`report type ${type} has no source`);
  const system = SYSTEM_REPORTS.find((candidate) => candidate.key === report.system_key);
  const scope: ReportScope = { tenantId: data.tenantId, contactId: claimed.contact_id, ...system?.filter };

  const total = await source.count(em, scope);
  const name = `${report.name.replace(/[^\w .-]+/g, '_').trim().slice(0, 100) || 'report'}-${data.runId}.csv`;
  const owner = { tenantId: data.tenantId, uploadedBy: claimed.requested_by_id, config: loadConfig() };
  // The CSV goes to storage piece by piece inside one transaction, which also completes the run:
  // memory holds one batch of rows and one piece, whatever the row count, and a run cut off
  // (a restart) leaves no pieces behind. Progress is written outside it, so it is seen meanwhile.
  await em.fork().transactional(async (tx) => {
    const csv = await StreamedFileWriter.open(tx, owner);
    await csv.write(stringify([source.columns]));
    let written = 0;
    let skipped = 0;
    for (let afterId = 0; ;) {
      const rows = await source.batch(em, scope, afterId, batchSize);
      if (rows.length === 0) break;
      const lines: string[] = [];
      for (const row of rows) {
        try {
          lines.push(stringify([source.columns.map((column) => cell(row.values[column]))]));
          written++;
        } catch {
          skipped++; // a row that cannot be written is counted, not fatal
        }
      }
      await csv.write(lines.join(''));
      afterId = rows[rows.length - 1].id;
      const progress = total === 0 ? 100 : Math.min(99, Math.floor(((written + skipped) * 100) / total));
      await tenantSql({ em, tenantId: data.tenantId }).run(
        `UPDATE report_run SET progress = ?, rows_total = ?, rows_written = ?, rows_skipped = ?, updated_at = now() WHERE id = ? AND ${tenantIs()} AND state = 'running'`,
        [progress, total, written, skipped, data.runId]);
    }
    const file = await csv.finish({ name, mediaType: 'text/csv', purpose: REPORT_RESULT_PURPOSE });
    const completed = await tx.nativeUpdate(ReportRun, { id: data.runId, tenant: data.tenantId, state: 'running' }, {
      state: 'completed', file: file.id, progress: 100, rowsTotal: total, rowsWritten: written, rowsSkipped: skipped, finishedAt: new Date(), updatedAt: new Date(),
    });
    // Deleted or settled meanwhile: roll the file back with it.
    if (completed !== 1) throw new RunGone();
  }).catch((error: unknown) => {
    if (!(error instanceof RunGone)) throw error;
  });
}

class RunGone extends Error {}

/**
 * A cell as written: text that a spreadsheet would read as a formula (= + - @, tab, carriage
 * return first) is prefixed with an apostrophe, so opening a report never runs its data.
 */
function cell(value: unknown): string | number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return value;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

async function markFailed(orm: MikroORM, data: ReportJobData | null, message: string): Promise<void> {
  if (!data) return;
  await tenantSql({ em: orm.em.fork(), tenantId: data.tenantId }).run(
    `UPDATE report_run SET state = 'failed', error = ?, finished_at = now(), updated_at = now() WHERE id = ? AND ${tenantIs()} AND state IN ('queued', 'running')`,
    [message, data.runId]);
}
