import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { createTestTenant, metricSamples, rest, runConcurrently, startTestServer, type TestServer, type TestTenant } from './support/harness.js';

// GraphQL's per-document caches (parsed documents, compiled operations, persisted queries) stay
// within their entry and byte bounds however many distinct documents arrive (http/graphql-caches.ts).
const TOKEN = 'metrics-token-0123456789';
/** 24 MB: enough for each cache to reach its entry bound with small documents, and its byte bound with large ones. */
const CACHE_MB = 24;
const CACHES = ['documents', 'compiled', 'persisted'] as const;
let server: TestServer;
let acme: TestTenant;

beforeAll(async () => {
  server = await startTestServer({ METRICS_TOKEN: TOKEN, GRAPHQL_CACHE_MB: String(CACHE_MB) });
  acme = await createTestTenant(server, 'gqlcache');
});
afterAll(() => server.close());

/** Sends `query` registered as an automatic persisted query (so all three caches see it); answers the status. */
async function sendPersisted(query: string): Promise<number> {
  const sha256Hash = createHash('sha256').update(query).digest('hex');
  const response = await rest(server, 'POST', '/graphql', { token: acme.staffToken, body: { query, extensions: { persistedQuery: { version: 1, sha256Hash } } } });
  if (response.status !== 200 || response.body.errors) throw new Error(`${response.status} ${response.text.slice(0, 300)}`);
  return response.status;
}

/** Each cache's figures from /metrics. */
async function cacheFigures(): Promise<Record<string, { entries: number; maxEntries: number; bytes: number; maxBytes: number }>> {
  const scrape = (await rest(server, 'GET', '/metrics', { token: TOKEN })).text;
  const value = (name: string, cache: string) => {
    const sample = metricSamples(scrape, name).find((candidate) => candidate.labels.cache === cache);
    if (!sample) throw new Error(`${name}{cache="${cache}"} is missing from /metrics`);
    return sample.value;
  };
  return Object.fromEntries(CACHES.map((cache) => [cache, {
    entries: value('graphql_cache_entries', cache), maxEntries: value('graphql_cache_max_entries', cache),
    bytes: value('graphql_cache_bytes', cache), maxBytes: value('graphql_cache_max_bytes', cache),
  }]));
}

describe('GraphQL per-document caches', () => {
  it('share GRAPHQL_CACHE_MB as documented', async () => {
    const figures = await cacheFigures();
    const budget = CACHE_MB * 1024 * 1024;
    expect(figures.documents).toMatchObject({ maxEntries: 1000, maxBytes: Math.floor(budget * 0.4) });
    expect(figures.compiled).toMatchObject({ maxEntries: 500, maxBytes: Math.floor(budget * 0.5) });
    expect(figures.persisted).toMatchObject({ maxEntries: 1000, maxBytes: Math.floor(budget * 0.1) });
  });

  // A document is compiled on its second execution: the documents sent again fill the compiled operations.
  it('keep at most their entry bound of 1,500 distinct small documents (the last 600 sent twice)', async () => {
    const small = (index: number) => `query Small${index} { __typename }`;
    await runConcurrently(1500, 8, (index) => sendPersisted(small(index)));
    await runConcurrently(600, 8, (index) => sendPersisted(small(900 + index)));
    for (const [cache, figures] of Object.entries(await cacheFigures())) {
      // Reached, not exceeded: the entry bound is what stopped each cache.
      expect({ cache, entries: figures.entries }).toEqual({ cache, entries: figures.maxEntries });
      expect(figures.bytes).toBeLessThanOrEqual(figures.maxBytes);
    }
  });

  it('keep at most their byte bound of 100 distinct large documents (each sent twice)', async () => {
    // 1,200 tokens each (within the token and cost limits): about 0.77 MB of estimated heap; the
    // spaces make each source 25,000 characters, so the persisted queries fill their share too.
    const large = (index: number) => `query Large${index} { ${`... on Query { __typename }${' '.repeat(100)}`.repeat(200)}}`;
    await runConcurrently(100, 8, async (index) => {
      await sendPersisted(large(index));
      await sendPersisted(large(index));
    });
    for (const [cache, figures] of Object.entries(await cacheFigures())) {
      expect(figures.entries).toBeLessThanOrEqual(figures.maxEntries);
      expect(figures.bytes).toBeLessThanOrEqual(figures.maxBytes);
      // Filled to its byte bound (each large entry is under a tenth of it): the byte bound stopped it.
      expect({ cache, full: figures.bytes > 0.8 * figures.maxBytes }).toEqual({ cache, full: true });
    }
  });
});
