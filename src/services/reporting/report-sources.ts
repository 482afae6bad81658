import type { EntityManager } from '@mikro-orm/postgresql';
import { displayName, type ContactKind } from '../../entities/contact.js';
import type { REPORT_TYPES } from '../../entities/report.js';
import type { MembershipStatus } from '../../entities/membership.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';
import { todayUtc } from '../../core/dates.js';
import { inGoodStandingSql } from '../memberships/good-standing.js';

/*
 * What running a report produces: the rows of its source, read in id order in batches (keyset
 * paging, so a run of any size holds one batch at a time while reading). Three sources exist:
 * contacts, memberships and event registrations. Money (a registration's amount) is read as
 * text from its numeric column, so the CSV carries it exactly.
 */

export type ReportTypeId = (typeof REPORT_TYPES)[number];

/** The rows a run reads: its tenant, optionally one contact, and a system report's own filter. */
export interface ReportScope {
  tenantId: number;
  contactId: number | null;
  kind?: ContactKind;
  status?: MembershipStatus;
  /** Only memberships in good standing on the day the run reads them (the one rule: services/memberships/good-standing.ts). */
  inGoodStanding?: boolean;
  registrationStatus?: string;
}

export interface ReportSource {
  columns: readonly string[];
  count(em: EntityManager, scope: ReportScope): Promise<number>;
  /** Up to `limit` rows with ids above `afterId`, in id order. */
  batch(em: EntityManager, scope: ReportScope, afterId: number, limit: number): Promise<{ id: number; values: Record<string, unknown> }[]>;
}

/** A WHERE condition and its parameters. */
type Condition = [string, ...unknown[]];

/** One SQL source: its FROM clause, its WHERE conditions from the scope (the tenant always first), its select list. */
function sqlSource<Row extends { id: number }>(spec: {
  columns: readonly string[];
  from: string;
  select: string;
  idColumn: string;
  conditions(scope: ReportScope): Condition[];
  values(row: Row): Record<string, unknown>;
}): ReportSource {
  const where = (scope: ReportScope) => {
    const parts = spec.conditions(scope);
    return { sql: parts.map(([condition]) => condition).join(' AND '), params: parts.flatMap(([, ...params]) => params) };
  };
  return {
    columns: spec.columns,
    async count(em, scope) {
      const { sql, params } = where(scope);
      const [row] = await tenantSql({ em, tenantId: scope.tenantId }).all<{ n: number }>(`SELECT count(*)::int AS n FROM ${spec.from} WHERE ${sql}`, params);
      return row.n;
    },
    async batch(em, scope, afterId, limit) {
      const { sql, params } = where(scope);
      const rows = await tenantSql({ em, tenantId: scope.tenantId }).all<Row>(
        `SELECT ${spec.select} FROM ${spec.from} WHERE ${sql} AND ${spec.idColumn} > ? ORDER BY ${spec.idColumn} LIMIT ?`, [...params, afterId, limit]);
      return rows.map((row) => ({ id: row.id, values: spec.values(row) }));
    },
  };
}

interface ContactRow {
  id: number; kind: ContactKind; first_name: string | null; last_name: string | null; name: string | null; email: string | null; phone: string | null; created_at: string;
}

interface MembershipRow {
  id: number; contact_id: number; kind: ContactKind; first_name: string | null; last_name: string | null; contact_name: string | null;
  type_name: string; level_name: string | null; status: string; start_date: string; end_date: string | null;
}

interface RegistrationRow {
  id: number; event_id: number; event_name: string; starts_at: string; contact_id: number; kind: ContactKind; first_name: string | null; last_name: string | null;
  contact_name: string | null; email: string | null; type_name: string; status: string; amount: string; registered_at: string;
}

const ISO_UTC = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

export const REPORT_SOURCES: Record<ReportTypeId, ReportSource> = {
  contacts: sqlSource<ContactRow>({
    columns: ['ContactId', 'Kind', 'Name', 'FirstName', 'LastName', 'Email', 'Phone', 'DateAdded'],
    from: 'contact c',
    select: `c.id, c.kind, c.first_name, c.last_name, c.name, c.email, c.phone,
      to_char(c.created_at AT TIME ZONE 'UTC', ${ISO_UTC}) AS created_at`,
    idColumn: 'c.id',
    conditions: (scope) => [
      [tenantIs('c')], ['c.deleted_at IS NULL'],
      ...(scope.contactId === null ? [] : [['c.id = ?', scope.contactId] satisfies Condition]),
      ...(scope.kind ? [['c.kind = ?', scope.kind] satisfies Condition] : []),
    ],
    values: (row) => ({
      ContactId: row.id, Kind: row.kind, Name: displayName({ kind: row.kind, name: row.name, firstName: row.first_name, lastName: row.last_name }),
      FirstName: row.first_name, LastName: row.last_name, Email: row.email, Phone: row.phone, DateAdded: row.created_at,
    }),
  }),
  memberships: sqlSource<MembershipRow>({
    columns: ['MembershipId', 'ContactId', 'ContactName', 'MembershipType', 'MembershipLevel', 'Status', 'StartDate', 'EndDate'],
    from: `membership m JOIN contact c ON c.id = m.contact_id AND c.deleted_at IS NULL JOIN membership_type t ON t.id = m.membership_type_id
      LEFT JOIN membership_level l ON l.id = m.membership_level_id`,
    select: `m.id, m.contact_id, c.kind, c.first_name, c.last_name, c.name AS contact_name, t.name AS type_name, l.name AS level_name, m.status,
      m.start_date::text AS start_date, m.end_date::text AS end_date`,
    idColumn: 'm.id',
    conditions: (scope) => [
      [tenantIs('m')],
      ...(scope.contactId === null ? [] : [['m.contact_id = ?', scope.contactId] satisfies Condition]),
      ...(scope.status ? [['m.status = ?', scope.status] satisfies Condition] : []),
      ...(scope.inGoodStanding ? [[inGoodStandingSql('m', todayUtc())] satisfies Condition] : []),
    ],
    values: (row) => ({
      MembershipId: row.id, ContactId: row.contact_id,
      ContactName: displayName({ kind: row.kind, name: row.contact_name, firstName: row.first_name, lastName: row.last_name }),
      MembershipType: row.type_name, MembershipLevel: row.level_name, Status: row.status, StartDate: row.start_date, EndDate: row.end_date,
    }),
  }),
  'event-registrations': sqlSource<RegistrationRow>({
    columns: ['RegistrationId', 'EventId', 'EventName', 'EventStartsAt', 'ContactId', 'ContactName', 'Email', 'RegistrationType', 'Status', 'Amount', 'DateRegistered'],
    from: `event_registration r JOIN event e ON e.id = r.event_id JOIN contact c ON c.id = r.contact_id AND c.deleted_at IS NULL
      JOIN event_registration_type rt ON rt.id = r.registration_type_id`,
    select: `r.id, r.event_id, e.name AS event_name, to_char(e.starts_at AT TIME ZONE 'UTC', ${ISO_UTC}) AS starts_at, r.contact_id, c.kind, c.first_name,
      c.last_name, c.name AS contact_name, c.email, rt.name AS type_name, r.status, r.amount::text AS amount,
      to_char(r.created_at AT TIME ZONE 'UTC', ${ISO_UTC}) AS registered_at`,
    idColumn: 'r.id',
    conditions: (scope) => [
      [tenantIs('r')],
      ...(scope.contactId === null ? [] : [['r.contact_id = ?', scope.contactId] satisfies Condition]),
      ...(scope.registrationStatus ? [['r.status = ?', scope.registrationStatus] satisfies Condition] : []),
    ],
    values: (row) => ({
      RegistrationId: row.id, EventId: row.event_id, EventName: row.event_name, EventStartsAt: row.starts_at, ContactId: row.contact_id,
      ContactName: displayName({ kind: row.kind, name: row.contact_name, firstName: row.first_name, lastName: row.last_name }), Email: row.email,
      RegistrationType: row.type_name, Status: row.status, Amount: row.amount, DateRegistered: row.registered_at,
    }),
  }),
};

/** A system report of every tenant's catalog. */
export interface SystemReport {
  key: string;
  name: string;
  description: string;
  type: ReportTypeId;
  category: string;
  appliesToContact?: boolean;
  filter?: Pick<ReportScope, 'kind' | 'status' | 'inGoodStanding' | 'registrationStatus'>;
}

export const REPORT_CATEGORIES = ['Contacts', 'Events', 'Membership'] as const;

export const SYSTEM_REPORTS: readonly SystemReport[] = [
  { key: 'contact-directory', name: 'Contact directory', description: 'Every contact with e-mail and phone.', type: 'contacts', category: 'Contacts' },
  { key: 'organizations', name: 'Organizations', description: 'Every organization.', type: 'contacts', category: 'Contacts', filter: { kind: 'organization' } },
  { key: 'contact-profile', name: 'Contact profile', description: 'One contact\'s details.', type: 'contacts', category: 'Contacts', appliesToContact: true },
  { key: 'membership-roster', name: 'Membership roster', description: 'Every membership with its type, level, status and dates.', type: 'memberships', category: 'Membership' },
  { key: 'active-memberships', name: 'Active memberships', description: 'Memberships in force.', type: 'memberships', category: 'Membership', filter: { inGoodStanding: true } },
  { key: 'lapsed-memberships', name: 'Lapsed memberships', description: 'Memberships that lapsed.', type: 'memberships', category: 'Membership', filter: { status: 'lapsed' } },
  { key: 'contact-memberships', name: 'Membership history', description: 'One contact\'s memberships.', type: 'memberships', category: 'Membership', appliesToContact: true },
  {
    key: 'event-registrations', name: 'Event registrations', description: 'Every registration (not cancelled) with its event, attendee, type and amount.',
    type: 'event-registrations', category: 'Events', filter: { registrationStatus: 'registered' },
  },
  {
    key: 'contact-event-registrations', name: 'Event history', description: 'One contact\'s event registrations.', type: 'event-registrations', category: 'Events',
    appliesToContact: true,
  },
];

export function categoryOf(type: ReportTypeId): string {
  return { contacts: 'Contacts', memberships: 'Membership', 'event-registrations': 'Events' }[type];
}
