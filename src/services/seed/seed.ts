import { base, en, en_US, Faker } from '@faker-js/faker';
import type { EntityManager } from '@mikro-orm/postgresql';
import { todayUtc } from '../../core/dates.js';
import type { StartProgress } from '../../core/runtime/progress.js';
import { Tenant } from '../../entities/tenant.js';
import { createTenant } from '../login/identity.js';
import {
  SEED_EMAIL_DOMAIN, seedBillingSchedules, seedChapterLinks, seedChapters, seedDirectories, seedEvents, seedMembershipCatalog, seedMemberships,
  seedOrganizations, seedPeople, seedStore, seedVendors, type Seeding, type Volumes,
} from './seed-areas.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';

/**
 * `npm run seed -- --tenant KEY --size small|large [--seed N]`: fills a tenant with realistic
 * demo data (services/seed/seed-areas.ts writes each area). `large` has the benchmarks' volumes:
 * 10,000 people, 100,000 businesses listed in the public directory (bench/directory-search.ts)
 * and 100,000 vendors (the performance issue's vendor volume).
 *
 * A tenant is seeded once: the whole seed is one transaction, so a tenant holds either all of it
 * or none (a failed run leaves nothing to clean up), and a second run refuses with a message
 * rather than doubling the data. Two runs at once on one tenant queue on an advisory lock and the
 * second then refuses. Inside that transaction autovacuum sees none of the seed's rows, so the
 * seed refreshes the planner's statistics itself as it grows the tables (seed-areas.ts).
 */

export const SEED_SIZES = {
  small: { people: 250, organizations: 50, chapters: 6, vendors: 100, storeItems: 24, events: 12, registrationsPerEvent: [5, 30] },
  large: { people: 10_000, organizations: 100_000, chapters: 40, vendors: 100_000, storeItems: 200, events: 120, registrationsPerEvent: [10, 120] },
} as const satisfies Record<string, Volumes>;

export type SeedSize = keyof typeof SEED_SIZES;

export interface SeedOptions {
  tenantKey: string;
  /** Name of the tenant when the seed creates it. */
  tenantName?: string;
  size: SeedSize;
  /** The faker seed: the same seed makes the same data. */
  seed: number;
  progress: StartProgress;
}

export interface SeedResult {
  tenantKey: string;
  tenantCreated: boolean;
  /** Rows written per kind of record. */
  counts: Record<string, number>;
  seconds: number;
}

export class AlreadySeeded extends Error {}

export async function seedTenant(em: EntityManager, options: SeedOptions): Promise<SeedResult> {
  const started = Date.now();
  const key = options.tenantKey.toLowerCase();
  let tenant = await em.findOne(Tenant, { key });
  const tenantCreated = !tenant;
  tenant ??= await createTenant(em, { key, name: options.tenantName ?? defaultTenantName(key) });
  const faker = new Faker({ locale: [en_US, en, base] });
  faker.seed(options.seed);
  const seeding: Seeding = {
    em, tenantId: tenant.id, tenantName: tenant.name, faker, volumes: SEED_SIZES[options.size], today: todayUtc(), progress: options.progress, counts: {},
  };
  await em.transactional(async (tx) => {
    seeding.em = tx;
    await tx.execute('SELECT pg_advisory_xact_lock(?, hashtext(?))', [tenant.id, 'seed']);
    const [seeded] = await tenantSql({ em: tx, tenantId: tenant.id }).all<unknown>(`SELECT 1 FROM contact WHERE ${tenantIs()} AND email LIKE ? LIMIT 1`, [`%.${SEED_EMAIL_DOMAIN}`]);
    if (seeded) {
      throw new AlreadySeeded(`tenant "${key}" already has seed data (contacts at ${SEED_EMAIL_DOMAIN}); nothing was changed. Seed another tenant, or delete this one first.`);
    }
    const catalog = await seedMembershipCatalog(seeding);
    const chapters = await seedChapters(seeding);
    const organizations = await seedOrganizations(seeding, chapters);
    const people = await seedPeople(seeding, chapters, organizations);
    await seedChapterLinks(seeding, chapters, people);
    const memberships = await seedMemberships(seeding, catalog, people, organizations);
    await seedDirectories(seeding, organizations, people, memberships);
    await seedStore(seeding);
    await seedEvents(seeding, chapters, people);
    await seedBillingSchedules(seeding, memberships);
    await seedVendors(seeding);
  });
  // Fresh statistics, so the first queries on a large tenant are planned on its real size.
  const analyze = options.progress('analyze', 1);
  await em.execute('ANALYZE contact, membership, contact_chapter, directory_listing, vendor, event_registration, scheduled_billing');
  analyze.tick();
  analyze.finish();
  return { tenantKey: key, tenantCreated, counts: seeding.counts, seconds: (Date.now() - started) / 1000 };
}

function defaultTenantName(key: string): string {
  return `${key.replace(/-+/g, ' ').replace(/\b\w/g, (letter) => letter.toUpperCase())} Association`;
}

/** The summary the CLI prints: one line per kind of record. */
export function describeSeed(result: SeedResult, size: SeedSize, seed: number): string {
  const { counts } = result;
  const contacts = (counts.people ?? 0) + (counts.organizations ?? 0) + (counts['chapter contacts'] ?? 0);
  const line = (kind: string, count: number) => `  ${kind.padEnd(28)} ${count.toLocaleString('en-US')}`;
  return [
    `tenant ${result.tenantKey} ${result.tenantCreated ? 'created and ' : ''}seeded (${size}, seed ${seed}) in ${result.seconds.toFixed(1)} s:`,
    line('contacts (all kinds)', contacts),
    ...Object.entries(counts).map(([kind, count]) => line(kind, count)),
  ].join('\n');
}
