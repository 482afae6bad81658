import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { migrationIndexSource } from '../src/db/migration-index.js';
import { documentedOperations } from '../src/rest/contract.js';
import { routeCoverage } from '../src/rest/coverage.js';
import { rawRoutes as areaRoutes, routes } from '../src/areas/index.js';
import { rest, startTestServer, type TestServer } from './support/harness.js';

describe('route table against the documents', () => {
  const documented = new Set(documentedOperations().map((operation) => `${operation.method} ${operation.path}`));

  it('holds only documented operations, at their documented method and path', () => {
    for (const row of routes.filter((route) => !route.extension)) {
      expect(documented).toContain(`${row.method} ${row.path}`);
    }
  });

  it('routes each operation once', () => {
    const keys = routes.map((row) => `${row.method} ${row.path.toLowerCase()}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('holds only documented operations among the routes outside the table', () => {
    for (const operation of areaRoutes.flatMap((area) => area.operations).filter((candidate) => !candidate.extension)) {
      expect(documented).toContain(`${operation.method} ${operation.path}`);
    }
  });

  it('counts 247 documented operations and the routed ones', () => {
    const coverage = routeCoverage();
    expect(coverage.total).toBe(247);
    expect(coverage.routed).toBe(routes.filter((row) => !row.extension).length + areaRoutes.flatMap((area) => area.operations).filter((operation) => !operation.extension).length);
    expect(coverage.byArea.get('Login')).toEqual({ routed: 6, total: 6 });
    expect(coverage.byArea.get('Vendors')).toEqual({ routed: 6, total: 6 });
    expect(coverage.byArea.get('SAML service providers')).toEqual({ routed: 5, total: 5 });
    expect(coverage.byArea.get('Terms of use')).toEqual({ routed: 12, total: 12 });
    expect(coverage.undocumented).toEqual([]);
  });

  it('keeps our own additions under their area and out of the count', () => {
    const extensions = routes.filter((row) => row.extension);
    expect(extensions.map((row) => row.path).sort()).toEqual([
      '/api/eventregistrations/{eventregistrationid}',
      '/api/eventregistrations/{eventregistrationid}',
      '/api/eventregistrations/{eventregistrationid}/cancel',
      '/api/contacts/items',
      '/api/contacts/items',
      '/api/contacts/{contactid}',
      '/api/contacts/{contactid}',
      '/api/contacts/{contactid}/restore',
      '/api/contacts/{contactid}/{auditid}',
      '/api/login/magiclink/redeem',
      '/api/scheduledbilling/membershiptype/run/history/download/file/{pendingdownloadfileid}',
      '/api/setup/corsorigins',
      '/api/setup/corsorigins',
      '/api/setup/vouchers/redeem',
      '/api/setup/vouchertypes',
      '/api/setup/vouchertypes/{vouchertypeid}',
      '/api/setup/vouchertypes/{vouchertypeid}/{auditid}',
      // Memberships (issue 34): types with levels, and terms.
      '/api/membershiptypes', '/api/membershiptypes/{membershiptypeid}', '/api/membershiptypes/{membershiptypeid}', '/api/membershiptypes/{membershiptypeid}/{auditid}',
      '/api/memberships/items', '/api/memberships/{membershipid}', '/api/memberships/{membershipid}', '/api/memberships/{membershipid}/activate/{auditid}',
      '/api/memberships/{membershipid}/renew/{auditid}', '/api/memberships/{membershipid}/cancel/{auditid}',
      '/api/contacts/{contactid}/relationships',
      '/api/contacts/{contactid}/relationships/{relationshipid}',
      '/api/contacts/{contactid}/relationships/{relationshipid}',
      '/api/directory/listings/{directorycontactid}/gallery',
      '/api/directory/listings/{directorycontactid}/gallery/order',
      // Custom fields (issue 38).
      '/api/customfields', '/api/customfields/{customfieldid}', '/api/customfields/{customfieldid}',
      '/api/customfields/{customfieldid}/retire/{auditid}', '/api/customfields/{customfieldid}/restore/{auditid}',
      // Contact imports (issue 38).
      '/api/imports/{importid}', '/api/imports/{importid}/preview', '/api/imports/{importid}/rows', '/api/imports/{importid}/start', '/api/imports/{importid}/cancel',
      ...['GET', 'POST', 'DELETE'].map(() => '/api/scheduledbilling/schedules/{scheduledbillingid}'),
      '/api/paymentgateway/gatewayaccounts',
      ...['GET', 'POST', 'DELETE'].map(() => '/api/paymentgateway/gatewayaccounts/{gatewayaccountid}'),
      '/api/setup/webhooks',
      '/api/setup/webhooks',
      '/api/setup/webhooks/{webhookid}',
      '/api/setup/webhooks/{webhookid}',
      '/api/setup/webhooks/{webhookid}/deliveries',
      '/api/setup/webhooks/{webhookid}/deliveries/{deliveryid}/redeliver',
      '/api/setup/webhooks/{webhookid}/rotatesecret',
    ].sort());
    for (const row of extensions) expect(documented).not.toContain(`${row.method} ${row.path}`);
    // Billing schedules and gateway accounts (issue 34) overlap no documented path by any method: no
    // documented template matches theirs segment by segment (a {parameter} matching any segment).
    const segments = (path: string) => path.toLowerCase().split('/');
    const overlaps = (a: string, b: string) => segments(a).length === segments(b).length
      && segments(a).every((segment, index) => segment === segments(b)[index] || segment.startsWith('{') || segments(b)[index].startsWith('{'));
    for (const path of ['/api/scheduledbilling/schedules/{scheduledbillingid}', '/api/paymentgateway/gatewayaccounts', '/api/paymentgateway/gatewayaccounts/{gatewayaccountid}']) {
      expect([...documented].filter((operation) => overlaps(operation.split(' ')[1], path))).toEqual([]);
    }
    // The CORS origin operations share their path with no documented operation, by any method.
    expect([...documented].filter((operation) => operation.split(' ')[1].toLowerCase() === '/api/setup/corsorigins')).toEqual([]);
    // Nor do the event registration operations: no documented path starts /api/eventregistrations.
    expect([...documented].filter((operation) => operation.split(' ')[1].toLowerCase().startsWith('/api/eventregistrations'))).toEqual([]);
    // Nor do the contact operations (issue 33), by any method.
    expect([...documented].filter((operation) => operation.split(' ')[1].toLowerCase().startsWith('/api/contacts/'))).toEqual([]);
    // Nor do the contact imports and the export, under any path below theirs.
    expect([...documented].filter((operation) => /^\/api\/(imports|exports)\//.test(operation.split(' ')[1].toLowerCase()))).toEqual([]);
    // Nor do the webhook operations, under any path below theirs.
    expect([...documented].filter((operation) => operation.split(' ')[1].toLowerCase().startsWith('/api/setup/webhooks'))).toEqual([]);
    const rawExtensions = areaRoutes.flatMap((area) => area.operations).filter((operation) => operation.extension);
    expect(rawExtensions.map((operation) => operation.path).sort()).toEqual([
      '/api/store/downloadfiles/upload', '/api/store/storedownloads/{storeitemdigitaldownloadpurchaseid}/file', '/api/reporting/runs/{reportrunid}/csv',
      '/ical/{tenantkey}/{calendarid}.ics', '/api/imports/upload', '/api/imports/{importid}/rejected', '/api/exports/contacts',
    ].sort());
    for (const operation of rawExtensions) expect(documented).not.toContain(`${operation.method} ${operation.path}`);
  });
});

describe('OpenAPI document', () => {
  let server: TestServer;
  let openApi: any;
  beforeAll(async () => {
    server = await startTestServer();
    openApi = (await rest(server, 'GET', '/api/openapi.json')).body;
  });
  afterAll(() => server.close());

  it('describes every routed operation with its documented method and path', () => {
    expect(openApi.openapi).toBe('3.1.0');
    // OpenAPI templates name a parameter only: `{contactid=null}` is written `{contactid}`.
    for (const row of routes) expect(openApi.paths[row.path.replace(/\{([^}=]+)=null\}/g, '{$1}')]?.[row.method.toLowerCase()]).toBeDefined();
    for (const operation of areaRoutes.flatMap((area) => area.operations)) {
      expect(openApi.paths[operation.path]?.[operation.method.toLowerCase()]).toBeDefined();
    }
  });

  it('shows documented bodies unwrapped, with documented parameter names', () => {
    const save = openApi.paths['/api/vendors'].post;
    expect(save.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/VendorAddEditInput' });
    expect(openApi.components.schemas.VendorAddEditInput.properties).toHaveProperty('Name');
    const magic = openApi.paths['/api/login/requestmagiclink'].post;
    expect(magic.requestBody.content['application/json'].schema).toMatchObject({ type: 'array', minItems: 1, maxItems: 10, items: { type: 'string', maxLength: 254 } });
    // A public operation also takes the tenant selector (X-Tenant-Key, or ?tenant= where a header cannot be set).
    expect(magic.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(['type', 'X-Tenant-Key', 'tenant']);
    const search = openApi.paths['/api/vendors/search'].get;
    expect(search.parameters.map((parameter: { name: string }) => parameter.name)).toContain('this[]');
    const read = openApi.paths['/api/vendors/{vendorid}'].get;
    expect(read.parameters[0]).toMatchObject({ name: 'vendorid', in: 'path', required: true, schema: { type: 'integer' } });
  });

  it('names the bearer scheme on protected operations only, with problem+json errors', () => {
    expect(openApi.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(openApi.paths['/api/vendors'].get.security).toEqual([{ bearer: [] }]);
    expect(openApi.paths['/api/login/securityquestions/lookup'].get.security).toEqual([]);
    expect(openApi.paths['/api/images/upload'].post.security).toEqual([{ bearer: [] }]);
    expect(openApi.paths['/api/callback/emailprovider1'].post.security).toEqual([{ callbackSignature: [] }]);
    expect(openApi.paths['/api/vendors'].post.responses['403']).toBeDefined();
    expect(openApi.paths['/api/vendors'].get.responses['401'].content['application/problem+json']).toBeDefined();
  });

  it('resolves every schema reference', () => {
    const references = JSON.stringify(openApi).match(/#\/components\/schemas\/[\w]+/g) ?? [];
    expect(references.length).toBeGreaterThan(0);
    for (const reference of new Set(references)) {
      expect(openApi.components.schemas).toHaveProperty(reference.split('/').pop()!);
    }
  });

  it('serves Swagger UI and GraphiQL from packages, without a CDN', async () => {
    for (const page of ['/api/docs', '/graphiql']) {
      const response = await rest(server, 'GET', page);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/html');
      const assets = [...response.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
      expect(assets.length).toBeGreaterThan(1);
      for (const asset of assets) {
        expect(asset.startsWith('/')).toBe(true);
        const served = await fetch(`${server.baseUrl}${asset}`);
        expect(served.status).toBe(200);
        // Read to the end: an unread body keeps its response in flight, and closing the server waits for it.
        expect((await served.arrayBuffer()).byteLength).toBeGreaterThan(0);
      }
    }
  });
});

describe('documented keys GraphQL cannot spell', () => {
  it('maps them back in responses, at any depth', async () => {
    const { toDocumentedKeys, documentedKey } = await import('../src/rest/documented-keys.js');
    expect(documentedKey('this_')).toBe('this[]');
    expect(documentedKey('Name')).toBe('Name');
    expect(toDocumentedKeys({ Result: [{ System_IAsyncResult_CompletedSynchronously: false, Name: 'x' }] }))
      .toEqual({ Result: [{ 'System.IAsyncResult.CompletedSynchronously': false, Name: 'x' }] });
  });
});

describe('migrations', () => {
  it('are listed by the generated index, every file in the folder and nothing else', () => {
    expect(readFileSync('src/db/migrations/index.ts', 'utf8')).toBe(migrationIndexSource('src/db/migrations'));
  });
});
