/**
 * Requests shaped exactly as the REST layer's legacy clients send them — a jQuery page, a .NET
 * HttpClient integration, a PHP cURL script — each compared with the answer to its JSON twin.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestTenant, rest, startTestServer, type HttpResult, type TestServer, type TestTenant } from './support/harness.js';

let server: TestServer;
let acme: TestTenant;
const PORTAL = 'https://portal.acme.example';

beforeAll(async () => {
  server = await startTestServer({ CORS_ORIGINS: `${PORTAL}, https://admin.acme.example/` });
  acme = await createTestTenant(server, 'legacy');
});
afterAll(() => server.close());

/** A raw request: the exact body text and headers a client library sends. */
function send(method: string, path: string, body: string, headers: Record<string, string>, token = acme.staffToken): Promise<HttpResult> {
  return rest(server, method, path, { token, body, headers });
}

/** The answer without the ids and versions that differ between two records made alike. */
const comparable = (body: Record<string, unknown>) => Object.fromEntries(Object.entries(body).filter(([key]) => !/Id$/.test(key)));

describe('jQuery pages ($.post, $.ajax with form data)', () => {
  const jquery = { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8', 'x-requested-with': 'XMLHttpRequest', accept: '*/*' };

  it('saves a vendor from a form body exactly as from JSON, numbers sent as text included', async () => {
    const form = await send('POST', '/api/vendors', 'VendorId=0&Name=Form+Vendor&WebsiteUrl=https%3A%2F%2Fform.example', jquery);
    const json = await rest(server, 'POST', '/api/vendors', { token: acme.staffToken, body: { VendorId: 0, Name: 'Form Vendor', WebsiteUrl: 'https://form.example' } });
    expect(form.status).toBe(200);
    expect(comparable(form.body)).toEqual(comparable(json.body));
  });

  it('binds nested, indexed and bracketed names onto the model', async () => {
    const body = 'Name=Form+Package&ActiveDates.Start=2026-01-01&ActiveDates%5BEnd%5D=2026-06-30'
      + '&BenefitItems%5B0%5D.Name=First&BenefitItems%5B1%5D%5BName%5D=Second&BenefitItems%5B1%5D%5BIsActive%5D=false&ForceSave=true';
    const form = await send('POST', '/api/benefitpackages/0', body, jquery);
    expect(form.status).toBe(200);
    const read = await rest(server, 'GET', `/api/benefitpackages/${form.body.BenefitPackageId}`, { token: acme.staffToken });
    expect(read.body).toMatchObject({
      Name: 'Form Package', ActiveDates: { Start: '2026-01-01', End: '2026-06-30' },
      BenefitItems: [{ Name: 'First', IsActive: true }, { Name: 'Second', IsActive: false }],
    });
  });

  it('refuses a number that is not one with a 400 naming the field, in problem+json', async () => {
    const response = await send('POST', '/api/vendors', 'VendorId=seven&Name=x', jquery);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body.errors).toEqual([expect.objectContaining({ field: 'VendorId' })]);
  });
});

describe('.NET HttpClient integrations', () => {
  it('accepts text/json and values serialized as strings, with the same answer as typed JSON', async () => {
    const body = JSON.stringify({ VendorId: '0', Name: 'DotNet Vendor', WebsiteUrl: null });
    const sent = await send('POST', '/api/vendors', body, { 'content-type': 'text/json; charset=utf-8', accept: 'application/json' });
    expect(sent.status).toBe(200);
    const json = await rest(server, 'POST', '/api/vendors', { token: acme.staffToken, body: { VendorId: 0, Name: 'DotNet Vendor 2', WebsiteUrl: null } });
    expect(Object.keys(sent.body)).toEqual(Object.keys(json.body));
  });

  it('reads "" as no value for a number, and "true"/"False" as booleans', async () => {
    const terms = await send('POST', '/api/setup/termsofuse/0', JSON.stringify({ Name: 'Net Terms', Description: 'x', LoginType: 'hub', AuditId: '', forceSave: 'True' }),
      { 'content-type': 'application/json; charset=utf-8' });
    expect(terms.status).toBe(200);
    const answered = await send('POST', '/api/setup/termsofuse/terms/takeaction', JSON.stringify({ TermsOfUseId: String(terms.body.TermsOfUseId), IsAccepted: 'false' }),
      { 'content-type': 'application/json' }, acme.memberToken);
    expect(answered.status).toBe(200);
  });
});

describe('PHP cURL scripts (http_build_query)', () => {
  it('lists with a filter body built by http_build_query exactly as with its JSON twin', async () => {
    const php = 'Take=5&Skip=0&LoginTypes%5B0%5D=member&Criteria%5BIsAccepted%5D=true';
    const form = await send('POST', '/api/setup/termsofuse/usertermsacceptance/hub', php, { 'content-type': 'application/x-www-form-urlencoded' });
    const json = await rest(server, 'POST', '/api/setup/termsofuse/usertermsacceptance/hub', { token: acme.staffToken, body: { Take: 5, Skip: 0, LoginTypes: ['member'], Criteria: { IsAccepted: true } } });
    expect(form.status).toBe(200);
    expect(form.body).toEqual(json.body);
  });

  it('binds a field given once as a list of one', async () => {
    const form = await send('POST', '/api/setup/termsofuse/usertermsacceptance/staff', 'LoginTypes=staff', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(200);
    expect(form.body.TotalRecordAvailable).toBe('0');
  });
});

describe('what stays strict', () => {
  it.each([
    ['text/xml', '<Vendor><Name>x</Name></Vendor>'],
    ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="Name"\r\n\r\nx\r\n--x--'],
  ])('answers %s with 415 problem+json', async (type, body) => {
    const response = await send('POST', '/api/vendors', body, { 'content-type': type });
    expect(response.status).toBe(415);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
  });

  it('refuses JSON nested deeper than any documented model, before parsing it (400 naming where)', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const body = await send('POST', '/api/vendors', deep, { 'content-type': 'application/json' });
    expect(body.status).toBe(400);
    expect(body.body.errors).toEqual([{ field: 'body', message: 'nests deeper than 64 levels' }]);
    const options = await rest(server, 'GET', `/api/vendors?options=${encodeURIComponent(`{"Filter":${'['.repeat(70)}${']'.repeat(70)}}`)}`, { token: acme.staffToken });
    expect(options.status).toBe(400);
    expect(options.body.errors).toEqual([{ field: 'options', message: 'nests deeper than 64 levels' }]);
    // A string may hold brackets: only structure counts.
    expect((await rest(server, 'POST', '/api/vendors', { token: acme.staffToken, body: { Name: '['.repeat(150) } })).status).toBe(200);
  });

  it('keeps JSON strict: a string where a list belongs is still a 400', async () => {
    const response = await rest(server, 'POST', '/api/setup/termsofuse/usertermsacceptance/staff', { token: acme.staffToken, body: { LoginTypes: 'staff' } });
    expect(response.status).toBe(400);
  });
});

describe('CORS by configuration', () => {
  const preflight = (origin: string, path = '/api/vendors') => rest(server, 'OPTIONS', path, {
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
  });

  it('answers the preflight of an allowed origin with the methods and headers it may use', async () => {
    for (const path of ['/api/vendors', '/API/Vendors/', '/graphql']) {
      const response = await preflight(PORTAL, path);
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe(PORTAL);
      expect(response.headers.get('access-control-allow-methods')).toContain('POST');
      expect(response.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
      // A browser front-end on another origin may make its writes idempotent and read its own writes.
      expect(response.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('idempotency-key');
      expect(response.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-read-primary');
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    }
    expect((await preflight('https://admin.acme.example')).headers.get('access-control-allow-origin')).toBe('https://admin.acme.example');
  });

  it('sends no CORS headers to other origins', async () => {
    const response = await preflight('https://evil.example');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const read = await rest(server, 'GET', '/api/vendors', { token: acme.staffToken, headers: { origin: 'https://evil.example' } });
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('marks the answers to an allowed origin, and exposes the request id', async () => {
    const read = await rest(server, 'GET', '/api/vendors', { token: acme.staffToken, headers: { origin: PORTAL } });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBe(PORTAL);
    expect(read.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
  });
});

describe('the OpenAPI document', () => {
  it('lists the accepted request content types of every operation with a body', async () => {
    const openApi = (await rest(server, 'GET', '/api/openapi.json')).body;
    expect(Object.keys(openApi.paths['/api/vendors'].post.requestBody.content)).toEqual(['application/json', 'text/json', 'application/x-www-form-urlencoded']);
  });
});
