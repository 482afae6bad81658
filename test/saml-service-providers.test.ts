import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { XMLParser } from 'fast-xml-parser';
import { Tenant } from '../src/entities/index.js';
import { SamlServiceProvider } from '../src/entities/saml-service-provider.js';
import { createTestTenant, expectExactlyOneSucceeds, expectStatementsIndependentOfPageSize, graphql, rest, startRaceServer, startTestServer, type TestServer, type TestTenant } from './support/harness.js';
import { saveWhileDeleted } from './support/races.js';

const BASE = '/api/saml/serviceproviders';
const PUBLIC_BASE_URL = 'https://api.test.example';

let server: TestServer;
let acme: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  server = await startTestServer({ PUBLIC_BASE_URL });
  acme = await createTestTenant(server, 'acme');
  other = await createTestTenant(server, 'other');
});
afterAll(() => server.close());

interface Created { SamlServiceProviderId: number; Name: string; Actions: string[] }

async function createProvider(body: Record<string, unknown>, tenant = acme): Promise<Created> {
  const response = await rest(server, 'POST', BASE, { token: tenant.staffToken, body: { ServiceProviderName: 'Learning Portal', ...body } });
  expect(response.status).toBe(200);
  return response.body as Created;
}

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', processEntities: true });

/** The parts of a metadata document the tests check. */
function readMetadata(xml: string) {
  const parsed = parser.parse(xml);
  const descriptor = parsed['md:EntityDescriptor'];
  const sp = descriptor['md:SPSSODescriptor'];
  return {
    namespace: descriptor['@_xmlns:md'] as string,
    entityId: descriptor['@_entityID'] as string,
    acs: sp['md:AssertionConsumerService'] as Record<string, string>,
    displayName: sp['md:Extensions']['mdui:UIInfo']['mdui:DisplayName']['#text'] as string,
    protocols: sp['@_protocolSupportEnumeration'] as string,
    organization: descriptor['md:Organization'],
  };
}

describe('SAML service providers over REST', () => {
  it('creates, reads, lists, updates and deletes a provider at the documented paths', async () => {
    const created = await rest(server, 'POST', BASE, { token: acme.staffToken, body: { SamlServiceProviderId: 0, Name: 'LMS', ServiceProviderName: 'Learning Portal' } });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ SamlServiceProviderId: expect.any(Number), Name: 'LMS', Actions: ['Edit', 'Delete', 'Download'] });
    const id = created.body.SamlServiceProviderId;

    const read = await rest(server, 'GET', `${BASE}/${id}`, { token: acme.staffToken });
    expect(read.status).toBe(200);
    const derived = `${PUBLIC_BASE_URL}/tenants/acme/saml/serviceproviders/${id}`;
    expect(read.body).toEqual({ SamlServiceProviderId: id, Name: 'LMS', ServiceProviderName: 'Learning Portal', EntityId: derived, AssertionConsumerServiceUrl: `${derived}/acs` });

    const list = await rest(server, 'GET', BASE, { token: acme.staffToken });
    expect(list.status).toBe(200);
    expect(list.body).toContainEqual({ Id: id, Name: 'LMS', ExtraData: 'Learning Portal', CssColor: null, IsSelected: false, IsDeleted: false, Order: expect.any(Number) });

    const updated = await rest(server, 'POST', BASE, { token: acme.staffToken, body: { SamlServiceProviderId: id, Name: 'LMS (new)', ServiceProviderName: 'Learning Portal 2' } });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ SamlServiceProviderId: id, Name: 'LMS (new)', Actions: ['Edit', 'Delete', 'Download'] });
    expect((await rest(server, 'GET', `${BASE}/${id}`, { token: acme.staffToken })).body.ServiceProviderName).toBe('Learning Portal 2');

    const deleted = await rest(server, 'DELETE', `${BASE}/${id}`, { token: acme.staffToken });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ SamlServiceProviderId: id, Name: 'LMS (new)', ServiceProviderName: 'Learning Portal 2', EntityId: derived, AssertionConsumerServiceUrl: `${derived}/acs` });
    expect((await rest(server, 'GET', `${BASE}/${id}`, { token: acme.staffToken })).status).toBe(404);
    expect((await rest(server, 'DELETE', `${BASE}/${id}`, { token: acme.staffToken })).status).toBe(404);
  });

  it('answers 404 for a save naming an unknown SamlServiceProviderId and creates nothing', async () => {
    const before = (await rest(server, 'GET', BASE, { token: acme.staffToken })).body.length;
    const response = await rest(server, 'POST', BASE, { token: acme.staffToken, body: { SamlServiceProviderId: 987654, Name: 'Ghost', ServiceProviderName: 'Ghost' } });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect((await rest(server, 'GET', BASE, { token: acme.staffToken })).body.length).toBe(before);
  });

  it('keeps explicit EntityId and ACS URL, keeps them when a save omits them, and derives them again for ""', async () => {
    const { SamlServiceProviderId: id } = await createProvider({ Name: 'Explicit', EntityId: 'urn:example:sp:explicit', AssertionConsumerServiceUrl: 'https://sp.example/saml/acs' });
    const read = await rest(server, 'GET', `${BASE}/${id}`, { token: acme.staffToken });
    expect(read.body).toMatchObject({ EntityId: 'urn:example:sp:explicit', AssertionConsumerServiceUrl: 'https://sp.example/saml/acs' });

    await rest(server, 'POST', BASE, { token: acme.staffToken, body: { SamlServiceProviderId: id, Name: 'Explicit 2', ServiceProviderName: 'Portal' } });
    expect((await rest(server, 'GET', `${BASE}/${id}`, { token: acme.staffToken })).body).toMatchObject({ Name: 'Explicit 2', EntityId: 'urn:example:sp:explicit', AssertionConsumerServiceUrl: 'https://sp.example/saml/acs' });

    await rest(server, 'POST', BASE, { token: acme.staffToken, body: { SamlServiceProviderId: id, Name: 'Explicit 2', ServiceProviderName: 'Portal', EntityId: '', AssertionConsumerServiceUrl: null } });
    expect((await rest(server, 'GET', `${BASE}/${id}`, { token: acme.staffToken })).body).toMatchObject({
      EntityId: `${PUBLIC_BASE_URL}/tenants/acme/saml/serviceproviders/${id}`,
      AssertionConsumerServiceUrl: 'https://sp.example/saml/acs',
    });
  });

  it("derives the default addresses from the tenant's domain when it has one", async () => {
    const tenant = await createTestTenant(server, 'domained');
    const em = server.orm.em.fork();
    await em.nativeUpdate(Tenant, { id: tenant.id }, { domain: 'members.domained.example' });
    const { SamlServiceProviderId: id } = await createProvider({ Name: 'Portal' }, tenant);
    const read = await rest(server, 'GET', `${BASE}/${id}`, { token: tenant.staffToken });
    expect(read.body.EntityId).toBe(`https://members.domained.example/saml/serviceproviders/${id}`);
    expect(read.body.AssertionConsumerServiceUrl).toBe(`https://members.domained.example/saml/serviceproviders/${id}/acs`);
  });

  it('refuses an EntityId another provider of the tenant has (409 naming EntityId); other tenants may reuse it', async () => {
    const first = await createProvider({ Name: 'Unique A', EntityId: 'https://unique.example/sp' });
    const clash = await rest(server, 'POST', BASE, { token: acme.staffToken, body: { Name: 'Unique B', ServiceProviderName: 'B', EntityId: 'https://unique.example/sp' } });
    expect(clash.status).toBe(409);
    expect(clash.body.errors[0].field).toBe('EntityId');
    const again = await rest(server, 'POST', BASE, { token: acme.staffToken, body: { SamlServiceProviderId: first.SamlServiceProviderId, Name: 'Unique A', ServiceProviderName: 'A', EntityId: 'https://unique.example/sp' } });
    expect(again.status).toBe(200);
    await createProvider({ Name: 'Unique A', EntityId: 'https://unique.example/sp' }, other);
    // An update to the taken EntityId, under an Idempotency-Key too (the refused UPDATE runs inside the key's transaction): 409, replayed.
    const second = await createProvider({ Name: 'Unique C' });
    const keyedClash = () => rest(server, 'POST', BASE, {
      token: acme.staffToken, headers: { 'idempotency-key': 'saml-clash' },
      body: { SamlServiceProviderId: second.SamlServiceProviderId, Name: 'Unique C', ServiceProviderName: 'C', EntityId: 'https://unique.example/sp' },
    });
    const [refused, replayed] = [await keyedClash(), await keyedClash()];
    expect([refused.status, refused.body.errors?.[0]?.field]).toEqual([409, 'EntityId']);
    expect([replayed.status, replayed.headers.get('idempotent-replayed')]).toEqual([409, 'true']);
  });

  it('pages, orders and filters the list through options', async () => {
    const tenant = await createTestTenant(server, 'paging');
    for (const name of ['Paging A', 'Paging B', 'Paging C']) await createProvider({ Name: name }, tenant);
    await createProvider({ Name: 'Something else', ServiceProviderName: 'Other' }, tenant);
    const options = encodeURIComponent(JSON.stringify({ Filter: 'paging', OrderBy: 'Name desc', Skip: 1, Take: 1 }));
    const page = await rest(server, 'GET', `${BASE}?options=${options}`, { token: tenant.staffToken });
    expect(page.body.map((row: { Name: string }) => row.Name)).toEqual(['Paging B']);
    expect(page.body[0].Order).toBe(1);
    const all = await rest(server, 'GET', BASE, { token: tenant.staffToken });
    expect(all.body.map((row: { Name: string }) => row.Name)).toEqual(['Paging A', 'Paging B', 'Paging C', 'Something else']);
    const bad = await rest(server, 'GET', `${BASE}?options=${encodeURIComponent('{"OrderBy":"Secret"}')}`, { token: tenant.staffToken });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('options.OrderBy');
  });

  it('matches paths case-insensitively and with a trailing slash', async () => {
    const { SamlServiceProviderId: id } = await createProvider({ Name: 'Casing' });
    expect((await rest(server, 'GET', '/API/SAML/ServiceProviders/', { token: acme.staffToken })).status).toBe(200);
    expect((await rest(server, 'GET', `/api/Saml/SERVICEPROVIDERS/${id}/`, { token: acme.staffToken })).body.Name).toBe('Casing');
  });

  it('ignores unknown and server-owned fields in a body', async () => {
    const created = await rest(server, 'POST', BASE, { token: acme.staffToken, body: { Name: 'Owned', ServiceProviderName: 'Owned SP', TenantId: other.id, Unknown: 1 } });
    expect(created.status).toBe(200);
    const stored = await server.orm.em.fork().findOneOrFail(SamlServiceProvider, { id: created.body.SamlServiceProviderId }, { filters: false });
    expect(stored.tenant.id).toBe(acme.id);
  });
});

describe('SAML metadata download', () => {
  it('answers a SAML 2.0 SP metadata file with the entity id and assertion consumer service', async () => {
    const { SamlServiceProviderId: id } = await createProvider({ Name: 'LMS', ServiceProviderName: 'Learning Portal', EntityId: 'https://lms.example/saml/metadata', AssertionConsumerServiceUrl: 'https://lms.example/saml/acs' });
    const response = await rest(server, 'GET', `${BASE}/${id}/download`, { token: acme.staffToken });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/samlmetadata+xml');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="learning-portal-metadata.xml"');
    expect(response.text.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    const metadata = readMetadata(response.text);
    expect(metadata.namespace).toBe('urn:oasis:names:tc:SAML:2.0:metadata');
    expect(metadata.entityId).toBe('https://lms.example/saml/metadata');
    expect(metadata.acs).toMatchObject({ '@_Location': 'https://lms.example/saml/acs', '@_Binding': 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST', '@_index': '0' });
    expect(metadata.protocols).toBe('urn:oasis:names:tc:SAML:2.0:protocol');
    expect(metadata.displayName).toBe('Learning Portal');
    expect(metadata.organization['md:OrganizationName']['#text']).toBe('Tenant acme');
  });

  it('carries the derived defaults when the provider has no explicit addresses', async () => {
    const { SamlServiceProviderId: id } = await createProvider({ Name: 'Defaults' });
    const metadata = readMetadata((await rest(server, 'GET', `${BASE}/${id}/download`, { token: acme.staffToken })).text);
    expect(metadata.entityId).toBe(`${PUBLIC_BASE_URL}/tenants/acme/saml/serviceproviders/${id}`);
    expect(metadata.acs['@_Location']).toBe(`${PUBLIC_BASE_URL}/tenants/acme/saml/serviceproviders/${id}/acs`);
  });

  it('escapes markup in names and URLs, and survives characters XML cannot carry', async () => {
    const name = 'A&B <Portal> "quoted" \'single\'';
    const entityId = 'https://sp.example/metadata?a=1&b="2"';
    const acs = "https://sp.example/acs?x=1&y='2'";
    const { SamlServiceProviderId: id } = await createProvider({ Name: 'Escapes', ServiceProviderName: name, EntityId: entityId, AssertionConsumerServiceUrl: acs });
    const response = await rest(server, 'GET', `${BASE}/${id}/download`, { token: acme.staffToken });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="ab-portal-quoted-single-metadata.xml"');
    const metadata = readMetadata(response.text);
    expect(metadata.entityId).toBe(entityId);
    expect(metadata.acs['@_Location']).toBe(acs);
    expect(metadata.displayName).toBe(name);
    expect(response.text).toContain('A&amp;B &lt;Portal&gt;');

    // U+FFFE is valid text for JSON and PostgreSQL but not a character XML 1.0 may carry.
    const odd = await createProvider({ Name: 'Noncharacter', ServiceProviderName: 'Odd\uFFFE Portal' });
    const oddFile = await rest(server, 'GET', `${BASE}/${odd.SamlServiceProviderId}/download`, { token: acme.staffToken });
    expect(oddFile.status).toBe(200);
    expect(readMetadata(oddFile.text).displayName).toBe('Odd\uFFFD Portal');
    expect(oddFile.headers.get('content-disposition')).toBe('attachment; filename="odd-portal-metadata.xml"');
  });

  it('names the file after the id when the name has no usable characters', async () => {
    const { SamlServiceProviderId: id } = await createProvider({ Name: 'Kanji', ServiceProviderName: '学習ポータル' });
    const response = await rest(server, 'GET', `${BASE}/${id}/download`, { token: acme.staffToken });
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="saml-service-provider-${id}-metadata.xml"`);
    expect(readMetadata(response.text).displayName).toBe('学習ポータル');
  });

  it('matches the path case-insensitively and with a trailing slash', async () => {
    const { SamlServiceProviderId: id } = await createProvider({ Name: 'Download casing' });
    const response = await rest(server, 'GET', `/API/Saml/ServiceProviders/${id}/Download/`, { token: acme.staffToken });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/samlmetadata+xml');
  });

  it.each(['abc', '1.5', '99999999999', '-'])('answers 400 naming samlserviceproviderid for %s', async (raw) => {
    const response = await rest(server, 'GET', `${BASE}/${raw}/download`, { token: acme.staffToken });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body.errors[0].field).toBe('samlserviceproviderid');
  });

  it('answers 404 problem+json for an unknown provider and 405 for another method', async () => {
    const missing = await rest(server, 'GET', `${BASE}/424242/download`, { token: acme.staffToken });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toContain('application/problem+json');
    const post = await rest(server, 'POST', `${BASE}/1/download`, { token: acme.staffToken, body: {} });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
    expect(post.headers.get('content-type')).toContain('application/problem+json');
  });
});

describe('SAML service providers over GraphQL', () => {
  it('runs the same operations, metadata included', async () => {
    const saved = await graphql(server, 'mutation($input: SamlServiceProviderAddEditInput!) { saveSamlServiceProvider(input: $input) { SamlServiceProviderId Name Actions } }',
      { input: { Name: 'GraphQL SP', ServiceProviderName: 'GQL Portal', AssertionConsumerServiceUrl: 'https://gql.example/acs' } }, acme.staffToken);
    expect(saved.status).toBe(200);
    const id = saved.body.data.saveSamlServiceProvider.SamlServiceProviderId;
    expect(saved.body.data.saveSamlServiceProvider).toEqual({ SamlServiceProviderId: id, Name: 'GraphQL SP', Actions: ['Edit', 'Delete', 'Download'] });

    const read = await graphql(server, `query($id: Int!) {
      samlServiceProvider(samlServiceProviderId: $id) { SamlServiceProviderId Name ServiceProviderName EntityId AssertionConsumerServiceUrl }
      samlServiceProviders(options: { Filter: "graphql sp" }) { Id Name ExtraData }
      samlServiceProviderMetadata(samlServiceProviderId: $id)
    }`, { id }, acme.staffToken);
    expect(read.status).toBe(200);
    expect(read.body.data.samlServiceProvider).toEqual({
      SamlServiceProviderId: id, Name: 'GraphQL SP', ServiceProviderName: 'GQL Portal',
      EntityId: `${PUBLIC_BASE_URL}/tenants/acme/saml/serviceproviders/${id}`, AssertionConsumerServiceUrl: 'https://gql.example/acs',
    });
    expect(read.body.data.samlServiceProviders).toEqual([{ Id: id, Name: 'GraphQL SP', ExtraData: 'GQL Portal' }]);
    const metadata = readMetadata(read.body.data.samlServiceProviderMetadata);
    expect(metadata.entityId).toBe(`${PUBLIC_BASE_URL}/tenants/acme/saml/serviceproviders/${id}`);
    expect(metadata.acs['@_Location']).toBe('https://gql.example/acs');

    const deleted = await graphql(server, 'mutation($id: Int!) { deleteSamlServiceProvider(samlServiceProviderId: $id) { SamlServiceProviderId Name } }', { id }, acme.staffToken);
    expect(deleted.body.data.deleteSamlServiceProvider).toEqual({ SamlServiceProviderId: id, Name: 'GraphQL SP' });
    const gone = await graphql(server, 'query($id: Int!) { samlServiceProviderMetadata(samlServiceProviderId: $id) }', { id }, acme.staffToken);
    expect(gone.status).toBe(404);
    expect(gone.body.errors?.[0]?.extensions.code).toBe('NOT_FOUND');
  });
});

describe('SAML service provider access', () => {
  // 401 (no credential, unknown token) and 403 for a member on every operation, REST and GraphQL: test/sweeps.test.ts.

  it("keeps another tenant's providers invisible and untouchable (404)", async () => {
    const { SamlServiceProviderId: id } = await createProvider({ Name: 'Private To Acme' });
    expect((await rest(server, 'GET', `${BASE}/${id}`, { token: other.staffToken })).status).toBe(404);
    expect((await rest(server, 'GET', `${BASE}/${id}/download`, { token: other.staffToken })).status).toBe(404);
    const list = await rest(server, 'GET', BASE, { token: other.staffToken });
    expect(list.body.map((row: { Id: number }) => row.Id)).not.toContain(id);
    const save = await rest(server, 'POST', BASE, { token: other.staffToken, body: { SamlServiceProviderId: id, Name: 'Hijacked', ServiceProviderName: 'Hijacked' } });
    expect(save.status).toBe(404);
    expect((await rest(server, 'DELETE', `${BASE}/${id}`, { token: other.staffToken })).status).toBe(404);
    for (const query of ['query($id: Int!) { samlServiceProvider(samlServiceProviderId: $id) { Name } }', 'query($id: Int!) { samlServiceProviderMetadata(samlServiceProviderId: $id) }',
      'mutation($id: Int!) { deleteSamlServiceProvider(samlServiceProviderId: $id) { Name } }']) {
      expect((await graphql(server, query, { id }, other.staffToken)).status).toBe(404);
    }
    const stillThere = await rest(server, 'GET', `${BASE}/${id}`, { token: acme.staffToken });
    expect(stillThere.body.Name).toBe('Private To Acme');
  });
});

// Broken JSON, a missing body, another media type, ids that are not integers and fields of the
// wrong type: the generated malformed-input sweep (test/sweeps.test.ts). Here: the provider's own rules.
describe('SAML service provider input validation', () => {
  const ok = { Name: 'Ok', ServiceProviderName: 'Ok' };
  const badBodies: [string, unknown, string][] = [
    ['a missing Name', { ServiceProviderName: 'Ok' }, 'Name'],
    ['a blank Name', { ...ok, Name: '   ' }, 'Name'],
    ['an over-long Name', { ...ok, Name: 'x'.repeat(201) }, 'Name'],
    ['a missing ServiceProviderName', { Name: 'Ok' }, 'ServiceProviderName'],
    ['an empty ServiceProviderName', { ...ok, ServiceProviderName: '' }, 'ServiceProviderName'],
    ['a NUL in Name', { ...ok, Name: 'a\u0000b' }, 'Name'],
    ['a control character in ServiceProviderName', { ...ok, ServiceProviderName: 'bell\u0007' }, 'ServiceProviderName'],
    ['an over-long ServiceProviderName', { ...ok, ServiceProviderName: 'x'.repeat(201) }, 'ServiceProviderName'],
    ['an EntityId that is neither URL nor URN', { ...ok, EntityId: 'just words' }, 'EntityId'],
    ['an EntityId with another scheme', { ...ok, EntityId: 'ftp://sp.example/x' }, 'EntityId'],
    ['a URN EntityId with characters a URN cannot hold', { ...ok, EntityId: 'urn:example:<sp>' }, 'EntityId'],
    ['an ACS URL with markup in it', { ...ok, AssertionConsumerServiceUrl: 'https://sp.example/acs?x=<y>' }, 'AssertionConsumerServiceUrl'],
    ['an over-long EntityId', { ...ok, EntityId: `https://sp.example/${'x'.repeat(1010)}` }, 'EntityId'],
    ['an ACS URL that is not a URL', { ...ok, AssertionConsumerServiceUrl: 'not a url' }, 'AssertionConsumerServiceUrl'],
    ['a relative ACS URL', { ...ok, AssertionConsumerServiceUrl: '/saml/acs' }, 'AssertionConsumerServiceUrl'],
    ['an ACS URL with a javascript scheme', { ...ok, AssertionConsumerServiceUrl: 'javascript:alert(1)' }, 'AssertionConsumerServiceUrl'],
    ['an over-long ACS URL', { ...ok, AssertionConsumerServiceUrl: `https://sp.example/${'x'.repeat(2040)}` }, 'AssertionConsumerServiceUrl'],
    ['a negative SamlServiceProviderId', { ...ok, SamlServiceProviderId: -1 }, 'SamlServiceProviderId'],
  ];

  it.each(badBodies)('rejects %s with a 400 naming the field', async (_label, body, field) => {
    const response = await rest(server, 'POST', BASE, { token: acme.staffToken, body });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
  });

  it('accepts http(s) URLs without a TLD (intranet, localhost) and URNs', async () => {
    await createProvider({ Name: 'Intranet', EntityId: 'urn:mace:example.org:sp', AssertionConsumerServiceUrl: 'http://localhost:8080/saml/acs' });
  });

  it('names the field on GraphQL too', async () => {
    const response = await graphql(server, 'mutation($input: SamlServiceProviderAddEditInput!) { saveSamlServiceProvider(input: $input) { SamlServiceProviderId } }',
      { input: { Name: 'Ok', ServiceProviderName: 'Ok', AssertionConsumerServiceUrl: 'nope' } }, acme.staffToken);
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    expect(response.body.errors?.[0]?.extensions.errors?.[0]?.field).toBe('AssertionConsumerServiceUrl');
  });

  it('GET with options {"Take":0} is a 400 naming options.Take', async () => {
    const response = await rest(server, 'GET', `${BASE}?options=${encodeURIComponent('{"Take":0}')}`, { token: acme.staffToken });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].field).toBe('options.Take');
  });
});

describe('SAML service provider list cost', () => {
  it('runs the same number of SQL statements for 5 rows as for 50', async () => {
    const tenant = await createTestTenant(server, 'bulk');
    const em = server.orm.em.fork();
    for (let index = 0; index < 50; index++) {
      em.create(SamlServiceProvider, { tenant: tenant.id, name: `Bulk ${String(index).padStart(2, '0')}`, serviceProviderName: 'Bulk SP', entityId: null, assertionConsumerServiceUrl: null });
    }
    await em.flush();
    // One request first, so once-in-a-while work (the credential's last-use stamp) is not counted.
    await rest(server, 'GET', '/api/login/logincheck', { token: tenant.staffToken });
    await expectStatementsIndependentOfPageSize(server, async (take) => {
      const response = await rest(server, 'GET', `${BASE}?options=${encodeURIComponent(JSON.stringify({ Take: take }))}`, { token: tenant.staffToken });
      expect(response.body).toHaveLength(take);
    }, 3);
  });
});

describe('SAML service provider races against the real database', () => {
  let wide: TestServer;
  let tenant: TestTenant;
  beforeAll(async () => {
    wide = await startRaceServer();
    tenant = await createTestTenant(wide, 'saml-race');
  });
  afterAll(() => wide.close());

  const create = async (Name: string) => (await rest(wide, 'POST', BASE, { token: tenant.staffToken, body: { Name, ServiceProviderName: 'x' } })).body.SamlServiceProviderId as number;

  it('lets exactly one of 20 concurrent deletes of one provider succeed', async () => {
    const id = await create('Deleted Twenty Times');
    await expectExactlyOneSucceeds(Array.from({ length: 20 }, () => () => rest(wide, 'DELETE', `${BASE}/${id}`, { token: tenant.staffToken })), [404]);
    expect((await rest(wide, 'GET', `${BASE}/${id}`, { token: tenant.staffToken })).status).toBe(404);
  });

  it('never acknowledges a save whose provider a delete removed after the save read it (404)', async () => {
    const id = await create('Deleted Under A Save');
    const save = await saveWhileDeleted(wide, 'saml_service_provider', id, () =>
      rest(wide, 'POST', BASE, { token: tenant.staffToken, body: { SamlServiceProviderId: id, Name: 'Saved Too Late', ServiceProviderName: 'x' } }));
    expect(save.status).toBe(404);
    expect((await rest(wide, 'GET', `${BASE}/${id}`, { token: tenant.staffToken })).status).toBe(404);
  });

  it('never brings a deleted provider back, nor answers 200 for a save it did not store, when a save and a delete race', async () => {
    for (let round = 0; round < 10; round++) {
      const id = await create(`Raced ${round}`);
      const [save, remove] = await Promise.all([
        rest(wide, 'POST', BASE, { token: tenant.staffToken, body: { SamlServiceProviderId: id, Name: `Saved ${round}`, ServiceProviderName: 'x' } }),
        rest(wide, 'DELETE', `${BASE}/${id}`, { token: tenant.staffToken }),
      ]);
      // No version to compare: either order is legitimate (save then delete: both 200), but the
      // delete always wins in the end, and a save that came too late is told so (404).
      expect(remove.status).toBe(200);
      expect([200, 404]).toContain(save.status);
      expect((await rest(wide, 'GET', `${BASE}/${id}`, { token: tenant.staffToken })).status).toBe(404);
    }
  });
});
