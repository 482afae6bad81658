import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { loadMailTransport } from '../../core/runtime/format-libraries.js';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { PgBoss } from 'pg-boss';
import { configOnFirstUse, wholeSecondsFromEnv, type Config } from '../../core/config.js';
import { acrossTenants } from '../../core/data/tenant-sql.js';
import { allowedAddressOf, OutboundRefused } from '../../core/external/outbound.js';
import { inPumpTransaction, type JobDefinition, type JobRun } from '../../core/runtime/jobs.js';
import { createLogger } from '../../core/runtime/logger.js';

/*
 * E-mail delivery. A change that mails someone writes an `outbox_message` in its own transaction
 * (a sign-in link today), so no message is sent for a change that rolled back and none is lost
 * for one that committed. A pump on the worker instances moves `pending` messages to `queued`
 * and inserts one delivery job for each in the same transaction; the job sends the message and
 * marks it `sent` in one transaction that holds the row's lock while it sends. A process killed
 * mid-send leaves the row `queued` and its job expires and runs again; the SMTP server had not
 * accepted the message (its transaction was cut before the end of DATA), so nothing is lost or
 * doubled. The one window for a duplicate — the server accepted, the process died before its
 * COMMIT — resends the same Message-ID, by which mail clients and stores recognise it.
 *
 * Without SMTP_URL, outside production, each message is written as an `.eml` file under
 * DATA_DIR/outbox/<tenant>/ instead (the log names the file); in production it is marked failed.
 * A sent message's body is emptied: it may hold a credential (a sign-in link).
 */

export const EMAIL_DELIVERY_QUEUE = 'email-delivery';
/** The longest one SMTP exchange may take; a job's expiry is always longer (`sendExpirySeconds`). */
const SEND_TIMEOUT_MS = 8_000;

function sendExpirySeconds(env: NodeJS.ProcessEnv = process.env): number {
  return wholeSecondsFromEnv(env, 'SMTP_SEND_EXPIRE_SECONDS', 10) ?? 120;
}

interface DeliveryJobData {
  messageId: number;
}

interface OutboxRow {
  id: number;
  tenant_id: number;
  recipient: string;
  subject: string;
  body: string;
}

/**
 * The delivery job and the pump that feeds it. `everyMs`: how often pending messages are queued;
 * `config`: the configuration to send with (default: the process's, read on the first job).
 * An attempt cut off by a dead process runs again after SMTP_SEND_EXPIRE_SECONDS (default 120).
 */
export function emailDeliveryJobs(options: { everyMs?: number; retryDelaySeconds?: number; config?: Config } = {}): JobDefinition[] {
  const config = configOnFirstUse(options.config);
  return [{
    name: EMAIL_DELIVERY_QUEUE,
    // Expiry past the send timeout, so a living attempt is never run twice at once.
    queue: { retryLimit: 19, retryDelay: options.retryDelaySeconds ?? 10, retryBackoff: true, retryDelayMax: 3600, expireInSeconds: sendExpirySeconds() },
    work: { concurrency: 2 },
    pump: { everyMs: options.everyMs ?? 1000, run: (client, boss) => queuePendingEmail(client, boss) },
    handle: (orm, data, run) => deliverEmail(orm, config(), (data as Partial<DeliveryJobData> | null)?.messageId, run),
  }];
}

/** Moves pending messages (every tenant's) to `queued`, with one delivery job each, in one transaction per batch. */
export function queuePendingEmail(client: pg.ClientBase, boss: PgBoss): Promise<number> {
  return inPumpTransaction(client, boss, async (queue) => {
    const { rows } = await client.query<{ id: number }>(
      `UPDATE outbox_message SET status = 'queued', updated_at = now()
       WHERE id IN (SELECT id FROM outbox_message WHERE status = 'pending' ORDER BY id LIMIT 200 FOR UPDATE SKIP LOCKED)
       RETURNING id`);
    await queue(EMAIL_DELIVERY_QUEUE, rows.map((row) => ({ data: { messageId: row.id } satisfies DeliveryJobData, singletonKey: `email:${row.id}` })));
    return rows.length;
  });
}

/**
 * One attempt at one message. A refusal that another attempt cannot change (the SMTP server
 * rejects the recipient or the message: a 5xx reply; the SMTP host is not allowed; no SMTP in
 * production) marks it failed at once; any other failure is kept on the message and the job
 * fails, so pg-boss retries it with backoff, and after the last attempt the message is failed.
 */
export async function deliverEmail(orm: MikroORM, config: Config, messageId: number | undefined, run: JobRun): Promise<void> {
  if (!Number.isInteger(messageId)) return;
  // The job serves every tenant's outbox: the named cross-tenant path of row-level security.
  const em = acrossTenants(orm.em);
  try {
    await em.transactional(async (tx) => {
      const [message] = await tx.execute<OutboxRow[]>(
        `SELECT id, tenant_id, recipient, subject, body FROM outbox_message WHERE id = ? AND status = 'queued' FOR UPDATE`, [messageId]);
      if (!message) return; // sent already (a repeated job), or not ours to send
      await send(config, message);
      await tx.execute(
        `UPDATE outbox_message SET status = 'sent', sent_at = now(), attempts = attempts + 1, last_error = null, body = '', updated_at = now() WHERE id = ?`,
        [message.id]);
    });
  } catch (error) {
    const permanent = isPermanent(error);
    const last = run.retryCount >= run.retryLimit || run.retryCount + 1 >= config.SMTP_ATTEMPTS;
    await em.transactional(async (tx) => {
      await tx.execute(
        `UPDATE outbox_message SET attempts = attempts + 1, last_error = ?, status = ?, updated_at = now() WHERE id = ? AND status = 'queued'`,
        [reasonOf(error), permanent || last ? 'failed' : 'queued', messageId]);
    });
    if (!permanent && !last) throw error;
  }
}

async function send(config: Config, message: OutboxRow): Promise<void> {
  const mail = {
    from: config.SMTP_FROM, to: message.recipient, subject: message.subject, text: message.body,
    // The same on every attempt, so a message sent twice is recognisably one message.
    messageId: `<outbox-${message.tenant_id}-${message.id}@${domainOf(config.SMTP_FROM)}>`,
  };
  if (config.SMTP_URL) {
    await (await loadMailTransport())(await smtpOptions(config, config.SMTP_URL)).sendMail(mail);
    return;
  }
  if (config.isProduction) throw new NoMailServer('SMTP_URL is not set: e-mail cannot be sent');
  const { message: eml } = await (await loadMailTransport())({ streamTransport: true, buffer: true, newline: 'unix' }).sendMail(mail);
  const file = path.resolve(config.DATA_DIR, 'outbox', String(message.tenant_id), `${message.id}.eml`);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, eml as Buffer);
  mailLog(config).info({ file, tenantId: message.tenant_id }, 'e-mail written to a file (no SMTP_URL)');
}

/** SMTP to the address the outbound policy allows (resolved here; the certificate still checked against the host name). */
async function smtpOptions(config: Config, smtpUrl: string) {
  const url = new URL(smtpUrl);
  const secure = url.protocol === 'smtps:';
  const address = await allowedAddressOf(url.hostname, { allowPrivate: config.OUTBOUND_ALLOW_PRIVATE, hosts: null });
  return {
    host: address, port: Number(url.port) || (secure ? 465 : 587), secure,
    auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
    tls: { servername: url.hostname },
    connectionTimeout: SEND_TIMEOUT_MS, greetingTimeout: SEND_TIMEOUT_MS, socketTimeout: SEND_TIMEOUT_MS,
  };
}

class NoMailServer extends Error {
  override name = 'NoMailServer';
}

function isPermanent(error: unknown): boolean {
  if (error instanceof OutboundRefused || error instanceof NoMailServer) return true;
  const responseCode = (error as { responseCode?: unknown }).responseCode;
  return typeof responseCode === 'number' && responseCode >= 500;
}

function reasonOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 500);
}

function domainOf(from: string): string {
  return /@([^>\s]+)/.exec(from)?.[1] ?? 'localhost';
}

const loggers = new WeakMap<Config, Logger>();
function mailLog(config: Config): Logger {
  let log = loggers.get(config);
  if (!log) loggers.set(config, (log = createLogger(config)));
  return log;
}
