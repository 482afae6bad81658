import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Contact, Credential, Login, MagicLinkToken, OutboxMessage } from '../src/entities/index.js';
import { hashToken } from '../src/core/runtime/secrets.js';
import { createApiKey, createLogin, createSession, findLogin, findTenant, revokeApiKey } from '../src/services/login/identity.js';
import { createTestTenant, eventuallyStatus, expectExactlyOneSucceeds, graphql, rest, startRaceServer, startTestServer, type TestServer, type TestTenant } from './support/harness.js';

let server: TestServer;
let acme: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  server = await startTestServer({ MAGIC_LINK_PER_HOUR: '3' });
  acme = await createTestTenant(server, 'acme');
  other = await createTestTenant(server, 'other');
});
afterAll(() => server.close());

/** The raw token of the newest link sent to `email`, read back from the outbox message. */
async function lastLink(email: string): Promise<string> {
  const message = await server.orm.em.fork().findOneOrFail(OutboxMessage, { recipient: email }, { filters: false, orderBy: { id: 'desc' } });
  return /(https?:\/\/\S+)/.exec(message.body)![1];
}

async function lastLinkToken(email: string): Promise<string> {
  const message = await server.orm.em.fork().findOneOrFail(OutboxMessage, { recipient: email }, { filters: false, orderBy: { id: 'desc' } });
  return /token=([^\s]+)/.exec(message.body)![1];
}

describe('aboutme', () => {
  it('describes the caller, its tenant and roles over REST and GraphQL', async () => {
    const response = await rest(server, 'GET', '/api/login/aboutme', { token: acme.staffToken });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      FirstName: 'Sam', LastName: 'Staff', Name: 'Sam Staff', TenantId: acme.id, TenantKey: 'acme', TenantName: 'Tenant acme',
      AllRoles: ['staff'], CurrentOrganizationId: null,
    });
    // Every documented AboutMe field is present.
    for (const field of ['FirstName', 'Name', 'ContactId', 'TenantId', 'TenantName', 'TenantDomain', 'TenantKey', 'CurrentOrganizationId',
      'CurrentOrganizationName', 'LastName', 'HasAgreedOnBackOfficeTerms', 'TermsContent', 'TermsOfUseId', 'TenantLogoUrl',
      'TenantLogoShortDescription', 'ContactLogoUrl', 'ContactLogoShortDescription', 'AllRoles', 'DirectoryModuleItems',
      'ContentModuleItems', 'InfoHubTermsOfUseId', 'HasAgreedOnInfoHubTerms', 'InfoHubTermsOfUseContent']) {
      expect(response.body).toHaveProperty(field);
    }
    const gql = await graphql(server, '{ aboutMe { TenantKey AllRoles FirstName } }', {}, acme.memberToken);
    expect(gql.body.data).toEqual({ aboutMe: { TenantKey: 'acme', AllRoles: ['member'], FirstName: 'Mia' } });
  });

  it("reports the contact's current organization", async () => {
    const em = server.orm.em.fork();
    const tenant = await findTenant(em, 'other');
    const login = await findLogin(em, tenant, 'member@other.example');
    const organization = em.create(Contact, { tenant, kind: 'organization', name: 'Harbor Chamber' });
    login.contact!.organization = organization;
    await em.flush();
    const response = await rest(server, 'GET', '/api/login/aboutme', { token: other.memberToken });
    expect(response.body).toMatchObject({ CurrentOrganizationId: organization.id, CurrentOrganizationName: 'Harbor Chamber' });
  });
});

describe('logincheck and clientauthcheck', () => {
  // 401 without a credential on these and every other protected operation: test/sweeps.test.ts.
  it('logincheck answers 200 with an empty body with a credential', async () => {
    const ok = await rest(server, 'GET', '/api/login/logincheck', { token: acme.memberToken });
    expect(ok.status).toBe(200);
    expect(ok.text).toBe('');
    expect((await graphql(server, '{ loginCheck }', {}, acme.memberToken)).body.data).toEqual({ loginCheck: true });
  });

  it('clientauthcheck answers 200 only for a login of the named tenant', async () => {
    const em = server.orm.em.fork();
    const acmeLogin = await findLogin(em, await findTenant(em, 'acme'), 'member@acme.example');
    const otherLogin = await findLogin(em, await findTenant(em, 'other'), 'member@other.example');
    expect((await rest(server, 'GET', `/api/login/clientauthcheck/${acmeLogin.id}/acme`, { token: acme.staffToken })).status).toBe(200);
    expect((await rest(server, 'GET', `/api/login/clientauthcheck/${acmeLogin.id}/ACME`, { token: acme.staffToken })).status).toBe(200);
    expect((await rest(server, 'GET', `/api/login/clientauthcheck/${otherLogin.id}/acme`, { token: acme.staffToken })).status).toBe(401);
    expect((await rest(server, 'GET', `/api/login/clientauthcheck/${acmeLogin.id}/other`, { token: acme.staffToken })).status).toBe(401);
    expect((await rest(server, 'GET', '/api/login/clientauthcheck/x/acme', { token: acme.staffToken })).status).toBe(400);
    const gql = await graphql(server, 'query($id: Int!) { clientAuthCheck(loginId: $id, tenantKey: "acme") }', { id: acmeLogin.id }, acme.staffToken);
    expect(gql.body.data).toEqual({ clientAuthCheck: true });
  });
});

describe('security questions', () => {
  it('are public on both interfaces', async () => {
    const response = await rest(server, 'GET', '/api/login/securityquestions/lookup');
    expect(response.status).toBe(200);
    expect(response.body.length).toBeGreaterThanOrEqual(3);
    expect(response.body[0]).toEqual({ Id: expect.any(Number), Name: expect.stringContaining('?') });
    const gql = await graphql(server, '{ securityQuestions { Id Name } }');
    expect(gql.body.data.securityQuestions).toEqual(response.body);
  });
});

describe('magic-link sign-in', () => {
  it('sends a single-use link to a known address and exchanges it for a session', async () => {
    const response = await rest(server, 'POST', '/api/login/requestmagiclink?type=hub', { body: ['Member@Acme.example'] });
    expect(response.status).toBe(200);
    expect(response.text).toBe('');
    const token = await lastLinkToken('member@acme.example');
    const stored = await server.orm.em.fork().findOneOrFail(MagicLinkToken, { tokenHash: hashToken(token) }, { filters: false });
    expect(stored.usedAt).toBeNull();
    // Only the hash is stored.
    expect(await server.orm.em.fork().count(MagicLinkToken, { tokenHash: token }, { filters: false })).toBe(0);

    const redeemed = await rest(server, 'POST', '/api/login/magiclink/redeem', { body: { Token: token } });
    expect(redeemed.status).toBe(200);
    expect(redeemed.body.Token).toMatch(/^mms_/);
    const aboutMe = await rest(server, 'GET', '/api/login/aboutme', { token: redeemed.body.Token });
    expect(aboutMe.body.TenantKey).toBe('acme');

    const again = await rest(server, 'POST', '/api/login/magiclink/redeem', { body: { Token: token } });
    expect(again.status).toBe(401);
  });

  it('links to a sign-in page that exists and redeems the token through the API', async () => {
    await rest(server, 'POST', '/api/login/requestmagiclink', { body: ['member@acme.example'] });
    const link = await lastLink('member@acme.example');
    const url = new URL(link);
    expect(url.pathname).toBe('/signin');
    const page = await rest(server, 'GET', `${url.pathname}${url.search}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const script = await rest(server, 'GET', '/docs/signin.js');
    expect(script.status).toBe(200);
    expect(script.text).toContain('/api/login/magiclink/redeem');
  });

  it('answers the same for an unknown address and sends nothing', async () => {
    const before = await server.orm.em.fork().count(OutboxMessage, {}, { filters: false });
    const response = await rest(server, 'POST', '/api/login/requestmagiclink', { body: ['nobody@nowhere.example'] });
    expect(response.status).toBe(200);
    expect(response.text).toBe('');
    expect(await server.orm.em.fork().count(OutboxMessage, {}, { filters: false })).toBe(before);
  });

  it('sends staff links only to staff logins', async () => {
    const before = await server.orm.em.fork().count(OutboxMessage, { recipient: 'member@other.example' }, { filters: false });
    await rest(server, 'POST', '/api/login/requestmagiclink?type=staff', { body: ['member@other.example'] });
    expect(await server.orm.em.fork().count(OutboxMessage, { recipient: 'member@other.example' }, { filters: false })).toBe(before);
  });

  it('works through GraphQL too', async () => {
    const requested = await graphql(server, 'mutation { requestMagicLink(emails: ["staff@other.example"], type: "staff") }');
    expect(requested.body.data).toEqual({ requestMagicLink: true });
    const token = await lastLinkToken('staff@other.example');
    const redeemed = await graphql(server, 'mutation($t: String!) { redeemMagicLink(input: { Token: $t }) { Token ExpiresAt } }', { t: token });
    expect(redeemed.body.data.redeemMagicLink.Token).toMatch(/^mms_/);
    expect(Date.parse(redeemed.body.data.redeemMagicLink.ExpiresAt)).toBeGreaterThan(Date.now());
  });

  it('refuses an expired link', async () => {
    await rest(server, 'POST', '/api/login/requestmagiclink', { body: ['staff@acme.example'] });
    const token = await lastLinkToken('staff@acme.example');
    await server.orm.em.fork().nativeUpdate(MagicLinkToken, { tokenHash: hashToken(token) }, { expiresAt: new Date(Date.now() - 1000) }, { filters: false });
    expect((await rest(server, 'POST', '/api/login/magiclink/redeem', { body: { Token: token } })).status).toBe(401);
  });

  it('lets only one of two concurrent redeems of a link win', async () => {
    await rest(server, 'POST', '/api/login/requestmagiclink', { body: ['member@other.example'] });
    const token = await lastLinkToken('member@other.example');
    const results = await Promise.all([1, 2].map(() => rest(server, 'POST', '/api/login/magiclink/redeem', { body: { Token: token } })));
    expect(results.map((result) => result.status).sort()).toEqual([200, 401]);
  });

  it('rate limits per address, known or not (429)', async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      expect((await rest(server, 'POST', '/api/login/requestmagiclink', { body: ['limited@nowhere.example'] })).status).toBe(200);
    }
    const limited = await rest(server, 'POST', '/api/login/requestmagiclink', { body: ['limited@nowhere.example'] });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3600');
    expect((await rest(server, 'POST', '/api/login/requestmagiclink', { body: ['fresh@nowhere.example'] })).status).toBe(200);
  });

  it.each([
    ['an empty array', [], 'body'],
    ['a non-address', ['not-an-email'], '[0]'],
  ])('rejects %s with a 400 naming the field', async (_label, body, field) => {
    const response = await rest(server, 'POST', '/api/login/requestmagiclink', { body });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].field).toBe(field);
  });

  it('answers 413 to 64 concurrent sign-ins of 250 KB bodies, whether their length is declared or not, and still serves ten addresses', async () => {
    const large = JSON.stringify(['storm@nowhere.example', 'x'.repeat(250 * 1024)]);
    const declared = Array.from({ length: 64 }, () => rest(server, 'POST', '/api/login/requestmagiclink', { body: large }));
    // Sent in chunks without a Content-Length: refused once the limit's bytes have arrived.
    const chunked = Array.from({ length: 8 }, () => fetch(`${server.baseUrl}/api/login/magiclink/redeem`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, duplex: 'half',
      body: new ReadableStream({ start(controller) { for (let part = 0; part < 25; part++) controller.enqueue(Buffer.from(`${'y'.repeat(10 * 1024)}`)); controller.close(); } }),
    } as RequestInit).catch((error: unknown) => error));
    for (const response of await Promise.all(declared)) {
      expect(response.status).toBe(413);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(response.body.status).toBe(413);
    }
    // The server answers before the client has sent everything, so a client may see its upload cut off instead; none is read as a body.
    const answered = (await Promise.all(chunked)).filter((response): response is Response => response instanceof Response);
    expect(answered.length).toBeGreaterThan(0);
    for (const response of answered) expect(response.status).toBe(413);
    const tenAddresses = Array.from({ length: 10 }, (_, index) => `${'a'.repeat(200)}${index}@nowhere.example`);
    expect((await rest(server, 'POST', '/api/login/requestmagiclink', { body: tenAddresses })).status).toBe(200);
  });

  it('rejects an unknown type (400 naming type)', async () => {
    const response = await rest(server, 'POST', '/api/login/requestmagiclink?type=admin', { body: ['a@b.example'] });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].field).toBe('type');
  });
});

describe('credentials', () => {
  it('accepts API keys until they are revoked or expire, and stores them hashed', async () => {
    const em = server.orm.em.fork();
    const tenant = await findTenant(em, 'acme');
    const login = await findLogin(em, tenant, 'staff@acme.example');
    const key = await createApiKey(em, login, 'partner sync', null);
    expect(key.token).toMatch(/^mmk_/);
    expect(await em.count(Credential, { tokenHash: key.token }, { filters: false })).toBe(0);
    expect((await rest(server, 'GET', '/api/login/logincheck', { token: key.token })).status).toBe(200);
    const used = await server.orm.em.fork().findOneOrFail(Credential, { id: key.credentialId }, { filters: false });
    expect(used.lastUsedAt?.getTime()).toBeGreaterThan(Date.now() - 60_000);
    await revokeApiKey(em, tenant, key.credentialId);
    await eventuallyStatus(() => rest(server, 'GET', '/api/login/logincheck', { token: key.token }), 401);

    const expiring = await createApiKey(em, login, 'short', new Date(Date.now() - 1000));
    expect((await rest(server, 'GET', '/api/login/logincheck', { token: expiring.token })).status).toBe(401);
  });
});

describe('delete login with the master key', () => {
  it('removes the user and its sessions everywhere', async () => {
    const victim = await createTestTenant(server, 'victim');
    const wrong = await rest(server, 'DELETE', '/api/login/delete?username=member@victim.example&masterkey=wrong');
    expect(wrong.status).toBe(401);
    expect((await rest(server, 'GET', '/api/login/logincheck', { token: victim.memberToken })).status).toBe(200);

    const removed = await rest(server, 'DELETE', `/api/login/delete?username=MEMBER@victim.example&masterkey=${server.config.MASTER_KEY}`);
    expect(removed.status).toBe(200);
    expect(removed.text).toBe('');
    expect((await rest(server, 'GET', '/api/login/logincheck', { token: victim.memberToken })).status).toBe(401);
    expect(await server.orm.em.fork().count(Login, { email: 'member@victim.example' }, { filters: false })).toBe(0);

    const again = await rest(server, 'DELETE', `/api/login/delete?username=member@victim.example&masterkey=${server.config.MASTER_KEY}`);
    expect(again.status).toBe(404);
    expect((await rest(server, 'DELETE', '/api/login/delete?masterkey=x')).status).toBe(400);
  });

  it('works through GraphQL', async () => {
    await createTestTenant(server, 'gqlvictim');
    const response = await graphql(server, 'mutation($u: String!, $k: String!) { deleteLogin(username: $u, masterKey: $k) }', { u: 'staff@gqlvictim.example', k: server.config.MASTER_KEY });
    expect(response.body.data).toEqual({ deleteLogin: true });
  });

  it('is disabled (403) when the server has no master key', async () => {
    const bare = await startTestServer({ MASTER_KEY: '' });
    try {
      const response = await rest(bare, 'DELETE', '/api/login/delete?username=a@b.example&masterkey=anything');
      expect(response.status).toBe(403);
    } finally {
      await bare.close();
    }
  });
});

describe('login deletes against the real database', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startRaceServer();
  });
  afterAll(() => server.close());

  it('lets exactly one of 20 concurrent deletes of a user succeed, removing it from every tenant', async () => {
    const first = await createTestTenant(server, 'race-one');
    const second = await createTestTenant(server, 'race-two');
    const em = server.orm.em.fork();
    const login = await createLogin(em, await findTenant(em, second.key), { email: 'member@race-one.example', role: 'member' });
    const secondToken = (await createSession(em, login, 1)).token;
    const path = `/api/login/delete?username=member@race-one.example&masterkey=${server.config.MASTER_KEY}`;
    await expectExactlyOneSucceeds(Array.from({ length: 20 }, () => () => rest(server, 'DELETE', path)), [404]);
    expect(await server.orm.em.fork().count(Login, { email: 'member@race-one.example' }, { filters: false })).toBe(0);
    for (const token of [first.memberToken, secondToken]) expect((await rest(server, 'GET', '/api/login/logincheck', { token })).status).toBe(401);
  });
});
