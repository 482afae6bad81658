import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Login } from '../src/entities/login.js';
import { TermsOfUse, TermsOfUseText, termsNameKey, TermsUserResponse } from '../src/entities/terms-of-use.js';
import { createLogin, findTenant } from '../src/services/login/identity.js';
import { seedTermsOfUse } from '../src/services/terms-of-use/terms-of-use.js';
import { createTestTenant, expectExactlyOneSucceeds, graphql, rest, startRaceServer, startTestServer, type TestServer, type TestTenant } from './support/harness.js';

let server: TestServer;
let acme: TestTenant;
let other: TestTenant;

const BASE = '/api/setup/termsofuse';

beforeAll(async () => {
  server = await startTestServer();
  acme = await createTestTenant(server, 'acme');
  other = await createTestTenant(server, 'other');
});
afterAll(() => server.close());

interface Saved { TermsOfUseId: number; Name: string }

async function createTerms(name: string, options: { tenant?: TestTenant; description?: string; loginType?: string } = {}): Promise<Saved> {
  const response = await rest(server, 'POST', `${BASE}/0`, {
    token: (options.tenant ?? acme).staffToken,
    body: { Name: name, Description: options.description ?? `<p>${name} text</p>`, LoginType: options.loginType ?? 'staff', forceSave: true },
  });
  expect(response.status).toBe(200);
  return response.body as Saved;
}

/** A fresh tenant with its own staff and member logins, so AboutMe and the lists start empty. */
async function freshTenant(key: string): Promise<TestTenant> {
  return createTestTenant(server, key);
}

async function take(token: string, termsOfUseId: number, isAccepted: boolean, headers: Record<string, string> = {}) {
  return rest(server, 'POST', `${BASE}/terms/takeaction`, { token, body: { TermsOfUseId: termsOfUseId, IsAccepted: isAccepted }, headers });
}

describe('terms of use over REST', () => {
  it('creates, reads, lists, updates and deletes terms at the documented paths', async () => {
    const created = await rest(server, 'POST', `${BASE}/0`, {
      token: acme.staffToken, body: { TermsOfUseId: 0, Name: 'Privacy Policy', Description: '<p>We keep your data safe.</p>', LoginType: 'hub' },
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ TermsOfUseId: expect.any(Number), Name: 'Privacy Policy' });
    const id = created.body.TermsOfUseId;

    const read = await rest(server, 'GET', `${BASE}/${id}`, { token: acme.staffToken });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      TermsOfUseId: id, Name: 'Privacy Policy', Description: '<p>We keep your data safe.</p>', AuditId: 1, LoginType: 'hub',
      OriginalDescription: null, forceSave: false,
    });

    const list = await rest(server, 'GET', BASE, { token: acme.staffToken });
    expect(list.status).toBe(200);
    expect(list.body).toContainEqual({ TermsOfUseId: id, Name: 'Privacy Policy' });

    // The path id wins over the body id; AuditId guards the update.
    const updated = await rest(server, 'POST', `${BASE}/${id}`, {
      token: acme.staffToken, body: { TermsOfUseId: 999999, Name: 'Privacy Policy 2024', Description: '<p>Updated.</p>', AuditId: 1 },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ TermsOfUseId: id, Name: 'Privacy Policy 2024' });
    const reread = await rest(server, 'GET', `${BASE}/${id}`, { token: acme.staffToken });
    expect(reread.body).toMatchObject({ Name: 'Privacy Policy 2024', Description: '<p>Updated.</p>', AuditId: 2, LoginType: 'hub' });

    const deleted = await rest(server, 'DELETE', `${BASE}/${id}/2`, { token: acme.staffToken });
    expect(deleted.status).toBe(200);
    expect(deleted.text).toBe('');
    expect((await rest(server, 'GET', `${BASE}/${id}`, { token: acme.staffToken })).status).toBe(404);
    expect((await rest(server, 'GET', `${BASE}/view/${id}`, { token: acme.staffToken })).status).toBe(404);
    const after = await rest(server, 'GET', BASE, { token: acme.staffToken });
    expect(after.body.map((row: Saved) => row.TermsOfUseId)).not.toContain(id);
    expect((await rest(server, 'DELETE', `${BASE}/${id}/3`, { token: acme.staffToken })).status).toBe(404);
  });

  it('answers 404 when saving to an unknown id', async () => {
    const response = await rest(server, 'POST', `${BASE}/987654`, { token: acme.staffToken, body: { Name: 'Ghost', Description: 'x' } });
    expect(response.status).toBe(404);
  });

  it('defaults LoginType to staff, keeps it when absent on update, and reads it in any case', async () => {
    const created = await rest(server, 'POST', `${BASE}/0`, { token: acme.staffToken, body: { Name: 'Defaulted', Description: 'x' } });
    const id = created.body.TermsOfUseId;
    expect((await rest(server, 'GET', `${BASE}/${id}`, { token: acme.staffToken })).body.LoginType).toBe('staff');
    await rest(server, 'POST', `${BASE}/${id}`, { token: acme.staffToken, body: { Name: 'Defaulted', Description: 'y', LoginType: 'HUB' } });
    expect((await rest(server, 'GET', `${BASE}/${id}`, { token: acme.staffToken })).body.LoginType).toBe('hub');
    await rest(server, 'POST', `${BASE}/${id}`, { token: acme.staffToken, body: { Name: 'Defaulted', Description: 'z' } });
    expect((await rest(server, 'GET', `${BASE}/${id}`, { token: acme.staffToken })).body.LoginType).toBe('hub');
  });

  it('stores the text as sanitized HTML', async () => {
    const created = await createTerms('Sanitized', { description: '<p onclick="steal()">Hello <b>you</b></p><script>alert(1)</script>' });
    const read = await rest(server, 'GET', `${BASE}/${created.TermsOfUseId}`, { token: acme.staffToken });
    expect(read.body.Description).toBe('<p>Hello <b>you</b></p>');
    const onlyScript = await rest(server, 'POST', `${BASE}/0`, { token: acme.staffToken, body: { Name: 'Empty', Description: '<script>x</script>' } });
    expect(onlyScript.status).toBe(400);
    expect(onlyScript.body.errors[0].field).toBe('Description');
  });

  it('refuses a likely duplicate name with 409 listing the duplicates, unless forceSave', async () => {
    const original = await createTerms('Code  of Conduct');
    const duplicate = await rest(server, 'POST', `${BASE}/0`, { token: acme.staffToken, body: { Name: 'code of CONDUCT', Description: 'x' } });
    expect(duplicate.status).toBe(409);
    expect(duplicate.headers.get('content-type')).toContain('application/problem+json');
    expect(duplicate.body.errors).toEqual([{ field: 'Name', message: expect.stringContaining(`TermsOfUseId ${original.TermsOfUseId}`) }]);
    const notForced = await rest(server, 'POST', `${BASE}/0`, { token: acme.staffToken, body: { Name: 'Code of Conduct', Description: 'x', forceSave: false } });
    expect(notForced.status).toBe(409);
    const forced = await rest(server, 'POST', `${BASE}/0`, { token: acme.staffToken, body: { Name: 'Code of Conduct', Description: 'x', ForceSave: true } });
    expect(forced.status).toBe(200);
    // Editing a record without renaming it is not a new duplicate; renaming onto another name is.
    const edit = await rest(server, 'POST', `${BASE}/${forced.body.TermsOfUseId}`, { token: acme.staffToken, body: { Name: 'Code of Conduct', Description: 'y' } });
    expect(edit.status).toBe(200);
    const another = await createTerms('Something Else');
    const rename = await rest(server, 'POST', `${BASE}/${another.TermsOfUseId}`, { token: acme.staffToken, body: { Name: 'Code of conduct', Description: 'y' } });
    expect(rename.status).toBe(409);
    expect(rename.body.errors).toHaveLength(2);
    // Another tenant's names are no duplicates.
    const elsewhere = await rest(server, 'POST', `${BASE}/0`, { token: other.staffToken, body: { Name: 'Code of Conduct', Description: 'x' } });
    expect(elsewhere.status).toBe(200);
  });

  it('serves the current back-office terms, a blank model when there are none', async () => {
    const tenant = await freshTenant('gdpr');
    const none = await rest(server, 'GET', `${BASE}/gdpr/backoffice`, { token: tenant.staffToken });
    expect(none.status).toBe(200);
    expect(none.body).toEqual({ TermsOfUseId: 0, Name: null, Description: null, AuditId: 0, LoginType: 'staff', OriginalDescription: null, forceSave: false });
    const older = await createTerms('Staff Terms v1', { tenant, description: 'one' });
    const newer = await createTerms('Staff Terms v2', { tenant, description: 'two' });
    await createTerms('Hub Terms', { tenant, loginType: 'hub' });
    const current = await rest(server, 'GET', `${BASE}/gdpr/backoffice`, { token: tenant.staffToken });
    expect(current.body).toMatchObject({ TermsOfUseId: newer.TermsOfUseId, Name: 'Staff Terms v2', Description: 'two', LoginType: 'staff', AuditId: 1 });
    await rest(server, 'DELETE', `${BASE}/${newer.TermsOfUseId}/1`, { token: tenant.staffToken });
    const fallback = await rest(server, 'GET', `${BASE}/gdpr/backoffice`, { token: tenant.staffToken });
    expect(fallback.body.TermsOfUseId).toBe(older.TermsOfUseId);
  });

  it('offers every terms as a lookup choice, marking the current ones', async () => {
    const tenant = await freshTenant('lookup');
    const a = await createTerms('B Staff Old', { tenant });
    const b = await createTerms('A Staff New', { tenant });
    const c = await createTerms('C Hub', { tenant, loginType: 'hub' });
    const lookup = await rest(server, 'GET', `${BASE}/lookup`, { token: tenant.staffToken });
    expect(lookup.status).toBe(200);
    expect(lookup.body).toEqual([
      { Id: b.TermsOfUseId, Name: 'A Staff New', ExtraData: 'staff', CssColor: null, IsSelected: true, IsDeleted: false, Order: 0 },
      { Id: a.TermsOfUseId, Name: 'B Staff Old', ExtraData: 'staff', CssColor: null, IsSelected: false, IsDeleted: false, Order: 1 },
      { Id: c.TermsOfUseId, Name: 'C Hub', ExtraData: 'hub', CssColor: null, IsSelected: true, IsDeleted: false, Order: 2 },
    ]);
  });

  it('shows the text of terms to any signed-in login', async () => {
    const terms = await createTerms('Viewable', { loginType: 'hub', description: '<p>Read me</p>' });
    const view = await rest(server, 'GET', `${BASE}/view/${terms.TermsOfUseId}`, { token: acme.memberToken });
    expect(view.status).toBe(200);
    expect(view.body).toEqual({ TermsOfUseId: terms.TermsOfUseId, TermsDescription: '<p>Read me</p>' });
  });

  it('pages, orders and filters the terms list through options', async () => {
    const tenant = await freshTenant('paging');
    for (const name of ['Paging A', 'Paging B', 'Paging C', 'Other']) await createTerms(name, { tenant });
    const options = encodeURIComponent(JSON.stringify({ Filter: 'paging', OrderBy: 'Name desc', Skip: 1, Take: 1 }));
    const page = await rest(server, 'GET', `${BASE}?options=${options}`, { token: tenant.staffToken });
    expect(page.body.map((row: Saved) => row.Name)).toEqual(['Paging B']);
  });
});

describe('responding to terms (takeaction)', () => {
  it('records the caller, the time and the request IP and browser; never the body’s server-owned fields', async () => {
    const terms = await createTerms('Hub Rules', { loginType: 'hub' });
    const before = Date.now();
    const response = await rest(server, 'POST', `${BASE}/terms/takeaction`, {
      token: acme.memberToken,
      headers: { 'user-agent': 'TermsTester/1.0 (jest)' },
      body: {
        TermsOfUseId: terms.TermsOfUseId, IsAccepted: true, TermUserResponseId: 77, ContactId: 1, LoginId: 1, TenantId: other.id,
        UserLoginTypeId: 'staff', ActionDate: '2001-01-01T00:00:00Z', IpBrowserInfo: '6.6.6.6 forged',
      },
    });
    expect(response.status).toBe(200);
    expect(response.text).toBe('');
    const em = server.orm.em.fork();
    const stored = await em.findOneOrFail(TermsUserResponse, { termsOfUse: terms.TermsOfUseId }, { filters: false, orderBy: { id: 'desc' } });
    const member = await em.findOneOrFail(Login, { email: 'member@acme.example' }, { filters: false });
    expect(stored.tenant.id).toBe(acme.id);
    expect(stored.login.id).toBe(member.id);
    expect(stored.contact?.id).toBe(member.contact?.id);
    expect(stored.userLoginType).toBe('member');
    expect(stored.isAccepted).toBe(true);
    expect(stored.ipAddress).toBe('127.0.0.1');
    expect(stored.userAgent).toBe('TermsTester/1.0 (jest)');
    expect(stored.actionDate.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(stored.id).not.toBe(77);
  });

  it('lets only staff logins answer back-office terms (403), and finds no other tenant’s terms (404)', async () => {
    const staffTerms = await createTerms('Back Office Rules');
    const member = await take(acme.memberToken, staffTerms.TermsOfUseId, true);
    expect(member.status).toBe(403);
    expect((await take(acme.staffToken, staffTerms.TermsOfUseId, true)).status).toBe(200);
    expect((await take(other.staffToken, staffTerms.TermsOfUseId, true)).status).toBe(404);
    expect((await take(acme.staffToken, 99999999, true)).status).toBe(404);
  });

  it.each([
    ['a missing IsAccepted', { TermsOfUseId: 1 }, 'IsAccepted'],
    ['a missing TermsOfUseId', { IsAccepted: true }, 'TermsOfUseId'],
    ['a TermsOfUseId of 0', { TermsOfUseId: 0, IsAccepted: true }, 'TermsOfUseId'],
  ])('rejects %s with a 400 naming the field', async (_label, body, field) => {
    const response = await rest(server, 'POST', `${BASE}/terms/takeaction`, { token: acme.memberToken, body });
    expect(response.status).toBe(400);
    expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
  });
});

describe('AboutMe and the terms', () => {
  it('reports no terms as agreed, then the current terms and the caller’s acceptance', async () => {
    const tenant = await freshTenant('about');
    const empty = await rest(server, 'GET', '/api/login/aboutme', { token: tenant.staffToken });
    expect(empty.body).toMatchObject({
      HasAgreedOnBackOfficeTerms: true, TermsContent: null, TermsOfUseId: null,
      HasAgreedOnInfoHubTerms: true, InfoHubTermsOfUseContent: null, InfoHubTermsOfUseId: null,
    });

    const staffTerms = await createTerms('Staff Agreement', { tenant, description: '<p>Staff v1</p>' });
    const hubTerms = await createTerms('Hub Agreement', { tenant, loginType: 'hub', description: '<p>Hub v1</p>' });
    const staffView = await rest(server, 'GET', '/api/login/aboutme', { token: tenant.staffToken });
    expect(staffView.body).toMatchObject({
      HasAgreedOnBackOfficeTerms: false, TermsContent: '<p>Staff v1</p>', TermsOfUseId: String(staffTerms.TermsOfUseId),
      HasAgreedOnInfoHubTerms: false, InfoHubTermsOfUseContent: '<p>Hub v1</p>', InfoHubTermsOfUseId: String(hubTerms.TermsOfUseId),
    });
    // A member has no back office: nothing to agree to there.
    const memberView = await rest(server, 'GET', '/api/login/aboutme', { token: tenant.memberToken });
    expect(memberView.body).toMatchObject({
      HasAgreedOnBackOfficeTerms: true, TermsContent: null, TermsOfUseId: null,
      HasAgreedOnInfoHubTerms: false, InfoHubTermsOfUseId: String(hubTerms.TermsOfUseId),
    });

    expect((await take(tenant.staffToken, staffTerms.TermsOfUseId, true)).status).toBe(200);
    expect((await take(tenant.memberToken, hubTerms.TermsOfUseId, true)).status).toBe(200);
    expect((await rest(server, 'GET', '/api/login/aboutme', { token: tenant.staffToken })).body)
      .toMatchObject({ HasAgreedOnBackOfficeTerms: true, HasAgreedOnInfoHubTerms: false });
    expect((await rest(server, 'GET', '/api/login/aboutme', { token: tenant.memberToken })).body).toMatchObject({ HasAgreedOnInfoHubTerms: true });

    // Declining later withdraws the agreement.
    await take(tenant.memberToken, hubTerms.TermsOfUseId, false);
    expect((await rest(server, 'GET', '/api/login/aboutme', { token: tenant.memberToken })).body).toMatchObject({ HasAgreedOnInfoHubTerms: false });

    // Newer back-office terms become current and need agreeing to.
    const newer = await createTerms('Staff Agreement 2', { tenant, description: '<p>Staff v2</p>' });
    expect((await rest(server, 'GET', '/api/login/aboutme', { token: tenant.staffToken })).body)
      .toMatchObject({ HasAgreedOnBackOfficeTerms: false, TermsOfUseId: String(newer.TermsOfUseId), TermsContent: '<p>Staff v2</p>' });
  });

  it('keeps the accepted text when accepted terms are edited, and asks again only when the text changed', async () => {
    const tenant = await freshTenant('versions');
    const terms = await createTerms('Versioned Terms', { tenant, description: '<p>Version one</p>' });
    const id = terms.TermsOfUseId;
    await take(tenant.staffToken, id, true);
    const accepted = await rest(server, 'GET', `${BASE}/${id}`, { token: tenant.staffToken });
    expect(accepted.body).toMatchObject({ Description: '<p>Version one</p>', OriginalDescription: '<p>Version one</p>', AuditId: 1 });

    // Renaming keeps the text, so the acceptance still counts.
    await rest(server, 'POST', `${BASE}/${id}`, { token: tenant.staffToken, body: { Name: 'Versioned Terms (renamed)', Description: '<p>Version one</p>', AuditId: 1 } });
    expect((await rest(server, 'GET', '/api/login/aboutme', { token: tenant.staffToken })).body.HasAgreedOnBackOfficeTerms).toBe(true);

    // Changing the text keeps what was accepted and asks again.
    await rest(server, 'POST', `${BASE}/${id}`, { token: tenant.staffToken, body: { Name: 'Versioned Terms', Description: '<p>Version two</p>', AuditId: 2 } });
    const edited = await rest(server, 'GET', `${BASE}/${id}`, { token: tenant.staffToken });
    expect(edited.body).toMatchObject({ Description: '<p>Version two</p>', OriginalDescription: '<p>Version one</p>', AuditId: 3 });
    expect((await rest(server, 'GET', '/api/login/aboutme', { token: tenant.staffToken })).body)
      .toMatchObject({ HasAgreedOnBackOfficeTerms: false, TermsContent: '<p>Version two</p>' });
    expect((await rest(server, 'GET', `${BASE}/view/${id}`, { token: tenant.staffToken })).body.TermsDescription).toBe('<p>Version two</p>');

    await take(tenant.staffToken, id, true);
    expect((await rest(server, 'GET', '/api/login/aboutme', { token: tenant.staffToken })).body.HasAgreedOnBackOfficeTerms).toBe(true);
    expect((await rest(server, 'GET', `${BASE}/${id}`, { token: tenant.staffToken })).body.OriginalDescription).toBe('<p>Version two</p>');

    // Every accepted text is kept, one per revision.
    const texts = await server.orm.em.fork().find(TermsOfUseText, { termsOfUse: id }, { filters: false, orderBy: { revision: 'asc' } });
    expect(texts.map((text) => [text.revision, text.text])).toEqual([[1, '<p>Version one</p>'], [2, '<p>Version two</p>']]);
  });
});

describe('acceptance lists', () => {
  let tenant: TestTenant;
  let staffTerms: Saved;
  let hubTerms: Saved;
  let secondHub: Saved;

  beforeAll(async () => {
    tenant = await freshTenant('accept');
    staffTerms = await createTerms('Accept Staff', { tenant });
    hubTerms = await createTerms('Accept Hub', { tenant, loginType: 'hub' });
    secondHub = await createTerms('Accept Hub 2', { tenant, loginType: 'hub' });
    await take(tenant.staffToken, staffTerms.TermsOfUseId, true);
    await take(tenant.memberToken, hubTerms.TermsOfUseId, false);
    await take(tenant.memberToken, hubTerms.TermsOfUseId, true);
    await take(tenant.staffToken, hubTerms.TermsOfUseId, true);
    await take(tenant.memberToken, secondHub.TermsOfUseId, true);
  });

  it('lists the responses to hub terms as a ListResult with the true total (GET, options)', async () => {
    const options = encodeURIComponent(JSON.stringify({ Take: 2 }));
    const response = await rest(server, 'GET', `${BASE}/usertermsacceptance/hub?options=${options}`, { token: tenant.staffToken });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['Criteria', 'CriteriaItems', 'ModelItems', 'Results', 'TotalRecordAvailable']);
    expect(response.body.TotalRecordAvailable).toBe('4');
    expect(response.body.Results).toHaveLength(2);
    expect(response.body.Criteria).toBeNull();
    // Newest first by default.
    expect(response.body.Results[0]).toEqual({
      TermUserResponseId: expect.any(Number), ContactId: expect.any(Number), LoginId: expect.any(Number), TenantId: tenant.id,
      UserLoginTypeId: 'member', IsAccepted: true, TermsOfUseId: secondHub.TermsOfUseId, ActionDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      IpBrowserInfo: expect.stringMatching(/^127\.0\.0\.1/),
    });
    expect(response.body.Results[1]).toMatchObject({ UserLoginTypeId: 'staff', TermsOfUseId: hubTerms.TermsOfUseId });
    expect(response.body.CriteriaItems.map((item: { Id: number }) => item.Id).sort()).toEqual([hubTerms.TermsOfUseId, secondHub.TermsOfUseId].sort());
    expect(response.body.ModelItems.map((item: { Name: string }) => item.Name).sort()).toEqual(['Mia Member', 'Sam Staff']);
  });

  it('applies LoginTypes and Criteria given in options, and echoes the criteria', async () => {
    const options = encodeURIComponent(JSON.stringify({ LoginTypes: ['member'], Criteria: { TermsOfUseId: hubTerms.TermsOfUseId, IsAccepted: true } }));
    const response = await rest(server, 'GET', `${BASE}/usertermsacceptance/hub?options=${options}`, { token: tenant.staffToken });
    expect(response.body.TotalRecordAvailable).toBe('1');
    expect(response.body.Results).toEqual([expect.objectContaining({ UserLoginTypeId: 'member', IsAccepted: true, TermsOfUseId: hubTerms.TermsOfUseId })]);
    expect(response.body.Criteria).toEqual({ TermsOfUseId: hubTerms.TermsOfUseId, IsAccepted: true, LoginId: null, ContactId: null });
  });

  it('lists the responses to back-office terms from a UserTermsAcceptanceFilter body (POST), ignoring its TenantId', async () => {
    const response = await rest(server, 'POST', `${BASE}/usertermsacceptance/staff`, {
      token: tenant.staffToken, body: { Take: '10', Skip: 0, TenantId: acme.id, LoginTypes: ['STAFF'], OrderBy: 'TermUserResponseId' },
    });
    expect(response.status).toBe(200);
    expect(response.body.TotalRecordAvailable).toBe('1');
    expect(response.body.Results).toEqual([expect.objectContaining({ TermsOfUseId: staffTerms.TermsOfUseId, TenantId: tenant.id, UserLoginTypeId: 'staff' })]);
    expect(response.body.CriteriaItems).toEqual([expect.objectContaining({ Id: staffTerms.TermsOfUseId, Name: 'Accept Staff', IsSelected: true })]);

    const hub = await rest(server, 'POST', `${BASE}/usertermsacceptance/hub`, {
      token: tenant.staffToken, body: { Top: 1, Criteria: { IsAccepted: false }, OrderBy: 'ActionDate' },
    });
    expect(hub.body.TotalRecordAvailable).toBe('1');
    expect(hub.body.Results).toEqual([expect.objectContaining({ IsAccepted: false, UserLoginTypeId: 'member' })]);
    expect(hub.body.Criteria).toEqual({ TermsOfUseId: null, IsAccepted: false, LoginId: null, ContactId: null });

    // An empty body is all of them.
    const all = await rest(server, 'POST', `${BASE}/usertermsacceptance/hub`, { token: tenant.staffToken, body: {} });
    expect(all.body.TotalRecordAvailable).toBe('4');
  });

  it('pages with the total over all pages, and filters by dates and text', async () => {
    const page = await rest(server, 'POST', `${BASE}/usertermsacceptance/hub`, { token: tenant.staffToken, body: { Skip: '3', Take: '2', OrderBy: 'ActionDate asc' } });
    expect(page.body.TotalRecordAvailable).toBe('4');
    expect(page.body.Results).toHaveLength(1);
    const today = new Date().toISOString().slice(0, 10);
    const dated = await rest(server, 'POST', `${BASE}/usertermsacceptance/hub`, { token: tenant.staffToken, body: { CalendarStartDate: today, CalendarEndDate: today } });
    expect(dated.body.TotalRecordAvailable).toBe('4');
    const past = await rest(server, 'POST', `${BASE}/usertermsacceptance/hub`, { token: tenant.staffToken, body: { CalendarEndDate: '2001-01-01' } });
    expect(past.body).toMatchObject({ TotalRecordAvailable: '0', Results: [], ModelItems: [] });
    const byEmail = await rest(server, 'POST', `${BASE}/usertermsacceptance/hub`, { token: tenant.staffToken, body: { Filter: 'STAFF@accept' } });
    expect(byEmail.body.TotalRecordAvailable).toBe('1');
  });

  it('keeps the responses when the terms are deleted', async () => {
    const terms = await createTerms('Soon Deleted', { tenant, loginType: 'hub' });
    await take(tenant.memberToken, terms.TermsOfUseId, true);
    await rest(server, 'DELETE', `${BASE}/${terms.TermsOfUseId}/1`, { token: tenant.staffToken });
    const options = encodeURIComponent(JSON.stringify({ Criteria: { TermsOfUseId: terms.TermsOfUseId } }));
    const list = await rest(server, 'GET', `${BASE}/usertermsacceptance/hub?options=${options}`, { token: tenant.staffToken });
    expect(list.body.TotalRecordAvailable).toBe('1');
  });

  it("never shows another tenant's responses", async () => {
    const response = await rest(server, 'GET', `${BASE}/usertermsacceptance/hub`, { token: other.staffToken });
    expect(response.body.Results.map((row: { TenantId: number }) => row.TenantId).every((id: number) => id === other.id)).toBe(true);
    const filtered = await rest(server, 'POST', `${BASE}/usertermsacceptance/hub`, { token: other.staffToken, body: { TenantId: tenant.id } });
    expect(filtered.body.Results.filter((row: { TenantId: number }) => row.TenantId === tenant.id)).toEqual([]);
  });

  it.each([
    ['POST', 'usertermsacceptance/hub', { Take: 0 }, 'Take'],
    ['POST', 'usertermsacceptance/hub', { Take: 'many' }, 'Take'],
    ['POST', 'usertermsacceptance/hub', { Take: true }, 'Take'],
    ['POST', 'usertermsacceptance/hub', { Take: 1.5 }, 'Take'],
    ['POST', 'usertermsacceptance/staff', { Skip: -1 }, 'Skip'],
    ['POST', 'usertermsacceptance/staff', { OrderBy: 'Password' }, 'OrderBy'],
    ['POST', 'usertermsacceptance/staff', { LoginTypes: ['admin'] }, 'LoginTypes'],
    ['POST', 'usertermsacceptance/staff', { LoginTypes: 'staff' }, 'LoginTypes'],
    ['POST', 'usertermsacceptance/staff', { Criteria: { TermsOfUseId: 'x' } }, 'Criteria.TermsOfUseId'],
    ['POST', 'usertermsacceptance/staff', { Criteria: { TermsOfUseId: -4 } }, 'Criteria.TermsOfUseId'],
    ['POST', 'usertermsacceptance/staff', { Criteria: 'TermsOfUseId=1' }, 'Criteria'],
    ['POST', 'usertermsacceptance/staff', { CalendarStartDate: 'yesterday' }, 'CalendarStartDate'],
    ['POST', 'usertermsacceptance/staff', { Filter: 'x'.repeat(201) }, 'Filter'],
  ])('%s %s with %j is a 400 naming %s', async (method, path, body, field) => {
    const response = await rest(server, method, `${BASE}/${path}`, { token: tenant.staffToken, body });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
  });

  it.each([
    ['{"Take":0}', 'options.Take'],
    ['{"OrderBy":"Name"}', 'options.OrderBy'],
    ['{"LoginTypes":["robot"]}', 'options.LoginTypes'],
    ['{"Criteria":{"IsAccepted":"yes"}}', 'options.Criteria.IsAccepted'],
    ['{"Criteria":5}', 'options.Criteria'],
  ])('GET with options %s is a 400 naming %s', async (options, field) => {
    const response = await rest(server, 'GET', `${BASE}/usertermsacceptance/hub?options=${encodeURIComponent(options)}`, { token: tenant.staffToken });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].field).toBe(field);
  });
});

describe('terms of use over GraphQL', () => {
  it('runs the same operations', async () => {
    const tenant = await freshTenant('graphql');
    const saved = await graphql(server, 'mutation($input: TermsOfUseAddEditInput!) { saveTermsOfUse(termsOfUseId: 0, input: $input) { TermsOfUseId Name } }',
      { input: { Name: 'GraphQL Terms', Description: '<p>GQL</p>', LoginType: 'staff' } }, tenant.staffToken);
    expect(saved.status).toBe(200);
    const id = saved.body.data.saveTermsOfUse.TermsOfUseId;
    const hub = await graphql(server, 'mutation { saveTermsOfUse(termsOfUseId: 0, input: { Name: "GraphQL Hub", Description: "hub", LoginType: "hub" }) { TermsOfUseId } }', {}, tenant.staffToken);
    const hubId = hub.body.data.saveTermsOfUse.TermsOfUseId;

    const read = await graphql(server, `query($id: Int!) {
      termsOfUse(termsOfUseId: $id) { TermsOfUseId Name Description AuditId LoginType OriginalDescription forceSave }
      termsOfUseList { TermsOfUseId Name }
      backOfficeTermsOfUse { TermsOfUseId }
      termsOfUseLookup { Id Name IsSelected }
      termsOfUseView(termsOfUseId: $id) { TermsOfUseId TermsDescription }
    }`, { id }, tenant.staffToken);
    expect(read.status).toBe(200);
    expect(read.body.data.termsOfUse).toEqual({ TermsOfUseId: id, Name: 'GraphQL Terms', Description: '<p>GQL</p>', AuditId: 1, LoginType: 'staff', OriginalDescription: null, forceSave: false });
    expect(read.body.data.termsOfUseList).toContainEqual({ TermsOfUseId: id, Name: 'GraphQL Terms' });
    expect(read.body.data.backOfficeTermsOfUse).toEqual({ TermsOfUseId: id });
    expect(read.body.data.termsOfUseLookup).toContainEqual({ Id: id, Name: 'GraphQL Terms', IsSelected: true });
    expect(read.body.data.termsOfUseView).toEqual({ TermsOfUseId: id, TermsDescription: '<p>GQL</p>' });

    const action = await graphql(server, 'mutation($id: Int!) { takeTermsOfUseAction(input: { TermsOfUseId: $id, IsAccepted: true }) { TermsOfUseId IsAccepted UserLoginTypeId TenantId IpBrowserInfo } }', { id: hubId }, tenant.memberToken);
    expect(action.body.data.takeTermsOfUseAction).toEqual({ TermsOfUseId: hubId, IsAccepted: true, UserLoginTypeId: 'member', TenantId: tenant.id, IpBrowserInfo: expect.stringMatching(/^127\.0\.0\.1/) });
    await graphql(server, 'mutation($id: Int!) { takeTermsOfUseAction(input: { TermsOfUseId: $id, IsAccepted: true }) { TermUserResponseId } }', { id }, tenant.staffToken);

    const lists = await graphql(server, `{
      hubTermsAcceptances(filter: { Take: 5 }) { TotalRecordAvailable Results { TermsOfUseId UserLoginTypeId } ModelItems { Name } CriteriaItems { Id } Criteria { TermsOfUseId } }
      hubTermsAcceptancesFiltered: hubTermsAcceptances(filter: { Take: 5, LoginTypes: ["member"], Criteria: { IsAccepted: true } }) { TotalRecordAvailable Criteria { IsAccepted } }
      staffTermsAcceptances { TotalRecordAvailable Results { TermsOfUseId } }
      staffTermsAcceptancesFiltered: staffTermsAcceptances(filter: { Take: "5", LoginTypes: ["member"] }) { TotalRecordAvailable }
    }`, {}, tenant.staffToken);
    expect(lists.status).toBe(200);
    expect(lists.body.data).toEqual({
      hubTermsAcceptances: { TotalRecordAvailable: '1', Results: [{ TermsOfUseId: hubId, UserLoginTypeId: 'member' }], ModelItems: [{ Name: 'Mia Member' }], CriteriaItems: [{ Id: hubId }], Criteria: null },
      hubTermsAcceptancesFiltered: { TotalRecordAvailable: '1', Criteria: { IsAccepted: true } },
      staffTermsAcceptances: { TotalRecordAvailable: '1', Results: [{ TermsOfUseId: id }] },
      staffTermsAcceptancesFiltered: { TotalRecordAvailable: '0' },
    });

    const deleted = await graphql(server, 'mutation($id: Int!) { deleteTermsOfUse(termsOfUseId: $id, auditId: 1) }', { id }, tenant.staffToken);
    expect(deleted.body.data.deleteTermsOfUse).toBe(id);
    const gone = await graphql(server, 'query($id: Int!) { termsOfUse(termsOfUseId: $id) { TermsOfUseId } }', { id }, tenant.staffToken);
    expect(gone.status).toBe(404);
    expect(gone.body.errors?.[0]?.extensions.code).toBe('NOT_FOUND');
  });
});

describe('terms of use access', () => {
  // 401 without a credential and 403 for a member on every operation, REST and GraphQL: test/sweeps.test.ts.
  it("keeps another tenant's terms invisible and untouchable (404)", async () => {
    const terms = await createTerms('Private To Acme', { loginType: 'hub' });
    const id = terms.TermsOfUseId;
    expect((await rest(server, 'GET', `${BASE}/${id}`, { token: other.staffToken })).status).toBe(404);
    expect((await rest(server, 'GET', `${BASE}/view/${id}`, { token: other.memberToken })).status).toBe(404);
    const list = await rest(server, 'GET', BASE, { token: other.staffToken });
    expect(list.body.map((row: Saved) => row.TermsOfUseId)).not.toContain(id);
    const lookup = await rest(server, 'GET', `${BASE}/lookup`, { token: other.staffToken });
    expect(lookup.body.map((row: { Id: number }) => row.Id)).not.toContain(id);
    const save = await rest(server, 'POST', `${BASE}/${id}`, { token: other.staffToken, body: { Name: 'Hijacked', Description: 'x', forceSave: true } });
    expect(save.status).toBe(404);
    expect((await rest(server, 'DELETE', `${BASE}/${id}/1`, { token: other.staffToken })).status).toBe(404);
    expect((await take(other.memberToken, id, true)).status).toBe(404);
    const gql = await graphql(server, 'query($id: Int!) { termsOfUse(termsOfUseId: $id) { Name } }', { id }, other.staffToken);
    expect(gql.status).toBe(404);
    const stillThere = await rest(server, 'GET', `${BASE}/${id}`, { token: acme.staffToken });
    expect(stillThere.body).toMatchObject({ Name: 'Private To Acme', AuditId: 1 });
  });

  it('ignores a TenantId and OriginalDescription in a save body', async () => {
    const created = await rest(server, 'POST', `${BASE}/0`, {
      token: acme.staffToken, body: { Name: 'Owned Fields', Description: 'x', TenantId: other.id, OriginalDescription: 'forged', Unknown: 1 },
    });
    expect(created.status).toBe(200);
    const stored = await server.orm.em.fork().findOneOrFail(TermsOfUse, { id: created.body.TermsOfUseId }, { filters: false });
    expect(stored.tenant.id).toBe(acme.id);
    expect((await rest(server, 'GET', `${BASE}/${stored.id}`, { token: acme.staffToken })).body.OriginalDescription).toBeNull();
  });
});

// Broken JSON, a missing body, another media type, ids that are not integers and fields of the
// wrong type: the generated malformed-input sweep (test/sweeps.test.ts). Here: the terms' own rules.
describe('terms of use input validation', () => {
  const badBodies: [string, unknown, string][] = [
    ['a missing Name', { Description: 'x' }, 'Name'],
    ['a blank Name', { Name: '  ', Description: 'x' }, 'Name'],
    ['an over-long Name', { Name: 'x'.repeat(201), Description: 'x' }, 'Name'],
    ['a missing Description', { Name: 'Ok' }, 'Description'],
    ['a blank Description', { Name: 'Ok', Description: ' ' }, 'Description'],
    ['an over-long Description', { Name: 'Ok', Description: 'x'.repeat(200_001) }, 'Description'],
    ['an unknown LoginType', { Name: 'Ok', Description: 'x', LoginType: 'admin' }, 'LoginType'],
    ['a negative AuditId', { Name: 'Ok', Description: 'x', AuditId: -1 }, 'AuditId'],
  ];

  it.each(badBodies)('rejects %s with a 400 naming the field', async (_label, body, field) => {
    const response = await rest(server, 'POST', `${BASE}/0`, { token: acme.staffToken, body });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
  });

  it('names the field on GraphQL too', async () => {
    const response = await graphql(server, 'mutation($input: TermsOfUseAddEditInput!) { saveTermsOfUse(termsOfUseId: 0, input: $input) { TermsOfUseId } }',
      { input: { Name: 'x'.repeat(201), Description: 'x' } }, acme.staffToken);
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    expect(response.body.errors?.[0]?.extensions.errors?.[0]?.field).toBe('Name');
  });

  it('refuses ordering by a column that is not offered (400 naming options.OrderBy)', async () => {
    const response = await rest(server, 'GET', `${BASE}?options=${encodeURIComponent('{"OrderBy":"Password"}')}`, { token: acme.staffToken });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].field).toBe('options.OrderBy');
  });
});

describe('terms of use concurrency', () => {
  it('refuses a save with a stale AuditId (409) and changes nothing', async () => {
    const terms = await createTerms('Versioned Save');
    const first = await rest(server, 'POST', `${BASE}/${terms.TermsOfUseId}`, { token: acme.staffToken, body: { Name: 'First Edit', Description: 'a', AuditId: 1 } });
    expect(first.status).toBe(200);
    const stale = await rest(server, 'POST', `${BASE}/${terms.TermsOfUseId}`, { token: acme.staffToken, body: { Name: 'Lost Update', Description: 'b', AuditId: 1 } });
    expect(stale.status).toBe(409);
    expect(stale.body.errors[0].field).toBe('AuditId');
    const current = await rest(server, 'GET', `${BASE}/${terms.TermsOfUseId}`, { token: acme.staffToken });
    expect(current.body).toMatchObject({ Name: 'First Edit', Description: 'a', AuditId: 2 });
  });

  it('refuses a delete with a stale auditid (409) and keeps the terms', async () => {
    const terms = await createTerms('Delete Guarded');
    await rest(server, 'POST', `${BASE}/${terms.TermsOfUseId}`, { token: acme.staffToken, body: { Name: 'Delete Guarded', Description: 'changed' } });
    const stale = await rest(server, 'DELETE', `${BASE}/${terms.TermsOfUseId}/1`, { token: acme.staffToken });
    expect(stale.status).toBe(409);
    expect((await rest(server, 'GET', `${BASE}/${terms.TermsOfUseId}`, { token: acme.staffToken })).status).toBe(200);
    expect((await rest(server, 'DELETE', `${BASE}/${terms.TermsOfUseId}/2`, { token: acme.staffToken })).status).toBe(200);
  });

  it('lets only one of two concurrent saves of the same version win', async () => {
    const terms = await createTerms('Raced Terms');
    const results = await Promise.all(['Racer A', 'Racer B'].map((Name) =>
      rest(server, 'POST', `${BASE}/${terms.TermsOfUseId}`, { token: acme.staffToken, body: { Name, Description: Name, AuditId: 1, forceSave: true } })));
    expect(results.map((result) => result.status).sort()).toEqual([200, 409]);
    expect((await rest(server, 'GET', `${BASE}/${terms.TermsOfUseId}`, { token: acme.staffToken })).body.AuditId).toBe(2);
  });

  it('lets exactly one of 20 concurrent deletes of the same version succeed', async () => {
    const terms = await createTerms('Deleted Twenty Times');
    await expectExactlyOneSucceeds(Array.from({ length: 20 }, () => () => rest(server, 'DELETE', `${BASE}/${terms.TermsOfUseId}/1`, { token: acme.staffToken })));
    expect((await rest(server, 'GET', `${BASE}/${terms.TermsOfUseId}`, { token: acme.staffToken })).status).toBe(404);
  });

  it('never loses a save acknowledged while a delete of the version it replaced races it', async () => {
    for (let round = 0; round < 10; round++) {
      const terms = await createTerms(`Save or delete ${round}`);
      const [save, remove] = await Promise.all([
        rest(server, 'POST', `${BASE}/${terms.TermsOfUseId}`, { token: acme.staffToken, body: { Name: `Saved ${round}`, Description: 'saved', AuditId: 1, forceSave: true } }),
        rest(server, 'DELETE', `${BASE}/${terms.TermsOfUseId}/1`, { token: acme.staffToken }),
      ]);
      expect([save.status, remove.status].filter((status) => status === 200)).toHaveLength(1);
      const after = await rest(server, 'GET', `${BASE}/${terms.TermsOfUseId}`, { token: acme.staffToken });
      if (save.status === 200) expect(after.body).toMatchObject({ Name: `Saved ${round}`, AuditId: 2 });
      else expect(after.status).toBe(404);
    }
  });
});

describe('terms of use likely-duplicate rule under concurrency', () => {
  let wide: TestServer;
  let tenant: TestTenant;
  beforeAll(async () => {
    wide = await startRaceServer();
    tenant = await createTestTenant(wide, 'wide');
  });
  afterAll(() => wide.close());

  it('lets exactly one of 20 concurrent saves of a new name through; the others are 409 naming it as a likely duplicate', async () => {
    for (const name of ['Concurrent Name', 'Another Concurrent Name', 'Third Concurrent Name']) {
      const responses = await Promise.all(Array.from({ length: 20 }, () =>
        rest(wide, 'POST', `${BASE}/0`, { token: tenant.staffToken, body: { Name: name, Description: 'x', LoginType: 'hub' } })));
      const winners = responses.filter((response) => response.status === 200);
      expect(winners).toHaveLength(1);
      const winner = winners[0].body as Saved;
      for (const refused of responses.filter((response) => response.status !== 200)) {
        expect(refused.status).toBe(409);
        expect(refused.body.errors).toEqual([{ field: 'Name', message: `same name as TermsOfUseId ${winner.TermsOfUseId} ("${name}", hub)` }]);
      }
      const listed = await rest(wide, 'GET', `${BASE}?options=${encodeURIComponent(JSON.stringify({ Filter: name, Take: 100 }))}`, { token: tenant.staffToken });
      expect(listed.body.filter((terms: { Name: string }) => terms.Name === name)).toHaveLength(1);
    }
  });
});

describe('terms of use demo records', () => {
  it('gives a tenant current back-office and hub terms, each accepted by a login of its portal', async () => {
    const tenant = await freshTenant('demo-terms');
    const em = server.orm.em.fork();
    await seedTermsOfUse(em, await findTenant(em, 'demo-terms'), 'Mark9');
    const list = await rest(server, 'GET', BASE, { token: tenant.staffToken });
    expect(list.body.map((terms: Saved) => terms.Name).sort()).toEqual(['Mark9Back-office acceptable use', 'Mark9Member hub terms']);
    expect((await rest(server, 'GET', '/api/login/aboutme', { token: tenant.staffToken })).body)
      .toMatchObject({ HasAgreedOnBackOfficeTerms: true, HasAgreedOnInfoHubTerms: false, TermsContent: expect.stringContaining('Mark9') });
    expect((await rest(server, 'GET', '/api/login/aboutme', { token: tenant.memberToken })).body).toMatchObject({ HasAgreedOnInfoHubTerms: true });
    for (const type of ['hub', 'staff']) {
      const accepted = await rest(server, 'GET', `${BASE}/usertermsacceptance/${type}`, { token: tenant.staffToken });
      expect(accepted.body).toMatchObject({ TotalRecordAvailable: '1', Results: [{ IsAccepted: true, IpBrowserInfo: '192.0.2.10 | Mark9Mozilla/5.0 (demo)' }] });
    }
    const hub = list.body.find((terms: Saved) => terms.Name.endsWith('hub terms'));
    expect((await rest(server, 'GET', `${BASE}/${hub.TermsOfUseId}`, { token: tenant.staffToken })).body.OriginalDescription).toContain('Mark9');
  });
});

describe('terms of use list cost', () => {
  let bulk: TestTenant;

  beforeAll(async () => {
    bulk = await createTestTenant(server, 'bulk');
    const em = server.orm.em.fork();
    const tenant = await findTenant(em, 'bulk');
    const hub: TermsOfUse[] = [];
    for (let index = 0; index < 50; index++) {
      const name = `Bulk ${String(index).padStart(2, '0')}`;
      hub.push(em.create(TermsOfUse, { tenant, name, nameKey: termsNameKey(name), description: name, loginType: index % 2 ? 'hub' : 'staff' }));
    }
    await em.flush();
    // 50 responses to hub terms and 50 to staff terms, from 50 different people.
    for (let index = 0; index < 50; index++) {
      const login = await createLogin(em, tenant, { email: `person${index}@bulk.example`, role: index % 2 ? 'member' : 'staff', firstName: `Person${index}` });
      for (const loginType of ['hub', 'staff'] as const) {
        em.create(TermsUserResponse, {
          tenant, termsOfUse: hub.find((terms) => terms.loginType === loginType)!, revision: 1, termsLoginType: loginType, login,
          contact: login.contact, userLoginType: index % 2 ? 'member' : 'staff', isAccepted: true, actionDate: new Date(Date.now() - index * 1000), ipAddress: '10.0.0.1',
        });
      }
    }
    await em.flush();
    // One request first, so once-in-a-while work (the credential's last-use stamp) is not counted.
    await rest(server, 'GET', '/api/login/logincheck', { token: bulk.staffToken });
  });

  const countStatements = async (method: string, path: string, body?: unknown) => {
    const before = server.statements();
    const response = await rest(server, method, path, { token: bulk.staffToken, body });
    expect(response.status).toBe(200);
    return { statements: server.statements() - before, body: response.body };
  };

  it('runs the same number of SQL statements for 5 terms as for 50', async () => {
    const five = await countStatements('GET', `${BASE}?options=${encodeURIComponent('{"Take":5}')}`);
    const fifty = await countStatements('GET', `${BASE}?options=${encodeURIComponent('{"Take":50}')}`);
    expect(five.body).toHaveLength(5);
    expect(fifty.body).toHaveLength(50);
    expect(fifty.statements).toBe(five.statements);
    expect(five.statements).toBeLessThanOrEqual(3);
  });

  it.each(['hub', 'staff'])('runs the same number of SQL statements for 5 and 50 %s acceptances, GET and POST', async (type) => {
    for (const method of ['GET', 'POST']) {
      const request = (take: number) => (method === 'GET'
        ? countStatements('GET', `${BASE}/usertermsacceptance/${type}?options=${encodeURIComponent(JSON.stringify({ Take: take }))}`)
        : countStatements('POST', `${BASE}/usertermsacceptance/${type}`, { Take: String(take) }));
      const five = await request(5);
      const fifty = await request(50);
      expect(five.body.Results).toHaveLength(5);
      expect(fifty.body.Results).toHaveLength(50);
      expect(fifty.body.ModelItems).toHaveLength(50);
      expect(fifty.body.TotalRecordAvailable).toBe('50');
      expect(fifty.statements).toBe(five.statements);
      expect(five.statements).toBeLessThanOrEqual(6);
    }
  });

  it('runs a fixed number of statements for the lookup, whatever the number of terms', async () => {
    const lookup = await countStatements('GET', `${BASE}/lookup`);
    expect(lookup.body).toHaveLength(50);
    expect(lookup.statements).toBeLessThanOrEqual(2);
  });
});
