import { LRUCache } from 'lru-cache';
import type pg from 'pg';
import type { ArgumentRule } from '../../core/argument-rules.js';
import type { RequestContext } from '../../core/context.js';
import { BadInput } from '../../core/errors.js';
import { leanRows } from '../../core/data/lean-read.js';
import { inTransaction } from '../../core/data/records.js';
import { TenantCorsOrigin } from '../../entities/cors-origin.js';

/*
 * Per-tenant CORS origins. A tenant's staff list the browser origins of their own sites; such an
 * origin is allowed (besides the instance's CORS_ORIGINS, which apply to every request) on the
 * requests addressed to that tenant without a credential: on the tenant's own domain as the
 * Host, or with `?tenant=<tenant key>` in the URL (X-Tenant-Key too, but a preflight carries no
 * such header, so a page on the tenant's origin calling another host adds `?tenant=`). The tenant
 * has to be named that way because a preflight carries no credential: which tenant a browser
 * request serves is only known from its URL and Host. One tenant's origins therefore never open
 * another tenant's requests to a site.
 */

/** How many origins one tenant may list. */
export const MAX_TENANT_CORS_ORIGINS = 20;

/** `scheme://host[:port]`: a DNS name or IPv4 address, or a bracketed IPv6 address. */
const HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])$/;

/** A tenant's allowed origins, sorted. */
export async function corsOrigins(ctx: RequestContext): Promise<string[]> {
  const rows = await leanRows(ctx.reader, TenantCorsOrigin, { fields: ['origin'], where: {}, orderBy: [{ origin: 'asc' }], limit: MAX_TENANT_CORS_ORIGINS });
  return rows.map((row) => row.origin);
}

/** A host name label as the document states it: a letter first, no "--" (an IDNA prefix), at most 61 characters. */
const LABEL = '[a-z]([a-z0-9]|-[a-z0-9]){0,30}';
const PORT = '([1-9]\\d{0,3}|[1-5]\\d{4}|6[0-4]\\d{3}|65[0-4]\\d{2}|655[0-2]\\d|6553[0-5])';

/** The origins a save takes, normalized and sorted without repeats (the document states a plain lower-case origin; any case and a final / pass too). */
export const ORIGINS_RULE: ArgumentRule<string[], string[]> = {
  schema: {
    type: 'array', maxItems: MAX_TENANT_CORS_ORIGINS,
    items: { type: 'string', maxLength: 300, pattern: `^https?://${LABEL}(\\.${LABEL})*(:${PORT})?$`, description: 'An origin: http:// or https://, a host name and an optional port.' },
  },
  parse(origins, field) {
    if (origins.length > MAX_TENANT_CORS_ORIGINS) throw BadInput.field(field, `must list at most ${MAX_TENANT_CORS_ORIGINS} origins`);
    return [...new Set(origins.map((origin, index) => normalizedOrigin(origin, `${field}[${index}]`)))].sort();
  },
};

/** Replaces a tenant's allowed origins with `wanted` (by ORIGINS_RULE); answers them. */
export async function saveCorsOrigins(ctx: RequestContext, wanted: string[]): Promise<string[]> {
  await inTransaction(ctx, async () => {
    const { em } = ctx;
    await em.nativeDelete(TenantCorsOrigin, { origin: { $nin: wanted } });
    const kept = new Set((await leanRows(em, TenantCorsOrigin, { fields: ['origin'], where: {} })).map((row) => row.origin));
    for (const origin of wanted.filter((candidate) => !kept.has(candidate))) em.create(TenantCorsOrigin, { tenant: ctx.tenantId, origin });
    await em.flush();
  });
  ctx.app.corsOrigins.forget();
  return wanted;
}

/** An origin as browsers send it (`https://portal.example.org`, `http://localhost:5173`), else 400 naming `field`. */
export function normalizedOrigin(value: string, field: string): string {
  const refuse = () => BadInput.field(field, 'must be an origin: http:// or https://, a host name and an optional port, nothing else');
  const text = value.trim().replace(/\/$/, '');
  if (text.length > 300 || !/^https?:\/\/[^/?#@\\]+$/i.test(text)) throw refuse();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse();
  }
  if (!HOST.test(url.hostname)) throw refuse();
  return url.origin;
}

/**
 * The origins of the tenant a request names (by key or domain), kept for 30 seconds per name
 * (at most 1000 names), so that cross-origin requests cost no query each. A save on this
 * instance forgets them at once; other instances see it within those 30 seconds.
 */
export class TenantCorsOrigins {
  private readonly byName: LRUCache<string, ReadonlySet<string>>;

  constructor(pool: pg.Pool) {
    this.byName = new LRUCache<string, ReadonlySet<string>>({
      max: 1000,
      ttl: 30_000,
      fetchMethod: async (name) => {
        const [kind, value] = [name.slice(0, name.indexOf(':')), name.slice(name.indexOf(':') + 1)];
        const { rows } = await pool.query<{ origin: string }>(
          `select o.origin from tenant_cors_origin o join tenant t on t.id = o.tenant_id where ${kind === 'key' ? 't.key = $1' : 'lower(t.domain) = $1'}`,
          [value],
        );
        return new Set<string>(rows.map((row) => row.origin));
      },
    });
  }

  /** Whether the tenant named by `tenantKey` (else by the Host, `domain`) allows `origin`. */
  async allows(origin: string, tenant: { tenantKey: string | null; host: string | null }): Promise<boolean> {
    const name = tenant.tenantKey ? `key:${tenant.tenantKey}` : tenant.host ? `domain:${tenant.host}` : null;
    if (!name) return false;
    return (await this.byName.fetch(name))?.has(origin) ?? false;
  }

  forget(): void {
    this.byName.clear();
  }
}
