import type { EntityManager } from '@mikro-orm/postgresql';
import { Tenant, Vendor } from '../entities/index.js';
import { vendorNameKey } from '../entities/vendor.js';
import { createLogin, createSession, createTenant, findLogin, type IssuedToken } from './identity.js';

export const DEMO_TENANT_KEY = 'demo';
export const DEMO_STAFF_EMAIL = 'staff@demo.example';

/** Makes the demo tenant (once) and answers a fresh staff session token for it. */
export async function ensureDemoTenant(em: EntityManager, sessionTtlHours: number): Promise<IssuedToken> {
  let tenant = await em.findOne(Tenant, { key: DEMO_TENANT_KEY });
  if (!tenant) {
    tenant = await createTenant(em, { key: DEMO_TENANT_KEY, name: 'Demo Association', domain: 'demo.example' });
    await createLogin(em, tenant, { email: DEMO_STAFF_EMAIL, role: 'staff', firstName: 'Dana', lastName: 'Staff' });
    await createLogin(em, tenant, { email: 'member@demo.example', role: 'member', firstName: 'Morgan', lastName: 'Member' });
    for (const [name, websiteUrl] of [['Acme Catering', 'https://catering.example'], ['Bright Print Co', 'https://print.example'], ['Civic Venues', null]] as const) {
      em.create(Vendor, { tenant, name, nameKey: vendorNameKey(name), websiteUrl });
    }
    await em.flush();
  }
  return createSession(em, await findLogin(em, tenant, DEMO_STAFF_EMAIL), sessionTtlHours);
}
