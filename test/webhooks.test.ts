/**
 * Issue 36: outbound webhooks (Standard Webhooks). A real receiver (node:http) runs in this
 * process; subscriptions are managed over REST and GraphQL; a change emits its event in its own
 * transaction, and the delivery jobs post it signed — checked here with an implementation of the
 * spec's signature of our own, not the library that signs. Retries, exhaustion, rotation,
 * redelivery, the delivery log, a slow receiver beside a fast one, a process killed mid-delivery
 * and tenant isolation.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/core/config.js';
import { RequestContext, type RequestInfo } from '../src/core/context.js';
import { inTransaction } from '../src/core/data/records.js';
import { Contact } from '../src/entities/contact.js';
import { createInvoice } from '../src/services/commerce/invoices.js';
import { webhookDeliveryJobs } from '../src/services/webhooks/delivery.js';
import { createTestTenant, expectExactlyOneSucceeds, expectStatementsIndependentOfPageSize, graphql, rest, startTestServer, type TestServer, type TestTenant } from './support/harness.js';
import { freePort, killNow, startNode, waitFor } from './support/processes.js';

// ---------- the spec's signature, implemented independently ----------

/** Whether `signature` (`v1,<base64>`) is the HMAC-SHA256 of `id.timestamp.body` under `secret` (`whsec_<base64 key>`). */
function signedWith(secret: string, id: string, timestamp: string, body: string, signature: string): boolean {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  const [version, value = ''] = signature.split(',');
  const given = Buffer.from(value, 'base64');
  return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
}

// ---------- the receiver ----------

interface Received { path: string; headers: IncomingHttpHeaders; body: string; at: number }
type Reply = number | 'hold';

/** One HTTP server; each path is an endpoint whose answers `replies[path]` decides (default 200). Held answers wait in `held`. */
class Receiver {
  readonly received: Received[] = [];
  readonly replies = new Map<string, (attempt: number) => Reply>();
  readonly held: ServerResponse[] = [];
  private readonly attempts = new Map<string, number>();
  private readonly server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => { body += chunk; });
    request.on('end', () => {
      const path = request.url ?? '/';
      const attempt = (this.attempts.get(path) ?? 0) + 1;
      this.attempts.set(path, attempt);
      this.received.push({ path, headers: request.headers, body, at: Date.now() });
      const reply = this.replies.get(path)?.(attempt) ?? 200;
      if (reply === 'hold') this.held.push(response);
      else response.writeHead(reply).end('ok');
    });
  });
  base = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  at(path: string): Received[] {
    return this.received.filter((request) => request.path === path);
  }

  release(): void {
    for (const response of this.held.splice(0)) response.writeHead(200).end('ok');
  }

  close(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

// ---------- the service ----------

const receiver = new Receiver();
let server: TestServer;
let acme: TestTenant;
let other: TestTenant;
const contactIds = new Map<number, number>();

const REQUEST: RequestInfo = { id: 'test', ip: '127.0.0.1', userAgent: null, tenantKey: null, host: null };
function staffContext(tenantId: number): RequestContext {
  return new RequestContext(server.app.deps, server.orm.em.fork(), { tenantId, loginId: 0, contactId: null, roles: ['staff'], credentialId: 0 }, REQUEST);
}

/** A change that emits `invoice.issued` for `tenant` (service level, as the selling areas call it); answers the invoice id. */
async function issueInvoice(tenant: TestTenant, memo: string): Promise<number> {
  const { invoice } = await createInvoice(staffContext(tenant.id), { contactId: contactIds.get(tenant.id)!, source: 'staff', memo, lines: [{ description: memo, quantity: 1, unitPrice: '10.00' }] });
  return invoice.id;
}

const VIEW = 'WebhookId Url EventTypes Active Description DisabledReason DisabledAt PreviousSecretValidUntil Secret CreatedAt AuditId';
const DELIVERY = 'DeliveryId WebhookId MessageId EventType Status Attempts LastResponseCode LatencyMs LastError NextAttemptAt DeliveredAt CreatedAt';

async function subscribe(tenant: TestTenant, path: string, eventTypes: string[] = ['invoice.issued']): Promise<{ WebhookId: number; Secret: string; AuditId: number }> {
  const response = await rest(server, 'POST', '/api/setup/webhooks', { token: tenant.staffToken, body: { WebhookId: 0, Url: `${receiver.base}${path}`, EventTypes: eventTypes, Description: path } });
  expect(response.status).toBe(200);
  return response.body;
}

interface DeliveryLogRow { DeliveryId: number; MessageId: string; Status: string; Attempts: number; LastResponseCode: number | null; LatencyMs: number | null; LastError: string | null }

async function deliveriesOf(tenant: TestTenant, webhookId: number): Promise<DeliveryLogRow[]> {
  const response = await rest(server, 'GET', `/api/setup/webhooks/${webhookId}/deliveries`, { token: tenant.staffToken });
  expect(response.status).toBe(200);
  return response.body;
}

function bodyOf(request: Received): { type: string; timestamp: string; data: Record<string, unknown> } {
  return JSON.parse(request.body);
}

beforeAll(async () => {
  await receiver.start();
  const settings = { NODE_ENV: 'test', LOG_LEVEL: 'silent', OUTBOUND_ALLOW_PRIVATE: 'true' };
  server = await startTestServer(settings, { jobs: webhookDeliveryJobs({ everyMs: 100, retryDelaysSeconds: [1, 1], config: loadConfig(settings) }) });
  acme = await createTestTenant(server, 'hooks-acme');
  other = await createTestTenant(server, 'hooks-other');
  const em = server.orm.em.fork();
  for (const tenant of [acme, other]) {
    const contact = em.create(Contact, { tenant: tenant.id, kind: 'person', firstName: 'Paula', lastName: 'Payer' });
    await em.flush();
    contactIds.set(tenant.id, contact.id);
  }
});
afterAll(async () => {
  await server?.close();
  await receiver.close();
});

describe('webhook subscriptions over REST and GraphQL', () => {
  it('creates over REST with the secret answered once, reads, updates and deletes with AuditId', async () => {
    const created = await rest(server, 'POST', '/api/setup/webhooks', {
      token: acme.staffToken, body: { WebhookId: 0, Url: `${receiver.base}/crud`, EventTypes: ['invoice.paid', 'invoice.paid', 'order.paid'], Description: ' Accounting ' },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ Url: `${receiver.base}/crud`, EventTypes: ['invoice.paid', 'order.paid'], Active: true, Description: 'Accounting', DisabledReason: null });
    expect(created.body.Secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const id = created.body.WebhookId;

    const read = await rest(server, 'GET', `/api/setup/webhooks/${id}`, { token: acme.staffToken });
    expect(read.status).toBe(200);
    expect(read.body.Secret).toBeNull();
    expect(read.text).not.toContain(created.body.Secret);
    const listed = await rest(server, 'GET', '/api/setup/webhooks', { token: acme.staffToken });
    expect(listed.body.map((row: { WebhookId: number }) => row.WebhookId)).toContain(id);
    expect(listed.text).not.toContain('whsec_');

    const updated = await rest(server, 'POST', '/api/setup/webhooks', { token: acme.staffToken, body: { WebhookId: id, Url: `${receiver.base}/crud2`, EventTypes: ['contact.created'], Active: false, AuditId: read.body.AuditId } });
    expect(updated.body).toMatchObject({ Url: `${receiver.base}/crud2`, EventTypes: ['contact.created'], Active: false, Secret: null });
    const stale = await rest(server, 'POST', '/api/setup/webhooks', { token: acme.staffToken, body: { WebhookId: id, Url: `${receiver.base}/crud3`, EventTypes: ['contact.created'], AuditId: read.body.AuditId } });
    expect(stale.status).toBe(409);

    expect((await rest(server, 'DELETE', `/api/setup/webhooks/${id}?auditId=${read.body.AuditId}`, { token: acme.staffToken })).status).toBe(409);
    expect((await rest(server, 'DELETE', `/api/setup/webhooks/${id}?auditId=${updated.body.AuditId}`, { token: acme.staffToken })).status).toBe(200);
    expect((await rest(server, 'GET', `/api/setup/webhooks/${id}`, { token: acme.staffToken })).status).toBe(404);
  });

  it('creates, reads and lists over GraphQL', async () => {
    const saved = await graphql<{ saveWebhookSubscription: { WebhookId: number; Secret: string } }>(server,
      `mutation($input: WebhookSubscriptionInput!) { saveWebhookSubscription(input: $input) { ${VIEW} } }`,
      { input: { Url: `${receiver.base}/graphql-made`, EventTypes: ['membership.renewed'] } }, acme.staffToken);
    expect(saved.body.errors).toBeUndefined();
    const { WebhookId, Secret } = saved.body.data!.saveWebhookSubscription;
    expect(Secret).toMatch(/^whsec_/);
    const read = await graphql<{ webhookSubscription: { Secret: string | null; EventTypes: string[] }; webhookSubscriptions: { WebhookId: number }[] }>(server,
      `query($id: Int!) { webhookSubscription(webhookId: $id) { ${VIEW} } webhookSubscriptions(options: { Take: "1000" }) { WebhookId } }`, { id: WebhookId }, acme.staffToken);
    expect(read.body.data!.webhookSubscription).toMatchObject({ Secret: null, EventTypes: ['membership.renewed'] });
    expect(read.body.data!.webhookSubscriptions.map((row) => row.WebhookId)).toContain(WebhookId);
    const deleted = await graphql(server, `mutation($id: Int!) { deleteWebhookSubscription(webhookId: $id) }`, { id: WebhookId }, acme.staffToken);
    expect(deleted.body.data).toEqual({ deleteWebhookSubscription: WebhookId });
  });

  it.each([
    ['an unknown event type', { Url: 'https://hooks.example.org/x', EventTypes: ['invoice.exploded'] }, 'EventTypes'],
    ['no event type', { Url: 'https://hooks.example.org/x', EventTypes: [] }, 'EventTypes'],
    ['a URL that is not one', { Url: 'not a url', EventTypes: ['invoice.paid'] }, 'Url'],
    ['an ftp URL', { Url: 'ftp://hooks.example.org/x', EventTypes: ['invoice.paid'] }, 'Url'],
    ['a URL with a password', { Url: 'https://user:pw@hooks.example.org/x', EventTypes: ['invoice.paid'] }, 'Url'],
  ])('refuses %s with a 400 naming the field', async (_label, body, field) => {
    const response = await rest(server, 'POST', '/api/setup/webhooks', { token: acme.staffToken, body });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
  });

  it('refuses a loopback URL at save unless OUTBOUND_ALLOW_PRIVATE is set', async () => {
    const strict = await startTestServer();
    try {
      const tenant = await createTestTenant(strict, 'hooks-strict');
      const response = await rest(strict, 'POST', '/api/setup/webhooks', { token: tenant.staffToken, body: { Url: 'https://127.0.0.1:9/hook', EventTypes: ['invoice.paid'] } });
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual([{ field: 'Url', message: expect.stringContaining('loopback') }]);
      const plain = await rest(strict, 'POST', '/api/setup/webhooks', { token: tenant.staffToken, body: { Url: `${receiver.base}/x`, EventTypes: ['invoice.paid'] } });
      expect(plain.status).toBe(400);
    } finally {
      await strict.close();
    }
  });
});

describe('events and their delivery', () => {
  it('posts a change to the receiver, signed per Standard Webhooks, and logs the delivery', async () => {
    const { WebhookId, Secret } = await subscribe(acme, '/signed', ['invoice.issued', 'invoice.paid']);
    const before = Math.floor(Date.now() / 1000);
    // A change over the API: staff raise an invoice and pay it in full.
    const item = await graphql<{ saveSaleableItem: { SaleableItemId: number } }>(server,
      `mutation { saveSaleableItem(saleableItemId: 0, input: { Name: "Dues", ItemType: "membership", Price: 25 }) { SaleableItemId } }`, {}, acme.staffToken);
    const raised = await graphql<{ raiseInvoice: { InvoiceId: number } }>(server,
      `mutation($input: InvoiceInput!) { raiseInvoice(input: $input) { InvoiceId } }`,
      { input: { ContactId: contactIds.get(acme.id), Lines: [{ SaleableItemId: item.body.data!.saveSaleableItem.SaleableItemId, Quantity: 2 }] } }, acme.staffToken);
    const invoiceId = raised.body.data!.raiseInvoice.InvoiceId;
    await graphql(server, `mutation { payInvoice(invoiceId: ${invoiceId}, input: { Amount: 50, Method: "card" }) { InvoiceId } }`, {}, acme.staffToken);

    const both = await waitFor('both events', async () => receiver.at('/signed'), (all) => all.length >= 2, 15_000);
    // Two deliveries of one subscription may be in flight at once: the order of arrival is not promised.
    const [issued, paid] = ['invoice.issued', 'invoice.paid'].map((type) => both.find((request) => bodyOf(request).type === type)!);
    expect(bodyOf(issued)).toMatchObject({ type: 'invoice.issued', data: { InvoiceId: invoiceId, ContactId: contactIds.get(acme.id), Total: '50.00', Source: 'staff' } });
    expect(bodyOf(paid)).toMatchObject({ type: 'invoice.paid', data: { InvoiceId: invoiceId, Total: '50.00' } });
    for (const request of [issued, paid]) {
      const id = request.headers['webhook-id'] as string;
      const timestamp = request.headers['webhook-timestamp'] as string;
      expect(id).toMatch(/^msg_[A-Za-z0-9_-]+$/);
      expect(Number(timestamp)).toBeGreaterThanOrEqual(before);
      expect(Number(timestamp)).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
      expect(request.headers['content-type']).toBe('application/json');
      const signatures = (request.headers['webhook-signature'] as string).split(' ');
      expect(signatures).toHaveLength(1);
      expect(signedWith(Secret, id, timestamp, request.body, signatures[0])).toBe(true);
      // Another body, id or secret does not verify.
      expect(signedWith(Secret, id, timestamp, `${request.body} `, signatures[0])).toBe(false);
      expect(signedWith(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, id, timestamp, request.body, signatures[0])).toBe(false);
      expect(Date.parse(bodyOf(request).timestamp)).toBeGreaterThanOrEqual(before * 1000);
    }
    expect(issued.headers['webhook-id']).not.toBe(paid.headers['webhook-id']);

    const log = await waitFor('the log', () => deliveriesOf(acme, WebhookId), (rows) => rows.every((row) => row.Status === 'delivered'), 5_000);
    expect(log).toHaveLength(2);
    expect(log.map((row) => row.MessageId)).toEqual([paid.headers['webhook-id'], issued.headers['webhook-id']]); // newest first
    expect(log[0]).toMatchObject({ Status: 'delivered', Attempts: 1, LastResponseCode: 200, LastError: null });
    expect(log[0].LatencyMs).toBeGreaterThanOrEqual(0);
    const overGraphql = await graphql<{ webhookDeliveries: { EventType: string; Status: string }[] }>(server,
      `query($id: Int!) { webhookDeliveries(webhookId: $id) { ${DELIVERY} } }`, { id: WebhookId }, acme.staffToken);
    expect(overGraphql.body.data!.webhookDeliveries.map((row) => [row.EventType, row.Status])).toEqual([['invoice.paid', 'delivered'], ['invoice.issued', 'delivered']]);
    await rest(server, 'DELETE', `/api/setup/webhooks/${WebhookId}`, { token: acme.staffToken });
  });

  it('sends nothing for a change that rolled back, and nothing to inactive subscriptions or other event types', async () => {
    const { WebhookId } = await subscribe(acme, '/rollback');
    const paused = await subscribe(acme, '/paused');
    await rest(server, 'POST', '/api/setup/webhooks', { token: acme.staffToken, body: { WebhookId: paused.WebhookId, Url: `${receiver.base}/paused`, EventTypes: ['invoice.issued'], Active: false } });
    const elsewhere = await subscribe(acme, '/other-type', ['contact.created']);
    const ctx = staffContext(acme.id);
    let rolledBack = 0;
    await expect(inTransaction(ctx, async () => {
      const { invoice } = await createInvoice(ctx, { contactId: contactIds.get(acme.id)!, source: 'staff', memo: 'rolled back', lines: [{ description: 'x', quantity: 1, unitPrice: '1.00' }] });
      rolledBack = invoice.id;
      throw new Error('the change fails after emitting');
    })).rejects.toThrow('the change fails after emitting');
    expect(rolledBack).toBeGreaterThan(0);
    // A committed change after it: once that one arrives, the rolled-back one would have too.
    const committed = await issueInvoice(acme, 'committed');
    await waitFor('the committed event', async () => receiver.at('/rollback'), (all) => all.length === 1, 15_000);
    expect(receiver.at('/rollback').map((request) => bodyOf(request).data.InvoiceId)).toEqual([committed]);
    expect(receiver.at('/paused')).toEqual([]);
    expect(receiver.at('/other-type')).toEqual([]);
    const rows = await server.orm.em.fork().getConnection().execute<{ count: string }[]>(`select count(*) from webhook_event where body like ?`, [`%"InvoiceId":${rolledBack},%`]);
    expect(Number(rows[0].count)).toBe(0);
    for (const id of [WebhookId, paused.WebhookId, elsewhere.WebhookId]) await rest(server, 'DELETE', `/api/setup/webhooks/${id}`, { token: acme.staffToken });
  });

  it('retries a failing receiver with the same webhook-id until it answers 2xx', async () => {
    receiver.replies.set('/flaky', (attempt) => (attempt <= 2 ? 500 : 204));
    const { WebhookId, Secret } = await subscribe(acme, '/flaky');
    await issueInvoice(acme, 'flaky');
    const log = await waitFor('the delivery', () => deliveriesOf(acme, WebhookId), (rows) => rows[0]?.Status === 'delivered', 20_000);
    expect(log[0]).toMatchObject({ Attempts: 3, LastResponseCode: 204, LastError: null });
    const attempts = receiver.at('/flaky');
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((request) => request.headers['webhook-id'])).size).toBe(1);
    expect(new Set(attempts.map((request) => request.body)).size).toBe(1);
    for (const request of attempts) {
      expect(signedWith(Secret, request.headers['webhook-id'] as string, request.headers['webhook-timestamp'] as string, request.body, request.headers['webhook-signature'] as string)).toBe(true);
    }
    await rest(server, 'DELETE', `/api/setup/webhooks/${WebhookId}`, { token: acme.staffToken });
  });

  it('fails the delivery after the last retry and disables the subscription with the reason; saving it active resumes', async () => {
    receiver.replies.set('/down', () => 503);
    const { WebhookId } = await subscribe(acme, '/down');
    await issueInvoice(acme, 'down');
    const log = await waitFor('the failure', () => deliveriesOf(acme, WebhookId), (rows) => rows[0]?.Status === 'failed', 20_000);
    expect(log[0]).toMatchObject({ Attempts: 3, LastResponseCode: 503, LastError: 'HTTP 503' });
    expect(receiver.at('/down')).toHaveLength(3);
    const read = await rest(server, 'GET', `/api/setup/webhooks/${WebhookId}`, { token: acme.staffToken });
    expect(read.body).toMatchObject({ Active: false, DisabledReason: expect.stringContaining('failed 3 times (last: HTTP 503)') });
    expect(read.body.DisabledAt).toEqual(expect.any(String));
    // An update that does not say Active leaves it disabled.
    const edited = await rest(server, 'POST', '/api/setup/webhooks', { token: acme.staffToken, body: { WebhookId, Url: `${receiver.base}/down`, EventTypes: ['invoice.issued'], Description: 'edited' } });
    expect(edited.body).toMatchObject({ Active: false, DisabledReason: read.body.DisabledReason });

    // Disabled: a new event is not even written for it; a redelivery is refused until it is active.
    await issueInvoice(acme, 'while disabled');
    expect((await rest(server, 'POST', `/api/setup/webhooks/${WebhookId}/deliveries/${log[0].DeliveryId}/redeliver`, { token: acme.staffToken })).status).toBe(409);
    receiver.replies.set('/down', () => 200);
    const resumed = await rest(server, 'POST', '/api/setup/webhooks', { token: acme.staffToken, body: { WebhookId, Url: `${receiver.base}/down`, EventTypes: ['invoice.issued'], Active: true, AuditId: edited.body.AuditId } });
    expect(resumed.body).toMatchObject({ Active: true, DisabledReason: null, DisabledAt: null });
    const redelivered = await rest(server, 'POST', `/api/setup/webhooks/${WebhookId}/deliveries/${log[0].DeliveryId}/redeliver`, { token: acme.staffToken });
    expect(redelivered.status).toBe(200);
    expect(redelivered.body).toMatchObject({ DeliveryId: log[0].DeliveryId, Status: 'pending', Attempts: 0 });
    await waitFor('the redelivery', () => deliveriesOf(acme, WebhookId), (rows) => rows[0]?.Status === 'delivered', 15_000);
    expect(receiver.at('/down')).toHaveLength(4);
    await rest(server, 'DELETE', `/api/setup/webhooks/${WebhookId}`, { token: acme.staffToken });
  });

  it('disables the subscription at once when the receiver answers 410 Gone', async () => {
    receiver.replies.set('/gone', () => 410);
    const { WebhookId } = await subscribe(acme, '/gone');
    await issueInvoice(acme, 'gone');
    await waitFor('the failure', () => deliveriesOf(acme, WebhookId), (rows) => rows[0]?.Status === 'failed', 15_000);
    expect(receiver.at('/gone')).toHaveLength(1);
    const read = await rest(server, 'GET', `/api/setup/webhooks/${WebhookId}`, { token: acme.staffToken });
    expect(read.body).toMatchObject({ Active: false, DisabledReason: expect.stringContaining('410 Gone') });
    await rest(server, 'DELETE', `/api/setup/webhooks/${WebhookId}`, { token: acme.staffToken });
  });

  it('signs with both secrets during a rotation\'s overlap, then with the new one alone', async () => {
    const { WebhookId, Secret: first } = await subscribe(acme, '/rotate');
    const rotated = await rest(server, 'POST', `/api/setup/webhooks/${WebhookId}/rotatesecret`, { token: acme.staffToken });
    expect(rotated.status).toBe(200);
    const second = rotated.body.Secret as string;
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);
    const hours = (Date.parse(rotated.body.PreviousSecretValidUntil) - Date.now()) / 3600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
    expect((await rest(server, 'GET', `/api/setup/webhooks/${WebhookId}`, { token: acme.staffToken })).body.PreviousSecretValidUntil).toBe(rotated.body.PreviousSecretValidUntil);

    await issueInvoice(acme, 'overlap');
    const [during] = await waitFor('the event', async () => receiver.at('/rotate'), (all) => all.length === 1, 15_000);
    const verify = (request: Received, secret: string) => (request.headers['webhook-signature'] as string).split(' ')
      .some((signature) => signedWith(secret, request.headers['webhook-id'] as string, request.headers['webhook-timestamp'] as string, request.body, signature));
    expect((during.headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
    expect(verify(during, first)).toBe(true);
    expect(verify(during, second)).toBe(true);

    // The overlap ends (moved into the past here): the previous secret is dropped.
    await server.orm.em.fork().getConnection().execute(`update webhook_subscription set previous_secret_until = now() - interval '1 second' where id = ?`, [WebhookId]);
    await issueInvoice(acme, 'after overlap');
    const [, after] = await waitFor('the next event', async () => receiver.at('/rotate'), (all) => all.length === 2, 15_000);
    expect((after.headers['webhook-signature'] as string).split(' ')).toHaveLength(1);
    expect(verify(after, second)).toBe(true);
    expect(verify(after, first)).toBe(false);
    const [stored] = await waitFor('the old secret dropped', () => server.orm.em.fork().getConnection().execute<{ previous_secret: string | null }[]>(
      'select previous_secret from webhook_subscription where id = ?', [WebhookId]), (rows) => rows[0]?.previous_secret === null, 5_000);
    expect(stored.previous_secret).toBeNull();

    const overGraphql = await graphql<{ rotateWebhookSecret: { Secret: string } }>(server, `mutation($id: Int!) { rotateWebhookSecret(webhookId: $id) { WebhookId Secret PreviousSecretValidUntil AuditId } }`, { id: WebhookId }, acme.staffToken);
    expect(overGraphql.body.data!.rotateWebhookSecret.Secret).toMatch(/^whsec_/);
    await rest(server, 'DELETE', `/api/setup/webhooks/${WebhookId}`, { token: acme.staffToken });
  });

  it('redelivers a delivered event with the same webhook-id, over REST and GraphQL', async () => {
    const { WebhookId } = await subscribe(acme, '/again');
    await issueInvoice(acme, 'again');
    const [delivery] = await waitFor('the delivery', () => deliveriesOf(acme, WebhookId), (rows) => rows[0]?.Status === 'delivered', 15_000);
    const again = await rest(server, 'POST', `/api/setup/webhooks/${WebhookId}/deliveries/${delivery.DeliveryId}/redeliver`, { token: acme.staffToken });
    expect(again.status).toBe(200);
    await waitFor('the second copy', async () => receiver.at('/again'), (all) => all.length === 2, 15_000);
    // Recorded before it is sent again: while a delivery is being sent, a redelivery is refused (409).
    await waitFor('the second copy recorded', () => deliveriesOf(acme, WebhookId), (rows) => rows[0]?.Status === 'delivered', 15_000);
    const viaGraphql = await graphql(server, `mutation($w: Int!, $d: Int!) { redeliverWebhookDelivery(webhookId: $w, deliveryId: $d) { ${DELIVERY} } }`, { w: WebhookId, d: delivery.DeliveryId }, acme.staffToken);
    expect(viaGraphql.body.errors).toBeUndefined();
    const copies = await waitFor('the third copy', async () => receiver.at('/again'), (all) => all.length === 3, 15_000);
    expect(new Set(copies.map((request) => request.headers['webhook-id']))).toEqual(new Set([delivery.MessageId]));
    expect((await rest(server, 'POST', `/api/setup/webhooks/${WebhookId}/deliveries/999999/redeliver`, { token: acme.staffToken })).status).toBe(404);
    await rest(server, 'DELETE', `/api/setup/webhooks/${WebhookId}`, { token: acme.staffToken });
  });

  it('a slow receiver delays only its own subscription', async () => {
    receiver.replies.set('/slow', () => 'hold');
    const slow = await subscribe(acme, '/slow');
    const fast = await subscribe(acme, '/fast');
    const emitted = Date.now();
    const events = 6;
    for (let index = 0; index < events; index++) await issueInvoice(acme, `burst ${index}`);
    const fastOnes = await waitFor('the fast receiver\'s events', async () => receiver.at('/fast'), (all) => all.length === events, 8_000);
    // Every fast delivery arrived while the slow receiver still held its first requests unanswered —
    // and it holds no more than the per-subscription in-flight limit.
    expect(receiver.at('/slow').length).toBeGreaterThanOrEqual(1);
    expect(receiver.at('/slow').length).toBeLessThanOrEqual(2);
    expect(receiver.held.length).toBe(receiver.at('/slow').length);
    const slowestFast = Math.max(...fastOnes.map((request) => request.at)) - emitted;
    process.stdout.write(`webhooks: ${events} events to a fast receiver beside a stalled one, the last arrived ${slowestFast} ms after the first emit\n`);
    receiver.replies.set('/slow', () => 200);
    receiver.release();
    await waitFor('the slow receiver catching up', () => deliveriesOf(acme, slow.WebhookId), (rows) => rows.length === events && rows.every((row) => row.Status === 'delivered'), 30_000);
    for (const id of [slow.WebhookId, fast.WebhookId]) await rest(server, 'DELETE', `/api/setup/webhooks/${id}`, { token: acme.staffToken });
  });
});

describe('webhooks: races and list cost', () => {
  it('of concurrent rotations with the same AuditId exactly one succeeds', async () => {
    const { WebhookId, AuditId } = await subscribe(acme, '/race', ['contact.created']);
    const rotate = () => rest(server, 'POST', `/api/setup/webhooks/${WebhookId}/rotatesecret?auditId=${AuditId}`, { token: acme.staffToken });
    await expectExactlyOneSucceeds([rotate, rotate, rotate, rotate], [409]);
    await rest(server, 'DELETE', `/api/setup/webhooks/${WebhookId}`, { token: acme.staffToken });
  });

  it('reads the delivery log in the same number of statements for 5 rows as for 50', async () => {
    const { WebhookId } = await subscribe(acme, '/bulk');
    for (let index = 0; index < 55; index++) await issueInvoice(acme, `bulk ${index}`);
    // Settled first: the delivery jobs' own statements must not count.
    await waitFor('every delivery', () => deliveriesOf(acme, WebhookId), (rows) => rows.length === 55 && rows.every((row) => row.Status === 'delivered'), 30_000);
    await expectStatementsIndependentOfPageSize(server, async (take) => {
      const response = await rest(server, 'GET', `/api/setup/webhooks/${WebhookId}/deliveries?options=${encodeURIComponent(JSON.stringify({ Take: take }))}`, { token: acme.staffToken });
      expect(response.body).toHaveLength(take);
    }, 3);
    await rest(server, 'DELETE', `/api/setup/webhooks/${WebhookId}`, { token: acme.staffToken });
  });
});

describe('webhooks: tenant isolation', () => {
  it('answers 404 for another tenant\'s subscriptions and deliveries, and never sends one tenant\'s events to another', async () => {
    const mine = await subscribe(acme, '/acme-only');
    const theirs = await subscribe(other, '/other-only');
    await issueInvoice(acme, 'acme event');
    const [delivery] = await waitFor('acme\'s delivery', () => deliveriesOf(acme, mine.WebhookId), (rows) => rows[0]?.Status === 'delivered', 15_000);
    for (const [method, path] of [
      ['GET', `/api/setup/webhooks/${mine.WebhookId}`], ['DELETE', `/api/setup/webhooks/${mine.WebhookId}`],
      ['GET', `/api/setup/webhooks/${mine.WebhookId}/deliveries`], ['POST', `/api/setup/webhooks/${mine.WebhookId}/rotatesecret`],
      ['POST', `/api/setup/webhooks/${mine.WebhookId}/deliveries/${delivery.DeliveryId}/redeliver`],
      ['POST', `/api/setup/webhooks/${theirs.WebhookId}/deliveries/${delivery.DeliveryId}/redeliver`],
    ] as const) {
      expect([method, path, (await rest(server, method, path, { token: other.staffToken })).status]).toEqual([method, path, 404]);
    }
    const update = await rest(server, 'POST', '/api/setup/webhooks', { token: other.staffToken, body: { WebhookId: mine.WebhookId, Url: `${receiver.base}/stolen`, EventTypes: ['invoice.issued'] } });
    expect(update.status).toBe(404);
    const listed = await rest(server, 'GET', '/api/setup/webhooks', { token: other.staffToken });
    expect(listed.body.map((row: { WebhookId: number }) => row.WebhookId)).toEqual([theirs.WebhookId]);
    expect((await rest(server, 'GET', '/api/setup/webhooks', { token: acme.memberToken })).status).toBe(403);

    await issueInvoice(other, 'other event');
    await waitFor('other\'s delivery', async () => receiver.at('/other-only'), (all) => all.length === 1, 15_000);
    expect(receiver.at('/other-only').map((request) => bodyOf(request).data.ContactId)).toEqual([contactIds.get(other.id)]);
    expect(receiver.at('/acme-only').map((request) => bodyOf(request).data.ContactId)).toEqual([contactIds.get(acme.id)]);
    await rest(server, 'DELETE', `/api/setup/webhooks/${mine.WebhookId}`, { token: acme.staffToken });
    await rest(server, 'DELETE', `/api/setup/webhooks/${theirs.WebhookId}`, { token: other.staffToken });
  });
});

describe('webhooks: a process killed mid-delivery', () => {
  it('delivers the event after a restart (the same webhook-id; a duplicate is possible by design)', async () => {
    // A database of its own, with no worker of this process on it.
    const database = await startTestServer();
    const env = {
      DATABASE_URL: database.databaseUrl, PORT: String(await freePort()), LOG_LEVEL: 'error', NODE_ENV: 'development', OUTBOUND_ALLOW_PRIVATE: 'true',
    };
    receiver.replies.set('/killed', (attempt) => (attempt === 1 ? 'hold' : 200));
    const base = `http://127.0.0.1:${env.PORT}`;
    const first = await startNode('main.js', env, /Bearer (\S+)/);
    try {
      const token = /Bearer (\S+)/.exec(first.output())![1];
      const call = (path: string, body: unknown) => fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
      const subscribed = await call('/api/setup/webhooks', { Url: `${receiver.base}/killed`, EventTypes: ['invoice.paid'] });
      expect(subscribed.status).toBe(200);
      const open = await (await call('/graphql', { query: '{ invoices(filter: { Status: "open" }) { InvoiceId Balance } }' })).json() as { data: { invoices: { InvoiceId: number; Balance: number }[] } };
      const [invoice] = open.data.invoices;
      expect(invoice).toBeDefined();
      const paid = await call('/graphql', { query: `mutation { payInvoice(invoiceId: ${invoice.InvoiceId}, input: { Amount: ${invoice.Balance}, Method: "card" }) { Status } }` });
      expect(((await paid.json()) as { data: { payInvoice: { Status: string } } }).data.payInvoice.Status).toBe('paid');
      await waitFor('the post to start', async () => receiver.at('/killed').length, (count) => count === 1, 15_000);
    } finally {
      await killNow(first.child);
    }
    receiver.release();
    const second = await startNode('main.js', env, /Bearer (\S+)/);
    try {
      const copies = await waitFor('the event after the restart', async () => receiver.at('/killed'), (all) => all.length >= 2, 100_000, 500);
      expect(bodyOf(copies[1])).toMatchObject({ type: 'invoice.paid' });
      expect(copies[1].headers['webhook-id']).toBe(copies[0].headers['webhook-id']);
      const rows = await waitFor('the delivery recorded', () => database.orm.em.fork().getConnection().execute<{ status: string }[]>(
        `select d.status from webhook_delivery d join webhook_subscription s on s.id = d.subscription_id where s.url = ?`, [`${receiver.base}/killed`]),
      (all) => all[0]?.status === 'delivered', 10_000);
      expect(rows).toEqual([{ status: 'delivered' }]);
    } finally {
      await killNow(second.child);
      await database.close();
    }
  }, 180_000);
});
