import type { EntityManager } from '@mikro-orm/postgresql';
import { instantRule, rangeRule, type ArgumentRule } from '../../core/argument-rules.js';
import type { RequestContext } from '../../core/context.js';
import { mapError } from '../../core/error-mapping.js';
import { BadInput, Conflict, NotFound } from '../../core/errors.js';
import { listQuery, defineList } from '../../core/data/list-query.js';
import { idOf } from '../../core/data/lean-read.js';
import { inTransaction } from '../../core/data/records.js';
import { isOneOf } from '../../core/values.js';
import { Contact, type ContactKind, type PostalAddress } from '../../entities/contact.js';
import { PARTNER_OUTCOMES, PartnerAffiliation, PartnerRecord, PartnerTransactionLog, type PartnerOutcome } from '../../entities/partner.js';
import type { Tenant } from '../../entities/tenant.js';
import type { ListOptionsInput } from '../../schema/common.js';
import {
  CHANGES_AFFILIATION, ISO_INSTANT,
  type PartnerAffiliationItem, type PartnerAudit, type PartnerAuditInput, type PartnerChange, type PartnerChangesPage,
  type PartnerTransactionInput, type PartnerTransactionLogItem, type PartnerTransactionResult,
} from '../../schema/partner-sync.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';

/*
 * Partner synchronization (decided where the documents are silent):
 *
 * - Who: a login with the role `partner` (its API key is the partner's key), or staff. The tenant
 *   is the key's, as everywhere.
 * - Matching: by NationalID; a state transaction (IsNational false) without one matches by StateID.
 *   An unlinked contact of ours with that NationalID (contact.national_id) is adopted; otherwise a
 *   contact is created. A ParentNationalId we have not seen creates a placeholder organization that
 *   the parent's own upsert fills in later.
 * - Order: the partner's ChangedAt (ties: the greater TransactionId) — never the order of arrival.
 *   Each part of a record (its data; its affiliation: StateID, Affiliation, ParentNationalId,
 *   ParentAgency; its deletion) keeps the stamp of the last transaction applied to it, and a
 *   transaction changes a part only when newer than that part and than the last deletion. A move
 *   or deletion of a record we never saw is kept (a placeholder, a tombstone), so that an older
 *   upsert arriving after it cannot undo it.
 * - Idempotence: a TransactionId applied (or found stale) before is a duplicate and changes
 *   nothing; and re-applying the same stamp is stale anyway.
 * - Races: the transaction holds advisory locks on its NationalID/StateID (and the parent's
 *   NationalID), so two concurrent upserts of one new NationalID create one contact; a unique
 *   index on (tenant, national_id) backs it up.
 * - Log: every transaction is stored as `received` before it is applied (on its own commit), then
 *   settled as applied, stale, duplicate or failed (with the reason), in the same transaction as
 *   its changes. A request that is not a PartnerTransaction at all (400 from validation) is not logged.
 * - Echo: applying a partner transaction records the contact's resulting `updated_at`
 *   (`contactSyncedAt`); the change feed reports only contacts changed after that, i.e. by us.
 */

export type PartnerAction = 'upsert' | 'move' | 'delete';
type Text = string | null | undefined;

/** PartnerAudit fields kept in PartnerRecord.details (Contact has no column for them). */
const DETAIL_FIELDS = [
  'URL', 'Designation', 'OU', 'NumberOfEmployees', 'AgencyType', 'EOPolicyNumber', 'Status', 'InformalFirstName', 'Suffix', 'MiddleInitial',
  'SocialLinkA', 'SocialLinkB', 'SocialLinkC', 'SocialLinkD', 'SocialLinkE', 'FederalID', 'Description', 'JobTitle', 'Department',
  'WorkPhoneExtension', 'HomePhoneExtension', 'OtherPhoneExtension', 'PhoneExtension', 'WorkPhone', 'HomePhone', 'OtherPhone', 'Fax',
] as const satisfies readonly (keyof PartnerAuditInput)[];

const ADDRESS_PARTS = { Line1: 'line1', Line2: 'line2', City: 'city', State: 'region', Zip: 'postalCode', Country: 'country' } as const;
const ADDRESS_KINDS = { Physical: 'physical', Mailing: 'mailing' } as const;

// ---- applying a transaction ----

/** How far ahead of our clock a partner's ChangedAt may be. */
const MAX_CLOCK_SKEW_MS = 24 * 3600_000;

/** Applies one partner transaction (`kind` and `action` from the route) and records what became of it. */
export async function applyPartnerTransaction(ctx: RequestContext, kind: ContactKind, action: PartnerAction, input: PartnerTransactionInput): Promise<PartnerTransactionResult> {
  const tenantId = ctx.tenantId;
  const { Transaction: transaction } = input;
  const record = transaction.Record;
  const log = ctx.em.create(PartnerTransactionLog, {
    tenant: tenantId, operation: `${kind}/${action}`, isNational: input.IsNational ?? false, transactionId: transaction.TransactionId,
    nationalId: record.NationalID ?? null, stateId: record.StateID || null, outcome: 'received', payload: JSON.parse(JSON.stringify(input)) as Record<string, unknown>,
  });
  await ctx.em.persist(log).flush(); // committed on its own: the transaction is on record even if applying it fails
  try {
    return await inTransaction(ctx, async () => {
      await lockRecordKeys(ctx, lockKeys(record));
      const outcome = await apply(ctx, { kind, action, input, log });
      return { TransactionLogId: log.id, Outcome: outcome.outcome, PlatformID: outcome.contactId, NationalID: outcome.nationalId };
    });
  } catch (error) {
    ctx.em.clear(); // nothing of the rolled-back work may be flushed later in this request
    await ctx.em.nativeUpdate(PartnerTransactionLog, { id: log.id }, { outcome: 'failed', reason: mapError(error).error.message.slice(0, 2000), settledAt: new Date() });
    throw error;
  }
}

interface Applying {
  kind: ContactKind;
  action: PartnerAction;
  input: PartnerTransactionInput;
  log: PartnerTransactionLog;
}

interface Applied {
  outcome: PartnerOutcome;
  contactId: number | null;
  nationalId: number | null;
}

async function apply(ctx: RequestContext, { kind, action, input, log }: Applying): Promise<Applied> {
  const { Transaction: transaction } = input;
  const record = transaction.Record;
  const changedAt = parseInstant(transaction.ChangedAt, 'Transaction.ChangedAt').date;
  // A stamp far ahead of our clock would make every later change of the record look older.
  if (changedAt.getTime() > Date.now() + MAX_CLOCK_SKEW_MS) throw BadInput.field('Transaction.ChangedAt', 'must not be more than a day ahead of our clock');
  const stamp = { at: changedAt, id: transaction.TransactionId };
  log.changedAt = changedAt;
  const nationalId = record.NationalID ?? null;
  const stateId = record.StateID || null;
  if (record.ParentNationalId && record.ParentNationalId === nationalId) throw BadInput.field('Transaction.Record.ParentNationalId', 'must not be the record\'s own NationalID');
  // A move changes the affiliation: the move operations' rule (schema/partner-sync.ts, MOVES_ITS_RECORD).

  const settle = async (outcome: PartnerOutcome, link: PartnerRecord | null, reason: string | null = null): Promise<Applied> => {
    ctx.em.assign(log, { outcome, reason, settledAt: new Date(), contact: link?.contact ?? null, nationalId: link?.nationalId ?? nationalId });
    await ctx.em.flush();
    return { outcome, contactId: link?.contact.id ?? null, nationalId: link?.nationalId ?? nationalId };
  };

  let link = await findLink(ctx, nationalId, stateId);
  if (await isDuplicate(ctx, transaction.TransactionId, log.id)) return settle('duplicate', link);
  if (link && link.kind !== kind) throw new Conflict(`This ${nationalId !== null ? 'NationalID' : 'StateID'} belongs to ${link.kind === 'person' ? 'a person' : 'an organization'}.`, [{ field: 'Transaction.Record.NationalID', message: `is a ${link.kind}` }]);
  link ??= await newLink(ctx, kind, nationalId, stateId);
  const contact = link.contact;
  const contactTouchedAt = contact.id ? contact.updatedAt.getTime() : null;

  const notDeletedSince = isNewer(stamp, { at: link.deletedChangedAt, id: link.deletedTransactionId });
  if (action === 'delete') {
    const newest = isNewer(stamp, { at: link.dataChangedAt, id: link.dataTransactionId }) && isNewer(stamp, { at: link.affiliationChangedAt, id: link.affiliationTransactionId });
    if (!newest || !notDeletedSince) return settle('stale', link);
    contact.deletedAt ??= new Date();
    Object.assign(link, { deletedChangedAt: stamp.at, deletedTransactionId: stamp.id, deletedByPartner: true });
  } else {
    let changed = false;
    if (contact.deletedAt && !link.deletedByPartner) return settle('stale', link, 'The contact was deleted on the platform; its deletion is in the change feed.');
    if (action === 'upsert' && notDeletedSince && isNewer(stamp, { at: link.dataChangedAt, id: link.dataTransactionId })) {
      applyData(contact, link, record);
      Object.assign(link, { dataChangedAt: stamp.at, dataTransactionId: stamp.id });
      if (link.deletedByPartner) {
        contact.deletedAt = null;
        link.deletedByPartner = false;
      }
      changed = true;
    }
    if (CHANGES_AFFILIATION.holds(record) && notDeletedSince && isNewer(stamp, { at: link.affiliationChangedAt, id: link.affiliationTransactionId })) {
      await applyAffiliation(ctx, link, record, stamp, action);
      changed = true;
    }
    if (!changed) return settle('stale', link);
  }
  if (nationalId !== null) link.nationalId ??= nationalId;
  contact.nationalId = link.nationalId === null ? contact.nationalId : String(link.nationalId);
  contact.stateId = link.stateId ?? contact.stateId;
  ctx.em.persist(link);
  await ctx.em.flush();
  // The contact as this transaction left it is the partner's own state: not a change to echo back.
  if (contactTouchedAt === null || contact.updatedAt.getTime() !== contactTouchedAt || action === 'delete') link.contactSyncedAt = lastChange(contact);
  return settle('applied', link);
}

/**
 * The link of a NationalID, with its contact even when deleted. Without a NationalID (a record
 * only a state knows, or a state that does not send it), the link of the StateID; with one that
 * has no link yet, a state-only link of its StateID, which the NationalID then completes.
 */
async function findLink(ctx: RequestContext, nationalId: number | null, stateId: string | null): Promise<PartnerRecord | null> {
  const options = { populate: ['contact'] as const, filters: { notDeleted: false }, orderBy: { id: 'asc' } as const };
  if (nationalId !== null) {
    const byNational = await ctx.em.findOne(PartnerRecord, { nationalId }, options);
    if (byNational || stateId === null) return byNational;
    return ctx.em.findOne(PartnerRecord, { stateId, nationalId: null }, options);
  }
  return stateId === null ? null : ctx.em.findOne(PartnerRecord, { stateId }, options);
}

/** A new link: to our unlinked contact with that NationalID when there is one, else to a new contact. */
async function newLink(ctx: RequestContext, kind: ContactKind, nationalId: number | null, stateId: string | null): Promise<PartnerRecord> {
  const existing = nationalId === null ? null : await ctx.em.findOne(Contact, { nationalId: String(nationalId), kind });
  const contact = existing ?? ctx.em.create(Contact, { tenant: ctx.tenantId, kind, nationalId: nationalId === null ? null : String(nationalId), stateId });
  return ctx.em.create(PartnerRecord, { tenant: ctx.tenantId, contact, kind, nationalId, stateId });
}

async function isDuplicate(ctx: RequestContext, transactionId: string, exceptLogId: number): Promise<boolean> {
  const earlier = await ctx.em.count(PartnerTransactionLog, { transactionId, outcome: { $in: ['applied', 'stale', 'duplicate'] }, id: { $ne: exceptLogId } });
  return earlier > 0;
}

function applyData(contact: Contact, link: PartnerRecord, record: PartnerAuditInput): void {
  const set = (value: Text, assign: (value: string | null) => void) => {
    if (value !== undefined && value !== null) assign(value === '' ? null : value);
  };
  set(record.ContactType, (value) => { link.contactType = value; });
  set(record.Name, (value) => { contact.name = value; });
  set(record.FirstName, (value) => { contact.firstName = value; });
  set(record.LastName, (value) => { contact.lastName = value; });
  set(record.Title, (value) => { contact.title = value; });
  set(record.Email, (value) => { contact.email = value; });
  set(record.Phone, (value) => { contact.phone = value; });
  set(record.MobilePhone, (value) => { contact.mobilePhone = value; });
  // Kept in the contact's own columns too, where staff edit them (services/contacts).
  set(record.Suffix, (value) => { contact.suffix = value; });
  set(record.JobTitle, (value) => { contact.jobTitle = value; });
  const details = { ...link.details };
  for (const field of DETAIL_FIELDS) set(record[field], (value) => { details[field] = value; });
  link.details = details;
  let addresses = contact.addresses;
  for (const [prefix, addressKind] of Object.entries(ADDRESS_KINDS)) {
    const given = Object.entries(ADDRESS_PARTS).filter(([part]) => isText(record[`${prefix}${part}` as keyof PartnerAuditInput]));
    if (given.length === 0) continue;
    const current = addresses?.find((address) => address.kind === addressKind) ?? { kind: addressKind };
    const next: PostalAddress = { ...current };
    for (const [part, property] of given) {
      const value = record[`${prefix}${part}` as keyof PartnerAuditInput] as string;
      next[property] = value === '' ? undefined : value;
    }
    const others = (addresses ?? []).filter((address) => address.kind !== addressKind);
    const empty = Object.values(ADDRESS_PARTS).every((property) => !next[property]);
    addresses = empty ? others : [...others, next];
  }
  contact.addresses = addresses && addresses.length ? addresses : null;
}

/** Applies StateID, Affiliation, ParentNationalId and ParentAgency, and starts a period of the affiliation history when they changed. */
async function applyAffiliation(ctx: RequestContext, link: PartnerRecord, record: PartnerAuditInput, stamp: Stamp, action: PartnerAction): Promise<void> {
  const before = [link.stateId, link.affiliation, link.parentNationalId].join('\u0001');
  if (isText(record.StateID) && record.NationalID != null) link.stateId = record.StateID || null;
  if (isText(record.Affiliation)) link.affiliation = record.Affiliation || null;
  if (isText(record.ParentAgency)) link.details = { ...link.details, ParentAgency: record.ParentAgency || null };
  if (record.ParentNationalId !== undefined && record.ParentNationalId !== null) {
    link.parentNationalId = record.ParentNationalId || null;
    const parent = link.parentNationalId === null ? null : await parentContact(ctx, link.parentNationalId);
    if (link.kind === 'organization') link.contact.parent = parent;
    else link.contact.organization = parent;
  }
  Object.assign(link, { affiliationChangedAt: stamp.at, affiliationTransactionId: stamp.id });
  if ([link.stateId, link.affiliation, link.parentNationalId].join('\u0001') !== before || !link.id) {
    ctx.em.create(PartnerAffiliation, {
      tenant: ctx.tenantId, record: link, stateId: link.stateId, affiliation: link.affiliation, parentNationalId: link.parentNationalId,
      validFrom: stamp.at, transactionId: stamp.id, cause: action,
    });
  }
}

/** The organization with that NationalID; one we have not seen yet is created as a placeholder the partner's own upsert fills in. */
async function parentContact(ctx: RequestContext, nationalId: number): Promise<Contact> {
  const link = await ctx.em.findOne(PartnerRecord, { nationalId }, { populate: ['contact'], filters: { notDeleted: false } });
  if (link) {
    if (link.kind !== 'organization') throw BadInput.field('Transaction.Record.ParentNationalId', 'is a person, not an organization');
    return link.contact;
  }
  const placeholder = await newLink(ctx, 'organization', nationalId, null);
  ctx.em.persist(placeholder);
  await ctx.em.flush();
  placeholder.contactSyncedAt = lastChange(placeholder.contact);
  return placeholder.contact;
}

function isText(value: unknown): value is string {
  return typeof value === 'string';
}

interface Stamp {
  at: Date;
  id: string;
}

/** Whether a transaction stamped `stamp` is newer than what a part of a record last took (nothing yet: newer). */
function isNewer(stamp: Stamp, part: { at: Date | null; id: string | null }): boolean {
  if (!part.at) return true;
  const difference = stamp.at.getTime() - new Date(part.at).getTime();
  return difference > 0 || (difference === 0 && stamp.id > (part.id ?? ''));
}

function lastChange(contact: Contact): Date {
  return contact.deletedAt && contact.deletedAt > contact.updatedAt ? contact.deletedAt : contact.updatedAt;
}

/** The keys a transaction locks: its NationalID, StateID, and the parent's NationalID (a placeholder may be created for it). */
function lockKeys(record: PartnerAuditInput): string[] {
  return [
    record.NationalID ? `n:${record.NationalID}` : null,
    record.StateID ? `s:${record.StateID}` : null,
    record.ParentNationalId ? `n:${record.ParentNationalId}` : null,
  ].filter((key): key is string => key !== null);
}

/**
 * Takes the transaction-level advisory locks of `keys` in the tenant, in one statement and in the
 * order of their hashes, so that two transactions needing overlapping keys cannot deadlock.
 */
async function lockRecordKeys(ctx: RequestContext, keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  await ctx.em.execute(
    `SELECT count(pg_advisory_xact_lock(?, h)) FROM (SELECT DISTINCT hashtext(k) AS h FROM unnest(array[${keys.map(() => '?').join(', ')}]::text[]) AS k ORDER BY h) AS keys`,
    [ctx.tenantId, ...keys.map((key) => `partner:${key}`)],
  );
}

// ---- reading: the audit view and the change feed ----

interface AuditRow {
  contact_id: number;
  kind: ContactKind;
  name: string | null;
  first_name: string | null;
  last_name: string | null;
  title: string | null;
  suffix: string | null;
  job_title: string | null;
  email: string | null;
  phone: string | null;
  mobile_phone: string | null;
  addresses: PostalAddress[] | null;
  parent_contact_id: number | null;
  national_id: number | null;
  state_id: string | null;
  contact_type: string | null;
  affiliation: string | null;
  parent_national_id: number | null;
  details: Record<string, string | null> | null;
  deleted: boolean;
  changed_at: string;
}

/** When a contact last changed (its deletion included), as SQL over `c`. */
const CHANGED_AT = 'GREATEST(c.updated_at, coalesce(c.deleted_at, c.updated_at))';

/** A partner record with its contact, as one row: the PartnerAudit view. The parent's NationalID is the current parent's, when it is linked. */
function auditSelect(where: string, orderAndLimit = ''): string {
  return `SELECT c.id AS contact_id, c.kind, c.name, c.first_name, c.last_name, c.title, c.suffix, c.job_title, c.email, c.phone, c.mobile_phone, c.addresses,
      p.id AS parent_contact_id, l.national_id, l.state_id, l.contact_type, l.affiliation,
      CASE WHEN p.id IS NULL THEN NULL ELSE coalesce(pl.national_id, l.parent_national_id) END AS parent_national_id,
      l.details, c.deleted_at IS NOT NULL AS deleted,
      to_char(${CHANGED_AT} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS changed_at
    FROM partner_record l
    JOIN contact c ON c.id = l.contact_id AND c.tenant_id = l.tenant_id
    LEFT JOIN contact p ON p.id = CASE WHEN c.kind = 'organization' THEN c.parent_id ELSE c.organization_id END AND p.tenant_id = l.tenant_id
    LEFT JOIN partner_record pl ON pl.contact_id = p.id AND pl.tenant_id = l.tenant_id
    WHERE ${tenantIs('l')} AND ${where} ${orderAndLimit}`;
}

/** The PartnerAudit view of the (not deleted) contact with that NationalID. */
export async function partnerContactAudit(ctx: RequestContext, nationalId: number): Promise<PartnerAudit> {
  const [row] = await tenantSql(ctx).all<AuditRow>(auditSelect('l.national_id = ? AND c.deleted_at IS NULL'), [nationalId]);
  if (!row) throw new NotFound('The contact with that NationalID');
  return toAudit(row);
}

const DEFAULT_FEED_PAGE = 100;
const MAX_FEED_PAGE = 1000;

/**
 * Our changes to partner-linked contacts at or after `since`, oldest first by (ChangedAt,
 * PlatformID), deletions included, `take` at a time; `after` (a page's NextCursor) continues
 * exactly after the last change of the previous page, however many changes share its instant.
 */
export async function partnerChangesSince(ctx: RequestContext, from: string, take: number | null | undefined, cursor: FeedCursor | null | undefined): Promise<PartnerChangesPage> {
  const size = take ?? DEFAULT_FEED_PAGE;
  const rows = await tenantSql(ctx).all<AuditRow>(
    auditSelect(
      `${CHANGED_AT} >= ?::timestamptz AND (l.contact_synced_at IS NULL OR ${CHANGED_AT} > l.contact_synced_at)${cursor ? ` AND (${CHANGED_AT}, c.id) > (?::timestamptz, ?)` : ''}`,
      `ORDER BY ${CHANGED_AT}, c.id LIMIT ?`,
    ),
    [from, ...(cursor ? [cursor.at, cursor.id] : []), size + 1],
  );
  const page = rows.slice(0, size);
  const last = page.at(-1);
  return {
    Changes: page.map((row) => ({ ...toAudit(row), ChangeType: row.deleted ? 'Deleted' : 'Changed', ChangedAt: row.changed_at } satisfies PartnerChange)),
    NextCursor: rows.length > size && last ? encodeCursor(last.changed_at, last.contact_id) : null,
  };
}

/** The largest contact id (PostgreSQL integer): a larger one in a cursor is not ours. */
const MAX_INT = 2_147_483_647;

function encodeCursor(at: string, id: number): string {
  return Buffer.from(JSON.stringify([at, id])).toString('base64url');
}

interface FeedCursor { at: string; id: number }

/** `after`: a NextCursor of the feed (base64url JSON of the last change's instant and contact id); one that is not names no page. */
export const FEED_CURSOR_RULE: ArgumentRule<FeedCursor> = {
  schema: { type: 'string', maxLength: 200, pattern: '^[A-Za-z0-9_-]+$', description: 'A NextCursor of this feed, as answered.' },
  parse(cursor, field) {
    try {
      const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
      if (typeof at === 'string' && typeof id === 'number' && Number.isInteger(id) && id >= 0 && id <= MAX_INT) return { at: parseInstant(at, field).text, id };
    } catch {
      // not ours: below
    }
    throw BadInput.field(field, 'names no NextCursor of this feed');
  },
};

/** `utcdatetime`: an ISO 8601 instant, as exact text for PostgreSQL. */
export const UTC_DATE_TIME_RULE = instantRule((value, field) => parseInstant(value, field).text);

/** `take`: a page of the feed. */
export const FEED_PAGE_RULE = rangeRule(1, MAX_FEED_PAGE);

function toAudit(row: AuditRow): PartnerAudit {
  const details = row.details ?? {};
  const detail = (field: string) => details[field] ?? null;
  const address = (kind: 'physical' | 'mailing') => row.addresses?.find((candidate) => candidate.kind === kind)
    ?? (kind === 'physical' ? row.addresses?.find((candidate) => !candidate.kind) : undefined);
  const physical = address('physical');
  const mailing = address('mailing');
  return {
    ContactType: row.contact_type ?? (row.kind === 'organization' ? 'Organization' : 'Person'),
    NationalID: row.national_id, PlatformID: row.contact_id, StateID: row.state_id, Affiliation: row.affiliation,
    URL: detail('URL'), Name: row.name, FirstName: row.first_name, LastName: row.last_name, Email: row.email, Title: row.title,
    Designation: detail('Designation'), OU: detail('OU'), NumberOfEmployees: detail('NumberOfEmployees'), AgencyType: detail('AgencyType'),
    EOPolicyNumber: detail('EOPolicyNumber'), Status: detail('Status'), ParentNationalId: row.parent_national_id, PlatformParentId: row.parent_contact_id,
    ParentAgency: detail('ParentAgency'), InformalFirstName: detail('InformalFirstName'), Suffix: row.suffix ?? detail('Suffix'), MiddleInitial: detail('MiddleInitial'),
    SocialLinkA: detail('SocialLinkA'), SocialLinkB: detail('SocialLinkB'), SocialLinkC: detail('SocialLinkC'), FederalID: detail('FederalID'),
    Description: detail('Description'), SocialLinkD: detail('SocialLinkD'), SocialLinkE: detail('SocialLinkE'), JobTitle: row.job_title ?? detail('JobTitle'),
    Department: detail('Department'), WorkPhoneExtension: detail('WorkPhoneExtension'), HomePhoneExtension: detail('HomePhoneExtension'),
    OtherPhoneExtension: detail('OtherPhoneExtension'), PhoneExtension: detail('PhoneExtension'), WorkPhone: detail('WorkPhone'), HomePhone: detail('HomePhone'),
    OtherPhone: detail('OtherPhone'), MobilePhone: row.mobile_phone, Fax: detail('Fax'), Phone: row.phone,
    PhysicalLine1: physical?.line1 ?? null, PhysicalLine2: physical?.line2 ?? null, PhysicalCity: physical?.city ?? null, PhysicalState: physical?.region ?? null,
    PhysicalZip: physical?.postalCode ?? null, PhysicalCountry: physical?.country ?? null,
    MailingLine1: mailing?.line1 ?? null, MailingLine2: mailing?.line2 ?? null, MailingCity: mailing?.city ?? null, MailingState: mailing?.region ?? null,
    MailingZip: mailing?.postalCode ?? null, MailingCountry: mailing?.country ?? null,
  };
}

// ---- staff: the transaction log and the affiliation history ----

const logList = defineList(PartnerTransactionLog, {
  operations: ['Query.partnerTransactions'],
  orderBy: { ReceivedAt: 'createdAt', TransactionLogId: 'id', Operation: 'operation', Outcome: 'outcome', ChangedAt: 'changedAt' },
  defaultOrder: 'ReceivedAt desc',
  search: ['transactionId', 'operation', 'outcome', 'reason', 'stateId'],
  dates: 'createdAt',
}, 'many');

export async function listPartnerTransactions(
  ctx: RequestContext, options: ListOptionsInput | null | undefined, outcome: string | null | undefined, nationalId: number | null | undefined,
): Promise<PartnerTransactionLogItem[]> {
  if (outcome && !isOneOf(PARTNER_OUTCOMES, outcome)) throw BadInput.field('outcome', `must be one of ${PARTNER_OUTCOMES.join(', ')}`);
  const { rows } = await listQuery(ctx, PartnerTransactionLog, logList, options, {
    fields: ['id', 'operation', 'isNational', 'transactionId', 'changedAt', 'nationalId', 'stateId', 'contact', 'outcome', 'reason', 'createdAt', 'settledAt'],
    where: { ...(outcome ? { outcome: outcome as PartnerOutcome } : {}), ...(nationalId != null ? { nationalId } : {}) },
  });
  return rows.map((row) => ({
    TransactionLogId: row.id, Operation: row.operation, IsNational: row.isNational, TransactionId: row.transactionId, ChangedAt: iso(row.changedAt),
    NationalID: row.nationalId, StateID: row.stateId, PlatformID: idOf(row.contact), Outcome: row.outcome, Reason: row.reason,
    ReceivedAt: iso(row.createdAt)!, SettledAt: iso(row.settledAt),
  }));
}

const affiliationList = defineList(PartnerAffiliation, {
  operations: ['Query.partnerAffiliations'],
  orderBy: { ValidFrom: 'validFrom', StateID: 'stateId', Affiliation: 'affiliation' },
  defaultOrder: 'ValidFrom',
  search: ['stateId', 'affiliation', 'transactionId'],
  dates: 'validFrom',
}, 'many');

export async function listPartnerAffiliations(ctx: RequestContext, nationalId: number, options: ListOptionsInput | null | undefined): Promise<PartnerAffiliationItem[]> {
  const { rows } = await listQuery(ctx, PartnerAffiliation, affiliationList, options, {
    fields: ['stateId', 'affiliation', 'parentNationalId', 'validFrom', 'cause', 'transactionId'],
    where: { record: { nationalId } },
  });
  return rows.map((row) => ({
    StateID: row.stateId, Affiliation: row.affiliation, ParentNationalId: row.parentNationalId, ValidFrom: iso(row.validFrom)!, Cause: row.cause, TransactionId: row.transactionId,
  }));
}

function iso(value: Date | string | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}

// ---- values ----

const ISO_PARTS = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * An ISO 8601 instant (no zone: UTC) as a Date (milliseconds) and as exact text for PostgreSQL
 * (microseconds): between the years 0001 and 9999, a real calendar day and time, a zone within ±14:59.
 */
export function parseInstant(value: string, field: string): { date: Date; text: string } {
  const parts = ISO_INSTANT.test(value.trim()) ? ISO_PARTS.exec(value.trim()) : null;
  const invalid = () => BadInput.field(field, 'must be an ISO 8601 date-time (e.g. 2026-11-23T20:15:00Z) between the years 0001 and 9999');
  if (!parts) throw invalid();
  const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = '', zone = 'Z'] = parts;
  const days = new Date(Date.UTC(2000, Number(month), 0)).getUTCDate() - (Number(month) === 2 && !isLeap(Number(year)) ? 1 : 0);
  const zoneMatch = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
  if (Number(month) < 1 || Number(month) > 12 || Number(day) < 1 || Number(day) > days || Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59
    || (zoneMatch && (Number(zoneMatch[2]) > 14 || Number(zoneMatch[3]) > 59))) throw invalid();
  const text = `${year}-${month}-${day}T${hour}:${minute}:${second}${fraction ? `.${fraction.slice(0, 6)}` : ''}${zoneMatch ? `${zoneMatch[1]}${zoneMatch[2]}:${zoneMatch[3]}` : 'Z'}`;
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) throw invalid();
  return { date, text };
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

// ---- demo data ----

/** A partner-linked organization and person with their history and log, for a new tenant. */
export async function seedPartnerSync(em: EntityManager, tenant: Tenant, marker: string): Promise<void> {
  const changedAt = new Date(Date.now() - 3600_000);
  const organization = em.create(Contact, { tenant, kind: 'organization', name: `${marker}Lakeside Agency`, nationalId: '5001', stateId: 'MN-77', email: 'office@lakeside.example' });
  const person = em.create(Contact, { tenant, kind: 'person', firstName: `${marker}Dana`, lastName: 'Reyes', nationalId: '5002', organization, email: 'dana@lakeside.example' });
  const orgLink = em.create(PartnerRecord, {
    tenant, contact: organization, kind: 'organization', nationalId: 5001, stateId: 'MN-77', affiliation: `${marker}Minnesota`,
    details: { URL: 'https://lakeside.example', SocialLinkA: `https://social.example/${marker}` }, dataChangedAt: changedAt, dataTransactionId: 'demo-1',
    affiliationChangedAt: changedAt, affiliationTransactionId: 'demo-1',
  });
  em.create(PartnerRecord, {
    tenant, contact: person, kind: 'person', nationalId: 5002, parentNationalId: 5001, details: { JobTitle: `${marker}Agent` }, dataChangedAt: changedAt, dataTransactionId: 'demo-2',
  });
  em.create(PartnerAffiliation, { tenant, record: orgLink, stateId: 'MN-77', affiliation: `${marker}Minnesota`, validFrom: changedAt, transactionId: 'demo-1', cause: 'upsert' });
  em.create(PartnerTransactionLog, {
    tenant, operation: 'organization/upsert', isNational: true, transactionId: 'demo-1', changedAt, nationalId: 5001, stateId: 'MN-77', contact: organization,
    outcome: 'applied', settledAt: changedAt, payload: { Transaction: { TransactionId: 'demo-1', Record: { NationalID: 5001, Name: `${marker}Lakeside Agency` } }, IsNational: true },
  });
  em.create(PartnerTransactionLog, {
    tenant, operation: 'person/upsert', isNational: false, transactionId: 'demo-3', nationalId: 5003, outcome: 'failed', reason: `${marker}ParentNationalId is a person`, payload: {},
  });
  await em.flush();
}
