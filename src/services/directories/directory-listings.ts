import { LockMode } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { instantRule } from '../../core/argument-rules.js';
import { confineToTenant, type RequestContext } from '../../core/context.js';
import { todayUtc } from '../../core/dates.js';
import { BadInput, Forbidden, NotFound } from '../../core/errors.js';
import type { JobDefinition } from '../../core/runtime/jobs.js';
import { idOf, leanRows } from '../../core/data/lean-read.js';
import { parseListOptions, defineList } from '../../core/data/list-query.js';
import { geocodePostalCode } from '../../core/external/postal-geocode.js';
import { assertCurrentVersion, inTransaction, readOr404, softDeleteRecord } from '../../core/data/records.js';
import { CategoryItem } from '../../entities/category-list.js';
import { Contact, displayName, type ContactKind, type PostalAddress } from '../../entities/contact.js';
import { DEFAULT_VISIBILITY, Directory, DirectoryListing, DirectoryListingType } from '../../entities/directory.js';
import { MembershipType } from '../../entities/membership.js';
import { inGoodStandingSql } from '../memberships/good-standing.js';
import type { ListOptionsInput } from '../../schema/common.js';
import type { DirectoryAddress, DirectoryAllItem, DirectoryItemsSaveInput, DirectoryItemsSaveResult, DirectoryListingInput, DirectoryListingSaved } from '../../schema/directories.js';
import { acrossTenantsSql, tenantIs, tenantSql } from '../../core/data/tenant-sql.js';
import { emitWebhookEvent } from '../webhooks/events.js';

/*
 * Directory listings: a contact listed in a directory.
 *
 * - `adddirectorylistingsbymembershiptype/save` records the membership types on each directory
 *   and lists their active holders at once (one INSERT … SELECT, idempotent).
 * - AutomaticallyAddRemoveMembers is kept by a catch-up job, not by the membership writes: the
 *   `directory-listings-reconcile` job (every minute, and at once when a directory is saved)
 *   lists new holders and unlists those whose membership lapsed. Membership changes come from
 *   several areas (billing, imports, staff edits, partner sync); a job that compares the
 *   directories with the memberships catches all of them, and cannot be forgotten by a new writer.
 *   Each run is set-based and idempotent; each tenant runs in its own transaction under an
 *   advisory lock, so a failing tenant does not hold back the others.
 * - A removed listing keeps its row, stamped `deletedAt` (a tombstone): `all/{modifiedsince}`
 *   reports it with IsDeleted true; listing the contact again revives the same row.
 * - Name, postal code and coordinates are copied from the contact (the job refreshes them when the
 *   contact changes); coordinates are the postal code's centroid from a shipped dataset.
 */

const LISTING_NOUN = 'The directory listing';

/** Lists the holders of the given membership types in the given directories; answers how many listings were added or revived. */
export async function addListingsByMembershipType(ctx: RequestContext, input: DirectoryItemsSaveInput): Promise<DirectoryItemsSaveResult> {
  return inTransaction(ctx, async () => {
    let added = 0;
    for (const [index, item] of input.DirectoryItems.entries()) {
      const typeIds = [...new Set(item.MembershipTypeIds)];
      const known = typeIds.length ? await leanRows(ctx.reader, MembershipType, { fields: ['id'], where: { id: { $in: typeIds } } }) : [];
      const missing = typeIds.filter((id) => !known.some((type) => type.id === id));
      if (missing.length) throw BadInput.field(`DirectoryItems[${index}].MembershipTypeIds`, `names no membership type ${missing.join(', ')}`);
      // A set union in one UPDATE: concurrent additions all land, and a directory save (which never
      // writes these ids) is not refused for it, so the version is left alone.
      const updated = await tenantSql(ctx).all<{ id: number }>(
        `update directory d set updated_at = now(), membership_type_ids = (
           select coalesce(jsonb_agg(distinct ids.value::int order by ids.value::int), '[]'::jsonb)
             from (select jsonb_array_elements_text(d.membership_type_ids) as value union select jsonb_array_elements_text(?::jsonb)) as ids)
          where d.id = ? and ${tenantIs('d')} and d.deleted_at is null returning d.id`, [JSON.stringify(typeIds), item.DirectoryId]);
      if (updated.length === 0) throw new NotFound(`The directory ${item.DirectoryId}`);
      added += await addMembershipHolders(ctx.em, ctx.tenantId, item.DirectoryId);
    }
    await refreshFromContacts(ctx.em, ctx.tenantId);
    return { Added: added };
  });
}

/**
 * GraphQL only: lists a contact in a directory (or changes its listing): its texts, categories,
 * visibility. A removed listing is revived. AuditId checked when given.
 */
export async function saveDirectoryListing(ctx: RequestContext, directoryId: number, contactId: number, input: DirectoryListingInput): Promise<DirectoryListingSaved> {
  return inTransaction(ctx, async () => {
    const directory = await readOr404(ctx, Directory, ['id', 'listingType'], directoryId, 'The directory');
    const [contact] = await leanRows(ctx.reader, Contact, { fields: ['id'], where: { id: contactId }, limit: 1 });
    if (!contact) throw new NotFound('The contact');
    const listingType = input.DirectoryListingTypeId
      ? (await readOr404(ctx, DirectoryListingType, ['id'], input.DirectoryListingTypeId, 'The directory listing type'), ctx.em.getReference(DirectoryListingType, input.DirectoryListingTypeId))
      : undefined;
    const categoryItemIds = input.CategoryItemIds ? await existingCategoryItems(ctx, input.CategoryItemIds) : undefined;
    let listing = await ctx.em.findOne(DirectoryListing, { directory: directoryId, contact: contactId });
    if (listing) assertCurrentVersion(listing, input.AuditId);
    listing ??= ctx.em.create(DirectoryListing, {
      tenant: ctx.tenantId, directory: directoryId, contact: contactId, visibility: { ...DEFAULT_VISIBILITY },
      listingType: directory.listingType ? ctx.em.getReference(DirectoryListingType, typeof directory.listingType === 'number' ? directory.listingType : directory.listingType.id) : null,
    });
    const text = (value: string | null | undefined, current: string | null) => (value === undefined ? current : value?.trim() || null);
    ctx.em.assign(listing, {
      deletedAt: null,
      shortDescription: text(input.ShortDescription, listing.shortDescription), description: text(input.Description, listing.description),
      bio: text(input.Bio, listing.bio), highlights: text(input.Highlights, listing.highlights), keywords: text(input.Keywords, listing.keywords),
      website: text(input.Website, listing.website),
      categoryItemIds: categoryItemIds ?? listing.categoryItemIds,
      customFields: input.CustomFields === undefined ? listing.customFields : input.CustomFields,
      visibility: { ...DEFAULT_VISIBILITY, ...listing.visibility, ...definedOnly(input.Visibility ?? {}) },
      isVisible: input.IsVisible ?? listing.isVisible,
      ...(listingType ? { listingType } : {}),
    });
    await ctx.em.persist(listing).flush();
    await refreshFromContacts(ctx.em, ctx.tenantId, [listing.id]);
    await ctx.em.refresh(listing);
    await emitWebhookEvent(ctx, 'directory_listing.changed', {
      DirectoryContactId: listing.id, DirectoryId: directoryId, ContactId: contactId, IsVisible: listing.isVisible, IsDeleted: false,
    });
    return { DirectoryContactId: listing.id, DirectoryId: directoryId, ContactId: contactId, HashedContactId: listing.publicKey, IsVisible: listing.isVisible, AuditId: listing.auditId };
  });
}

/**
 * The category item ids given, without repeats, when each names a category item (400 naming
 * CategoryItemIds otherwise). An array holds no key: the items are share-locked until the save
 * commits, so a delete of one waits and then finds this listing using it (migration 0036's trigger).
 */
async function existingCategoryItems(ctx: RequestContext, given: number[]): Promise<number[]> {
  const ids = [...new Set(given)];
  const found = ids.length ? await ctx.em.find(CategoryItem, { id: { $in: ids } }, { fields: ['id'], lockMode: LockMode.PESSIMISTIC_READ }) : [];
  const missing = ids.filter((id) => !found.some((item) => item.id === id));
  if (missing.length) throw BadInput.field('CategoryItemIds', `has no category item ${missing.join(', ')}`);
  return ids;
}

/** GraphQL only: removes a listing (a tombstone, reported by all/{modifiedsince}); 404 gone, 409 another version. */
export function deleteDirectoryListing(ctx: RequestContext, directoryContactId: number, auditId: number): Promise<number> {
  return inTransaction(ctx, async () => {
    const removed = await softDeleteRecord(ctx, DirectoryListing, directoryContactId, auditId, LISTING_NOUN);
    await emitWebhookEvent(ctx, 'directory_listing.changed', { DirectoryContactId: removed, IsDeleted: true });
    return removed;
  });
}

/**
 * A live listing the caller may change (its gallery): staff may change any, a member only the
 * listing of its own contact (403). Another tenant's or a removed listing is not found (404).
 */
export async function editableListing(ctx: RequestContext, directoryContactId: number): Promise<number> {
  const [listing] = await leanRows(ctx.reader, DirectoryListing, { fields: ['id', 'contact'], where: { id: directoryContactId, deletedAt: null }, limit: 1 });
  if (!listing) throw new NotFound(LISTING_NOUN);
  if (!ctx.isStaff && ctx.caller?.contactId !== idOf(listing.contact)) throw new Forbidden('Only staff or the listed contact may change the listing.');
  return listing.id;
}

const changeList = defineList(DirectoryListing, {
  operations: ['Query.directoryListingsModifiedSince'], orderBy: { LastModifiedDate: 'updatedAt' }, defaultOrder: 'LastModifiedDate', search: [],
}, 'many');
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

interface ChangeRow {
  id: number; directory_id: number; contact_id: number; is_visible: boolean; deleted_at: Date | null; updated_at: Date;
  short_description: string | null; description: string | null; keywords: string | null; highlights: string | null; website: string | null;
  category_item_ids: number[]; directory_name: string; directory_deleted: Date | null; kind: ContactKind; name: string | null;
  first_name: string | null; last_name: string | null; email: string | null; phone: string | null; mobile_phone: string | null;
  addresses: PostalAddress[] | null; logo_url: string | null; contact_deleted: Date | null;
}

/**
 * Every listing changed (created, edited, refreshed from its contact, removed) at or after
 * `modifiedSince`, oldest change first, one page (Skip/Take of `options`; default 100, at most
 * 1000). Removed listings come with IsDeleted true. One statement.
 */
export async function listingsModifiedSince(ctx: RequestContext, since: Date, options: ListOptionsInput | null | undefined): Promise<DirectoryAllItem[]> {
  const list = parseListOptions(options, changeList);
  const rows = await tenantSql(ctx).all<ChangeRow>(
    `select l.id, l.directory_id, l.contact_id, l.is_visible, l.deleted_at, l.updated_at, l.short_description, l.description, l.keywords, l.highlights,
            l.website, l.category_item_ids, d.name as directory_name, d.deleted_at as directory_deleted, c.kind, c.name, c.first_name, c.last_name,
            c.email, c.phone, c.mobile_phone, c.addresses, c.logo_url, c.deleted_at as contact_deleted
       from directory_listing l join directory d on d.id = l.directory_id join contact c on c.id = l.contact_id
      where ${tenantIs('l')} and l.updated_at >= ?
      order by l.updated_at, l.id limit ? offset ?`, [since, list.take, list.skip]);
  return rows.map((row) => {
    const name = displayName({ kind: row.kind, name: row.name, firstName: row.first_name, lastName: row.last_name });
    return {
      ContactId: row.contact_id, DisplayName: name, CommonName: name, ShortDescription: row.short_description, Description: row.description,
      Keywords: row.keywords, Highlights: row.highlights, LastModifiedDate: new Date(row.updated_at).toISOString(), SystemContactTypeId: row.kind,
      Images: row.logo_url ? [row.logo_url] : [], Addresses: (row.addresses ?? []).map(toAddress),
      EmailAddresses: row.email ? [row.email] : [], PhoneNumbers: [row.phone, row.mobile_phone].filter((phone): phone is string => Boolean(phone)),
      Directories: [{
        DirectoryId: row.directory_id, DirectoryContactId: row.id, Name: row.directory_name, IsVisible: row.is_visible,
        IsDeleted: Boolean(row.deleted_at ?? row.directory_deleted ?? row.contact_deleted),
      }],
      WebAddresses: row.website ? [row.website] : [], Categories: row.category_item_ids ?? [],
    };
  });
}

export function toAddress(address: PostalAddress): DirectoryAddress {
  return {
    Line1: address.line1 ?? null, Line2: address.line2 ?? null, City: address.city ?? null, Region: address.region ?? null,
    PostalCode: address.postalCode ?? null, Country: address.country ?? null,
  };
}

// ---------------------------------------------------------------------------------------------
// Reconciliation (the job, and a directory's save)

/**
 * Brings one tenant's listings in line with its contacts and memberships: listings of deleted
 * contacts removed; on directories with AutomaticallyAddRemoveMembers, active holders of the
 * directory's membership types listed and the others' membership listings removed; names and
 * coordinates refreshed from changed contacts. Runs on `em`'s transaction when it has one.
 * `directoryId` narrows the membership part to one directory. Idempotent.
 */
export async function reconcileTenantListings(em: EntityManager, tenantId: number, directoryId?: number): Promise<void> {
  const connection = em.getConnection();
  const oneDirectory = directoryId === undefined ? '' : 'and d.id = ?';
  const directoryParam = directoryId === undefined ? [] : [directoryId];
  await connection.execute(`select pg_advisory_xact_lock(?, hashtext('directory-reconcile'))`, [tenantId], 'run', em.getTransactionContext());
  await tenantSql({ em, tenantId }).run(
    `update directory_listing l set deleted_at = now(), updated_at = now(), audit_id = l.audit_id + 1, listing_type_id = null
       from contact c where c.id = l.contact_id and c.deleted_at is not null and ${tenantIs('l')} and l.deleted_at is null`, []);
  await addMembershipHolders(em, tenantId, directoryId, true);
  await tenantSql({ em, tenantId }).run(
    `update directory_listing l set deleted_at = now(), updated_at = now(), audit_id = l.audit_id + 1, listing_type_id = null
       from directory d
      where d.id = l.directory_id and ${tenantIs('l')} and d.automatically_add_remove_members and d.deleted_at is null ${oneDirectory}
        and l.source = 'membership' and l.deleted_at is null
        and not exists (select 1 from membership m where m.tenant_id = l.tenant_id and m.contact_id = l.contact_id and ${inGoodStandingSql('m', todayUtc())}
                          and m.membership_type_id in (select value::int from jsonb_array_elements_text(d.membership_type_ids)))`, [...directoryParam]);
  await refreshFromContacts(em, tenantId);
}

/**
 * Lists the active holders of a directory's membership types (one INSERT … SELECT; a removed
 * listing is revived): `directoryId`'s, or with `automaticOnly` every automatic directory's.
 */
async function addMembershipHolders(em: EntityManager, tenantId: number, directoryId: number | undefined, automaticOnly = false): Promise<number> {
  const conditions = [directoryId === undefined ? null : 'd.id = ?', automaticOnly ? 'd.automatically_add_remove_members' : null].filter(Boolean);
  const rows = await tenantSql({ em, tenantId }).all<{ id: number }>(
    `insert into directory_listing (tenant_id, directory_id, contact_id, listing_type_id, source, visibility, category_item_ids)
     select distinct d.tenant_id, d.id, m.contact_id, d.listing_type_id, 'membership', ?::jsonb, '[]'::jsonb
       from directory d
       join membership m on m.tenant_id = d.tenant_id and m.membership_type_id in (select value::int from jsonb_array_elements_text(d.membership_type_ids))
       join contact c on c.id = m.contact_id and c.deleted_at is null
      where ${tenantIs('d')} and d.deleted_at is null and ${inGoodStandingSql('m', todayUtc())} ${conditions.map((condition) => `and ${condition}`).join(' ')}
     on conflict (directory_id, contact_id) do update
        set deleted_at = null, source = 'membership', listing_type_id = excluded.listing_type_id, updated_at = now(), audit_id = directory_listing.audit_id + 1
      where directory_listing.deleted_at is not null
     returning id`, [JSON.stringify(DEFAULT_VISIBILITY), ...(directoryId === undefined ? [] : [directoryId])]);
  return rows.length;
}

interface StaleRow {
  id: number; name: string; postal_code: string | null; kind: ContactKind; contact_name: string | null; first_name: string | null; last_name: string | null; addresses: PostalAddress[] | null;
}

const REFRESH_BATCH = 2000;

/**
 * Copies name, postal code and coordinates from the contact to its live listings that are new or
 * whose contact changed since (or to `listingIds`), in batches of one UPDATE each.
 */
async function refreshFromContacts(em: EntityManager, tenantId: number, listingIds?: number[]): Promise<void> {
  for (;;) {
    const rows = await tenantSql({ em, tenantId }).all<StaleRow>(
      `select l.id, l.name, l.postal_code, c.kind, c.name as contact_name, c.first_name, c.last_name, c.addresses
         from directory_listing l join contact c on c.id = l.contact_id
        where ${tenantIs('l')} and l.deleted_at is null
          and ${listingIds ? 'l.id in (select value::int from jsonb_array_elements_text(?::jsonb))' : `(l.name = '' or c.updated_at > l.updated_at)`}
        limit ${REFRESH_BATCH}`, [...(listingIds ? [JSON.stringify(listingIds)] : [])]);
    if (rows.length === 0) return;
    const values = await Promise.all(rows.map(async (row) => {
      const postalCode = (row.addresses ?? []).map((address) => address.postalCode?.trim()).find(Boolean)?.slice(0, 20) ?? null;
      const at = await geocodePostalCode(postalCode);
      const name = displayName({ kind: row.kind, name: row.contact_name, firstName: row.first_name, lastName: row.last_name }).slice(0, 200) || '(no name)';
      return { id: row.id, name, postal_code: postalCode, latitude: at?.latitude ?? null, longitude: at?.longitude ?? null };
    }));
    await tenantSql({ em, tenantId }).run(
      `update directory_listing l set name = v.name, postal_code = v.postal_code, latitude = v.latitude, longitude = v.longitude, updated_at = clock_timestamp()
         from jsonb_to_recordset(?::jsonb) as v(id int, name text, postal_code text, latitude float8, longitude float8)
        where l.id = v.id and ${tenantIs('l')}`, [JSON.stringify(values)]);
    if (listingIds || rows.length < REFRESH_BATCH) return;
  }
}

/** Every tenant with directories, each in its own transaction; a failing tenant is reported after the others ran. */
export async function reconcileAllTenants(orm: MikroORM): Promise<void> {
  // Which tenants: across tenants on the named path; each tenant's work then confined to it.
  const tenants = await acrossTenantsSql(orm.em).all<{ tenant_id: number }>('select distinct tenant_id from directory where deleted_at is null');
  const failures: string[] = [];
  for (const { tenant_id: tenantId } of tenants) {
    const em = orm.em.fork({ clear: true, useContext: false });
    confineToTenant(em, tenantId);
    try {
      await em.transactional((tx) => reconcileTenantListings(tx, tenantId));
    } catch (error) {
      failures.push(`tenant ${tenantId}: ${(error as Error).message}`);
    }
  }
  if (failures.length) throw new Error(`Directory reconcile failed for ${failures.join('; ')}`);
}

export const directoryReconcileJob: JobDefinition = {
  name: 'directory-listings-reconcile',
  cron: '* * * * *',
  queue: { retryLimit: 2, retryBackoff: true, expireInSeconds: 600 },
  handle: (orm) => reconcileAllTenants(orm),
};

/** `modifiedsince`: an ISO 8601 date or date-time, as JavaScript reads it, within the years 0001 to 9999. */
export const MODIFIED_SINCE_RULE = instantRule((value, field) => {
  const text = value.trim();
  const date = ISO_INSTANT.test(text) ? new Date(text) : null;
  const year = date?.getUTCFullYear() ?? 0;
  if (!date || Number.isNaN(date.getTime()) || year < 1 || year > 9999) {
    throw BadInput.field(field, 'must be an ISO 8601 date or date-time between the years 0001 and 9999');
  }
  return date;
});

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== null && entry !== undefined)) as Partial<T>;
}
