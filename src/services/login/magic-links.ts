import type { EntityManager } from '@mikro-orm/postgresql';
import { choiceRule, type ArgumentRule } from '../../core/argument-rules.js';
import type { AppDeps, RequestContext } from '../../core/context.js';
import { BadInput, TooManyRequests } from '../../core/errors.js';
import { hashToken, newToken } from '../../core/runtime/secrets.js';
import { Login, MagicLinkToken, OutboxMessage, SignInRequest } from '../../entities/index.js';
import type { SessionToken } from '../../schema/login.js';
import { createSession, invalidLink, normalizeEmail } from './identity.js';
import { acrossTenants, acrossTenantsSql } from '../../core/data/tenant-sql.js';

/** The portals a link can sign in to: the staff back office, or the member hub. */
export const LOGIN_TYPES = ['hub', 'staff'] as const;
export type LoginType = (typeof LOGIN_TYPES)[number];
/** The portal a magic link signs in to (hub when not given). */
export const LOGIN_TYPE_RULE = choiceRule(LOGIN_TYPES);
const MAX_ADDRESSES = 10;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Sends a sign-in link to each known address. The answer is the same whether or not an address
 * is known (no account enumeration); the per-address rate limit counts every request, known
 * or not, so it reveals nothing either.
 */
/** The addresses a link is sent to: 1 to MAX_ADDRESSES e-mail addresses, answered normalized and without repeats. */
export const EMAILS_RULE: ArgumentRule<string[], string[]> = {
  schema: { type: 'array', minItems: 1, maxItems: MAX_ADDRESSES, items: { type: 'string', maxLength: 254, pattern: EMAIL.source } },
  parse(addresses, field) {
    if (addresses.length === 0 || addresses.length > MAX_ADDRESSES) throw BadInput.field(field, `must list 1 to ${MAX_ADDRESSES} e-mail addresses`);
    return [...new Set(addresses.map((address, index) => {
      const email = normalizeEmail(address);
      if (!EMAIL.test(email) || email.length > 254) throw BadInput.field(`${field}[${index}]`, 'is not an e-mail address');
      return email;
    }))];
  },
};

export async function requestMagicLinks(ctx: RequestContext, emails: string[], type: LoginType | null | undefined): Promise<true> {
  // An address may have logins in several tenants: the named cross-tenant path (row-level security).
  const { app } = ctx;
  const em = acrossTenants(ctx.em);
  const loginType = type ?? 'hub';

  await em.transactional(async (tx) => {
    await enforceRateLimit(app, tx, emails);
    // A disabled login (its contact archived) gets no link, and is not told so.
    const logins = await tx.find(Login, { email: { $in: emails }, disabledAt: null }, { filters: false, populate: ['tenant'] });
    for (const login of logins) {
      if (loginType === 'staff' && !login.roles.includes('staff')) continue;
      const token = newToken('mml');
      tx.create(MagicLinkToken, {
        tenant: login.tenant, login, tokenHash: hashToken(token), loginType,
        expiresAt: new Date(Date.now() + app.config.MAGIC_LINK_TTL_MINUTES * 60_000),
      });
      const link = `${app.publicBaseUrl}/signin?token=${encodeURIComponent(token)}`;
      tx.create(OutboxMessage, {
        tenant: login.tenant, channel: 'email', recipient: login.email,
        subject: `Sign in to ${login.tenant.name}`,
        body: `Use this link within ${app.config.MAGIC_LINK_TTL_MINUTES} minutes to sign in:\n${link}\n`,
      });
      // Development convenience only: the link is a credential, so production never logs it.
      if (app.config.NODE_ENV === 'development') app.log.info({ to: login.email, tenant: login.tenant.key, link }, 'magic link');
    }
  });
  return true;
}

async function enforceRateLimit(app: AppDeps, em: EntityManager, emails: string[]): Promise<void> {
  const hashes = emails.map(hashToken);
  const since = new Date(Date.now() - 3600_000);
  // At most (addresses × limit) rows, so counting them here is cheap.
  const recent = await em.find(SignInRequest, { addressHash: { $in: hashes }, requestedAt: { $gt: since } }, { fields: ['addressHash'] });
  const perAddress = new Map<string, number>();
  for (const { addressHash } of recent) perAddress.set(addressHash, (perAddress.get(addressHash) ?? 0) + 1);
  if ([...perAddress.values()].some((count) => count >= app.config.MAGIC_LINK_PER_HOUR)) throw new TooManyRequests(3600);
  for (const addressHash of hashes) em.create(SignInRequest, { addressHash });
}

/** Exchanges a link token (once) for a session. */
export async function redeemMagicLink(ctx: RequestContext, token: string): Promise<SessionToken> {
  // The token names the tenant: found on the named cross-tenant path (row-level security).
  const { app } = ctx;
  const em = acrossTenants(ctx.em);
  // One UPDATE both checks and consumes the token, so two concurrent redeems cannot both win.
  const consumed = await acrossTenantsSql(em).all<{ login_id: number }>(
    'UPDATE magic_link_token SET used_at = now() WHERE token_hash = ? AND used_at IS NULL AND expires_at > now() RETURNING login_id',
    [hashToken(token)],
  );
  const loginId = consumed[0]?.login_id;
  if (loginId === undefined) throw invalidLink();
  const login = await em.findOneOrFail(Login, { id: loginId }, { filters: false });
  if (login.disabledAt) throw invalidLink();
  const session = await createSession(em, login, app.config.SESSION_TTL_HOURS);
  return { Token: session.token, ExpiresAt: session.expiresAt?.toISOString() ?? null };
}
