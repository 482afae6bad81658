import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../core/context.js';
import { NotFound, ServiceUnavailable } from '../../core/errors.js';
import type { JobDefinition, JobRun } from '../../core/runtime/jobs.js';
import { leanRows } from '../../core/data/lean-read.js';
import { withDuplicateLock } from '../../core/data/records.js';
import { ChapterZipCodeRun } from '../../entities/chapter.js';
import type { ChapterZipCodeAssignment } from '../../schema/chapters.js';
import { intArray, promotePrimaries, runStatement } from './chapter-links.js';
import { TENANT, tenantIs, tenantSql } from '../../core/data/tenant-sql.js';

/*
 * `contactchapter/assignzipcodes`: links every person whose primary address (the one of kind
 * "primary", else the first) has a postal code listed in a chapter's PostalCodesJson to that
 * chapter (a code also matches a ZIP+4 such as 12345-6789; case and spaces ignored), and gives a
 * contact left without a primary chapter its oldest link as primary.
 *
 * The request records a run and queues a pg-boss job (answering the run at once; staff follow it
 * with the GraphQL query `chapterZipCodeAssignment`). A request while a run of the tenant is
 * queued or running (and has moved within STALE_MS) answers that run instead of starting another.
 * The job works through the tenant's people in id order, BATCH at a time, each batch one
 * transaction (the batch's contacts locked, links inserted ON CONFLICT DO NOTHING, primaries
 * promoted), and records its progress after each batch, so a job that restarts resumes after
 * the last finished batch and a second run changes nothing. A batch that fails is retried one
 * contact at a time, so one bad contact is counted and skipped instead of failing the run.
 * Without a job queue in the process (the CLI, some tests) the request runs it before answering.
 */

export const ZIP_CODE_QUEUE = 'chapter-assign-zipcodes';
const BATCH = 500;
const STALE_MS = 10 * 60_000;
const RUN_FIELDS = [
  'id', 'state', 'totalContacts', 'processedContacts', 'linksCreated', 'primariesSet', 'failedContacts', 'failedContactIds', 'error', 'createdAt', 'finishedAt',
] as const;

interface ZipCodeJobData {
  tenantId: number;
  runId: number;
}

/** The job of the chapters area. */
export function chapterJobs(): JobDefinition[] {
  return [{
    name: ZIP_CODE_QUEUE,
    queue: { retryLimit: 3, retryDelay: 5, retryBackoff: true, expireInSeconds: 3600 },
    work: { pollingIntervalSeconds: 1 },
    handle: (orm, data, run) => handleZipCodeJob(orm, data, run),
  }];
}

/** `GET /api/chapters/contactchapter/assignzipcodes`: starts (or finds) the tenant's run and answers it. */
export async function requestZipCodeAssignment(ctx: RequestContext): Promise<ChapterZipCodeAssignment> {
  const tenantId = ctx.tenantId;
  const { runId, isNew } = await withDuplicateLock(ctx, 'chapter-zip-codes', 'run', async () => {
    const [active] = await leanRows(ctx.reader, ChapterZipCodeRun, {
      fields: ['id'], where: { state: { $in: ['queued', 'running'] }, updatedAt: { $gt: new Date(Date.now() - STALE_MS) } }, orderBy: [{ id: 'desc' }], limit: 1,
    });
    if (active) return { runId: active.id, isNew: false };
    const created = ctx.em.create(ChapterZipCodeRun, { tenant: tenantId });
    await ctx.em.flush();
    return { runId: created.id, isNew: true };
  });
  if (isNew) {
    if (ctx.app.jobs) {
      try {
        await ctx.app.jobs.send(ZIP_CODE_QUEUE, { tenantId, runId } satisfies ZipCodeJobData);
      } catch {
        await markFailed(ctx.em, tenantId, runId, 'The job could not be queued.');
        throw new ServiceUnavailable('The job queue is unavailable; try again.');
      }
    } else {
      await processZipCodeRun(ctx.em.fork(), tenantId, runId);
    }
  }
  return zipCodeAssignment(ctx, runId);
}

/** A run of the caller's tenant (the latest without `runId`); 404 when there is none. */
export async function zipCodeAssignment(ctx: RequestContext, runId?: number | null): Promise<ChapterZipCodeAssignment> {
  const [run] = await leanRows(ctx.reader, ChapterZipCodeRun, { fields: [...RUN_FIELDS], where: runId ? { id: runId } : {}, orderBy: [{ id: 'desc' }], limit: 1 });
  if (!run) throw new NotFound('The postal code assignment run');
  return {
    RunId: run.id, State: run.state, TotalContacts: run.totalContacts, ProcessedContacts: run.processedContacts, LinksCreated: run.linksCreated,
    PrimariesSet: run.primariesSet, FailedContacts: run.failedContacts, FailedContactIds: run.failedContactIds, Error: run.error,
    CreatedAt: run.createdAt.toISOString(), FinishedAt: run.finishedAt?.toISOString() ?? null,
  };
}

async function handleZipCodeJob(orm: MikroORM, data: unknown, job: JobRun): Promise<void> {
  const { tenantId, runId } = (data ?? {}) as Partial<ZipCodeJobData>;
  if (!Number.isInteger(tenantId) || !Number.isInteger(runId)) return;
  const em = orm.em.fork();
  try {
    await processZipCodeRun(em, tenantId!, runId!);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (job.retryCount >= job.retryLimit) await markFailed(em, tenantId!, runId!, message);
    throw error;
  }
}

/** Works a run through to the end, from where it stopped. A completed or failed run is left alone. */
export async function processZipCodeRun(em: EntityManager, tenantId: number, runId: number): Promise<void> {
  const [run] = await tenantSql({ em, tenantId }).all<{ state: string; last_contact_id: number; failed_contact_ids: number[] }>(
    `SELECT state, last_contact_id, failed_contact_ids FROM chapter_zip_code_run WHERE id = ? AND ${tenantIs()}`, [runId]);
  if (!run || run.state === 'completed' || run.state === 'failed') return;
  await runStatement(em, tenantId, `UPDATE chapter_zip_code_run SET state = 'running', updated_at = now(),
       total_contacts = (SELECT count(*) FROM contact WHERE ${tenantIs()} AND kind = 'person' AND deleted_at IS NULL)
     WHERE id = ? AND ${tenantIs()}`, [runId]);
  let last = run.last_contact_id;
  const failedIds = [...run.failed_contact_ids];
  for (;;) {
    const rows = await tenantSql({ em, tenantId }).all<{ id: number }>(
      `SELECT id FROM contact WHERE ${tenantIs()} AND kind = 'person' AND deleted_at IS NULL AND id > ? ORDER BY id LIMIT ?`, [last, BATCH]);
    if (rows.length === 0) break;
    const ids = rows.map((row) => row.id);
    const outcome = await assignIsolating(em, tenantId, ids);
    failedIds.push(...outcome.failed);
    last = ids[ids.length - 1];
    await runStatement(em, tenantId, `UPDATE chapter_zip_code_run SET processed_contacts = processed_contacts + ?, links_created = links_created + ?, primaries_set = primaries_set + ?,
         failed_contacts = failed_contacts + ?, failed_contact_ids = ?::jsonb, last_contact_id = ?, updated_at = now()
       WHERE id = ? AND ${tenantIs()}`, [ids.length, outcome.links, outcome.primaries, outcome.failed.length, JSON.stringify(failedIds.slice(0, 100)), last, runId]);
  }
  await runStatement(em, tenantId, `UPDATE chapter_zip_code_run SET state = 'completed', finished_at = now(), updated_at = now() WHERE id = ? AND ${tenantIs()}`, [runId]);
}

/** One batch in one transaction; when it fails, each contact on its own, the failing ones counted. */
async function assignIsolating(em: EntityManager, tenantId: number, ids: number[]): Promise<{ links: number; primaries: number; failed: number[] }> {
  try {
    return { ...(await assignBatch(em, tenantId, ids)), failed: [] };
  } catch {
    const total = { links: 0, primaries: 0, failed: [] as number[] };
    for (const id of ids) {
      try {
        const one = await assignBatch(em, tenantId, [id]);
        total.links += one.links;
        total.primaries += one.primaries;
      } catch {
        total.failed.push(id);
      }
    }
    return total;
  }
}

/** Links the contacts `ids` to the chapters of their postal codes and promotes primaries, with the contacts locked. */
function assignBatch(em: EntityManager, tenantId: number, ids: number[]): Promise<{ links: number; primaries: number }> {
  return em.transactional(async (tx) => {
    await tenantSql({ em: tx, tenantId }).all(`SELECT id FROM contact WHERE ${tenantIs()} AND id = ANY(?::int[]) ORDER BY id FOR UPDATE`, [intArray(ids)]);
    const links = await runStatement(tx, tenantId,
      `WITH zip AS (
         SELECT ch.contact_id AS chapter_id, upper(regexp_replace(code.value, '\\s', '', 'g')) AS code
           FROM chapter ch
           JOIN contact o ON o.id = ch.contact_id AND o.deleted_at IS NULL
           CROSS JOIN LATERAL jsonb_array_elements_text(CASE WHEN jsonb_typeof(ch.postal_codes) = 'array' THEN ch.postal_codes ELSE '[]'::jsonb END) AS code(value)
          WHERE ${tenantIs('ch')} AND NOT ch.is_top_level
       ), person AS (
         SELECT c.id, upper(regexp_replace(coalesce(
                  (SELECT a->>'postalCode' FROM jsonb_array_elements(c.addresses) a WHERE jsonb_typeof(a) = 'object' AND lower(a->>'kind') = 'primary' LIMIT 1),
                  c.addresses->0->>'postalCode', ''), '\\s', '', 'g')) AS code
           FROM contact c
          WHERE ${tenantIs('c')} AND c.id = ANY(?::int[]) AND jsonb_typeof(c.addresses) = 'array'
       )
       INSERT INTO contact_chapter (tenant_id, contact_id, chapter_id, is_primary)
       SELECT DISTINCT ${TENANT}::int, p.id, z.chapter_id, false
         FROM person p JOIN zip z ON p.code <> '' AND (z.code = p.code OR z.code = split_part(p.code, '-', 1))
       ON CONFLICT (contact_id, chapter_id) DO NOTHING`, [intArray(ids)]);
    const primaries = await promotePrimaries(tx, tenantId, ids);
    return { links, primaries };
  });
}

async function markFailed(em: EntityManager, tenantId: number, runId: number, message: string): Promise<void> {
  await runStatement(em, tenantId, `UPDATE chapter_zip_code_run SET state = 'failed', error = ?, finished_at = now(), updated_at = now() WHERE id = ? AND ${tenantIs()}`, [message.slice(0, 2000), runId]);
}
