import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { WebhookEventType } from '../../entities/webhook.js';
import { emitWebhookEvent } from '../webhooks/events.js';
import { normalizeCustomFieldValues } from '../custom-fields/custom-fields.js';
import { customFieldCondition } from '../custom-fields/filters.js';
import { checkAcrossFields } from '../../core/argument-rules.js';
import type { RequestContext } from '../../core/context.js';
import { BadInput, Conflict, NotFound } from '../../core/errors.js';
import { allOf, idOf, leanRows } from '../../core/data/lean-read.js';
import { defineList, escapeLike, listQuery, parseListOptions } from '../../core/data/list-query.js';
import { assertCurrentVersion, findOr404, saveRecord, withDuplicateLock } from '../../core/data/records.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';
import { Contact, displayName, type ContactKind, type ContactWebsite, type PostalAddress } from '../../entities/contact.js';
import type { Tenant } from '../../entities/tenant.js';
import { listResult, lookupChoices, type ListResultOf } from '../../schema/common.js';
import { ContactInput } from '../../schema/contacts.js';
import type {
  ContactAddress, ContactEmail as EmailView, ContactListCriteria, ContactListFilterInput, ContactModel, ContactPhone as PhoneView, ContactWebsite as WebsiteView,
} from '../../schema/contacts.js';

/*
 * Contacts: staff manage people and organizations (decided where the issue is silent):
 * - One record for both kinds; `Kind` cannot change once created (an organization's people and a
 *   person's logins and memberships would no longer fit). A person needs a first or last name, an
 *   organization a name.
 * - E-mails, phones, addresses and websites are lists with exactly one primary each (a single
 *   entry is primary by default). The primary e-mail and phone stay in `email`/`phone`, which every
 *   other area reads (and partner sync, registrations and callbacks write): when such a writer
 *   changed the column after staff saved the list, the column wins when the list is read.
 * - A save names the whole record: a field left out is cleared, a list left out is emptied.
 * - An archived contact is read (IsArchived) and listed on request, never edited: restore it first.
 * - Likely duplicates, on create only: a live contact with one of the new e-mails (any case), or
 *   the same first and last name (a person, both given) or name (an organization), ignoring case
 *   and surrounding spaces: 409 listing them unless ForceSave is true.
 * - NationalID is unique among the tenant's live contacts (a partial unique index): 409 naming it.
 * - Every save runs under one lock per tenant (`withDuplicateLock`), so that neither two
 *   concurrent creates of one person nor two saves of one NationalID pass their checks together;
 *   staff saves of contacts are rare enough that serializing them costs nothing noticeable.
 */

const NOUN = 'The contact';
/** The lock every contact save (and each batch of an import) takes: one per tenant. */
export const CONTACT_SAVE_LOCK = ['contacts', 'save'] as const;
/** At most this many likely duplicates are listed in a 409. */
const MAX_DUPLICATES_LISTED = 20;

const contactList = defineList(Contact, {
  operations: ['Query.contacts'],
  orderBy: { Name: 'sortName', LastName: 'lastName', FirstName: 'firstName', EmailAddress: 'email', ContactId: 'id', LastModifiedDate: 'updatedAt' },
  defaultOrder: 'Name',
  search: ['searchText'],
}, 'many');

/** Every column a contact view is built from. */
const CONTACT_FIELDS = [
  'id', 'kind', 'prefix', 'firstName', 'middleName', 'lastName', 'suffix', 'name', 'title', 'jobTitle', 'email', 'phone', 'mobilePhone', 'emails', 'phones',
  'addresses', 'websites', 'isTaxExempt', 'taxExemptNumber', 'nationalId', 'stateId', 'organization', 'parent', 'deletedAt', 'updatedAt', 'auditId', 'customFields',
] as const;
type ContactRow = Pick<Contact, (typeof CONTACT_FIELDS)[number]>;

/** Reads with archived contacts included. */
const WITH_ARCHIVED = { notDeleted: false } as const;

// ---- reading ----

/** One page of contacts with the total; archived ones only when the criteria ask for them. */
export async function listContacts(ctx: RequestContext, filter: ContactListFilterInput | null | undefined): Promise<ListResultOf<ContactModel, ContactListCriteria>> {
  const list = parseListOptions(filter, contactList, '');
  const criteria: ContactListCriteria | null = filter?.Criteria
    ? { Kind: null, OrganizationId: null, EmailAddress: null, IsArchived: null, IncludeArchived: null, ...filter.Criteria }
    : null;
  const kind = criteria?.Kind ? kindOf(criteria.Kind) : null;
  const email = criteria?.EmailAddress?.trim();
  const where = allOf<Contact>(
    kind ? { kind } : null,
    criteria?.OrganizationId ? { organization: criteria.OrganizationId } : null,
    email ? { email: { $ilike: escapeLike(email) } } : null,
    criteria?.IncludeArchived ? null : { deletedAt: criteria?.IsArchived ? { $ne: null } : null },
    await customFieldCondition(ctx, kind ? [kind] : ['person', 'organization'], filter?.CustomFieldFilters, (target) => ({ kind: target })),
  );
  const { rows, total } = await listQuery(ctx, Contact, contactList, list, { fields: CONTACT_FIELDS, where, total: true, filters: WITH_ARCHIVED });
  const models = await toModels(ctx, rows);
  const organizations = new Map(models.filter((model) => model.OrganizationId !== null).map((model) => [model.OrganizationId!, model.OrganizationName]));
  return listResult({
    criteria,
    criteriaItems: lookupChoices([{ id: 0, name: 'person', selected: kind === 'person' }, { id: 1, name: 'organization', selected: kind === 'organization' }]),
    total: total ?? 0,
    modelItems: lookupChoices([...organizations].map(([id, name]) => ({ id, name }))),
    results: models,
  });
}

/** One contact, archived or not. */
export function getContact(ctx: RequestContext, contactId: number): Promise<ContactModel> {
  return readContact(ctx, ctx.reader, contactId);
}

/** The contact as just written: read on the primary (a replica may not have the write yet). */
export function getContactAfterWrite(ctx: RequestContext, contactId: number): Promise<ContactModel> {
  return readContact(ctx, ctx.em, contactId);
}

async function readContact(ctx: RequestContext, em: RequestContext['em'], contactId: number): Promise<ContactModel> {
  const [row] = await leanRows(em, Contact, { fields: [...CONTACT_FIELDS], where: { id: contactId }, limit: 1, filters: WITH_ARCHIVED });
  if (!row) throw new NotFound(NOUN);
  return (await toModels(ctx, [row]))[0];
}

// ---- saving ----

/**
 * Create-or-update (contactId 0 creates; an archived contact is 404 until restored). `AuditId`
 * stale → 409; likely duplicates on create → 409 unless ForceSave; NationalID taken → 409.
 */
export async function saveContact(ctx: RequestContext, contactId: number, input: ContactInput): Promise<ContactModel> {
  const { kind, ...fields } = contactColumns(input);
  try {
    const saved = await withDuplicateLock(ctx, ...CONTACT_SAVE_LOCK, async () => {
      const current = contactId ? await findOr404(ctx, Contact, contactId, NOUN) : null;
      if (current) {
        assertCurrentVersion(current, input.AuditId);
        if (current.kind !== kind) throw BadInput.field('Kind', `cannot change: the contact is ${current.kind === 'person' ? 'a person' : 'an organization'}`);
      }
      // CustomFields left out keeps the values; keys sent replace theirs (services/custom-fields).
      const customFields = await normalizeCustomFieldValues(ctx, kind, input.CustomFields, current?.customFields);
      if (fields.organizationId !== null) await checkOrganization(ctx, fields.organizationId);
      if (fields.nationalId !== null) await refuseTakenNationalId(ctx, fields.nationalId, contactId);
      if (!contactId && !input.ForceSave) await refuseLikelyDuplicates(ctx, kind, fields);
      // updatedAt always moves, so that a save changing nothing still moves the AuditId on (and a partner sees the edit).
      const { organizationId, ...columns } = fields;
      const organization = organizationId === null ? null : ctx.em.getReference(Contact, organizationId);
      const contact = await saveRecord(ctx, Contact, { id: contactId, auditId: input.AuditId }, { ...columns, organization, customFields, updatedAt: new Date() }, NOUN, { kind });
      await emitWebhookEvent(ctx, contactEventType(kind, contactId ? 'updated' : 'created'), { ContactId: contact.id, Kind: kind });
      return contact;
    });
    return (await toModels(ctx, [saved]))[0];
  } catch (error) {
    // A partner transaction may create the same NationalID outside our lock: the unique index decides.
    if (error instanceof UniqueConstraintViolationException && error.message.includes('contact_national_id_unique')) throw nationalIdTaken();
    throw error;
  }
}

/**
 * Restores an archived contact: clears its archive stamp and moves `updated_at` (and the
 * AuditId) on, so that the partner feed reports it again. Revives nothing else. A live contact
 * is answered as it is; 409 naming NationalID when a live contact has taken its NationalID since.
 */
export async function restoreContact(ctx: RequestContext, contactId: number): Promise<ContactModel> {
  await withDuplicateLock(ctx, ...CONTACT_SAVE_LOCK, async () => {
    const [row] = await leanRows(ctx.em, Contact, { fields: ['id', 'nationalId', 'deletedAt'], where: { id: contactId }, limit: 1, filters: WITH_ARCHIVED });
    if (!row) throw new NotFound(NOUN);
    if (!row.deletedAt) return;
    if (row.nationalId !== null) await refuseTakenNationalId(ctx, row.nationalId, contactId);
    const [restored] = await tenantSql(ctx).all<{ kind: ContactKind }>(`UPDATE contact SET deleted_at = NULL, updated_at = clock_timestamp(), audit_id = audit_id + 1
      WHERE id = ? AND ${tenantIs()} AND deleted_at IS NOT NULL RETURNING kind`, [contactId]);
    if (restored) await emitWebhookEvent(ctx, contactEventType(restored.kind, 'updated'), { ContactId: contactId, Kind: restored.kind });
  });
  return getContactAfterWrite(ctx, contactId);
}

/** The webhook event of a change to a contact: people are contacts, organizations organizations. */
export function contactEventType(kind: ContactKind, change: 'created' | 'updated' | 'deleted'): WebhookEventType {
  return `${kind === 'organization' ? 'organization' : 'contact'}.${change}`;
}

export type ContactFields = Pick<Contact,
  'prefix' | 'firstName' | 'middleName' | 'lastName' | 'suffix' | 'name' | 'title' | 'jobTitle' | 'email' | 'secondaryEmail' | 'phone' | 'mobilePhone'
  | 'emails' | 'phones' | 'addresses' | 'websites' | 'isTaxExempt' | 'taxExemptNumber' | 'nationalId' | 'stateId'> & { organizationId: number | null };

/**
 * A contact input as the columns it is stored in, after the rules that need no database (400
 * naming the field): what `saveContact` stores, and what the seed inserts in bulk (its contacts
 * are made unique by the seed itself, so they need none of the checks against other records).
 */
export function contactColumns(input: ContactInput): ContactFields & { kind: ContactKind } {
  const kind = kindOf(input.Kind);
  // The rules across fields (a name per kind, one primary per list): GraphQL checked them; the seed is checked here.
  checkAcrossFields(ContactInput, input);
  return { kind, ...contactFields(kind, input) };
}

function contactFields(kind: ContactKind, input: ContactInput): ContactFields {
  const firstName = text(input.FirstName);
  const lastName = text(input.LastName);
  const name = text(input.Name);
  const emails = withOnePrimary(input.Emails).map((entry) => ({ address: entry.EmailAddress.trim(), kind: text(entry.Kind), isPrimary: entry.IsPrimary === true }));
  const phones = withOnePrimary(input.Phones).map((entry) => ({ number: entry.PhoneNumber.trim(), kind: text(entry.Kind), isPrimary: entry.IsPrimary === true }));
  const websites = withOnePrimary(input.Websites).map((entry) => ({ url: entry.Url.trim(), kind: text(entry.Kind), isPrimary: entry.IsPrimary === true }));
  const addresses = withOnePrimary(input.Addresses).map((entry) => toPostalAddress(entry));
  const isTaxExempt = input.IsTaxExempt ?? false;
  return {
    prefix: text(input.Prefix), firstName, middleName: text(input.MiddleName), lastName, suffix: text(input.Suffix), name,
    title: text(input.Title), jobTitle: text(input.JobTitle),
    email: emails[0]?.address ?? null, secondaryEmail: emails[1]?.address ?? null, emails: emails.length ? emails : null,
    phone: phones[0]?.number ?? null, mobilePhone: phones.find((phone) => phone.kind?.toLowerCase() === 'mobile')?.number ?? null, phones: phones.length ? phones : null,
    addresses: addresses.length ? addresses : null, websites: websites.length ? websites : null,
    isTaxExempt, taxExemptNumber: isTaxExempt ? text(input.TaxExemptNumber) : null,
    nationalId: text(input.NationalID), stateId: text(input.StateID),
    organizationId: input.OrganizationId || null,
  };
}

/**
 * A list with its one primary entry first (a single entry is primary by default; ContactInput's
 * rules let no list have more than one, or none of several).
 */
function withOnePrimary<E extends { IsPrimary?: boolean | null }>(entries: E[] | null | undefined): E[] {
  if (!entries?.length) return [];
  const primary = entries.find((entry) => entry.IsPrimary === true);
  return primary ? [primary, ...entries.filter((entry) => entry !== primary)] : [{ ...entries[0], IsPrimary: true }, ...entries.slice(1)];
}

function toPostalAddress(entry: ContactAddress): PostalAddress {
  const address: PostalAddress = {
    kind: text(entry.Kind)?.toLowerCase() ?? undefined, line1: text(entry.Line1) ?? undefined, line2: text(entry.Line2) ?? undefined, city: text(entry.City) ?? undefined,
    region: text(entry.State) ?? undefined, postalCode: text(entry.PostalCode) ?? undefined, country: text(entry.Country) ?? undefined, isPrimary: entry.IsPrimary === true,
  };
  // Absent parts are left out of the stored JSON rather than kept as nulls.
  return Object.fromEntries(Object.entries(address).filter(([, value]) => value !== undefined));
}

/** A person's organization must be a live organization contact of the tenant (400). */
async function checkOrganization(ctx: RequestContext, organizationId: number): Promise<void> {
  const [organization] = await leanRows(ctx.em, Contact, { fields: ['id'], where: { id: organizationId, kind: 'organization' }, limit: 1 });
  if (!organization) throw BadInput.field('OrganizationId', 'is not an organization of this tenant');
}

async function refuseTakenNationalId(ctx: RequestContext, nationalId: string, exceptId: number): Promise<void> {
  const [taken] = await leanRows(ctx.em, Contact, { fields: ['id'], where: allOf<Contact>({ nationalId }, exceptId ? { id: { $ne: exceptId } } : null), limit: 1 });
  if (taken) throw nationalIdTaken(taken.id);
}

function nationalIdTaken(contactId?: number): Conflict {
  return new Conflict('Another contact of this tenant has this NationalID.', [{ field: 'NationalID', message: contactId ? `is ContactId ${contactId}'s` : 'is taken' }]);
}

interface DuplicateRow {
  id: number;
  kind: ContactKind;
  name: string | null;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
}

/** 409 listing the live contacts a new one likely duplicates (same e-mail, or same name). */
async function refuseLikelyDuplicates(ctx: RequestContext, kind: ContactKind, fields: ContactFields): Promise<void> {
  const emails = (fields.emails ?? []).map((entry) => entry.address.toLowerCase());
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (emails.length) {
    conditions.push('lower(c.email) = ANY(?::text[])');
    params.push(`{${emails.map((email) => `"${email.replace(/["\\]/g, '\\$&')}"`).join(',')}}`);
  }
  if (kind === 'person' && fields.firstName && fields.lastName) {
    conditions.push(`(c.kind = 'person' AND lower(trim(c.last_name)) = ? AND lower(trim(c.first_name)) = ?)`);
    params.push(fields.lastName.toLowerCase(), fields.firstName.toLowerCase());
  }
  if (kind === 'organization' && fields.name) {
    conditions.push(`(c.kind = 'organization' AND lower(trim(c.name)) = ?)`);
    params.push(fields.name.toLowerCase());
  }
  if (conditions.length === 0) return;
  const duplicates = await tenantSql(ctx).all<DuplicateRow>(
    `SELECT c.id, c.kind, c.name, c.first_name, c.last_name, c.email FROM contact c
      WHERE ${tenantIs('c')} AND c.deleted_at IS NULL AND (${conditions.join(' OR ')}) ORDER BY c.id LIMIT ${MAX_DUPLICATES_LISTED}`, params);
  if (duplicates.length === 0) return;
  throw new Conflict('Likely duplicates exist (same e-mail or name); send ForceSave true to create the contact anyway.', duplicates.map((duplicate) => {
    const sameEmail = duplicate.email !== null && emails.includes(duplicate.email.toLowerCase());
    const label = displayName({ kind: duplicate.kind, name: duplicate.name, firstName: duplicate.first_name, lastName: duplicate.last_name });
    return { field: sameEmail ? 'Emails' : kind === 'person' ? 'LastName' : 'Name', message: `same ${sameEmail ? 'e-mail' : 'name'} as ContactId ${duplicate.id} ("${label}"${duplicate.email ? `, ${duplicate.email}` : ''})` };
  }));
}

// ---- views ----

/** Contact rows as ContactModel, with their organizations' names (one batched read). */
async function toModels(ctx: RequestContext, rows: ContactRow[]): Promise<ContactModel[]> {
  const organizationIds = [...new Set(rows.map((row) => idOf(row.organization)).filter((id): id is number => id !== null))];
  const organizations = organizationIds.length
    ? await leanRows(ctx.reader, Contact, { fields: ['id', 'name'], where: { id: { $in: organizationIds } }, filters: WITH_ARCHIVED })
    : [];
  const organizationNames = new Map(organizations.map((organization) => [organization.id, organization.name]));
  return rows.map((row) => {
    const organizationId = idOf(row.organization);
    const emails = withColumnPrimary(
      (row.emails ?? []).map((entry): EmailView => ({ EmailAddress: entry.address, Kind: entry.kind, IsPrimary: entry.isPrimary })),
      row.email, (entry) => entry.EmailAddress.toLowerCase() === row.email?.toLowerCase(), (address) => ({ EmailAddress: address, Kind: null, IsPrimary: true }),
    );
    const storedPhones = row.phones ?? (row.mobilePhone ? [{ number: row.mobilePhone, kind: 'Mobile', isPrimary: false }] : []);
    const phones = withColumnPrimary(
      storedPhones.map((entry): PhoneView => ({ PhoneNumber: entry.number, Kind: entry.kind, IsPrimary: entry.isPrimary })),
      row.phone, (entry) => entry.PhoneNumber === row.phone, (number) => ({ PhoneNumber: number, Kind: null, IsPrimary: true }),
    );
    return {
      ContactId: row.id, Kind: row.kind, DisplayName: displayName(row), Prefix: row.prefix, FirstName: row.firstName, MiddleName: row.middleName, LastName: row.lastName,
      Suffix: row.suffix, Name: row.name, Title: row.title, JobTitle: row.jobTitle, EmailAddress: row.email, PhoneNumber: row.phone,
      Emails: emails, Phones: phones, Addresses: addressViews(row.addresses), Websites: websiteViews(row.websites),
      IsTaxExempt: row.isTaxExempt, TaxExemptNumber: row.taxExemptNumber, NationalID: row.nationalId, StateID: row.stateId,
      OrganizationId: organizationId, OrganizationName: organizationId === null ? null : organizationNames.get(organizationId) ?? null,
      ParentOrganizationId: idOf(row.parent), IsArchived: row.deletedAt !== null, ArchivedDate: row.deletedAt ? new Date(row.deletedAt).toISOString() : null,
      LastModifiedDate: new Date(row.updatedAt).toISOString(), AuditId: row.auditId, CustomFields: row.customFields ?? {},
    };
  });
}

/**
 * A stored list whose primary entry agrees with the column other areas write (`column`): when
 * they changed the column since, the column's value is the primary (an equal entry is taken as
 * primary, else the old primary entry carries the new value); no column value, no primary.
 */
function withColumnPrimary<E extends { IsPrimary?: boolean | null }>(stored: E[], column: string | null, isColumnValue: (entry: E) => boolean, make: (value: string) => E): E[] {
  if (column === null) return stored.filter((entry) => !entry.IsPrimary);
  const equal = stored.find(isColumnValue);
  if (equal) return [{ ...equal, IsPrimary: true }, ...stored.filter((entry) => entry !== equal).map((entry) => ({ ...entry, IsPrimary: false }))];
  const oldPrimary = stored.find((entry) => entry.IsPrimary);
  const primary = { ...(oldPrimary ?? {}), ...make(column) };
  return [primary, ...stored.filter((entry) => entry !== oldPrimary)];
}

/** The primary of addresses as stored by any area: the one marked primary, else kind "primary", else the first. */
export function primaryAddress(addresses: PostalAddress[] | null): PostalAddress | undefined {
  if (!Array.isArray(addresses)) return undefined;
  return addresses.find((address) => address.isPrimary) ?? addresses.find((address) => address.kind?.toLowerCase() === 'primary') ?? addresses[0];
}

function addressViews(addresses: PostalAddress[] | null): ContactAddress[] {
  const primary = primaryAddress(addresses);
  if (!addresses || !primary) return [];
  return [primary, ...addresses.filter((address) => address !== primary)].map((address) => ({
    Kind: address.kind ?? null, Line1: address.line1 ?? null, Line2: address.line2 ?? null, City: address.city ?? null, State: address.region ?? null,
    PostalCode: address.postalCode ?? null, Country: address.country ?? null, IsPrimary: address === primary,
  }));
}

function websiteViews(websites: ContactWebsite[] | null): WebsiteView[] {
  return (websites ?? []).map((website) => ({ Url: website.url, Kind: website.kind, IsPrimary: website.isPrimary }));
}

// ---- values ----

function kindOf(value: string): ContactKind {
  const kind = value.trim().toLowerCase();
  if (kind !== 'person' && kind !== 'organization') throw BadInput.field('Kind', 'must be person or organization');
  return kind;
}

/** Trimmed text; blank is none. */
function text(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

// ---- demo data ----

/** A demo organization and one of its people (with every list filled), for a new tenant. */
export async function seedContacts(em: EntityManager, tenant: Tenant, marker: string): Promise<void> {
  const organization = em.create(Contact, {
    tenant, kind: 'organization', name: `${marker}Harbor Trust`, email: 'office@harbor.example', isTaxExempt: true, taxExemptNumber: `${marker}EX-1`,
    websites: [{ url: 'https://harbor.example', kind: 'Company', isPrimary: true }],
  });
  em.create(Contact, {
    tenant, kind: 'person', prefix: 'Dr.', firstName: `${marker}Ines`, middleName: 'M.', lastName: 'Harbor', suffix: 'PhD', jobTitle: `${marker}Treasurer`, organization,
    email: 'ines@harbor.example', emails: [{ address: 'ines@harbor.example', kind: 'Work', isPrimary: true }, { address: 'ines@home.example', kind: 'Home', isPrimary: false }],
    phone: '+1 555 0100', phones: [{ number: '+1 555 0100', kind: 'Work', isPrimary: true }],
    addresses: [{ kind: 'physical', line1: `${marker}1 Quay`, city: 'Portland', postalCode: '97201', isPrimary: true }],
  });
  await em.flush();
}
