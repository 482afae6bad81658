import type { RequestContext } from '../../core/context.js';
import { idOf, leanRows } from '../../core/data/lean-read.js';
import { withDuplicateLock } from '../../core/data/records.js';
import { Chapter } from '../../entities/chapter.js';
import { Contact } from '../../entities/contact.js';
import { Tenant } from '../../entities/tenant.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';

/*
 * The organization hierarchy of a tenant: its top-level organization and the chapters below it
 * (organization contacts linked by `contact.parent`). Lookups read the whole hierarchy once (one
 * statement, at most HIERARCHY_LIMIT organizations) and walk it in memory; the cycle check of a
 * re-parenting walks up from the new parent in SQL, under the chapter lock.
 */

/** The most organizations a hierarchy lookup reads. */
export const HIERARCHY_LIMIT = 5000;

/** One organization of the hierarchy. */
export interface Organization {
  id: number;
  name: string;
  parentId: number | null;
  isTopLevel: boolean;
  paymentGatewayId: string | null;
}

/** The lock every change of the hierarchy (chapter save or delete) takes: one per tenant. */
export function withChapterLock<R>(ctx: RequestContext, work: () => Promise<R>): Promise<R> {
  return withDuplicateLock(ctx, 'chapter', 'hierarchy', work);
}

/**
 * The id of the tenant's top-level organization, made on demand (an organization contact named
 * after the tenant, flagged in its Chapter row; the partial unique index and the chapter lock
 * make two first calls agree on one).
 */
export async function topLevelOrganizationId(ctx: RequestContext): Promise<number> {
  const existing = await findTopLevel(ctx);
  if (existing !== null) return existing;
  return withChapterLock(ctx, async () => {
    const again = await findTopLevel(ctx);
    if (again !== null) return again;
    const tenant = await ctx.em.findOneOrFail(Tenant, { id: ctx.tenantId });
    const contact = ctx.em.create(Contact, { tenant: ctx.tenantId, kind: 'organization', name: tenant.name });
    ctx.em.create(Chapter, { tenant: ctx.tenantId, contact, isTopLevel: true, name: tenant.name, nameKey: foldKey(tenant.name) });
    await ctx.em.flush();
    return contact.id;
  });
}

async function findTopLevel(ctx: RequestContext): Promise<number | null> {
  const [row] = await leanRows(ctx.reader, Chapter, { fields: ['contact'], where: { isTopLevel: true }, limit: 1 });
  return row ? idOf(row.contact) : null;
}

/** Every live organization of the hierarchy, the top level first, then by name. */
export async function readHierarchy(ctx: RequestContext): Promise<Organization[]> {
  const rows = await tenantSql(ctx).all<{ id: number; name: string; parent_id: number | null; is_top_level: boolean; payment_gateway_id: string | null }>(
    `SELECT ch.contact_id AS id, ch.name, c.parent_id, ch.is_top_level, ch.payment_gateway_id
       FROM chapter ch JOIN contact c ON c.id = ch.contact_id AND c.tenant_id = ch.tenant_id
      WHERE ${tenantIs('ch')} AND c.deleted_at IS NULL
      ORDER BY ch.is_top_level DESC, ch.name, ch.contact_id
      LIMIT ?`, [HIERARCHY_LIMIT]);
  return rows.map((row) => ({ id: row.id, name: row.name, parentId: row.parent_id, isTopLevel: row.is_top_level, paymentGatewayId: row.payment_gateway_id }));
}

/** The organizations below `rootId` (its children, theirs, …), in the hierarchy's order. */
export function descendantsOf(hierarchy: Organization[], rootId: number): Organization[] {
  const children = new Map<number, number[]>();
  for (const org of hierarchy) if (org.parentId !== null) children.set(org.parentId, [...(children.get(org.parentId) ?? []), org.id]);
  const below = new Set<number>();
  const queue = [rootId];
  while (queue.length) {
    for (const child of children.get(queue.shift()!) ?? []) {
      if (!below.has(child) && child !== rootId) {
        below.add(child);
        queue.push(child);
      }
    }
  }
  return hierarchy.filter((org) => below.has(org.id));
}

/** The payment gateway an organization takes payments through: its own, else its nearest ancestor's. */
export function effectiveGateway(hierarchy: Organization[]): (org: Organization) => string | null {
  const byId = new Map(hierarchy.map((org) => [org.id, org]));
  return (org) => {
    const seen = new Set<number>();
    for (let at: Organization | undefined = org; at && !seen.has(at.id); at = at.parentId === null ? undefined : byId.get(at.parentId)) {
      if (at.paymentGatewayId) return at.paymentGatewayId;
      seen.add(at.id);
    }
    return null;
  };
}

/** The ids above `organizationId` (its parent, the parent's parent, …), walked in SQL. */
export async function ancestorIds(ctx: RequestContext, organizationId: number): Promise<number[]> {
  const rows = await tenantSql(ctx).all<{ id: number }>(
    `WITH RECURSIVE up(id, depth) AS (
       SELECT parent_id, 1 FROM contact WHERE id = ? AND ${tenantIs()}
       UNION
       SELECT c.parent_id, up.depth + 1 FROM contact c JOIN up ON c.id = up.id WHERE ${tenantIs('c')} AND up.depth < 10000
     ) SELECT id FROM up WHERE id IS NOT NULL`, [organizationId]);
  return rows.map((row) => row.id);
}

/**
 * The caller's current organization (its contact's `organization`) when it is part of the
 * hierarchy; otherwise — no contact, no organization, or one outside it — the top level.
 */
export async function callerOrganizationId(ctx: RequestContext, hierarchy: Organization[]): Promise<number | null> {
  const top = hierarchy.find((org) => org.isTopLevel)?.id ?? null;
  const contactId = ctx.caller?.contactId;
  if (!contactId) return top;
  const [row] = await leanRows(ctx.reader, Contact, { fields: ['organization'], where: { id: contactId }, limit: 1 });
  const organization = row ? idOf(row.organization) : null;
  return organization !== null && hierarchy.some((org) => org.id === organization) ? organization : top;
}

/** The likely-duplicate form of a chapter name or number: case and all whitespace ignored. */
export function foldKey(value: string): string {
  return value.replace(/\s+/g, '').toLowerCase();
}
