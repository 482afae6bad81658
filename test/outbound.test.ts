import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { isNonPublicAddress, outboundRequest, OutboundRefused, type OutboundPolicy } from '../src/core/external/outbound.js';
import { createTestTenant, graphql, rest, startTestServer, type TestServer, type TestTenant } from './support/harness.js';

// Requests to URLs staff set (the captcha verifier): never to the service's own network unless a
// development setting says so. Here the server runs as in production (OUTBOUND_ALLOW_PRIVATE off),
// with `localhost` and `verify.test` added to the captcha hosts by the operator.
let server: TestServer;
let acme: TestTenant;
/** A real listener standing where a secret must never arrive: it counts connections and bytes. */
let trap: Server;
let trapPort: number;
const trapped = { connections: 0, bytes: 0 };

beforeAll(async () => {
  server = await startTestServer({ CAPTCHA_VERIFY_HOSTS: 'localhost, verify.test' });
  acme = await createTestTenant(server, 'outbound');
  trap = createServer((socket: Socket) => {
    trapped.connections++;
    socket.on('data', (chunk) => { trapped.bytes += chunk.length; });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
  trapPort = (trap.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => trap.close(resolve));
  await server.close();
});

const saveCaptcha = (VerifyUrl: string) => graphql(server, 'mutation($input: EventCaptchaSettingInput!) { saveEventCaptchaSetting(input: $input) { VerifyUrl } }', {
  input: { Provider: 'turnstile', SiteKey: 'site', Secret: 'the-tenant-captcha-secret', VerifyUrl },
}, acme.staffToken);

describe('a captcha VerifyUrl, when saved', () => {
  it.each([
    ['http://challenges.cloudflare.com/turnstile/v0/siteverify', 'must be an https URL'],
    ['https://127.0.0.1/siteverify', 'loopback'],
    ['https://127.1.2.3:8443/siteverify', 'loopback'],
    ['https://2130706433/siteverify', 'http(s) URL'], // 127.0.0.1 written as a number: not even a URL to class-validator
    ['https://[::1]/siteverify', 'loopback'],
    ['https://[::ffff:127.0.0.1]/siteverify', 'loopback'],
    ['https://0.0.0.0/siteverify', 'loopback'],
    ['https://169.254.169.254/latest/meta-data', 'loopback'],
    ['https://10.1.2.3/siteverify', 'loopback'],
    ['https://172.16.0.1/siteverify', 'loopback'],
    ['https://192.168.1.1/siteverify', 'loopback'],
    ['https://100.64.0.1/siteverify', 'loopback'],
    ['https://[fd00::1]/siteverify', 'loopback'],
    ['https://[fe80::1]/siteverify', 'loopback'],
    ['https://attacker.example/siteverify', 'allowed hosts'],
    ['https://user:pass@challenges.cloudflare.com/turnstile/v0/siteverify', 'user name or password'],
  ])('refuses %s with a 400 naming VerifyUrl', async (url, reason) => {
    const response = await saveCaptcha(url);
    expect(response.status).toBe(400);
    expect(response.body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', errors: [{ field: 'VerifyUrl', message: expect.stringContaining(reason) }] });
    const stored = await graphql(server, '{ eventCaptchaSetting { VerifyUrl } }', {}, acme.staffToken);
    expect(stored.body.data?.eventCaptchaSetting?.VerifyUrl ?? null).not.toBe(url);
  });

  it.each(['https://challenges.cloudflare.com/turnstile/v0/siteverify', 'https://api.hcaptcha.com/siteverify', 'https://verify.test/siteverify'])(
    'accepts %s (a known provider, or a host the operator allowed)', async (url) => {
      const response = await saveCaptcha(url);
      expect(response.body.errors).toBeUndefined();
      expect(response.body.data).toEqual({ saveEventCaptchaSetting: { VerifyUrl: url } });
    },
  );
});

describe('a captcha verification, when connecting', () => {
  it('refuses a host name that resolves to a loopback address, sending nothing there (the secret stays home)', async () => {
    // `localhost` passes the save (the operator listed it), and resolves to 127.0.0.1 / ::1 at connect time.
    expect((await saveCaptcha(`https://localhost:${trapPort}/siteverify`)).body.errors).toBeUndefined();
    const event = await graphql(server, 'mutation { saveEvent(eventId: 0, input: { Name: "Captcha night", StartDate: "2099-05-01T18:00:00Z", EndDate: "2099-05-01T22:00:00Z", Status: "open" }) { EventId RequireCaptcha } }', {}, acme.staffToken);
    expect(event.body.data.saveEvent.RequireCaptcha).toBe(true);
    const eventId = event.body.data.saveEvent.EventId as number;
    const type = await graphql(server, `mutation { saveEventRegistrationType(eventRegistrationTypeId: 0, input: { EventId: ${eventId}, Name: "Regular", Price: 10 }) { EventRegistrationTypeId } }`, {}, acme.staffToken);
    const typeId = type.body.data.saveEventRegistrationType.EventRegistrationTypeId as number;
    const before = { ...trapped };

    const response = await rest(server, 'POST', `/api/public/events/register_v2/${eventId}`, {
      headers: { 'x-tenant-key': 'outbound' },
      body: {
        CaptchaResponse: 'a-token', BillingInfo: { FirstName: 'Bill', LastName: 'Payer', EmailAddress: 'payer@example.org' },
        Registrations: [{ EventRegistrationTypeId: typeId, FirstName: 'Ann', LastName: 'Guest', EmailAddress: 'ann@example.org' }],
      },
    });
    // The captcha could not be checked: neither a bot passed nor the visitor blamed; nothing registered.
    expect(response.status).toBe(503);
    expect(response.text).not.toContain('the-tenant-captcha-secret');
    await new Promise((resolve) => setTimeout(resolve, 100)); // a connection that was made would have been counted by now
    expect(trapped).toEqual(before);
  });
});

describe('outboundRequest (core/external/outbound.ts)', () => {
  const production: OutboundPolicy = { allowPrivate: false, hosts: null };

  it('checks every address a name resolves to and connects to none when one is private (DNS rebinding)', async () => {
    const before = { ...trapped };
    for (const addresses of [[{ address: '127.0.0.1', family: 4 }], [{ address: '93.184.215.14', family: 4 }, { address: '127.0.0.1', family: 4 }], [{ address: '::ffff:127.0.0.1', family: 6 }]]) {
      const policy: OutboundPolicy = { ...production, resolve: async () => addresses };
      await expect(outboundRequest(`https://rebind.test:${trapPort}/`, { method: 'POST', body: 'secret=s', timeoutMs: 2000, maxResponseBytes: 1024 }, policy))
        .rejects.toThrow(OutboundRefused);
    }
    await expect(outboundRequest(`http://rebind.test:${trapPort}/`, { method: 'GET', timeoutMs: 2000, maxResponseBytes: 1024 }, production)).rejects.toThrow('must be an https URL');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(trapped).toEqual(before);
  });

  it('reaches a private address only under the development setting, and bounds the response', async () => {
    const target = createHttpServer((request, response) => response.end(request.url === '/big' ? 'x'.repeat(5000) : '{"success":true}'));
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const { port } = target.address() as AddressInfo;
    try {
      const development: OutboundPolicy = { allowPrivate: true, hosts: null };
      const answered = await outboundRequest(`http://localhost:${port}/`, { method: 'GET', timeoutMs: 2000, maxResponseBytes: 1024 }, development);
      expect({ status: answered.status, body: answered.body.toString() }).toEqual({ status: 200, body: '{"success":true}' });
      await expect(outboundRequest(`http://127.0.0.1:${port}/big`, { method: 'GET', timeoutMs: 2000, maxResponseBytes: 1024 }, development)).rejects.toThrow('larger than 1024 bytes');
      await expect(outboundRequest(`https://localhost:${port}/`, { method: 'GET', timeoutMs: 2000, maxResponseBytes: 1024 }, production)).rejects.toThrow(/not a public address/);
    } finally {
      await new Promise((resolve) => target.close(resolve));
    }
  });

  it('knows the non-public ranges, IPv4 and IPv6', () => {
    const nonPublic = ['0.0.0.0', '127.0.0.1', '10.0.0.1', '172.31.255.255', '192.168.0.1', '169.254.169.254', '100.64.0.1', '100.127.255.255', '224.0.0.1', '255.255.255.255',
      '::', '::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'ff02::1', '2002:7f00:1::', 'not-an-address'];
    const routable = ['8.8.8.8', '1.1.1.1', '100.128.0.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'];
    expect(nonPublic.filter((address) => !isNonPublicAddress(address))).toEqual([]);
    expect(routable.filter((address) => isNonPublicAddress(address))).toEqual([]);
  });
});
