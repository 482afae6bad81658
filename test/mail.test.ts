/**
 * Issue 36: e-mail leaves the building. A real SMTP server (smtp-server) runs in this process;
 * the service delivers its outbox there through pg-boss jobs: a sign-in link requested over the
 * API arrives and redeems once; temporary refusals are retried, permanent ones recorded; a
 * private SMTP host is refused unless OUTBOUND_ALLOW_PRIVATE; without SMTP_URL development
 * writes .eml files; and a process killed mid-send neither loses nor doubles the message.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SMTPServer, type SMTPServerDataStream } from 'smtp-server';
import { loadConfig } from '../src/core/config.js';
import { emailDeliveryJobs } from '../src/services/mail/email-delivery.js';
import { DEMO_STAFF_EMAIL } from '../src/services/seed/demo.js';
import { createTestTenant, rest, startTestServer, type TestServer, type TestTenant } from './support/harness.js';
import { freePort, killNow, startNode, waitFor } from './support/processes.js';

interface Received { to: string[]; raw: string }

/** An SMTP server on 127.0.0.1 that keeps what it accepts; `reply` decides each message's fate (undefined: accept). */
class TestMailServer {
  readonly received: Received[] = [];
  reply: (raw: string, attempt: number) => Error | 'hang' | undefined = () => undefined;
  dataStarted = 0;
  attempts = 0;
  private server = new SMTPServer({
    authOptional: true, disabledCommands: ['STARTTLS'], logger: false,
    onData: (stream: SMTPServerDataStream, session, callback) => {
      this.dataStarted++;
      let raw = '';
      stream.on('data', (chunk: Buffer) => { raw += chunk.toString('utf8'); });
      stream.on('end', () => {
        const verdict = this.reply(raw, ++this.attempts);
        if (verdict === 'hang') return; // never answers: the sender is cut off mid-send
        if (verdict) return callback(verdict);
        this.received.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), raw });
        callback();
      });
    },
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `smtp://127.0.0.1:${(this.server.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

/** The sign-in token in a message's quoted-printable body. */
const tokenIn = (raw: string) => /token=([A-Za-z0-9_-]+)/.exec(raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='))?.[1];

async function outbox(server: TestServer): Promise<{ status: string; attempts: number; last_error: string | null; body: string }[]> {
  return server.orm.em.fork().getConnection().execute('select status, attempts, last_error, body from outbox_message order by id');
}

const mail = new TestMailServer();
let smtpUrl: string;
let server: TestServer;
let tenant: TestTenant;

async function startWith(env: Record<string, string>): Promise<void> {
  const settings = { NODE_ENV: 'test', LOG_LEVEL: 'silent', MASTER_KEY: 'test-master-key-0123456789', ...env };
  server = await startTestServer(env, { jobs: emailDeliveryJobs({ everyMs: 100, retryDelaySeconds: 1, config: loadConfig(settings) }) });
  tenant = await createTestTenant(server, 'mail');
}

async function requestLink(): Promise<void> {
  const response = await rest(server, 'POST', '/api/login/requestmagiclink?type=hub', { body: ['member@mail.example'] });
  expect(response.status).toBe(200);
}

beforeAll(async () => {
  smtpUrl = await mail.start();
});
afterEach(async () => {
  await server?.close();
  mail.received.length = 0;
  mail.attempts = 0;
  mail.reply = () => undefined;
});
afterAll(() => mail.close());

describe('e-mail delivery over SMTP', () => {
  it('delivers a sign-in link requested over the API, which redeems once; the stored body is emptied', async () => {
    await startWith({ SMTP_URL: smtpUrl, OUTBOUND_ALLOW_PRIVATE: 'true', SMTP_FROM: 'Members <no-reply@mail.example>' });
    await requestLink();
    await waitFor('the message', async () => mail.received.length, (count) => count === 1, 15_000);
    const [message] = mail.received;
    expect(message.to).toEqual(['member@mail.example']);
    expect(message.raw).toMatch(/^From: Members <no-reply@mail\.example>/m);
    expect(message.raw).toMatch(/^Message-ID: <outbox-\d+-\d+@mail\.example>/m);
    const token = tokenIn(message.raw)!;
    expect((await rest(server, 'POST', '/api/login/magiclink/redeem', { body: { Token: token } })).status).toBe(200);
    expect((await rest(server, 'POST', '/api/login/magiclink/redeem', { body: { Token: token } })).status).toBe(401);
    expect(await outbox(server)).toEqual([{ status: 'sent', attempts: 1, last_error: null, body: '' }]);
    expect(tenant.key).toBe('mail');
  });

  it('retries a temporary refusal and delivers once; records a permanent one as failed without retrying', async () => {
    await startWith({ SMTP_URL: smtpUrl, OUTBOUND_ALLOW_PRIVATE: 'true' });
    mail.reply = (_raw, attempt) => (attempt === 1 ? smtpError(451, 'try again later') : undefined);
    await requestLink();
    await waitFor('the retried message', () => outbox(server), (rows) => rows[0]?.status === 'sent', 20_000);
    expect(mail.received).toHaveLength(1);
    expect((await outbox(server))[0]).toMatchObject({ status: 'sent', attempts: 2 });

    mail.reply = () => smtpError(550, 'no such mailbox');
    await requestLink();
    const rows = await waitFor('the refused message', () => outbox(server), (all) => all[1]?.status === 'failed', 20_000);
    expect(rows[1]).toMatchObject({ status: 'failed', attempts: 1, last_error: expect.stringContaining('no such mailbox') });
    expect(mail.received).toHaveLength(1);
  });

  it('refuses an SMTP host on a private address unless OUTBOUND_ALLOW_PRIVATE says so', async () => {
    await startWith({ SMTP_URL: smtpUrl });
    const before = mail.dataStarted;
    await requestLink();
    const rows = await waitFor('the refusal', () => outbox(server), (all) => all[0]?.status === 'failed', 15_000);
    expect(rows[0].last_error).toContain('not a public address');
    expect(mail.dataStarted).toBe(before);
  });

  it('writes an .eml file under DATA_DIR/outbox in development without SMTP_URL', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'membership-mail-'));
    await startWith({ NODE_ENV: 'development', DATA_DIR: dataDir });
    await requestLink();
    await waitFor('the written message', () => outbox(server), (rows) => rows[0]?.status === 'sent', 15_000);
    const folder = path.join(dataDir, 'outbox', String(tenant.id));
    const [file] = await waitFor('the file', async () => (existsSync(folder) ? (await import('node:fs')).readdirSync(folder) : []), (files) => files.length === 1, 5_000);
    expect(readFileSync(path.join(folder, file), 'utf8')).toMatch(/^To: member@mail\.example/m);
  });
});

describe('e-mail delivery: a process killed mid-send', () => {
  it('neither loses nor doubles the message', async () => {
    server = await startTestServer();
    const env = {
      DATABASE_URL: server.databaseUrl, PORT: String(await freePort()), LOG_LEVEL: 'error', NODE_ENV: 'development',
      SMTP_URL: smtpUrl, OUTBOUND_ALLOW_PRIVATE: 'true', SMTP_SEND_EXPIRE_SECONDS: '10',
    };
    mail.reply = (_raw, attempt) => (attempt === 1 ? 'hang' : undefined);
    const first = await startNode('main.js', env, /Bearer (\S+)/);
    try {
      const base = `http://127.0.0.1:${env.PORT}`;
      const asked = await fetch(`${base}/api/login/requestmagiclink?type=staff`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-tenant-key': 'demo' }, body: JSON.stringify([DEMO_STAFF_EMAIL]),
      });
      expect(asked.status).toBe(200);
      const started = mail.dataStarted;
      await waitFor('the send to start', async () => mail.dataStarted, (count) => count > started, 15_000);
    } finally {
      await killNow(first.child);
    }
    expect(mail.received).toHaveLength(0);
    const second = await startNode('main.js', env, /Bearer (\S+)/);
    try {
      await waitFor('the message after the restart', async () => mail.received.length, (count) => count >= 1, 100_000, 500);
      // Well past another expiry: still exactly one.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect(mail.received).toHaveLength(1);
      expect(mail.received[0].to).toEqual([DEMO_STAFF_EMAIL]);
      expect(await outbox(server)).toEqual([expect.objectContaining({ status: 'sent', body: '' })]);
    } finally {
      await killNow(second.child);
    }
  }, 180_000);
});
