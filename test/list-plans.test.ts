import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { EntityManager } from '@mikro-orm/postgresql';
import { TENANT_FILTER } from '../src/entities/base.js';
import { listsDeclared, parseListOptions, toFindOptions, type FilterBaseValues, type RegisteredList } from '../src/core/data/list-query.js';
import { createTestTenant, startTestServer, type TestServer, type TestTenant } from './support/harness.js';

// Every list declared with defineList (all of them: the areas' services are loaded with the
// schema) is read in the order of an index, within its tenant: its default page is never a sort
// of the tenant's rows, and a search of a `many` list has a trigram index for each column of its
// own table. Plans are taken with sequential scans (and, for the order, sorts) disabled, which
// answers whether an index can serve the query at all, whatever the (empty) tables' statistics. The vendors are then checked
// on real volume: 20,000 rows, analyzed, with the plan PostgreSQL really picks.

interface PlanNode { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: PlanNode[] }

let server: TestServer;
let tenant: TestTenant;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await createTestTenant(server, 'plans');
});
afterAll(() => server?.close());

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/**
 * The plan of a list's page (`options` as a client sends them): `realistic` as PostgreSQL picks
 * it; `index` with sequential scans off (can an index serve it?); `ordered` with sorts off too
 * (can an index give the order?).
 */
async function planOf(list: RegisteredList, options: FilterBaseValues | null, mode: 'realistic' | 'index' | 'ordered'): Promise<{ nodes: PlanNode[]; table: string; sql: string }> {
  const em = server.orm.em.fork() as EntityManager;
  em.setFilterParams(TENANT_FILTER, { tenantId: tenant.id });
  const meta = em.getMetadata().get(list.entity);
  const find = toFindOptions(parseListOptions(options, list.spec), list.spec);
  const qb = em.createQueryBuilder(list.entity).select(meta.primaryKeys).where(find.where).orderBy(find.orderBy).limit(find.limit).offset(find.offset);
  await qb.applyFilters();
  const sql = qb.getFormattedQuery();
  const rows = await em.transactional(async (tx) => {
    if (mode !== 'realistic') await tx.getConnection().execute('set local enable_seqscan = off', [], 'run', tx.getTransactionContext());
    if (mode === 'ordered') await tx.getConnection().execute('set local enable_sort = off', [], 'run', tx.getTransactionContext());
    return tx.getConnection().execute<{ 'QUERY PLAN': { Plan: PlanNode }[] }[]>(`explain (format json) ${sql}`, [], 'all', tx.getTransactionContext());
  });
  return { nodes: nodes(rows[0]['QUERY PLAN'][0].Plan), table: meta.tableName, sql };
}

const describeNodes = (plan: PlanNode[]) => plan.map((node) => `${node['Node Type']}${node['Relation Name'] ? ` on ${node['Relation Name']}` : ''}${node['Index Name'] ? ` using ${node['Index Name']}` : ''}`).join(' > ');

describe('list plans', () => {
  const lists = listsDeclared();

  it('finds every list the areas declare', () => {
    expect(lists.length).toBeGreaterThanOrEqual(30);
  });

  it('reads every list\'s default page in index order within the tenant, without sorting the tenant\'s rows', async () => {
    const failures: string[] = [];
    for (const list of lists) {
      const plan = await planOf(list, null, 'ordered');
      const sorted = plan.nodes.some((node) => /Sort/.test(node['Node Type']));
      const scanned = plan.nodes.some((node) => node['Node Type'] === 'Seq Scan' && node['Relation Name'] === plan.table);
      if (sorted || scanned) failures.push(`${list.entity.name}: ${describeNodes(plan.nodes)}\n  ${plan.sql}`);
    }
    expect(failures).toEqual([]);
  });

  it('searches every list through an index, and a `many` list has a trigram index on each searched column of its table', async () => {
    const trigramIndexes = new Set((await server.orm.em.getConnection().execute<{ indexname: string }[]>(
      `select indexname from pg_indexes where indexdef like '%gin_trgm_ops%'`)).map((row) => row.indexname));
    const failures: string[] = [];
    for (const list of lists.filter((candidate) => candidate.spec.search.length > 0)) {
      const plan = await planOf(list, { Filter: 'needle' }, 'index');
      if (plan.nodes.some((node) => node['Node Type'] === 'Seq Scan' && node['Relation Name'] === plan.table)) {
        failures.push(`${list.entity.name} scans its table: ${describeNodes(plan.nodes)}`);
      }
      if (list.volume !== 'many') continue;
      const meta = server.orm.getMetadata().get(list.entity);
      for (const path of list.spec.search.map(String).filter((candidate) => !candidate.includes('.'))) {
        const column = (meta.properties as Record<string, { fieldNames: string[] }>)[path].fieldNames[0];
        if (!trigramIndexes.has(`${meta.tableName}_${column}_trgm`)) failures.push(`${list.entity.name}.${path}: no trigram index`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('on 20,000 analyzed vendors, PostgreSQL itself picks the list index for a page and the trigram indexes for a rare term', async () => {
    const connection = server.orm.em.getConnection();
    await connection.execute(
      `insert into vendor (tenant_id, name, name_key, website_url)
       select ?, 'Vendor ' || lpad(n::text, 6, '0'), 'vendor' || lpad(n::text, 6, '0'), 'https://vendor' || n || '.example'
       from generate_series(1, 20000) as n`, [tenant.id]);
    await connection.execute('vacuum analyze vendor'); // as autovacuum would: also moves GIN's pending entries into the index
    const vendors = lists.find((list) => list.entity.name === 'Vendor')!;

    const page = await planOf(vendors, { Take: 50, Skip: 100 }, 'realistic');
    expect(describeNodes(page.nodes)).toMatch(/Index (Only )?Scan on vendor using vendor_list_name/);
    expect(page.nodes.some((node) => /Sort/.test(node['Node Type']))).toBe(false);

    const search = await planOf(vendors, { Filter: 'r012345' }, 'realistic');
    expect(describeNodes(search.nodes)).toMatch(/Bitmap Index Scan using vendor_name_trgm/);
    expect(describeNodes(search.nodes)).toMatch(/Bitmap Index Scan using vendor_website_url_trgm/);
  });
});
