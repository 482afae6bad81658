import { afterAll, describe, expect, it } from '@jest/globals';
import { rest, startTestServer } from './support/harness.js';
import { runCli } from './support/processes.js';
import { progressReporter } from '../src/core/runtime/progress.js';

/** `npm run seed`: the built CLI as a child process (stdout and stderr are pipes, not a terminal) against this file's database. */

const server = await startTestServer();
afterAll(() => server.close());

const cli = (...args: string[]) => runCli(server.databaseUrl, ...args);

/** Rows per table of one tenant. */
async function countsOf(tenantKey: string): Promise<Record<string, number>> {
  const tables = ['contact', 'membership', 'membership_type', 'chapter', 'contact_chapter', 'directory', 'directory_listing', 'store_item', 'saleable_item',
    'event', 'event_registration', 'scheduled_billing', 'vendor', 'invoice', 'payment'];
  const counts = await server.orm.em.getConnection().execute<Record<string, string>[]>(
    `SELECT ${tables.map((table) => `(SELECT count(*) FROM "${table}" WHERE tenant_id = t.id) AS "${table}"`).join(', ')} FROM tenant t WHERE t.key = ?`, [tenantKey]);
  return Object.fromEntries(Object.entries(counts[0]).map(([table, count]) => [table, Number(count)]));
}

async function staffToken(tenantKey: string): Promise<string> {
  expect((await cli('login', 'create', '--tenant', tenantKey, '--email', `staff@${tenantKey}.example`, '--role', 'staff')).code).toBe(0);
  const issued = await cli('token', '--tenant', tenantKey, '--email', `staff@${tenantKey}.example`);
  expect(issued.code).toBe(0);
  return issued.stdout.trim();
}

describe('seed command', () => {
  let first: Record<string, number>;

  it('creates the tenant and fills every area with the small volumes, printing plain progress lines when not on a terminal', async () => {
    const seeded = await cli('seed', '--tenant', 't1', '--size', 'small');
    expect(seeded.stderr).not.toContain('error');
    expect(seeded.code).toBe(0);
    expect(seeded.stdout).toMatch(/^tenant t1 created and seeded \(small, seed 1\) in [\d.]+ s:/);
    expect(seeded.stdout).toMatch(/contacts \(all kinds\) +30\d\n/);
    // Progress: plain lines on stderr, no ANSI codes (no bar) without a terminal.
    expect(seeded.stderr).not.toContain('\u001b[');
    expect(seeded.stderr).toMatch(/^people: 250\/250 done in [\d.]+ s$/m);
    expect(seeded.stderr).toMatch(/^vendors: 100\/100 done in [\d.]+ s$/m);

    first = await countsOf('t1');
    expect(first).toMatchObject({
      contact: 307, // 250 people, 50 businesses, the top-level organization and six chapters
      membership_type: 4, chapter: 7, directory: 2, store_item: 24, event: 12, vendor: 100,
    });
    const ranges: Record<string, [number, number]> = {
      membership: [200, 360],
      contact_chapter: [150, 260],
      directory_listing: [50 + 100, 50 + 220], // every business, and the people whose membership is active
      saleable_item: [4 + 24 + 12, 4 + 24 + 36], // dues, store items, event registration types
      event_registration: [12 * 3, 12 * 30],
      scheduled_billing: [100, 250],
      invoice: [200, 360], // one per membership term (its dues)
      payment: [180, 350], // every term's invoice but the pending ones'
    };
    for (const [table, [min, max]] of Object.entries(ranges)) {
      expect({ table, count: first[table], inRange: first[table] >= min && first[table] <= max }).toEqual({ table, count: first[table], inRange: true });
    }
    const [consistency] = await server.orm.em.getConnection().execute<Record<string, string>[]>(
      `SELECT (SELECT count(*) FROM event WHERE seats_taken > coalesce(capacity, seats_taken)) AS overbooked,
              (SELECT count(*) FROM membership m WHERE m.status = 'active' AND NOT EXISTS (SELECT 1 FROM scheduled_billing s WHERE s.membership_id = m.id)) AS unscheduled,
              (SELECT count(*) FROM membership m JOIN contact c ON c.id = m.contact_id WHERE c.tenant_id <> m.tenant_id) AS foreign,
              (SELECT count(*) FROM membership m LEFT JOIN invoice i ON i.source_key = 'membership:' || m.id
                WHERE i.status IS DISTINCT FROM (CASE m.status WHEN 'pending' THEN 'open' ELSE 'paid' END)) AS misbilled,
              (SELECT count(*) FROM membership m WHERE m.status = 'lapsed' AND (m.good_through >= current_date OR m.status_override)) AS "lapsedEarly",
              (SELECT count(DISTINCT status) FROM membership) AS statuses`);
    // Each term billed once: paid (which activated it) unless pending; lapsed only past its grace days, and handed back to the lapse job.
    expect(consistency).toEqual({ overbooked: '0', unscheduled: '0', foreign: '0', misbilled: '0', lapsedEarly: '0', statuses: '4' });
  }, 60_000);

  it('makes records the API reads: vendors, directories and their public search, chapters', async () => {
    const token = await staffToken('t1');
    first = await countsOf('t1'); // with the staff login's contact
    const vendors = await rest(server, 'GET', `/api/vendors?options=${encodeURIComponent(JSON.stringify({ Take: 1000 }))}`, { token });
    expect(vendors.status).toBe(200);
    expect(vendors.body).toHaveLength(100);
    expect(vendors.body[0]).toMatchObject({ VendorId: expect.any(Number), Name: expect.any(String) });
    for (const vendor of vendors.body as { WebsiteUrl: string | null }[]) expect(vendor.WebsiteUrl ?? 'https://www.none.example').toMatch(/^https:\/\/www\.[a-z0-9-]+\.example$/);

    const directories = await rest(server, 'GET', '/api/directory/directories', { token });
    expect(directories.status).toBe(200);
    const business = (directories.body as { DirectoryId: number; Name: string }[]).find((directory) => directory.Name === 'Business directory')!;
    expect(business).toBeDefined();
    const found = await rest(server, 'GET', `/api/directory/directories/${business.DirectoryId}/public/find`, { headers: { 'x-tenant-key': 't1' } });
    expect(found.status).toBe(200);
    expect(found.body.ListItems.length).toBeGreaterThan(10);

    const chapters = await rest(server, 'GET', '/api/chapters/chapters/lookup', { token });
    expect(chapters.status).toBe(200);
    expect(chapters.body).toHaveLength(6);
  }, 60_000);

  it('refuses a second run on a seeded tenant and changes nothing', async () => {
    const again = await cli('seed', '--tenant', 't1', '--size', 'small');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('tenant "t1" already has seed data');
    expect(again.stdout).toBe('');
    expect(await countsOf('t1')).toEqual(first);
  }, 60_000);

  it('keeps tenants apart, and makes the same data from the same seed', async () => {
    expect((await cli('seed', '--tenant', 't2', '--size', 'small', '--seed', '2')).code).toBe(0);
    expect((await cli('seed', '--tenant', 't3', '--size', 'small', '--seed', '1', '--name', 'Third Tenant')).code).toBe(0);
    expect(await countsOf('t1')).toEqual(first);
    expect((await countsOf('t2')).vendor).toBe(100);

    const vendorNames = async (tenantKey: string) => {
      const token = await staffToken(tenantKey);
      const response = await rest(server, 'GET', `/api/vendors?options=${encodeURIComponent(JSON.stringify({ Take: 1000, OrderBy: 'Name' }))}`, { token });
      return (response.body as { VendorId: number; Name: string }[]);
    };
    const [t2, t3] = [await vendorNames('t2'), await vendorNames('t3')];
    const t1 = (await server.orm.em.getConnection().execute<{ id: number; name: string }[]>(
      `SELECT v.id, v.name FROM vendor v JOIN tenant t ON t.id = v.tenant_id WHERE t.key = 't1' ORDER BY v.name`));
    // t2 sees only its own vendors; t3 (seed 1, like t1) has t1's names under its own ids.
    expect(t2).toHaveLength(100);
    expect(t2.map((vendor) => vendor.VendorId).filter((id) => t1.some((row) => row.id === id))).toEqual([]);
    expect(t3.map((vendor) => vendor.Name)).toEqual(t1.map((row) => row.name));
    expect(t2.map((vendor) => vendor.Name)).not.toEqual(t1.map((row) => row.name));
  }, 90_000);

  it('shows progress as a bar on a terminal and as a line per tenth otherwise', () => {
    const written: string[] = [];
    const plain = progressReporter({ write: (text: string) => written.push(text) })('rows', 250);
    for (let batch = 0; batch < 10; batch++) plain.tick(25);
    plain.finish();
    expect(written.slice(0, -1)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9].map((tenth) => `rows: ${tenth * 25}/250 (${tenth * 10}%)\n`));
    expect(written.at(-1)).toMatch(/^rows: 250\/250 done in [\d.]+ s\n$/);

    const drawn: string[] = [];
    const bar = progressReporter({ write: (text: string) => drawn.push(text), isTTY: true, columns: 100, cursorTo: () => true, clearLine: () => true, moveCursor: () => true } as never)('rows', 4);
    bar.tick(4);
    bar.finish();
    expect(drawn.join('')).toContain('rows');
    expect(drawn.join('')).toContain('4/4');
  });

  it('explains wrong usage with exit code 2', async () => {
    const size = await cli('seed', '--tenant', 't4', '--size', 'huge');
    expect(size.code).toBe(2);
    expect(size.stderr).toContain('--size must be small or large');
    const seed = await cli('seed', '--tenant', 't4', '--size', 'small', '--seed', 'x');
    expect(seed.code).toBe(2);
    expect((await cli('seed', '--help')).stdout).toMatch(/^Usage: npm run cli -- seed --tenant KEY --size small\|large/);
  }, 60_000);
});
