import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Contact, Credential, Login, Tenant } from '../src/entities/index.js';
import { Signature } from '../src/entities/signature.js';
import { routeCoverage } from '../src/rest/coverage.js';
import { createSession } from '../src/services/login/identity.js';
import { createTestTenant, expectExactlyOneSucceeds, graphql, rest, startRaceServer, startTestServer, type TestServer, type TestTenant } from './support/harness.js';
import { saveWhileDeleted } from './support/races.js';

let server: TestServer;
let acme: TestTenant;
let other: TestTenant;
/** Contact ids of acme's staff and member logins and of other's staff login. */
let acmeStaffContact: string;
let acmeMemberContact: string;
let otherStaffContact: string;

beforeAll(async () => {
  server = await startTestServer();
  acme = await createTestTenant(server, 'acme');
  other = await createTestTenant(server, 'other');
  acmeStaffContact = String((await rest(server, 'GET', '/api/login/aboutme', { token: acme.staffToken })).body.ContactId);
  acmeMemberContact = String((await rest(server, 'GET', '/api/login/aboutme', { token: acme.memberToken })).body.ContactId);
  otherStaffContact = String((await rest(server, 'GET', '/api/login/aboutme', { token: other.staffToken })).body.ContactId);
});
afterAll(() => server.close());

interface Saved { SignatureId: number; Name: string; User: string | null }

async function createSignature(token: string, body: Record<string, unknown>): Promise<Saved> {
  const response = await rest(server, 'POST', '/api/signatures/0', { token, body });
  expect(response.status).toBe(200);
  return response.body as Saved;
}

const ids = (rows: { SignatureId: number }[]) => rows.map((row) => row.SignatureId);

describe('signatures over REST', () => {
  it('creates, reads, lists, updates and deletes a signature at the documented paths', async () => {
    const created = await rest(server, 'POST', '/api/signatures/0', {
      token: acme.memberToken, body: { SignatureId: 0, Name: 'Work', SignatureHtml: '<p>Mia <b>Member</b></p>' },
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ SignatureId: expect.any(Number), Name: 'Work', User: 'Mia Member' });
    const id = created.body.SignatureId;

    const read = await rest(server, 'GET', `/api/signatures/${id}`, { token: acme.memberToken });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ SignatureId: id, Name: 'Work', ContactId: acmeMemberContact, SignatureHtml: '<p>Mia <b>Member</b></p>' });

    const items = await rest(server, 'GET', '/api/signatures/items', { token: acme.memberToken });
    expect(items.status).toBe(200);
    expect(items.body).toContainEqual({ SignatureId: id, Name: 'Work', User: 'Mia Member' });

    const mine = await rest(server, 'GET', '/api/signatures/currentusersignatures', { token: acme.memberToken });
    expect(mine.status).toBe(200);
    expect(mine.body).toContainEqual(read.body);

    const lookup = await rest(server, 'GET', '/api/signatures/lookup', { token: acme.memberToken });
    expect(lookup.status).toBe(200);
    expect(lookup.body).toContainEqual({ Id: id, Name: 'Work', ExtraData: null, CssColor: null, IsSelected: false, IsDeleted: false, Order: expect.any(Number) });

    const dialog = await rest(server, 'GET', '/api/signatures/managesignaturedialog', { token: acme.memberToken });
    expect(dialog.status).toBe(200);
    expect(Object.keys(dialog.body)).toEqual(['Signatures']);
    expect(dialog.body.Signatures).toContainEqual(read.body);

    // The path id wins over the body's.
    const updated = await rest(server, 'POST', `/api/signatures/${id}`, { token: acme.memberToken, body: { SignatureId: 0, Name: 'Work (new)', SignatureHtml: '<p>New</p>' } });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ SignatureId: id, Name: 'Work (new)', User: 'Mia Member' });
    const reread = await rest(server, 'GET', `/api/signatures/${id}`, { token: acme.memberToken });
    expect(reread.body).toEqual({ SignatureId: id, Name: 'Work (new)', ContactId: acmeMemberContact, SignatureHtml: '<p>New</p>' });

    const deleted = await rest(server, 'DELETE', `/api/signatures/${id}`, { token: acme.memberToken });
    expect(deleted.status).toBe(200);
    expect(deleted.text).toBe('');
    expect((await rest(server, 'GET', `/api/signatures/${id}`, { token: acme.memberToken })).status).toBe(404);
    expect((await rest(server, 'DELETE', `/api/signatures/${id}`, { token: acme.memberToken })).status).toBe(404);
  });

  it('answers 404 when saving to an id that does not exist', async () => {
    const response = await rest(server, 'POST', '/api/signatures/987654', { token: acme.staffToken, body: { Name: 'Ghost' } });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect((await rest(server, 'POST', '/api/signatures/-3', { token: acme.staffToken, body: { Name: 'Ghost' } })).status).toBe(404);
  });

  it('prefers the literal routes over {signatureid} and matches paths case-insensitively', async () => {
    await createSignature(acme.memberToken, { Name: 'Routing' });
    for (const path of ['/api/signatures/items', '/api/signatures/lookup', '/api/signatures/currentusersignatures']) {
      const response = await rest(server, 'GET', path.toUpperCase() + '/', { token: acme.memberToken });
      expect(response.status).toBe(200);
      expect(Array.isArray(response.body)).toBe(true);
    }
    const dialog = await rest(server, 'GET', '/Api/Signatures/ManageSignatureDialog', { token: acme.memberToken });
    expect(dialog.status).toBe(200);
    expect(Array.isArray(dialog.body.Signatures)).toBe(true);
  });

  it('pages, orders and filters the list through options', async () => {
    for (const name of ['Paging A', 'Paging B', 'Paging C']) await createSignature(acme.staffToken, { Name: name });
    const options = encodeURIComponent(JSON.stringify({ Filter: 'paging', OrderBy: 'Name desc', Skip: 1, Take: 1 }));
    const page = await rest(server, 'GET', `/api/signatures/items?options=${options}`, { token: acme.staffToken });
    expect(page.status).toBe(200);
    expect(page.body.map((row: Saved) => row.Name)).toEqual(['Paging B']);
    const top = await rest(server, 'GET', `/api/signatures/items?options=${encodeURIComponent('{"Filter":"PAGING","Top":"2"}')}`, { token: acme.staffToken });
    expect(top.body.map((row: Saved) => row.Name)).toEqual(['Paging A', 'Paging B']);
  });

  it('keeps the owner and tenant out of reach of the body for members', async () => {
    const created = await rest(server, 'POST', '/api/signatures/0', {
      token: acme.memberToken, body: { Name: 'Member Owned', ContactId: acmeStaffContact, TenantId: other.id, User: 'Someone' },
    });
    expect(created.status).toBe(200);
    expect(created.body.User).toBe('Mia Member');
    const stored = await server.orm.em.fork().findOneOrFail(Signature, { id: created.body.SignatureId }, { filters: false });
    expect(stored.tenant.id).toBe(acme.id);
    expect(String(stored.contact.id)).toBe(acmeMemberContact);
  });
});

describe('signature HTML', () => {
  it('removes a <script>, an onclick attribute and a javascript: link, keeping ordinary formatting', async () => {
    const html =
      '<p onclick="steal()">Mia <b>Member</b></p>' +
      '<script>alert(document.cookie)</script>' +
      '<p><a href="javascript:alert(1)">click me</a> <a href="https://acme.example/team">Team</a></p>';
    const saved = await createSignature(acme.memberToken, { Name: 'Sanitized', SignatureHtml: html });
    const read = await rest(server, 'GET', `/api/signatures/${saved.SignatureId}`, { token: acme.memberToken });
    expect(read.body.SignatureHtml).toBe('<p>Mia <b>Member</b></p><p><a>click me</a> <a href="https://acme.example/team">Team</a></p>');
    expect(read.body.SignatureHtml).not.toMatch(/script|onclick|javascript|alert/i);
  });

  it('removes other ways in: event handlers on images, style blocks, iframes, data: links and css url()', async () => {
    const html =
      '<img src="https://acme.example/logo.png" alt="Logo" onerror="steal()">' +
      '<style>body{background:url(https://evil.example)}</style><iframe src="https://evil.example"></iframe>' +
      '<a href="data:text/html;base64,PHNjcmlwdD4=">data</a><a href="JaVaScRiPt:alert(1)">mixed case</a>' +
      '<span style="color: #336699; background-image: url(https://evil.example/x.png)">Blue</span>' +
      '<a href="https://acme.example" target="_blank" rel="opener">New window</a>';
    const saved = await createSignature(acme.memberToken, { Name: 'Hardened', SignatureHtml: html });
    const read = await rest(server, 'GET', `/api/signatures/${saved.SignatureId}`, { token: acme.memberToken });
    expect(read.body.SignatureHtml).toBe(
      '<img src="https://acme.example/logo.png" alt="Logo" />' +
      '<a>data</a><a>mixed case</a>' +
      '<span style="color:#336699">Blue</span>' +
      '<a href="https://acme.example" target="_blank" rel="noopener noreferrer">New window</a>',
    );
  });

  it('stores HTML with nothing left as null', async () => {
    const saved = await createSignature(acme.memberToken, { Name: 'Empty', SignatureHtml: '<script>alert(1)</script>' });
    const read = await rest(server, 'GET', `/api/signatures/${saved.SignatureId}`, { token: acme.memberToken });
    expect(read.body.SignatureHtml).toBeNull();
  });

  it('sanitizes on GraphQL too', async () => {
    const saved = await graphql(server, 'mutation($input: SignatureAddEditInput!) { saveSignature(signatureId: 0, input: $input) { SignatureId } }',
      { input: { Name: 'GraphQL HTML', SignatureHtml: '<i onmouseover="x()">Hi</i><script>x()</script>' } }, acme.memberToken);
    const read = await graphql(server, 'query($id: Int!) { signature(signatureId: $id) { SignatureHtml } }', { id: saved.body.data.saveSignature.SignatureId }, acme.memberToken);
    expect(read.body.data.signature.SignatureHtml).toBe('<i>Hi</i>');
  });
});

describe('signatures over GraphQL', () => {
  it('runs the same operations', async () => {
    const saved = await graphql(server, 'mutation($input: SignatureAddEditInput!) { saveSignature(signatureId: 0, input: $input) { SignatureId Name User } }',
      { input: { Name: 'GraphQL Sig', SignatureHtml: '<p>Hello</p>' } }, acme.memberToken);
    expect(saved.status).toBe(200);
    const id = saved.body.data.saveSignature.SignatureId;
    expect(saved.body.data.saveSignature).toEqual({ SignatureId: id, Name: 'GraphQL Sig', User: 'Mia Member' });

    const read = await graphql(server, `query($id: Int!) {
      signature(signatureId: $id) { SignatureId Name ContactId SignatureHtml }
      signatures(options: { Filter: "graphql sig" }) { SignatureId Name User }
      currentUserSignatures { SignatureId }
      signatureLookup { Id Name IsSelected }
      manageSignatureDialog { Signatures { SignatureId Name ContactId SignatureHtml } }
    }`, { id }, acme.memberToken);
    expect(read.status).toBe(200);
    const expected = { SignatureId: id, Name: 'GraphQL Sig', ContactId: acmeMemberContact, SignatureHtml: '<p>Hello</p>' };
    expect(read.body.data.signature).toEqual(expected);
    expect(read.body.data.signatures).toEqual([{ SignatureId: id, Name: 'GraphQL Sig', User: 'Mia Member' }]);
    expect(read.body.data.currentUserSignatures).toContainEqual({ SignatureId: id });
    expect(read.body.data.signatureLookup).toContainEqual({ Id: id, Name: 'GraphQL Sig', IsSelected: false });
    expect(read.body.data.manageSignatureDialog.Signatures).toContainEqual(expected);

    const updated = await graphql(server, 'mutation($id: Int!) { saveSignature(signatureId: $id, input: { Name: "GraphQL Sig 2" }) { SignatureId Name } }', { id }, acme.memberToken);
    expect(updated.body.data.saveSignature).toEqual({ SignatureId: id, Name: 'GraphQL Sig 2' });

    const deleted = await graphql(server, 'mutation($id: Int!) { deleteSignature(signatureId: $id) }', { id }, acme.memberToken);
    expect(deleted.body.data.deleteSignature).toBe(id);
    const gone = await graphql(server, 'query($id: Int!) { signature(signatureId: $id) { SignatureId } }', { id }, acme.memberToken);
    expect(gone.status).toBe(404);
    expect(gone.body.errors?.[0]?.extensions.code).toBe('NOT_FOUND');
  });
});

describe('signature access', () => {
  // 401 without a credential on every operation, REST and GraphQL: test/sweeps.test.ts.
  it('lets staff list, read, create for, update and delete the signatures of anyone in the tenant', async () => {
    const members = await createSignature(acme.memberToken, { Name: 'Staff Can See' });
    const list = await rest(server, 'GET', `/api/signatures/items?options=${encodeURIComponent('{"Filter":"staff can see"}')}`, { token: acme.staffToken });
    expect(list.body).toEqual([{ SignatureId: members.SignatureId, Name: 'Staff Can See', User: 'Mia Member' }]);
    expect((await rest(server, 'GET', `/api/signatures/${members.SignatureId}`, { token: acme.staffToken })).body.ContactId).toBe(acmeMemberContact);

    // Staff create one for the member, then move it back to themselves.
    const forMember = await createSignature(acme.staffToken, { Name: 'Made By Staff', ContactId: acmeMemberContact, SignatureHtml: '<p>x</p>' });
    expect(forMember.User).toBe('Mia Member');
    const memberSees = await rest(server, 'GET', '/api/signatures/currentusersignatures', { token: acme.memberToken });
    expect(ids(memberSees.body)).toContain(forMember.SignatureId);
    const moved = await rest(server, 'POST', `/api/signatures/${forMember.SignatureId}`, { token: acme.staffToken, body: { Name: 'Made By Staff', ContactId: acmeStaffContact } });
    expect(moved.body.User).toBe('Sam Staff');
    // Without ContactId, an update keeps the owner.
    const kept = await rest(server, 'POST', `/api/signatures/${members.SignatureId}`, { token: acme.staffToken, body: { Name: 'Staff Edited' } });
    expect(kept.body).toEqual({ SignatureId: members.SignatureId, Name: 'Staff Edited', User: 'Mia Member' });
    // Staff's own signatures stay their own: the member's are not among them.
    const staffOwn = await rest(server, 'GET', '/api/signatures/currentusersignatures', { token: acme.staffToken });
    expect(ids(staffOwn.body)).toContain(forMember.SignatureId);
    expect(ids(staffOwn.body)).not.toContain(members.SignatureId);
    const staffLookup = await rest(server, 'GET', '/api/signatures/lookup', { token: acme.staffToken });
    expect(staffLookup.body.map((row: { Id: number }) => row.Id)).not.toContain(members.SignatureId);

    expect((await rest(server, 'DELETE', `/api/signatures/${members.SignatureId}`, { token: acme.staffToken })).status).toBe(200);
    expect((await rest(server, 'GET', `/api/signatures/${members.SignatureId}`, { token: acme.memberToken })).status).toBe(404);
  });

  it("hides another person's signature from a member (404 on read, save and delete; absent from lists)", async () => {
    const staffs = await createSignature(acme.staffToken, { Name: 'Staff Private', SignatureHtml: '<p>Sam</p>' });
    const id = staffs.SignatureId;
    expect((await rest(server, 'GET', `/api/signatures/${id}`, { token: acme.memberToken })).status).toBe(404);
    expect((await rest(server, 'POST', `/api/signatures/${id}`, { token: acme.memberToken, body: { Name: 'Hijacked' } })).status).toBe(404);
    expect((await rest(server, 'DELETE', `/api/signatures/${id}`, { token: acme.memberToken })).status).toBe(404);
    for (const path of ['/api/signatures/items', '/api/signatures/currentusersignatures']) {
      expect(ids((await rest(server, 'GET', path, { token: acme.memberToken })).body)).not.toContain(id);
    }
    expect((await rest(server, 'GET', '/api/signatures/lookup', { token: acme.memberToken })).body.map((row: { Id: number }) => row.Id)).not.toContain(id);
    const gql = await graphql(server, 'query($id: Int!) { signature(signatureId: $id) { Name } }', { id }, acme.memberToken);
    expect(gql.status).toBe(404);
    expect((await rest(server, 'GET', `/api/signatures/${id}`, { token: acme.staffToken })).body.Name).toBe('Staff Private');
  });

  it("keeps another tenant's signatures invisible and untouchable (404)", async () => {
    const signature = await createSignature(acme.staffToken, { Name: 'Acme Only' });
    const id = signature.SignatureId;
    expect((await rest(server, 'GET', `/api/signatures/${id}`, { token: other.staffToken })).status).toBe(404);
    const list = await rest(server, 'GET', '/api/signatures/items', { token: other.staffToken });
    expect(ids(list.body)).not.toContain(id);
    const save = await rest(server, 'POST', `/api/signatures/${id}`, { token: other.staffToken, body: { Name: 'Hijacked', ContactId: otherStaffContact } });
    expect(save.status).toBe(404);
    expect((await rest(server, 'DELETE', `/api/signatures/${id}`, { token: other.staffToken })).status).toBe(404);
    const gql = await graphql(server, 'mutation($id: Int!) { deleteSignature(signatureId: $id) }', { id }, other.staffToken);
    expect(gql.status).toBe(404);
    expect((await rest(server, 'GET', `/api/signatures/${id}`, { token: acme.staffToken })).body.Name).toBe('Acme Only');
  });

  it("refuses another tenant's or an unknown contact as owner (400 naming ContactId)", async () => {
    for (const ContactId of [otherStaffContact, '987654', '9999999999']) {
      const response = await rest(server, 'POST', '/api/signatures/0', { token: acme.staffToken, body: { Name: 'Foreign Owner', ContactId } });
      expect(response.status).toBe(400);
      expect(response.body.errors[0].field).toBe('ContactId');
    }
  });

  it('gives a login without a contact no signatures, and asks for an owner when it creates one', async () => {
    const em = server.orm.em.fork();
    const tenant = await em.findOneOrFail(Tenant, { id: acme.id });
    const login = em.create(Login, { tenant, email: 'robot@acme.example', contact: null, roles: ['member'] });
    await em.persist(login).flush();
    const { token } = await createSession(em, login, 1);
    expect((await rest(server, 'GET', '/api/signatures/currentusersignatures', { token })).body).toEqual([]);
    expect((await rest(server, 'GET', '/api/signatures/items', { token })).body).toEqual([]);
    expect((await rest(server, 'GET', '/api/signatures/lookup', { token })).body).toEqual([]);
    expect((await rest(server, 'GET', '/api/signatures/managesignaturedialog', { token })).body).toEqual({ Signatures: [] });
    const create = await rest(server, 'POST', '/api/signatures/0', { token, body: { Name: 'Nobody' } });
    expect(create.status).toBe(400);
    expect(create.body.errors[0].field).toBe('ContactId');
    const anyone = await createSignature(acme.staffToken, { Name: 'Not Robots' });
    expect((await rest(server, 'GET', `/api/signatures/${anyone.SignatureId}`, { token })).status).toBe(404);
    await em.nativeDelete(Credential, { login }, { filters: false });
    await em.nativeDelete(Login, { id: login.id }, { filters: false });
  });
});

// Broken JSON, a missing body, another media type, ids that are not integers and fields of the
// wrong type: the generated malformed-input sweep (test/sweeps.test.ts). Here: the signature's own rules.
describe('signature input validation', () => {
  const badBodies: [string, unknown, string][] = [
    ['a missing Name', { SignatureHtml: '<p>x</p>' }, 'Name'],
    ['a blank Name', { Name: '   ' }, 'Name'],
    ['an over-long Name', { Name: 'x'.repeat(201) }, 'Name'],
    ['a ContactId that is not an id', { Name: 'Ok', ContactId: 'abc' }, 'ContactId'],
    ['a ContactId given as a number', { Name: 'Ok', ContactId: 5 }, 'ContactId'],
    ['an over-long SignatureHtml', { Name: 'Ok', SignatureHtml: 'x'.repeat(100_001) }, 'SignatureHtml'],
  ];

  it.each(badBodies)('rejects %s with a 400 naming the field', async (_label, body, field) => {
    const response = await rest(server, 'POST', '/api/signatures/0', { token: acme.memberToken, body });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
  });

  it('names the field on GraphQL too', async () => {
    const response = await graphql(server, 'mutation($input: SignatureAddEditInput!) { saveSignature(signatureId: 0, input: $input) { SignatureId } }', { input: { Name: 'x'.repeat(201) } }, acme.memberToken);
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    expect(response.body.errors?.[0]?.extensions.errors?.[0]?.field).toBe('Name');
  });

  it.each([
    ['GET', `/api/signatures/items?options=${encodeURIComponent('{"Take":0}')}`, 'options.Take'],
    ['GET', `/api/signatures/items?options=${encodeURIComponent('{"OrderBy":"SignatureHtml"}')}`, 'options.OrderBy'],
  ] as const)('%s %s is a 400 naming %s', async (method, path, field) => {
    const response = await rest(server, method, path, { token: acme.memberToken });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].field).toBe(field);
  });

});

describe('signature list cost', () => {
  it('runs the same number of SQL statements for 5 rows as for 50', async () => {
    const tenant = await createTestTenant(server, 'bulk');
    const em = server.orm.em.fork();
    const staff = await em.findOneOrFail(Login, { email: 'staff@bulk.example' }, { filters: false });
    const member = await em.findOneOrFail(Login, { email: 'member@bulk.example' }, { filters: false });
    // Ten more owners, so the list's user names come from many contacts.
    const owners = Array.from({ length: 10 }, (_, index) => em.create(Contact, { tenant: tenant.id, kind: 'person', firstName: 'Owner', lastName: String(index) }));
    await em.flush();
    for (let index = 0; index < 50; index++) {
      em.create(Signature, { tenant: tenant.id, contact: owners[index % owners.length], name: `Bulk ${String(index).padStart(2, '0')}`, signatureHtml: '<p>x</p>' });
      em.create(Signature, { tenant: tenant.id, contact: staff.contact!, name: `Staff ${index}`, signatureHtml: null });
      if (index < 5) em.create(Signature, { tenant: tenant.id, contact: member.contact!, name: `Member ${index}`, signatureHtml: null });
    }
    await em.flush();
    // One request each first, so once-in-a-while work (the credential's last-use stamp) is not counted.
    await rest(server, 'GET', '/api/login/logincheck', { token: tenant.staffToken });
    await rest(server, 'GET', '/api/login/logincheck', { token: tenant.memberToken });

    const count = async (path: string, token: string, rows: number) => {
      const before = server.statements();
      const response = await rest(server, 'GET', path, { token });
      expect(response.status).toBe(200);
      expect(Array.isArray(response.body) ? response.body : response.body.Signatures).toHaveLength(rows);
      return server.statements() - before;
    };
    const items = (take: number) => `/api/signatures/items?options=${encodeURIComponent(JSON.stringify({ Filter: 'bulk', Take: take }))}`;
    const five = await count(items(5), tenant.staffToken, 5);
    const fifty = await count(items(50), tenant.staffToken, 50);
    expect(fifty).toBe(five);
    expect(five).toBeLessThanOrEqual(3);

    // The caller's own lists: the member owns 5, the staff login 50.
    for (const path of ['/api/signatures/currentusersignatures', '/api/signatures/lookup', '/api/signatures/managesignaturedialog']) {
      const own5 = await count(path, tenant.memberToken, 5);
      const own50 = await count(path, tenant.staffToken, 50);
      expect(own50).toBe(own5);
      expect(own5).toBeLessThanOrEqual(2);
    }
  });
});

describe('signature routes', () => {
  it('routes all seven documented operations', () => {
    expect(routeCoverage().byArea.get('Signatures')).toEqual({ routed: 7, total: 7 });
  });
});

describe('signature races against the real database', () => {
  let wide: TestServer;
  let tenant: TestTenant;
  beforeAll(async () => {
    wide = await startRaceServer();
    tenant = await createTestTenant(wide, 'signature-race');
  });
  afterAll(() => wide.close());

  const create = async (Name: string) => (await rest(wide, 'POST', '/api/signatures/0', { token: tenant.memberToken, body: { Name, SignatureHtml: '<p>x</p>' } })).body.SignatureId as number;

  it('lets exactly one of 20 concurrent deletes of one signature succeed', async () => {
    const id = await create('Deleted Twenty Times');
    await expectExactlyOneSucceeds(Array.from({ length: 20 }, () => () => rest(wide, 'DELETE', `/api/signatures/${id}`, { token: tenant.memberToken })), [404]);
    expect((await rest(wide, 'GET', `/api/signatures/${id}`, { token: tenant.memberToken })).status).toBe(404);
  });

  it('never acknowledges a save whose signature a delete removed after the save read it (404)', async () => {
    const id = await create('Deleted Under A Save');
    const save = await saveWhileDeleted(wide, 'signature', id, () =>
      rest(wide, 'POST', `/api/signatures/${id}`, { token: tenant.memberToken, body: { Name: 'Saved Too Late' } }));
    expect(save.status).toBe(404);
    expect((await rest(wide, 'GET', `/api/signatures/${id}`, { token: tenant.memberToken })).status).toBe(404);
  });

  it('never brings a deleted signature back, nor answers 200 for a save it did not store, when a save and a delete race', async () => {
    for (let round = 0; round < 10; round++) {
      const id = await create(`Raced ${round}`);
      const [save, remove] = await Promise.all([
        rest(wide, 'POST', `/api/signatures/${id}`, { token: tenant.memberToken, body: { Name: `Saved ${round}` } }),
        rest(wide, 'DELETE', `/api/signatures/${id}`, { token: tenant.memberToken }),
      ]);
      // No version to compare: either order is legitimate (save then delete: both 200), but the
      // delete always wins in the end, and a save that came too late is told so (404).
      expect(remove.status).toBe(200);
      expect([200, 404]).toContain(save.status);
      expect((await rest(wide, 'GET', `/api/signatures/${id}`, { token: tenant.memberToken })).status).toBe(404);
    }
  });
});
