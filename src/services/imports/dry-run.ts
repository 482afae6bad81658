import { TENANT, tenantIs, type TenantSql } from '../../core/data/tenant-sql.js';
import { intArray } from '../chapters/chapter-links.js';
import { RECORDSET, recordsetParam, textArray, type ContactState, type Relationship, type Term } from './apply.js';

/*
 * A dry run's state between its batches (table contact_import_dry_contact, migration 0049). A dry
 * run writes nothing to the tables, yet a later batch must find what the import would have left
 * by then: a key repeated further down the file is then "updated" or "unchanged" (as the import
 * says), not "created" twice. So each batch keeps every contact it would have created or changed
 * — its values, its terms and relationships — in the same transaction as its outcomes and the
 * checkpoint (a dry run cut off resumes with the state of its last committed batch), and the next
 * batches look them up by the keys of their rows, over what the tables hold. Memory holds one
 * batch's contacts, whatever the file's size.
 */

/** A contact as kept: what `ContactState` holds between rows, with its terms and relationships. */
interface KeptContact extends Pick<ContactState, 'id' | 'kind' | 'values' | 'lists' | 'customFields' | 'externalId' | 'organizationId' | 'createdByRow'> {
  terms: Term[];
  relationships: Relationship[];
}

/** The keys a batch's rows look contacts up by. */
export interface DryRunKeys { contactIds: number[]; externalIds: string[]; nationalIds: string[]; emails: string[] }

/** The contacts of dry run `importId` that hold one of `keys`. */
export async function readDryRunState(sql: TenantSql, importId: number, keys: DryRunKeys): Promise<ContactState[]> {
  const rows = await sql.all<{ state: KeptContact }>(
    // One branch per key, each on its own index.
    `with matched as (
       select d.id from contact_import_dry_contact d where ${tenantIs('d')} and d.contact_import_id = ? and d.contact_id = any(?::int[])
       union select d.id from contact_import_dry_contact d where ${tenantIs('d')} and d.contact_import_id = ? and d.external_id = any(?::text[])
       union select d.id from contact_import_dry_contact d where ${tenantIs('d')} and d.contact_import_id = ? and d.national_id = any(?::text[])
       union select d.id from contact_import_dry_contact d where ${tenantIs('d')} and d.contact_import_id = ? and d.email_key = any(?::text[])
     )
     select d.state from matched join contact_import_dry_contact d on d.id = matched.id and ${tenantIs('d')}`,
    [importId, intArray(keys.contactIds), importId, textArray(keys.externalIds), importId, textArray(keys.nationalIds), importId, textArray(keys.emails)]);
  return rows.map(({ state: { terms, relationships, ...contact } }) => ({ ...contact, isNew: false, changed: false, externalIdChanged: false, dryRun: { terms, relationships } }));
}

/**
 * The contacts of a batch: those the tables hold, each replaced by its dry-run state where it has
 * one, then those the dry run would have created — in the order the import would have them (by
 * id, the created ones after, in the order of their rows), since the first holder of an e-mail keeps it.
 */
export function withDryRunState(stored: ContactState[], kept: ContactState[]): ContactState[] {
  const byId = new Map(stored.map((contact) => [contact.id, contact]));
  for (const contact of kept) byId.set(contact.id, contact);
  const order = (contact: ContactState) => (contact.id > 0 ? contact.id : Number.MAX_SAFE_INTEGER / 2 - contact.id);
  return [...byId.values()].sort((a, b) => order(a) - order(b));
}

/** The organizations dry run `importId` would have created, by lower-case name, of those `names`. */
export async function dryRunOrganizations(sql: TenantSql, importId: number, names: string[]): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  if (!names.length) return found;
  const rows = await sql.all<{ contact_id: number; organization_key: string }>(
    `select d.contact_id, d.organization_key from contact_import_dry_contact d
      where ${tenantIs('d')} and d.contact_import_id = ? and d.organization_key = any(?::text[]) and d.contact_id < 0 order by d.contact_id desc`, [importId, textArray(names)]);
  for (const row of rows) if (!found.has(row.organization_key)) found.set(row.organization_key, row.contact_id);
  return found;
}

/**
 * Keeps the batch's outcome as dry run `importId`'s state: every contact it created or changed,
 * or whose terms or relationships it changed, with all its terms and relationships.
 */
export async function keepDryRunState(
  sql: TenantSql, importId: number, contacts: ContactState[], terms: Term[], relationships: Relationship[], changedTerms: Term[], changedRelationships: Relationship[],
): Promise<void> {
  const touched = new Set([...changedTerms.map((term) => term.contactId), ...changedRelationships.map((entry) => entry.personId)]);
  const kept = contacts.filter((contact) => contact.isNew || contact.changed || contact.externalIdChanged || touched.has(contact.id));
  if (!kept.length) return;
  const termsOf = Map.groupBy(terms, (term) => term.contactId);
  const relationshipsOf = Map.groupBy(relationships, (entry) => entry.personId);
  const records = kept.map((contact) => {
    const state: KeptContact = {
      id: contact.id, kind: contact.kind, values: contact.values, lists: contact.lists, customFields: contact.customFields, externalId: contact.externalId,
      organizationId: contact.organizationId, createdByRow: contact.createdByRow,
      // As the import would store them: a first term joins on its start date (the join-date trigger's answer).
      terms: (termsOf.get(contact.id) ?? []).map(({ firstOfType, ...term }) => ({ ...term, joinDate: term.joinDate ?? (firstOfType ? term.startDate : null), changed: false })),
      relationships: (relationshipsOf.get(contact.id) ?? []).map((entry) => ({ ...entry, changed: false })),
    };
    return {
      contact_id: contact.id, external_id: contact.externalId, national_id: contact.values.NationalID, email_key: contact.values.Email?.toLowerCase() ?? null,
      organization_key: contact.kind === 'organization' ? contact.values.Name?.trim().toLowerCase() ?? null : null, state,
    };
  });
  await sql.run(`insert into contact_import_dry_contact (tenant_id, contact_import_id, contact_id, external_id, national_id, email_key, organization_key, state)
    select ${TENANT}, ?, r.contact_id, r.external_id, r.national_id, r.email_key, r.organization_key, r.state
      from ${RECORDSET} as r(contact_id int, external_id text, national_id text, email_key text, organization_key text, state jsonb)
    on conflict (contact_import_id, contact_id) do update set external_id = excluded.external_id, national_id = excluded.national_id, email_key = excluded.email_key,
      organization_key = excluded.organization_key, state = excluded.state, updated_at = now()`, [importId, recordsetParam(records)]);
}

/** Forgets dry run `importId`'s state (a run starts, or a dry run completed). */
export async function forgetDryRunState(sql: TenantSql, importId: number): Promise<void> {
  await sql.run(`delete from contact_import_dry_contact d where ${tenantIs('d')} and d.contact_import_id = ?`, [importId]);
}
