import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { OPENAPI_FILE, openApiText } from '../src/rest/openapi-file.js';
import { createMembershipApiClient } from '../clients/typescript/src/index.js';
import { listAllVendors } from '../clients/typescript/examples/list-vendors.js';
import { createTestTenant, startTestServer } from './support/harness.js';

describe('the OpenAPI document and the typed client generated from it', () => {
  it(`is checked in as the service serves it (after a change: npm run client:generate, then commit ${OPENAPI_FILE} and the client's schema)`, async () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(await openApiText());
  });

  it('passes the Redocly linter\'s recommended rules without an error', async () => {
    const problems = await lintFromString({ source: await openApiText(), absoluteRef: '/openapi.json', config: await createConfig({ extends: ['recommended'] }) });
    expect(problems.filter((problem) => problem.severity === 'error').map((problem) => `${problem.ruleId}: ${problem.message}`)).toEqual([]);
  });

  it('serves the example partner script: the typed client lists vendors from a running service', async () => {
    const server = await startTestServer();
    try {
      const tenant = await createTestTenant(server, 'typed-client');
      const client = createMembershipApiClient({ baseUrl: server.baseUrl, token: tenant.staffToken });
      for (const Name of ['Beta Supplies', 'Alpha Catering']) expect((await client.POST('/api/vendors', { body: { Name } })).response.status).toBe(200);
      expect(await listAllVendors(client)).toEqual(['Alpha Catering', 'Beta Supplies']);
    } finally {
      await server.close();
    }
  });
});
