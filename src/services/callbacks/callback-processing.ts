import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { inPumpTransaction, type JobDefinition, type JobRun } from '../../core/runtime/jobs.js';
import type { CallbackProvider } from '../../entities/callback.js';
import { MalformedCallback, normalizeCallback, storable, type EmailEventInput, type MeetingEventInput } from './callback-formats.js';
import { acrossTenants, TENANT, tenantIs, tenantSql } from '../../core/data/tenant-sql.js';

/** The queue of stored callbacks waiting to be processed; its jobs carry `{ receipt }`. */
export const CALLBACK_QUEUE = 'provider-callback';
/** Where pg-boss moves a callback's job once every attempt has failed. */
export const CALLBACK_DEAD_LETTER_QUEUE = 'provider-callback-dead';

export interface CallbackJobData {
  receipt: string;
}

export interface CallbackJobSettings {
  /** Retries after the first attempt before the callback is dead-lettered. */
  retryLimit: number;
  /** Seconds before the first retry; doubled for each further one (with jitter), at most an hour. */
  retryDelaySeconds: number;
  /** How often an idle worker looks for new callbacks. */
  pollingIntervalSeconds: number;
  /** How often a worker instance gives stored (`received`) callbacks their jobs. */
  dispatchEveryMs: number;
}

/** Batches of callbacks one worker instance processes at once (each holds one ORM connection of DATABASE_POOL_MAX while it runs). */
const CALLBACK_WORKERS = 4;

export const DEFAULT_CALLBACK_JOB_SETTINGS: CallbackJobSettings = { retryLimit: 5, retryDelaySeconds: 5, pollingIntervalSeconds: 2, dispatchEveryMs: 250 };

/**
 * The jobs of the callbacks area: processing each stored callback (retried with backoff, then
 * dead-lettered), and marking a dead-lettered callback `dead`. Listed in main.ts; tests shorten
 * the delays.
 */
export function callbackJobs(settings: Partial<CallbackJobSettings> = {}): JobDefinition[] {
  const { retryLimit, retryDelaySeconds, pollingIntervalSeconds, dispatchEveryMs } = { ...DEFAULT_CALLBACK_JOB_SETTINGS, ...settings };
  return [
    {
      name: CALLBACK_DEAD_LETTER_QUEUE,
      queue: { retryLimit: 10, retryBackoff: true },
      work: { pollingIntervalSeconds },
      handle: (orm, data) => markDead(orm, receiptOf(data)),
    },
    {
      name: CALLBACK_QUEUE,
      queue: {
        retryLimit,
        retryDelay: retryDelaySeconds,
        retryBackoff: true,
        retryDelayMax: 3600,
        // Processing a batch takes milliseconds; a job still active after this died with its process
        // or lost its database mid-run, and is retried (within JOB_SUPERVISE_SECONDS more).
        expireInSeconds: 30,
        deadLetter: CALLBACK_DEAD_LETTER_QUEUE,
      },
      // One callback is one transaction of about six round trips, so one worker processes a few
      // hundred a second at best (tens on a busy host: the soak left thousands queued), while
      // ingestion accepts thousands: four batches at once drain a burst four times faster.
      work: { batchSize: 20, pollingIntervalSeconds, concurrency: CALLBACK_WORKERS },
      // Stored callbacks get their jobs here, in batches, not on the acknowledgement path.
      pump: { everyMs: dispatchEveryMs, run: (client, boss) => queueCallbacks(client, boss, 'received', null) },
      handle: (orm, data, run) => processCallbackJob(orm, receiptOf(data), run),
    },
  ];
}

function receiptOf(data: unknown): string | null {
  const receipt = (data as Partial<CallbackJobData> | null)?.receipt;
  return typeof receipt === 'string' ? receipt : null;
}

/**
 * One attempt at a stored callback; a failure is kept on the callback. A failure of the callback's
 * own content (the database refuses a value) would fail every attempt alike: the callback is
 * parked at once with the reason and its job completes. Any other failure (the database away, a
 * lock timeout) fails the job, so pg-boss retries it, and after the last attempt it is dead.
 */
export async function processCallbackJob(orm: MikroORM, receipt: string | null, run: JobRun): Promise<void> {
  if (!receipt) return;
  try {
    await processCallback(orm, receipt);
  } catch (error) {
    const permanent = isContentFault(error);
    const last = run.retryCount >= run.retryLimit;
    await orm.em.fork().execute(
      `UPDATE provider_callback SET attempts = ?, error = ?, state = ?, updated_at = now()
       WHERE receipt = ? AND state <> 'processed'`,
      [run.retryCount + 1, errorText(error), permanent ? 'parked' : last ? 'dead' : 'retrying', receipt],
    );
    if (!permanent) throw error;
  }
}

/**
 * PostgreSQL's verdicts on a value rather than on the moment: data exceptions (class 22: a NUL in
 * text, a time out of range, a number too large), NOT NULL and CHECK violations, a value too large
 * for an index (54000). Retrying cannot change them.
 */
const CONTENT_FAULT_STATES = /^(22...|23502|23514|54000)$/;

/** Whether processing failed because of what the callback holds (see CONTENT_FAULT_STATES), not because of the moment. */
function isContentFault(error: unknown): boolean {
  if (error instanceof MalformedCallback || error instanceof SyntaxError) return true;
  const { code, sqlState } = (error ?? {}) as { code?: unknown; sqlState?: unknown };
  return [code, sqlState].some((state) => typeof state === 'string' && CONTENT_FAULT_STATES.test(state));
}

interface CallbackRow {
  id: number;
  tenant_id: number;
  provider: CallbackProvider;
  body: string;
  received_at: Date;
  state: string;
}

/**
 * Records the events of one stored callback, in one transaction with marking it processed.
 * Idempotent: a processed callback is left alone, and an event already recorded (same tenant,
 * provider and provider event id, from this callback or another delivery of it) is not recorded
 * again, nor are its effects (suppressing the contact) applied again.
 */
export async function processCallback(orm: MikroORM, receipt: string): Promise<void> {
  // The stored callback names its tenant: found on the named cross-tenant path, its events then written for that tenant.
  await acrossTenants(orm.em).transactional(async (em) => {
    const [callback] = await em.execute<CallbackRow[]>(
      'SELECT id, tenant_id, provider, body, received_at, state FROM provider_callback WHERE receipt = ? FOR UPDATE',
      [receipt],
    );
    if (!callback || callback.state === 'processed') return;
    const events = normalizeCallback(callback.provider, JSON.parse(callback.body), new Date(callback.received_at));
    if (events.email.length) await recordEmailEvents(em, callback, events.email);
    if (events.meeting.length) await recordMeetingEvents(em, callback, events.meeting);
    await em.execute(
      `UPDATE provider_callback SET state = 'processed', processed_at = now(), updated_at = now(),
         attempts = attempts + 1, error = NULL, event_count = ?, parked_events = ?::jsonb
       WHERE id = ?`,
      [events.email.length + events.meeting.length, events.parked.length ? JSON.stringify(events.parked) : null, callback.id],
    );
  });
}

/**
 * One statement: inserts the events not recorded yet (linked to the contact with that address),
 * then suppresses the contacts whose address newly hard-bounced or reported spam.
 */
async function recordEmailEvents(em: EntityManager, callback: CallbackRow, events: EmailEventInput[]): Promise<void> {
  const rows = events.map((event) => ({
    event_id: event.eventId, kind: event.kind, bounce_type: event.bounceType, email: event.email,
    occurred_at: event.occurredAt, url: event.url, reason: event.reason,
  }));
  await tenantSql({ em, tenantId: callback.tenant_id }).run(
    `WITH incoming AS (
       SELECT * FROM json_to_recordset(?::json)
         AS e(event_id text, kind text, bounce_type text, email text, occurred_at timestamptz, url text, reason text)
     ), inserted AS (
       INSERT INTO email_event (tenant_id, provider, provider_event_id, callback_id, kind, bounce_type, email, contact_id, occurred_at, url, reason)
       SELECT ${TENANT}, ?, e.event_id, ?, e.kind, e.bounce_type, e.email, c.id, e.occurred_at, e.url, e.reason
       FROM incoming e
       LEFT JOIN LATERAL (
         SELECT id FROM contact
         WHERE ${tenantIs()} AND lower(email) = lower(e.email) AND deleted_at IS NULL
         ORDER BY id LIMIT 1
       ) c ON true
       ON CONFLICT (tenant_id, provider, provider_event_id) DO NOTHING
       RETURNING kind, bounce_type, email, occurred_at
     ), suppress AS (
       SELECT lower(email) AS email, min(occurred_at) AS occurred_at,
              CASE WHEN bool_or(kind = 'spam_report') THEN 'spam_report' ELSE 'hard_bounce' END AS reason
       FROM inserted
       WHERE kind = 'spam_report' OR (kind = 'bounce' AND bounce_type = 'hard')
       GROUP BY lower(email)
     )
     UPDATE contact SET email_suppressed_at = s.occurred_at, email_suppression_reason = s.reason, updated_at = now(), audit_id = contact.audit_id + 1
     FROM suppress s
     WHERE ${tenantIs('contact')} AND lower(contact.email) = s.email
       AND contact.deleted_at IS NULL AND contact.email_suppressed_at IS NULL`,
    [JSON.stringify(rows), callback.provider, callback.id],
  );
}

async function recordMeetingEvents(em: EntityManager, callback: CallbackRow, events: MeetingEventInput[]): Promise<void> {
  const rows = events.map((event) => ({
    event_id: event.eventId, kind: event.kind, meeting_id: event.meetingId, meeting_uuid: event.meetingUuid, topic: event.topic,
    participant_name: event.participantName, participant_email: event.participantEmail, occurred_at: event.occurredAt,
  }));
  await tenantSql({ em, tenantId: callback.tenant_id }).run(
    `INSERT INTO meeting_event (tenant_id, provider, provider_event_id, callback_id, kind, meeting_id, meeting_uuid, topic,
                                participant_name, participant_email, contact_id, occurred_at)
     SELECT ${TENANT}, ?, e.event_id, ?, e.kind, e.meeting_id, e.meeting_uuid, e.topic, e.participant_name, e.participant_email, c.id, e.occurred_at
     FROM json_to_recordset(?::json)
       AS e(event_id text, kind text, meeting_id text, meeting_uuid text, topic text, participant_name text, participant_email text, occurred_at timestamptz)
     LEFT JOIN LATERAL (
       SELECT id FROM contact
       WHERE ${tenantIs()} AND e.participant_email IS NOT NULL AND lower(email) = lower(e.participant_email) AND deleted_at IS NULL
       ORDER BY id LIMIT 1
     ) c ON true
     ON CONFLICT (tenant_id, provider, provider_event_id) DO NOTHING`,
    [callback.provider, callback.id, JSON.stringify(rows)],
  );
}

/** A dead-lettered job: its callback is `dead` (unless a later attempt or a duplicate job processed it). */
async function markDead(orm: MikroORM, receipt: string | null): Promise<void> {
  if (!receipt) return;
  await orm.em.fork().execute(
    `UPDATE provider_callback SET state = 'dead', updated_at = now(),
       error = coalesce(error, 'Processing did not finish (the job expired).')
     WHERE receipt = ? AND state <> 'processed'`,
    [receipt],
  );
}

/** The error kept on the callback; it may quote the refused value, so it is made storable itself. */
function errorText(error: unknown): string {
  const text = error instanceof Error ? `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}` : String(error);
  return storable(text.slice(0, 2000));
}

/**
 * Gives callbacks in state `from` (of one tenant, or all) a processing job each and marks them
 * queued, in transactions of up to 500: `received` ones are the dispatcher's work (stored, not yet
 * queued), `dead` ones are re-queued by the CLI (the last error stays until processed).
 */
export async function queueCallbacks(
  client: pg.ClientBase, boss: PgBoss, from: 'received' | 'dead', tenantId: number | null, onBatch?: (queued: number) => void,
): Promise<number> {
  let total = 0;
  for (;;) {
    const queued = await inPumpTransaction(client, boss, async (queue) => {
      const { rows } = await client.query<{ receipt: string }>(
        `UPDATE provider_callback SET state = 'queued', attempts = 0, updated_at = now()
         WHERE id IN (
           SELECT id FROM provider_callback WHERE state = $2 AND ($1::int IS NULL OR tenant_id = $1)
           ORDER BY id LIMIT 500 FOR UPDATE SKIP LOCKED
         )
         RETURNING receipt`,
        [tenantId, from],
      );
      await queue(CALLBACK_QUEUE, rows.map((row) => ({ data: { receipt: row.receipt } satisfies CallbackJobData })));
      return rows.length;
    });
    total += queued;
    onBatch?.(queued);
    if (queued < 500) return total;
  }
}
