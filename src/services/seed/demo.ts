import type { EntityManager } from '@mikro-orm/postgresql';
import { areas } from '../../areas/index.js';
import { Tenant } from '../../entities/index.js';
import { createLogin, createSession, createTenant, findLogin, type IssuedToken } from '../login/identity.js';

export const DEMO_TENANT_KEY = 'demo';
export const DEMO_STAFF_EMAIL = 'staff@demo.example';

/** Makes the demo tenant (once), with each area's demo records, and answers a fresh staff session token for it. */
export async function ensureDemoTenant(em: EntityManager, sessionTtlHours: number): Promise<IssuedToken> {
  let tenant = await em.findOne(Tenant, { key: DEMO_TENANT_KEY });
  if (!tenant) {
    tenant = await createTenant(em, { key: DEMO_TENANT_KEY, name: 'Demo Association', domain: 'demo.example' });
    await createLogin(em, tenant, { email: DEMO_STAFF_EMAIL, role: 'staff', firstName: 'Dana', lastName: 'Staff' });
    await createLogin(em, tenant, { email: 'member@demo.example', role: 'member', firstName: 'Morgan', lastName: 'Member' });
    await seedAreas(em, tenant, '');
  }
  return createSession(em, await findLogin(em, tenant, DEMO_STAFF_EMAIL), sessionTtlHours);
}

/** Every area's demo records in `tenant`, with `marker` in their text (see `Area.demo`). */
export async function seedAreas(em: EntityManager, tenant: Tenant, marker: string): Promise<void> {
  for (const area of areas) await area.demo?.(em, tenant, marker);
  await em.flush();
}
