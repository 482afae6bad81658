import { raw, type RawQueryFragment } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { calendarDay } from '../../core/dates.js';
import { takeDuplicateLock } from '../../core/data/records.js';
import { TENANT, tenantIs, tenantSql, type TenantSql } from '../../core/data/tenant-sql.js';
import { BadInput } from '../../core/errors.js';
import type { ContactKind } from '../../entities/contact.js';
import type { CustomFieldTarget, CustomFieldValue, CustomFieldValues } from '../../entities/custom-field.js';
import type { ImportRowOutcome } from '../../entities/contact-import.js';
import type { MembershipStatus } from '../../entities/membership.js';
import { intArray } from '../chapters/chapter-links.js';
import { CONTACT_SAVE_LOCK } from '../contacts/contacts.js';
import { customFieldCell, normalizeWithDefinitions, type CustomFieldDefinition } from '../custom-fields/values.js';
import { termEnd, type TermRule } from '../memberships/terms.js';
import { contactCellProblem, listsAfterRow, type ContactLists } from './contact-lists.js';
import { dryRunOrganizations, keepDryRunState, readDryRunState, withDryRunState } from './dry-run.js';
import { cellValue, customFieldColumn, FIELD_LENGTHS, kindOf, statusOf, type ImportField, type MatchKey } from './columns.js';

/*
 * One batch of an import's rows, written in one transaction with set-based statements (a few per
 * batch, whatever its size) instead of one service call per row. The rules are the services':
 * - contacts: a person needs a first or last name, an organization a name; a contact keeps its
 *   kind; NationalID is unique among live contacts (a row taking another contact's is rejected);
 *   a likely duplicate — a new contact with a live contact's e-mail — is rejected naming it (the
 *   import never creates one and never refuses the whole file; matching on Email updates it
 *   instead). Same names alone are not refused: member lists hold namesakes. The batch holds the
 *   contacts' save lock, so neither a staff save nor another import's batch interleaves.
 * - memberships: a term is matched on (contact, type, StartDate); a new one needs an active type,
 *   its level must be the type's, EndDate defaults to the type's term end and is not before
 *   StartDate. Imported terms take the status given (history), default active; the lapse job
 *   manages them from then on.
 * - an organization named in a person's row is the live organization of that name (ignoring case
 *   and surrounding spaces), created when there is none; the person's relationship with it (role)
 *   is kept and it becomes the person's current organization.
 * - a contact's address and website columns name the primary entries of its lists (contact-lists.ts:
 *   an empty address block removes the primary address; the other entries are kept).
 * A mapped column's empty cell clears the value (a row names the whole of what it maps), a column
 * not mapped leaves it alone. A row is all or nothing: it is checked whole before it changes
 * anything. No webhook events are sent for imported changes.
 * A dry run's batch is checked by the same code, but its changes go to the dry run's own state
 * (dry-run.ts) instead of the tables: a later batch of the run finds there what the import would
 * have left, and a contact it would create has no id (its rows answer ContactId null).
 */

/** The contact columns an import writes, by field. */
const CONTACT_COLUMNS = {
  NationalID: 'national_id', FirstName: 'first_name', LastName: 'last_name', Name: 'name', Email: 'email', Phone: 'phone', MobilePhone: 'mobile_phone', JobTitle: 'job_title',
  Prefix: 'prefix', MiddleName: 'middle_name', Suffix: 'suffix', Title: 'title',
} as const satisfies Partial<Record<ImportField, string>>;
type ContactField = keyof typeof CONTACT_COLUMNS;
const CONTACT_FIELDS = Object.keys(CONTACT_COLUMNS) as ContactField[];
const MEMBERSHIP_FIELDS: ImportField[] = ['MembershipType', 'MembershipLevel', 'MembershipStatus', 'MembershipJoinDate', 'MembershipStartDate', 'MembershipEndDate'];
const DATE_FIELDS: ImportField[] = ['MembershipJoinDate', 'MembershipStartDate', 'MembershipEndDate'];
/** `jsonb_to_recordset` over one `recordsetParam`. */
export const RECORDSET = 'jsonb_to_recordset(?::jsonb)';

/**
 * The parameter of `RECORDSET`: the records' JSON, their null columns left out (the recordset
 * reads a missing key as null), which halves it for a sparse file; nested values (custom fields,
 * addresses) are kept as they are. It is given as a literal already escaped: MikroORM writes every
 * parameter into the statement's text, escaping a string character by character — a V8 string
 * piece per character, ~30 bytes each, which a collection meeting them mid-build promotes into the
 * old generation (a fifth of what an import left there, profiled). Escaped here in PostgreSQL's
 * escape-string form (E'…': only a quote and a backslash are special, each doubled, whatever
 * standard_conforming_strings says), in two passes over the whole text.
 */
export const recordsetParam = (records: readonly object[]): RawQueryFragment => {
  const json = `[${records.map((record) => JSON.stringify(record, function (this: unknown, _key, value: unknown) { return this === record && value === null ? undefined : value; })).join(',')}]`;
  return raw(`E'${json.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`);
};

/** Values as a PostgreSQL text array literal (a parameter cast with `::text[]`). */
export const textArray = (values: string[]): string => `{${values.map((value) => `"${value.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;

/** A data row as read: its number in the file (1 = first data row) and its cells. */
export interface SourceRow { rowNumber: number; cells: string[] }

/** A data row checked on its own (`readRow`): its values by field, or why it is rejected. */
export type ReadRow = SourceRow & ({ values: RowValues; rejected?: never } | { values?: never; rejected: string });

export interface RowResult { rowNumber: number; outcome: ImportRowOutcome; reason: string | null; contactId: number | null }

/** The tenant's custom fields (retired ones included) by the record they apply to. */
export type CustomFieldSets = Record<CustomFieldTarget, readonly CustomFieldDefinition[]>;

/** How a file's columns are read: the field of each column index (unmapped columns absent), and the custom fields. */
export interface ImportPlan { fields: Map<number, string>; matchOn: MatchKey; customFields: CustomFieldSets }

interface MembershipTypeRule extends TermRule { id: number; isActive: boolean; levels: Map<string, number> }
/** The tenant's membership types by lower-case name, read once per run. */
export type MembershipTypes = Map<string, MembershipTypeRule>;

export async function readMembershipTypes(sql: TenantSql): Promise<MembershipTypes> {
  const rows = await sql.all<{ id: number; name: string; is_active: boolean; duration_months: number | null; period_type: 'rolling' | 'fixed'; fixed_start_month: number | null; fixed_start_day: number | null; level_id: number | null; level_name: string | null }>(
    `select t.id, t.name, t.is_active, t.duration_months, t.period_type, t.fixed_start_month, t.fixed_start_day, l.id as level_id, l.name as level_name
       from membership_type t left join membership_level l on l.membership_type_id = t.id and l.tenant_id = t.tenant_id
      where ${tenantIs('t')} order by t.id, l.id`);
  const types: MembershipTypes = new Map();
  for (const row of rows) {
    const key = row.name.trim().toLowerCase();
    const type = types.get(key) ?? {
      id: row.id, isActive: row.is_active, durationMonths: row.duration_months, periodType: row.period_type, fixedStartMonth: row.fixed_start_month, fixedStartDay: row.fixed_start_day,
      levels: new Map<string, number>(),
    };
    if (type.id !== row.id) continue; // two types of one name: the first
    if (row.level_id !== null && row.level_name !== null && !type.levels.has(row.level_name.trim().toLowerCase())) type.levels.set(row.level_name.trim().toLowerCase(), row.level_id);
    types.set(key, type);
  }
  return types;
}

export interface ContactState {
  /** Its id; negative for a contact this batch creates (the real id comes with the insert) or a dry run would have created (it never has one). */
  id: number;
  kind: ContactKind;
  values: Record<ContactField, string | null>;
  /** Its addresses and websites, of which a row names the primary ones. */
  lists: ContactLists;
  customFields: CustomFieldValues;
  externalId: string | null;
  organizationId: number | null;
  isNew: boolean;
  changed: boolean;
  externalIdChanged: boolean;
  /** The row that created it (a contact created in this batch, or by a dry run, has no id yet). */
  createdByRow?: number;
  /** Loaded from a dry run's state: its terms and relationships there (instead of the tables'). */
  dryRun?: { terms: Term[]; relationships: Relationship[] };
}

/** The (negative) id of the contact row `rowNumber` creates, or of the organization it names and creates: unique in a run, never a real id. */
const temporaryId = (rowNumber: number, organization = false): number => -(2 * rowNumber + (organization ? 1 : 0));

/** How a reason names another contact: its ContactId, or the row of this file that created it. */
const named = (contact: ContactState): string => (contact.createdByRow === undefined ? `ContactId ${contact.id}` : `the contact of row ${contact.createdByRow}`);

export interface Term {
  id: number; contactId: number; typeId: number; levelId: number | null; joinDate: string | null; startDate: string; endDate: string | null; status: MembershipStatus;
  customFields: CustomFieldValues; changed: boolean;
  /** A new term whose contact holds no other term of its type (none stored, none earlier in the batch). */
  firstOfType?: boolean;
}

/** A row's values by field: mapped fields only; an empty cell is null. */
type RowValues = Map<string, string | null>;

class Rejected extends Error {}
const reject = (field: string, message: string): never => { throw new Rejected(`${field}: ${message}`); };

/** The cells of a row by field, checked on their own (lengths, the contact input's rules, dates, choices). */
function rowValues(plan: ImportPlan, cells: string[]): RowValues {
  const values: RowValues = new Map();
  for (const [index, field] of plan.fields) {
    const text = cellValue(cells[index] ?? '').trim();
    values.set(field, text === '' ? null : text);
  }
  for (const [field, value] of values) {
    if (value === null) continue;
    const limit = FIELD_LENGTHS[field as ImportField];
    if (limit && value.length > limit) reject(field, `is longer than ${limit} characters`);
  }
  const problem = contactCellProblem(values);
  if (problem) reject(problem.field, problem.message);
  const kind = values.get('Kind');
  if (kind && !kindOf(kind)) reject('Kind', 'must be Person or Organization');
  const status = values.get('MembershipStatus');
  if (status && !statusOf(status)) reject('MembershipStatus', 'must be pending, active, lapsed or cancelled');
  for (const field of DATE_FIELDS) {
    const value = values.get(field);
    if (value) {
      try { calendarDay(value, field); } catch { reject(field, 'must be a calendar date (yyyy-mm-dd)'); }
    }
  }
  const contactId = values.get('ContactId');
  if (contactId && !/^[1-9]\d{0,9}$/.test(contactId)) reject('ContactId', 'must be a contact id');
  return values;
}

/**
 * Reads a row's cells by the plan and checks them on their own — what needs no database, so a
 * run does it for the next batch while the database works on the current one.
 */
export function readRow(plan: ImportPlan, row: SourceRow): ReadRow {
  try {
    return { ...row, values: rowValues(plan, row.cells) };
  } catch (error) {
    if (!(error instanceof Rejected)) throw error;
    return { ...row, rejected: error.message };
  }
}

function matchValue(matchOn: MatchKey, values: RowValues): string | null {
  const value = values.get(matchOn) ?? null;
  return value !== null && matchOn === 'Email' ? value.toLowerCase() : value;
}

const emptyValues = (): ContactState['values'] => Object.fromEntries(CONTACT_FIELDS.map((field) => [field, null])) as ContactState['values'];

/**
 * Applies `rows` in `em`'s open transaction; answers each row's outcome, in order. For a dry run
 * (`dryRunOf` the import's id) the changes go to the dry run's state instead of the tables.
 */
export async function applyBatch(
  em: EntityManager, tenantId: number, plan: ImportPlan, types: MembershipTypes, rows: readonly ReadRow[], dryRunOf: number | null = null,
): Promise<RowResult[]> {
  // A dry run writes no contact: it needs no lock against staff saves (and holds none up).
  if (dryRunOf === null) await takeDuplicateLock(em, tenantId, ...CONTACT_SAVE_LOCK);
  const sql = tenantSql({ em, tenantId });
  const valid = rows.flatMap((row) => (row.values ? [row.values] : []));
  const known = await new KnownContacts(sql, dryRunOf).load(valid);
  const organizations = await knownOrganizations(sql, valid, dryRunOf);
  const { terms, typesHeld } = await knownTerms(sql, known.all());
  const relationships = await knownRelationships(sql, known.all());
  const newContact = (kind: ContactKind, id: number, createdByRow: number): ContactState => ({
    id, kind, values: emptyValues(), lists: { addresses: null, websites: null }, customFields: {}, externalId: null, organizationId: null,
    isNew: true, changed: true, externalIdChanged: false, createdByRow,
  });

  const results: RowResult[] = [];
  for (const { rowNumber, values, rejected } of rows) {
    if (!values) {
      results.push({ rowNumber, outcome: 'rejected', reason: rejected, contactId: null });
      continue;
    }
    try {
      results.push({ rowNumber, ...applyRow(rowNumber, values) });
    } catch (error) {
      if (!(error instanceof Rejected)) throw error;
      results.push({ rowNumber, outcome: 'rejected', reason: error.message, contactId: null });
    }
  }

  /** Checks one row whole, then records its changes in the batch's state. */
  function applyRow(rowNumber: number, values: RowValues): { outcome: ImportRowOutcome; contactId: number; reason: null } {
    const key = matchValue(plan.matchOn, values);
    const existing = key === null ? undefined : known.find(plan.matchOn, key);
    if (plan.matchOn === 'ContactId' && key !== null && !existing) reject('ContactId', `no contact ${key} in this tenant`);
    const kindValue = values.get('Kind');
    const kind = kindValue ? kindOf(kindValue)! : existing?.kind ?? 'person';
    if (existing && existing.kind !== kind) reject('Kind', `cannot change: the contact is ${existing.kind === 'person' ? 'a person' : 'an organization'}`);
    const next = { ...(existing?.values ?? emptyValues()) };
    for (const field of CONTACT_FIELDS) if (values.has(field)) next[field] = values.get(field)!;
    if (kind === 'person' && !next.FirstName && !next.LastName) reject('FirstName', 'a person needs a first or last name');
    if (kind === 'organization' && !next.Name) reject('Name', 'an organization needs a name');
    const customFields = checkedCustomFields(values, kind, existing?.customFields);
    const lists = listsAfterRow(existing?.lists ?? { addresses: null, websites: null }, values);
    if (next.NationalID) {
      const holder = known.find('NationalID', next.NationalID);
      if (holder && holder !== existing) reject('NationalID', `is taken by ${named(holder)}`);
    }
    const externalId = values.has('ExternalId') ? values.get('ExternalId')! : existing?.externalId ?? null;
    if (externalId) {
      const holder = known.find('ExternalId', externalId);
      if (holder && holder !== existing) reject('ExternalId', `is taken by ${named(holder)}`);
    }
    if (!existing && next.Email) {
      const holder = known.find('Email', next.Email.toLowerCase());
      if (holder) reject('Email', `likely duplicate of ${named(holder)} (same e-mail): match on Email, or give that contact this row's ExternalId`);
    }
    const organizationName = values.get('Organization');
    if (organizationName && kind !== 'person') reject('Organization', 'only a person belongs to an organization');
    const termChange = checkTerm(values, existing);

    // Checked: record the row's changes.
    const contact = existing ?? known.add(newContact(kind, temporaryId(rowNumber), rowNumber));
    let changed = contact.isNew && !existing;
    for (const field of CONTACT_FIELDS) {
      if (contact.values[field] !== next[field]) {
        known.reindex(contact, field, contact.values[field], next[field]);
        contact.values[field] = next[field];
        contact.changed = changed = true;
      }
    }
    if (lists !== contact.lists) {
      contact.lists = lists;
      contact.changed = changed = true;
    }
    if (!sameCustomFields(contact.customFields, customFields)) {
      contact.customFields = customFields;
      contact.changed = changed = true;
    }
    if (externalId !== contact.externalId) {
      known.reindexExternal(contact, contact.externalId, externalId);
      contact.externalId = externalId;
      contact.externalIdChanged = changed = true;
    }
    if (organizationName) {
      const organizationKey = organizationName.toLowerCase();
      let organizationId = organizations.get(organizationKey);
      if (organizationId === undefined) {
        const organization = known.add(newContact('organization', temporaryId(rowNumber, true), rowNumber));
        organization.values.Name = organizationName;
        organizations.set(organizationKey, organizationId = organization.id);
      }
      if (contact.organizationId !== organizationId) {
        contact.organizationId = organizationId;
        contact.changed = changed = true;
      }
      const role = values.has('OrganizationRole') ? values.get('OrganizationRole')! : relationships.get(`${contact.id}:${organizationId}`)?.role ?? null;
      const relationship = relationships.get(`${contact.id}:${organizationId}`);
      if (!relationship || relationship.role !== role) {
        relationships.set(`${contact.id}:${organizationId}`, { personId: contact.id, organizationId, role, changed: true });
        changed = true;
      }
    }
    if (termChange && termChange(contact.id)) changed = true;
    return { outcome: !existing ? 'created' : changed ? 'updated' : 'unchanged', contactId: contact.id, reason: null };
  }

  /** Checks a row's membership columns; answers what records the term (true when it changed something). */
  function checkTerm(values: RowValues, existing: ContactState | undefined): ((contactId: number) => boolean) | null {
    if (!MEMBERSHIP_FIELDS.some((field) => values.get(field))) return null;
    const typeName = values.get('MembershipType');
    const startDate = values.get('MembershipStartDate');
    if (!typeName) return reject('MembershipType', 'is required with the other membership columns');
    if (!startDate) return reject('MembershipStartDate', 'is required with the other membership columns');
    const type = types.get(typeName.toLowerCase()) ?? reject('MembershipType', `no membership type named "${typeName}"`);
    const levelName = values.get('MembershipLevel');
    const levelId = levelName ? type.levels.get(levelName.toLowerCase()) ?? reject('MembershipLevel', `is not a level of the membership type "${typeName}"`) : null;
    const current = existing && terms.get(`${existing.id}:${type.id}:${startDate}`);
    // An empty end date keeps the term's (an open-ended term exports one), or is the type's term end for a new term.
    const endDate = values.get('MembershipEndDate') ?? (current ? current.endDate : termEnd(type, startDate));
    if (endDate !== null && endDate < startDate) reject('MembershipEndDate', 'must not be before MembershipStartDate');
    if (!current && !type.isActive) reject('MembershipType', 'is inactive: it takes no new members');
    const status = values.get('MembershipStatus') ? statusOf(values.get('MembershipStatus')!)! : current?.status ?? 'active';
    // An empty join date keeps the term's (a term always has one), or lets the database work it out for a new term.
    const joinDate = values.get('MembershipJoinDate') ?? current?.joinDate ?? null;
    const level = values.has('MembershipLevel') ? levelId : current?.levelId ?? null;
    const customFields = checkedCustomFields(values, 'membership', current?.customFields);
    return (contactId) => {
      const term = terms.get(`${contactId}:${type.id}:${startDate}`);
      if (!term) {
        const firstOfType = !typesHeld.has(`${contactId}:${type.id}`);
        typesHeld.add(`${contactId}:${type.id}`);
        terms.set(`${contactId}:${type.id}:${startDate}`, { id: 0, contactId, typeId: type.id, levelId: level, joinDate, startDate, endDate, status, customFields, changed: true, firstOfType });
        return true;
      }
      if (term.levelId === level && term.joinDate === joinDate && term.endDate === endDate && term.status === status && sameCustomFields(term.customFields, customFields)) return false;
      Object.assign(term, { levelId: level, joinDate, endDate, status, customFields, changed: true });
      return true;
    };
  }

  /**
   * A record's custom-field values after a row: its `cf:` columns for the record (each cell read
   * by customFieldCell, the export's text form) merged over `previous` by the custom-fields
   * service's rules (retired fields unchanged, required ones present); a new record is checked
   * even without such columns (a required field). Rejects naming `CustomFields.<key>`.
   */
  function checkedCustomFields(values: RowValues, target: CustomFieldTarget, previous: CustomFieldValues | undefined): CustomFieldValues {
    const definitions = plan.customFields[target];
    const sent: Record<string, CustomFieldValue | null> = {};
    for (const [column, text] of values) {
      const key = customFieldColumn(column, target);
      if (key === null) continue;
      const field = definitions.find((definition) => definition.key === key);
      if (!field) {
        if (text !== null) reject(`CustomFields.${key}`, `is not a custom field of ${target === 'membership' ? 'a membership' : target === 'person' ? 'a person' : 'an organization'}`);
        continue;
      }
      try {
        sent[key] = text === null ? null : customFieldCell.parse(field, text);
      } catch (error) {
        if (error instanceof BadInput) reject(error.problems[0]?.field ?? `CustomFields.${key}`, error.problems[0]?.message ?? error.message);
        throw error;
      }
    }
    if (previous && Object.keys(sent).length === 0) return previous;
    try {
      return normalizeWithDefinitions(definitions, sent, previous ?? {});
    } catch (error) {
      if (error instanceof BadInput) reject(error.problems[0]?.field ?? 'CustomFields', error.problems.map((problem) => `${problem.field}: ${problem.message}`).join('; ').replace(/^[^:]*: /, ''));
      throw error;
    }
  }

  const changedRelationships = [...relationships.values()].filter((entry) => entry.changed);
  const changedTerms = [...terms.values()].filter((term) => term.changed);
  if (dryRunOf !== null) {
    await keepDryRunState(sql, dryRunOf, known.all(), [...terms.values()], [...relationships.values()], changedTerms, changedRelationships);
    // A contact the dry run would create was never kept: it has no id.
    return results.map((result) => (result.contactId !== null && result.contactId < 0 ? { ...result, contactId: null } : result));
  }
  const realIds = await writeBatch(sql, known.all(), changedRelationships, changedTerms);
  // Temporary ids of contacts created here become their real ids.
  return results.map((result) => (result.contactId !== null && result.contactId < 0 ? { ...result, contactId: realIds.get(result.contactId) ?? null } : result));
}

/** Whether two sets of custom-field values are the same (PostgreSQL keeps jsonb keys in its own order). */
function sameCustomFields(a: CustomFieldValues, b: CustomFieldValues): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => JSON.stringify(a[key]) === JSON.stringify(b[key]));
}

/** The live contacts a batch may touch, indexed by each match key, with those it creates. */
class KnownContacts {
  private readonly contacts: ContactState[] = [];
  private readonly byKey: Record<MatchKey, Map<string, ContactState>> = { ContactId: new Map(), ExternalId: new Map(), NationalID: new Map(), Email: new Map() };

  constructor(private readonly sql: TenantSql, private readonly dryRunOf: number | null) {}

  async load(rows: RowValues[]): Promise<this> {
    const values = (field: string, lower = false) => [...new Set(rows.flatMap((row) => {
      const value = row.get(field);
      return value ? [lower ? value.toLowerCase() : value] : [];
    }))];
    const ids = values('ContactId').map(Number);
    type FoundContact = { id: number; kind: ContactKind; external_id: string | null; organization_id: number | null; custom_fields: CustomFieldValues } & ContactLists;
    const found = await this.sql.all<FoundContact & Record<string, string | null>>(
      // One branch per key, each on its own index (an `or` across the join would scan every contact of the tenant, every batch).
      `with matched as (
         select k.id from contact k where ${tenantIs('k')} and k.id = any(?::int[])
         union select k.contact_id from contact_external_id k where ${tenantIs('k')} and k.external_id = any(?::text[])
         union select k.id from contact k where ${tenantIs('k')} and k.deleted_at is null and k.national_id = any(?::text[])
         union select k.id from contact k where ${tenantIs('k')} and lower(k.email) = any(?::text[])
       )
       select c.id, c.kind, c.organization_id, c.custom_fields, c.addresses, c.websites, x.external_id, ${CONTACT_FIELDS.map((field) => `c.${CONTACT_COLUMNS[field]}`).join(', ')}
         from matched join contact c on c.id = matched.id and ${tenantIs('c')} and c.deleted_at is null
         left join contact_external_id x on x.contact_id = c.id and ${tenantIs('x')}
        order by c.id`,
      [intArray(ids), textArray(values('ExternalId')), textArray(values('NationalID')), textArray(values('Email', true))]);
    const stored = found.map((row): ContactState => ({
      id: row.id, kind: row.kind, externalId: row.external_id, organizationId: row.organization_id, customFields: row.custom_fields,
      lists: { addresses: row.addresses, websites: row.websites }, isNew: false, changed: false, externalIdChanged: false,
      values: Object.fromEntries(CONTACT_FIELDS.map((field) => [field, row[CONTACT_COLUMNS[field]] ?? null])) as ContactState['values'],
    }));
    const contacts = this.dryRunOf === null ? stored : withDryRunState(stored, await readDryRunState(this.sql, this.dryRunOf, {
      contactIds: [...new Set([...ids, ...stored.map((contact) => contact.id)])], externalIds: values('ExternalId'), nationalIds: values('NationalID'), emails: values('Email', true),
    }));
    for (const contact of contacts) this.add(contact);
    return this;
  }

  add(contact: ContactState): ContactState {
    this.contacts.push(contact);
    this.byKey.ContactId.set(String(contact.id), contact);
    this.reindexExternal(contact, null, contact.externalId);
    this.reindex(contact, 'NationalID', null, contact.values.NationalID);
    this.reindex(contact, 'Email', null, contact.values.Email);
    return contact;
  }

  find(key: MatchKey, value: string): ContactState | undefined {
    return this.byKey[key].get(value);
  }

  /** Keeps the NationalID and Email indexes true as a contact's values change (the first contact of an e-mail keeps it). */
  reindex(contact: ContactState, field: ContactField, before: string | null, after: string | null): void {
    if (field !== 'NationalID' && field !== 'Email') return;
    const index = this.byKey[field];
    const key = (value: string) => (field === 'Email' ? value.toLowerCase() : value);
    if (before !== null && index.get(key(before)) === contact) index.delete(key(before));
    if (after !== null && !index.has(key(after))) index.set(key(after), contact);
  }

  reindexExternal(contact: ContactState, before: string | null, after: string | null): void {
    if (before !== null) this.byKey.ExternalId.delete(before);
    if (after !== null) this.byKey.ExternalId.set(after, contact);
  }

  all(): ContactState[] {
    return this.contacts;
  }
}

/** Live organizations named in the rows' Organization column, by lower-case trimmed name (the first of a name; then those a dry run would have created). */
async function knownOrganizations(sql: TenantSql, rows: RowValues[], dryRunOf: number | null): Promise<Map<string, number>> {
  const names = [...new Set(rows.flatMap((row) => (row.get('Organization') ? [row.get('Organization')!.toLowerCase()] : [])))];
  const found = new Map<string, number>();
  if (!names.length) return found;
  const rowsFound = await sql.all<{ id: number; name_key: string }>(
    `select c.id, lower(trim(c.name)) as name_key from contact c
      where ${tenantIs('c')} and c.kind = 'organization' and c.deleted_at is null and lower(trim(c.name)) = any(?::text[]) order by c.id`, [textArray(names)]);
  for (const row of rowsFound) if (!found.has(row.name_key)) found.set(row.name_key, row.id);
  if (dryRunOf !== null) {
    for (const [name, id] of await dryRunOrganizations(sql, dryRunOf, names.filter((name) => !found.has(name)))) found.set(name, id);
  }
  return found;
}

/** The terms of the batch's known contacts by (contact, type, StartDate), and which (contact, type) pairs hold any term. */
async function knownTerms(sql: TenantSql, contacts: ContactState[]): Promise<{ terms: Map<string, Term>; typesHeld: Set<string> }> {
  const terms = new Map<string, Term>();
  const typesHeld = new Set<string>();
  const keep = (term: Term) => {
    typesHeld.add(`${term.contactId}:${term.typeId}`);
    const key = `${term.contactId}:${term.typeId}:${term.startDate}`;
    if (!terms.has(key)) terms.set(key, term);
  };
  for (const contact of contacts) for (const term of contact.dryRun?.terms ?? []) keep(term);
  const contactIds = contacts.filter((contact) => contact.id > 0 && !contact.dryRun).map((contact) => contact.id);
  if (!contactIds.length) return { terms, typesHeld };
  const rows = await sql.all<{
    id: number; contact_id: number; membership_type_id: number; membership_level_id: number | null; join_date: string | null; start_date: string; end_date: string | null;
    status: MembershipStatus; custom_fields: CustomFieldValues;
  }>(
    `select m.id, m.contact_id, m.membership_type_id, m.membership_level_id, m.join_date::text, m.start_date::text, m.end_date::text, m.status, m.custom_fields
       from membership m where ${tenantIs('m')} and m.contact_id = any(?::int[]) order by m.id`, [intArray(contactIds)]);
  for (const row of rows) {
    keep({
      id: row.id, contactId: row.contact_id, typeId: row.membership_type_id, levelId: row.membership_level_id, joinDate: row.join_date,
      startDate: row.start_date, endDate: row.end_date, status: row.status, customFields: row.custom_fields, changed: false,
    });
  }
  return { terms, typesHeld };
}

export interface Relationship { personId: number; organizationId: number; role: string | null; changed: boolean }

/** The relationships of the batch's known people, by person and organization. */
async function knownRelationships(sql: TenantSql, contacts: ContactState[]): Promise<Map<string, Relationship>> {
  const found = new Map<string, Relationship>();
  for (const contact of contacts) for (const entry of contact.dryRun?.relationships ?? []) found.set(`${entry.personId}:${entry.organizationId}`, entry);
  const ids = contacts.filter((contact) => contact.id > 0 && !contact.dryRun).map((contact) => contact.id);
  if (!ids.length) return found;
  const rows = await sql.all<{ person_id: number; organization_id: number; role: string | null }>(
    `select r.person_id, r.organization_id, r.role from contact_relationship r where ${tenantIs('r')} and r.person_id = any(?::int[])`, [intArray(ids)]);
  for (const row of rows) found.set(`${row.person_id}:${row.organization_id}`, { personId: row.person_id, organizationId: row.organization_id, role: row.role, changed: false });
  return found;
}

/**
 * The batch's changes in a few statements: contacts created and changed, external ids,
 * relationships, terms. Answers the real ids of the contacts created, by their temporary ids.
 */
async function writeBatch(sql: TenantSql, contacts: ContactState[], relationships: Relationship[], terms: Term[]): Promise<Map<number, number>> {
  const realIds = new Map<number, number>();
  const created = contacts.filter((contact) => contact.isNew);
  if (created.length) {
    const ids = await sql.all<{ id: number }>(`select nextval(pg_get_serial_sequence('contact', 'id'))::int as id from generate_series(1, ?)`, [created.length]);
    created.forEach((contact, index) => realIds.set(contact.id, ids[index].id));
  }
  const real = (id: number | null): number | null => (id !== null && id < 0 ? realIds.get(id)! : id);
  const columns = CONTACT_FIELDS.map((field) => CONTACT_COLUMNS[field]);
  const record = (contact: ContactState) => ({
    id: real(contact.id), kind: contact.kind, organization_id: real(contact.organizationId), custom_fields: contact.customFields,
    addresses: contact.lists.addresses, websites: contact.lists.websites,
    ...Object.fromEntries(CONTACT_FIELDS.map((field) => [CONTACT_COLUMNS[field], contact.values[field]])),
  });
  const recordset = `${RECORDSET} as r(id int, kind text, organization_id int, custom_fields jsonb, addresses jsonb, websites jsonb, ${columns.map((column) => `${column} text`).join(', ')})`;
  if (created.length) {
    // Organizations first in one statement: the foreign keys are checked at its end.
    await sql.run(`insert into contact (id, tenant_id, kind, organization_id, custom_fields, addresses, websites, ${columns.join(', ')})
      select r.id, ${TENANT}, r.kind, r.organization_id, r.custom_fields, r.addresses, r.websites, ${columns.map((column) => `r.${column}`).join(', ')} from ${recordset}`, [recordsetParam(created.map(record))]);
  }
  const changed = contacts.filter((contact) => !contact.isNew && contact.changed);
  if (changed.length) {
    await sql.run(`update contact c set organization_id = r.organization_id, custom_fields = r.custom_fields, addresses = r.addresses, websites = r.websites, ${columns.map((column) => `${column} = r.${column}`).join(', ')},
      audit_id = c.audit_id + 1, updated_at = now() from ${recordset} where c.id = r.id and ${tenantIs('c')}`, [recordsetParam(changed.map(record))]);
  }
  const externalIds = contacts.filter((contact) => contact.externalIdChanged);
  if (externalIds.length) {
    const replaced = externalIds.filter((contact) => !contact.isNew); // a contact created here has none yet
    if (replaced.length) await sql.run(`delete from contact_external_id x where ${tenantIs('x')} and x.contact_id = any(?::int[])`, [intArray(replaced.map((contact) => contact.id))]);
    const given = externalIds.filter((contact) => contact.externalId !== null);
    if (given.length) {
      await sql.run(`insert into contact_external_id (tenant_id, contact_id, external_id) select ${TENANT}, r.contact_id, r.external_id from ${RECORDSET} as r(contact_id int, external_id text)`,
        [recordsetParam(given.map((contact) => ({ contact_id: real(contact.id), external_id: contact.externalId })))]);
    }
  }
  if (relationships.length) {
    await sql.run(`insert into contact_relationship (tenant_id, person_id, organization_id, role)
      select ${TENANT}, r.person_id, r.organization_id, r.role from ${RECORDSET} as r(person_id int, organization_id int, role text)
      on conflict (person_id, organization_id) do update set role = excluded.role, audit_id = contact_relationship.audit_id + 1, updated_at = now()`,
    [recordsetParam(relationships.map((entry) => ({ person_id: real(entry.personId), organization_id: real(entry.organizationId), role: entry.role })))]);
  }
  const termRecord = (term: Term) => ({
    // A first term's join date is its start date — the join-date trigger's answer, given here so
    // that the trigger looks nothing up (its lookup, once per inserted row, dominated an import).
    id: term.id, contact_id: real(term.contactId), membership_type_id: term.typeId, membership_level_id: term.levelId, join_date: term.joinDate ?? (term.firstOfType ? term.startDate : null),
    start_date: term.startDate, end_date: term.endDate, status: term.status,
    custom_fields: term.customFields,
  });
  const termset = `${RECORDSET} as r(id int, contact_id int, membership_type_id int, membership_level_id int, join_date date, start_date date, end_date date, status text, custom_fields jsonb)`;
  const newTerms = terms.filter((term) => term.id === 0);
  if (newTerms.length) {
    await sql.run(`insert into membership (tenant_id, contact_id, membership_type_id, membership_level_id, join_date, start_date, end_date, status, custom_fields)
      select ${TENANT}, r.contact_id, r.membership_type_id, r.membership_level_id, r.join_date, r.start_date, r.end_date, r.status, r.custom_fields from ${termset}`, [recordsetParam(newTerms.map(termRecord))]);
  }
  const changedTerms = terms.filter((term) => term.id !== 0);
  if (changedTerms.length) {
    await sql.run(`update membership m set membership_level_id = r.membership_level_id, join_date = r.join_date, end_date = r.end_date, status = r.status,
      custom_fields = r.custom_fields,
      audit_id = m.audit_id + 1, updated_at = now() from ${termset} where m.id = r.id and ${tenantIs('m')}`, [recordsetParam(changedTerms.map(termRecord))]);
  }
  return realIds;
}
