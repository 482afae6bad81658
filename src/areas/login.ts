import { defineArea } from '../core/area.js';
import { Contact } from '../entities/contact.js';
import { Credential } from '../entities/credential.js';
import { Login } from '../entities/login.js';
import { MagicLinkToken, SignInRequest } from '../entities/magic-link.js';
import { Membership, MembershipLevel, MembershipType } from '../entities/membership.js';
import { SecurityQuestion } from '../entities/security-question.js';
import { Tenant } from '../entities/tenant.js';
import { LoginResolver } from '../resolvers/login.js';
import { loginRoutes } from '../rest/login.js';
import { housekeepingJob } from '../services/login/housekeeping.js';

/**
 * Tenants, contacts, logins and their credentials: the identity every other area builds on. No
 * `demo`: a tenant's logins are made with the tenant (services/seed/demo.ts, test/support/harness.ts).
 */
export const loginArea = defineArea({
  name: 'login',
  entities: [Tenant, SecurityQuestion, SignInRequest, Contact, Login, Credential, MagicLinkToken, MembershipType, MembershipLevel, Membership],
  resolvers: [LoginResolver],
  routes: loginRoutes,
  jobs: [housekeepingJob],
});
