import type { EntityManager } from '@mikro-orm/postgresql';
import type { Caller } from '../../core/context.js';
import type { CredentialCache } from '../../core/requests/credential-cache.js';
import { BadInput, NotFound, Unauthenticated } from '../../core/errors.js';
import { isOneOf, TENANT_KEY_PATTERN } from '../../core/values.js';
import { hashToken, newToken } from '../../core/runtime/secrets.js';
import { acrossTenants } from '../../core/data/tenant-sql.js';
import { Contact, Credential, Login, Tenant } from '../../entities/index.js';
import { ROLES, type Role } from '../../entities/login.js';

/**
 * Credentials and accounts, below the tenant filter: these run before a tenant is known
 * (authentication, sign-in) or on behalf of an operator (CLI), so every query here names the
 * tenant itself and disables the filters explicitly.
 */

const BEARER = /^Bearer\s+([A-Za-z0-9_.~+/=-]{10,200})$/i;
const SESSION_PREFIX = 'mms';
const API_KEY_PREFIX = 'mmk';

interface CredentialRow {
  id: number;
  tenant_id: number;
  login_id: number;
  contact_id: number | null;
  email: string;
  kind: string;
  roles: Role[];
  expires_at: Date | null;
  last_used_at: Date | null;
}

/**
 * The caller behind an `Authorization: Bearer …` header, or null when absent, unknown, revoked or
 * expired. Runs on every request: answered from `cache` when this instance knows the credential
 * (revocations clear it at once, see CredentialCache), else one plain SQL statement.
 */
export async function authenticate(em: EntityManager, authorization: string | undefined, cache?: CredentialCache): Promise<Caller | null> {
  const match = authorization ? BEARER.exec(authorization) : null;
  if (!match) return null;
  const tokenHash = hashToken(match[1]);
  const generation = cache?.currentGeneration ?? 0;
  let known = cache?.get(tokenHash);
  // The credential names the tenant: found across tenants, on the named path (row-level security).
  const across = () => acrossTenants(em);
  if (!known) {
    const finder = across();
    const [row] = await finder.execute<CredentialRow[]>(
      `SELECT c.id, c.tenant_id, c.login_id, l.contact_id, l.email, c.kind, l.roles, c.expires_at, c.last_used_at
       FROM credential c JOIN login l ON l.id = c.login_id
       WHERE c.token_hash = ? AND c.revoked_at IS NULL AND l.disabled_at IS NULL LIMIT 1`,
      [tokenHash], 'all', finder.getLoggerContext(),
    );
    if (!row) return null;
    known = {
      caller: { tenantId: row.tenant_id, loginId: row.login_id, contactId: row.contact_id, roles: row.roles, credentialId: row.id, login: row.email, credentialKind: row.kind },
      expiresAt: row.expires_at ? new Date(row.expires_at).getTime() : null,
      lastUsedAt: row.last_used_at ? new Date(row.last_used_at).getTime() : null,
    };
    cache?.remember(tokenHash, known, generation);
  }
  const now = Date.now();
  if (known.expiresAt !== null && known.expiresAt <= now) return null;
  if (known.lastUsedAt === null || now - known.lastUsedAt >= LAST_USED_PRECISION_MS) {
    known.lastUsedAt = now;
    await across().nativeUpdate(Credential, { id: known.caller.credentialId }, { lastUsedAt: new Date(now) }, { filters: false });
  }
  return known.caller;
}

/** How stale `lastUsedAt` may get before a request refreshes it (a write on every request would cost too much). */
const LAST_USED_PRECISION_MS = 5 * 60_000;

export interface IssuedToken {
  token: string;
  credentialId: number;
  expiresAt: Date | null;
}

/** Starts a session for a login; the token is returned once and only its hash is kept. */
export async function createSession(em: EntityManager, login: Login, ttlHours: number): Promise<IssuedToken> {
  refuseDisabled(login);
  const token = newToken(SESSION_PREFIX);
  const expiresAt = new Date(Date.now() + ttlHours * 3600_000);
  const credential = em.create(Credential, { tenant: login.tenant, login, kind: 'session', tokenHash: hashToken(token), expiresAt });
  await em.persist(credential).flush();
  login.lastSignInAt = new Date();
  await em.flush();
  return { token, credentialId: credential.id, expiresAt };
}

/** Creates a named API key for a login; the token is shown once. */
export async function createApiKey(em: EntityManager, login: Login, name: string, expiresAt: Date | null): Promise<IssuedToken> {
  refuseDisabled(login);
  if (!name.trim() || name.length > 100) throw BadInput.field('name', 'must be 1 to 100 characters');
  const token = newToken(API_KEY_PREFIX);
  const credential = em.create(Credential, { tenant: login.tenant, login, kind: 'api_key', name: name.trim(), tokenHash: hashToken(token), expiresAt });
  await em.persist(credential).flush();
  return { token, credentialId: credential.id, expiresAt };
}

/** A disabled login (its contact archived) gets no new credential. */
function refuseDisabled(login: Login): void {
  if (login.disabledAt) throw new Unauthenticated('This login is disabled.');
}

/**
 * Lets a login disabled by archiving its contact sign in again (its revoked credentials stay
 * revoked); refused while the contact is still archived.
 */
export async function enableLogin(em: EntityManager, login: Login): Promise<void> {
  if (login.contact && (await em.count(Contact, { id: login.contact.id, tenant: login.tenant, deletedAt: { $ne: null } }, { filters: false }))) {
    throw BadInput.field('email', 'signs in as an archived contact; restore the contact first');
  }
  login.disabledAt = null;
  await em.flush();
}

/** Revokes an API key of a tenant by id; revoking twice is harmless. */
export async function revokeApiKey(em: EntityManager, tenant: Tenant, credentialId: number): Promise<void> {
  const credential = await em.findOne(Credential, { id: credentialId, tenant, kind: 'api_key' }, { filters: false });
  if (!credential) throw new NotFound('The API key');
  credential.revokedAt ??= new Date();
  await em.flush();
}

export async function findTenant(em: EntityManager, key: string): Promise<Tenant> {
  const tenant = await em.findOne(Tenant, { key: key.toLowerCase() });
  if (!tenant) throw new NotFound(`Tenant "${key}"`);
  return tenant;
}

export async function findLogin(em: EntityManager, tenant: Tenant, email: string): Promise<Login> {
  const login = await em.findOne(Login, { tenant, email: normalizeEmail(email) }, { filters: false, populate: ['contact'] });
  if (!login) throw new NotFound(`Login "${email}" in tenant "${tenant.key}"`);
  return login;
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function createTenant(em: EntityManager, input: { key: string; name: string; domain?: string | null }): Promise<Tenant> {
  const key = input.key.toLowerCase();
  if (!TENANT_KEY_PATTERN.test(key)) throw BadInput.field('key', 'must be 2-63 lower-case letters, digits or dashes');
  if (!input.name.trim()) throw BadInput.field('name', 'is required');
  if (await em.findOne(Tenant, { key })) throw BadInput.field('key', `tenant "${key}" already exists`);
  const tenant = em.create(Tenant, { key, name: input.name.trim(), domain: input.domain ?? null });
  await em.persist(tenant).flush();
  return tenant;
}

/** Creates a login (and the person contact it signs in as) in a tenant. */
export async function createLogin(
  em: EntityManager,
  tenant: Tenant,
  input: { email: string; role: string; firstName?: string; lastName?: string },
): Promise<Login> {
  const email = normalizeEmail(input.email);
  if (!EMAIL.test(email)) throw BadInput.field('email', 'is not an e-mail address');
  const role = input.role;
  if (!isOneOf(ROLES, role)) throw BadInput.field('role', `must be one of ${ROLES.join(', ')}`);
  if (await em.findOne(Login, { tenant, email }, { filters: false })) throw BadInput.field('email', 'already has a login in this tenant');
  const contact = em.create(Contact, {
    tenant,
    kind: 'person',
    email,
    firstName: input.firstName ?? email.split('@')[0],
    lastName: input.lastName ?? null,
  });
  const login = em.create(Login, { tenant, email, contact, roles: [role] });
  await em.persist([contact, login]).flush();
  return login;
}

export function invalidLink(): Unauthenticated {
  return new Unauthenticated('The sign-in link is invalid, used or expired.');
}
