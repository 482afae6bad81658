import { raw, type EntityClass, type EntityData, type FilterQuery, type QueryOrderMap, type RawQueryFragment, type RequiredEntityData } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TenantOwned, Versioned } from '../../entities/base.js';
import type { RequestContext } from '../context.js';
import { NotFound, staleAuditId } from '../errors.js';
import { allOf, deleteReturning, leanRows } from './lean-read.js';

/**
 * The record operations every area repeats, written once. Each is confined to the caller's
 * tenant (the tenant filter, and the tenant named in every write), so another tenant's record is
 * simply not found. `noun` names the record in messages: "The vendor was not found."
 */

/**
 * The record as an entity (for a change), or 404. `scope` narrows what the caller may reach
 * within the tenant (a member's own records): outside it, the record does not exist either.
 */
export async function findOr404<T extends TenantOwned>(ctx: RequestContext, entity: EntityClass<T>, id: number, noun: string, scope?: FilterQuery<T>): Promise<T> {
  const record = await ctx.em.findOne(entity, allOf<T>({ id }, scope));
  if (!record) throw new NotFound(noun);
  return record;
}

/** Only `fields` of the record as a plain row (for a read: no entity, no identity map), or 404; `scope` as in findOr404. */
export async function readOr404<T extends TenantOwned, F extends keyof T & string>(
  ctx: RequestContext, entity: EntityClass<T>, fields: readonly F[], id: number, noun: string, scope?: FilterQuery<T>,
): Promise<Pick<T, F>> {
  const [row] = await leanRows(ctx.reader, entity, { fields: [...fields], where: allOf<T>({ id }, scope), limit: 1 });
  if (!row) throw new NotFound(noun);
  return row;
}

/** Which record a save is about: an `id` (0, null or absent creates) and the `auditId` the client read. */
export interface SaveTarget {
  id?: number | null;
  auditId?: number | null;
}

/**
 * Create-or-update. With an id, loads the record (404 if it is not the caller's tenant's), refuses
 * a stale `auditId` (409) and assigns `fields`; otherwise creates it in the caller's tenant with
 * `fields` and `created`. The UPDATE carries the version in its WHERE clause, so a save that
 * raced another save or a delete is a 409, never a silent overwrite. Flushes; answers the entity.
 */
export async function saveRecord<T extends Versioned>(
  ctx: RequestContext, entity: EntityClass<T>, target: SaveTarget, fields: EntityData<T>, noun: string, created?: Partial<RequiredEntityData<T>>,
): Promise<T> {
  let record: T;
  if (target.id) {
    record = await findOr404(ctx, entity, target.id, noun);
    assertCurrentVersion(record, target.auditId);
    // MikroORM's assign() cannot relate EntityData<T> to its own parameter type while T is generic.
    ctx.em.assign(record, fields as never);
  } else {
    record = ctx.em.create(entity, { ...created, ...fields, tenant: ctx.tenantId } as RequiredEntityData<T>);
  }
  await ctx.em.persist(record).flush();
  return record;
}

/**
 * Updates a record that has no version (a model without AuditId) in one `UPDATE … WHERE id AND
 * tenant [AND scope]`, moving its `updatedAt` on: 404 when no row matched — not the caller's, out
 * of `scope`, or deleted after the caller read it. MikroORM's flush checks the rows it updated
 * only for versioned entities, so a flushed change to a record a concurrent delete removed would
 * be acknowledged without being stored; this never is.
 */
export async function updateRecord<T extends TenantOwned>(
  ctx: RequestContext, entity: EntityClass<T>, id: number, fields: EntityData<T>, noun: string, scope?: FilterQuery<T>,
): Promise<void> {
  const where = allOf<T>({ id, tenant: ctx.tenantId }, scope);
  // nativeUpdate runs no onUpdate hooks, so the timestamp is set here.
  if ((await ctx.em.nativeUpdate(entity, where, { ...fields, updatedAt: new Date() })) !== 1) throw new NotFound(noun);
}

/**
 * Deletes a record in one statement whose WHERE holds the tenant and, when given, the version:
 * of twenty concurrent deletes exactly one succeeds, and a delete with a stale `auditId` never
 * removes a newer save. 404 when the record is not there (or not the caller's), 409 when it is
 * there at another version. Answers the id.
 */
export async function deleteRecord<T extends TenantOwned>(
  ctx: RequestContext, entity: EntityClass<T>, id: number, auditId: number | null | undefined, noun: string, scope?: FilterQuery<T>,
): Promise<number> {
  if ((await ctx.em.nativeDelete(entity, deleteWhere<T>(ctx, id, auditId, scope))) === 1) return id;
  return notDeleted(ctx, entity, id, auditId, noun, scope);
}

/**
 * `deleteRecord` for a delete that must go on with what the record held (release its files,
 * unlink it from another record): the same one statement and answers, and `fields` of the row
 * as it was deleted (never as an earlier read saw it).
 */
export async function deleteRecordReturning<T extends TenantOwned, F extends keyof T & string>(
  ctx: RequestContext, entity: EntityClass<T>, fields: readonly F[], id: number, auditId: number | null | undefined, noun: string, scope?: FilterQuery<T>,
): Promise<Pick<T, F>> {
  const [row] = await deleteReturning(ctx.em, entity, deleteWhere<T>(ctx, id, auditId, scope), [...fields]);
  return row ?? notDeleted(ctx, entity, id, auditId, noun, scope);
}

function deleteWhere<T>(ctx: RequestContext, id: number, auditId: number | null | undefined, scope: FilterQuery<T> | undefined): FilterQuery<T> {
  return allOf<T>({ id, tenant: ctx.tenantId, ...(auditId == null ? {} : { auditId }) }, scope);
}

/** Why a delete removed nothing: 404 (gone, out of scope, or another tenant's), or 409 (there, at another version). */
async function notDeleted<T extends TenantOwned>(
  ctx: RequestContext, entity: EntityClass<T>, id: number, auditId: number | null | undefined, noun: string, scope?: FilterQuery<T>,
): Promise<never> {
  if (auditId == null) throw new NotFound(noun);
  await readOr404(ctx, entity, ['id'], id, noun, scope);
  throw staleAuditId();
}

/**
 * Hides a record kept for the record's sake (its `deletedAt` set, a default filter hiding it) in
 * one `UPDATE … WHERE id AND tenant AND audit_id AND deleted_at IS NULL` that also moves the
 * version on: the same guarantees as `deleteRecord` (one winner, 404 or 409 for the rest).
 */
export async function softDeleteRecord<T extends Versioned & { deletedAt: Date | null }>(
  ctx: RequestContext, entity: EntityClass<T>, id: number, auditId: number, noun: string,
): Promise<number> {
  const where = allOf<T>({ id, tenant: ctx.tenantId, auditId, deletedAt: null });
  const changes = { deletedAt: new Date(), auditId: auditId + 1 };
  // As in saveRecord: MikroORM cannot relate these properties to EntityData<T> while T is generic.
  if ((await ctx.em.nativeUpdate(entity, where, changes as never)) === 1) return id;
  return notDeleted(ctx, entity, id, auditId, noun); // hidden already or another tenant's → 404; another version → 409
}

/**
 * The tenant's other records whose `nameKey` (a name folded for comparison) is `nameKey`: the
 * likely duplicates of a record being saved (`exceptId`, 0 or null for a new one), oldest first,
 * at most 100, with `fields`. Run it inside `withDuplicateLock` when a save depends on the answer.
 */
export async function likelyDuplicates<T extends TenantOwned & { nameKey: string }, F extends keyof T & string>(
  ctx: RequestContext, entity: EntityClass<T>, nameKey: string, exceptId: number | null | undefined, fields: readonly F[],
): Promise<Pick<T, F | 'id'>[]> {
  return leanRows(ctx.reader, entity, {
    fields: ['id', ...fields],
    where: allOf<T>({ nameKey }, exceptId ? { id: { $ne: exceptId } } : null),
    orderBy: [{ id: 'asc' } as QueryOrderMap<T>],
    limit: 100,
  });
}

/**
 * The value that moves a versioned record's `auditId` on in a `nativeUpdate` (which, unlike a
 * flush, does not): a change made in one statement must still make a client's AuditId stale.
 */
export function nextVersion(): RawQueryFragment {
  return raw('"audit_id" + 1');
}

/** A client that sends the AuditId it read must still hold the current version (409 otherwise). */
export function assertCurrentVersion(record: Versioned, auditId: number | null | undefined): void {
  if (auditId != null && auditId !== record.auditId) throw staleAuditId();
}

/**
 * Runs `work` in a transaction holding a lock on (tenant, `scope`, `key`), so that a
 * likely-duplicate check and the write it allows cannot interleave with another request's: of
 * two concurrent saves of the same name, the second sees the first. An advisory lock rather
 * than a unique index, because a likely duplicate may still be saved on purpose (`forceSave`).
 * `work` uses `ctx.em` as usual; it runs inside the transaction.
 */
export async function withDuplicateLock<R>(ctx: RequestContext, scope: string, key: string, work: () => Promise<R>): Promise<R> {
  const tenantId = ctx.tenantId;
  return inTransaction(ctx, async () => {
    await takeDuplicateLock(ctx.em, tenantId, scope, key);
    return work();
  });
}

/** The lock of `withDuplicateLock`, taken in `em`'s open transaction (bulk writers that run their own transactions: imports). */
export async function takeDuplicateLock(em: EntityManager, tenantId: number, scope: string, key: string): Promise<void> {
  await em.execute('SELECT pg_advisory_xact_lock(?, hashtext(?))', [tenantId, `${scope}:${key}`]);
}

/**
 * Runs `work` in a transaction on `ctx.em` itself, so that the record helpers (which use `ctx.em`)
 * take part in it; `em.transactional` would hand `work` a fork instead. Commits when `work`
 * answers, rolls back when it throws. Inside a transaction already, `work` runs in a savepoint of
 * it: it fails alone (its writes undone, the transaction still usable), and commits or rolls back
 * with the outer transaction.
 */
export async function inTransaction<R>(ctx: RequestContext, work: () => Promise<R>): Promise<R> {
  // Called inside another transaction (a billing run raising an invoice, a write under an
  // Idempotency-Key): take part in it, so the outer one commits or rolls back everything.
  // (MikroORM's begin() would start a second transaction on another connection and forget the first.)
  if (ctx.em.isInTransaction()) return inSavepoint(ctx, work);
  const em = ctx.em;
  await em.begin();
  const committed: AfterCommit[] = [];
  afterCommit.set(em, [committed]);
  let result: R;
  try {
    result = await work();
    await em.commit();
  } catch (error) {
    await em.rollback();
    throw error;
  } finally {
    afterCommit.delete(em);
  }
  for (const task of committed) await task();
  return result;
}

/**
 * `work` in a savepoint of the open transaction, flushed before the savepoint is released (as
 * `commit` flushes). PostgreSQL reaches the newest savepoint of a name, so nesting reuses one.
 */
async function inSavepoint<R>(ctx: RequestContext, work: () => Promise<R>): Promise<R> {
  const levels = afterCommit.get(ctx.em);
  const own: AfterCommit[] = [];
  levels?.push(own);
  await ctx.em.execute('SAVEPOINT nested_work');
  try {
    const result = await work();
    await ctx.em.flush();
    await ctx.em.execute('RELEASE SAVEPOINT nested_work');
    levels?.at(-2)?.push(...own);
    return result;
  } catch (error) {
    await ctx.em.execute('ROLLBACK TO SAVEPOINT nested_work');
    // As `rollback` does: changes not yet flushed are dropped rather than written by the outer commit.
    ctx.em.getUnitOfWork().clearActionsQueue();
    throw error;
  } finally {
    levels?.pop();
  }
}

type AfterCommit = () => Promise<void>;

/**
 * What waits for the commit of an `inTransaction` on an EntityManager, by level (the transaction,
 * then each savepoint in it): a savepoint released hands its work to the level around it, one
 * rolled back drops it, the commit runs it all.
 */
const afterCommit = new WeakMap<RequestContext['em'], AfterCommit[][]>();

/**
 * Runs `work` once the `inTransaction` that `ctx.em` is in has committed — never if it rolls
 * back — or at once outside one: for changes outside PostgreSQL that must not precede the commit
 * (removing the objects of file contents whose rows it deletes).
 */
export async function whenCommitted(ctx: RequestContext, work: AfterCommit): Promise<void> {
  const levels = afterCommit.get(ctx.em);
  if (levels) levels[levels.length - 1].push(work);
  else await work();
}
