import 'reflect-metadata';
import { parseArgs } from 'node:util';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/core/config.js';
import { createLogger } from '../src/core/runtime/logger.js';
import { migrate, openOrm } from '../src/db/orm.js';
import { createTenant } from '../src/services/login/identity.js';
import { benchDatabase } from './support.js';

/**
 * `npm run build && node dist/bench/directory-search.js [--listings 100000]`: one tenant with a
 * public directory of N listings (embedded PostgreSQL, or DATABASE_URL's server), then the public
 * search over HTTP, sequentially: term searches (trigram index), a name prefix, a radius search.
 * Prints the median and 95th percentile of each, and the plan of the term search. A figure for
 * BENCHMARKS.md, not a test: nothing here asserts a time.
 */
const { values: options } = parseArgs({ options: { listings: { type: 'string', default: '100000' }, repeat: { type: 'string', default: '40' } } });
const count = Number(options.listings);
const repeat = Number(options.repeat);

const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', PUBLIC_RATE_LIMIT_PER_MINUTE: '0' });
const database = await benchDatabase('membership_directory_bench');
const orm = await openOrm({ url: database.url, poolMax: 10 });
try {
  await migrate(orm);
  const tenant = await createTenant(orm.em.fork(), { key: 'bench-directory', name: 'Directory benchmark' });
  const connection = orm.em.getConnection();
  const [directory] = await connection.execute<{ id: number }[]>(
    `insert into directory (tenant_id, name, is_public, category_list_ids, membership_type_ids, search_settings)
     values (?, 'Benchmark directory', true, '[]', '[]', '{"DisplayRadiusSearch": true}') returning id`, [tenant.id]);
  const started = Date.now();
  // Names and keywords from small vocabularies, so terms match realistic shares of the listings.
  await connection.execute(`
    with words as (select array['bakery','plumbing','dental','legal','cafe','garage','florist','books','fitness','printing','roofing','catering'] as w,
                          array['north','south','river','oak','maple','summit','harbor','valley','pine','cedar','lake','main'] as p)
    insert into contact (tenant_id, kind, name, email, addresses)
    select ?, 'organization', initcap(p[1 + i % 12]) || ' ' || initcap(w[1 + (i / 12) % 12]) || ' ' || i, 'info' || i || '@example.org',
           jsonb_build_array(jsonb_build_object('postalCode', lpad((10000 + i % 89999)::text, 5, '0')))
      from generate_series(1, ?) as i, words`, [tenant.id, count]);
  await connection.execute(`
    insert into directory_listing (tenant_id, directory_id, contact_id, name, keywords, short_description, category_item_ids, visibility, postal_code, latitude, longitude)
    select c.tenant_id, ?, c.id, c.name, 'keyword' || (c.id % 500), 'Serving the area since ' || (1950 + c.id % 70), jsonb_build_array(1 + c.id % 40),
           '{"Email": false, "Phone": true, "Address": true, "Website": true, "Description": true, "CustomFields": true}',
           c.addresses->0->>'postalCode', 25 + (c.id % 2300) / 100.0, -124 + (c.id % 5700) / 100.0
      from contact c where c.tenant_id = ?`, [directory.id, tenant.id]);
  await connection.execute('analyze directory_listing');
  console.log(`seeded ${count} listings in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const app = await buildApp({ config, orm, jobs: null, log: createLogger(config) });
  await app.listen('127.0.0.1', 0);
  const base = `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}/api/directory/directories/${directory.id}/public/find`;
  const scenarios: [string, string][] = [
    ['term (keyword42: 2,200 matches)', 'term=keyword42'],
    ['term, rare (keyword421: 200 matches)', 'term=keyword421'],
    ['term, common (bakery: 8,300 matches)', 'term=bakery'],
    ['term, two words (oak florist)', 'term=oak%20florist'],
    ['term, no match', 'term=zzzyyyxxx'],
    ['name starts with', 'namestartswithterm=maple'],
    ['category', `advfilter=${encodeURIComponent(JSON.stringify({ CategoryItemId: 7 }))}`],
    ['radius 25 miles', `advfilter=${encodeURIComponent(JSON.stringify({ RadiusMiles: 25, Latitude: 40, Longitude: -100 }))}`],
  ];
  for (const [label, query] of scenarios) {
    const times: number[] = [];
    let result = '';
    for (let index = 0; index < repeat; index++) {
      const begin = performance.now();
      const response = await fetch(`${base}?${query}`, { headers: { 'x-tenant-key': 'bench-directory' } });
      const body = await response.json() as { ResultCount: string };
      times.push(performance.now() - begin);
      result = `${response.status}, ${body.ResultCount} results`;
    }
    times.sort((a, b) => a - b);
    const at = (share: number) => times[Math.min(times.length - 1, Math.floor(share * times.length))].toFixed(1);
    console.log(`${label.padEnd(40)} median ${at(0.5)} ms, p95 ${at(0.95)} ms (${result})`);
  }
  const plan = await connection.execute<{ 'QUERY PLAN': string }[]>(
    `explain analyze select l.id, count(*) over () from directory_listing l
      where l.tenant_id = ? and l.directory_id = ? and l.deleted_at is null and l.is_visible and l.search_text like '%keyword42%'
      order by lower(l.name), l.id limit 50`, [tenant.id, directory.id]);
  console.log(plan.map((row) => row['QUERY PLAN']).join('\n'));
  await app.close();
} finally {
  await orm.close();
  await database.drop();
  await database.server.stop();
}
