import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../core/context.js';
import { BadInput, Conflict, NotFound } from '../../core/errors.js';
import { idOf, leanRows } from '../../core/data/lean-read.js';
import { defineList, listQuery } from '../../core/data/list-query.js';
import { assertCurrentVersion, deleteRecordReturning, inTransaction, readOr404 } from '../../core/data/records.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';
import { Contact, displayName, type ContactKind } from '../../entities/contact.js';
import { ContactRelationship } from '../../entities/contact-relationship.js';
import type { Tenant } from '../../entities/tenant.js';
import type { ListOptionsInput } from '../../schema/common.js';
import type { ContactRelationshipInput, ContactRelationshipModel } from '../../schema/relationships.js';

/*
 * Person ↔ organization relationships (our extension; decided where the documents are silent):
 * - A relationship links one person and one organization (both live contacts of the tenant), once
 *   per pair, with a role and whether the person is the organization's primary contact. Either
 *   contact names it: `contacts/{contactid}/relationships/…` works from the person's side and
 *   from the organization's; RelatedContactId is the other side, fixed once created.
 * - At most one primary contact per organization. Saving a relationship as primary demotes the
 *   previous primary in the same transaction; every save and delete first locks both contacts'
 *   rows (in id order), so two concurrent saves naming different primaries run one after the
 *   other and exactly one primary remains (the later). A partial unique index backs that up.
 *   Deleting the primary relationship leaves the organization without one (nothing is promoted:
 *   who represents an organization is a decision for staff).
 * - A person's current organization (AboutMe.CurrentOrganizationId, BillingContactInfo's
 *   organization, PrimaryOrg of a person's listing) stays `contact.organization`, and
 *   relationships set it: IsCurrentOrganization true makes it this organization, false clears it
 *   when it is this one, absent leaves it (a person without one gets the organization of its
 *   first relationship). Deleting the relationship with the current organization moves it to the
 *   organization of the person's most recently changed remaining relationship, or none.
 * - The people of an organization (organization statistics) are those related to it, and those
 *   whose current organization it is (partner sync sets only the latter): `organizationPeopleSql`.
 */

const NOUN = 'The contact relationship';

const relationshipList = defineList(ContactRelationship, {
  operations: ['Query.contactRelationships'],
  orderBy: { RelationshipId: 'id', Role: 'role', IsPrimary: 'isPrimary' },
  defaultOrder: 'RelationshipId',
  search: ['role'],
});

const FIELDS = ['id', 'person', 'organization', 'role', 'isPrimary', 'auditId'] as const;
type RelationshipRow = Pick<ContactRelationship, (typeof FIELDS)[number]>;

/** Either side of a relationship is the contact `contactId`. */
function touching(contactId: number) {
  return { $or: [{ person: contactId }, { organization: contactId }] };
}

/** `GET /api/contacts/{contactid}/relationships`: the contact's relationships (a person's organizations, an organization's people), one page. */
export async function listContactRelationships(ctx: RequestContext, contactId: number, options: ListOptionsInput | null | undefined): Promise<ContactRelationshipModel[]> {
  await readOr404(ctx, Contact, ['id'], contactId, 'The contact');
  const { rows } = await listQuery(ctx, ContactRelationship, relationshipList, options, {
    fields: FIELDS, where: { ...touching(contactId), person: { deletedAt: null }, organization: { deletedAt: null } },
  });
  // Both sides' contacts through the request's contact loader: one statement for the page.
  const contacts = ctx.loaders.byId(Contact);
  const people = await contacts.loadMany(rows.map((row) => idOf(row.person)));
  const organizations = await contacts.loadMany(rows.map((row) => idOf(row.organization)));
  return rows.flatMap((row, index) => {
    const person = people[index];
    const organization = organizations[index];
    if (!(person instanceof Contact) || !(organization instanceof Contact)) return [];
    return [toModel(row, person, organization)];
  });
}

/** `POST /api/contacts/{contactid}/relationships/{relationshipid}`: 0 creates; AuditId checked; IsPrimary demotes the previous primary. */
export function saveContactRelationship(ctx: RequestContext, contactId: number, relationshipId: number, input: ContactRelationshipInput): Promise<ContactRelationshipModel> {
  return inTransaction(ctx, async () => {
    const { person, organization } = await lockPair(ctx, contactId, input.RelatedContactId);
    let record: ContactRelationship;
    if (relationshipId) {
      const found = await ctx.em.findOne(ContactRelationship, { id: relationshipId, ...touching(contactId) });
      if (!found) throw new NotFound(NOUN);
      assertCurrentVersion(found, input.AuditId);
      if (idOf(found.person) !== person.id || idOf(found.organization) !== organization.id) {
        throw BadInput.field('RelatedContactId', 'is not the other contact of this relationship (delete it and create another)');
      }
      record = found;
    } else {
      const [existing] = await leanRows(ctx.reader, ContactRelationship, { fields: ['id'], where: { person: person.id, organization: organization.id }, limit: 1 });
      if (existing) throw new Conflict(`The contacts are related already (RelationshipId ${existing.id}); change that relationship instead.`, [{ field: 'RelatedContactId', message: `related already: RelationshipId ${existing.id}` }]);
      record = ctx.em.create(ContactRelationship, { tenant: ctx.tenantId, person: person.id, organization: organization.id });
    }
    if (input.IsPrimary) {
      await tenantSql(ctx).run(
        `update contact_relationship set is_primary = false, audit_id = audit_id + 1, updated_at = now()
          where ${tenantIs()} and organization_id = ? and is_primary and id <> ?`, [organization.id, record.id ?? 0]);
    }
    ctx.em.assign(record, {
      ...(input.Role !== undefined ? { role: input.Role?.trim() || null } : {}),
      ...(input.IsPrimary != null ? { isPrimary: input.IsPrimary } : {}),
    });
    await ctx.em.persist(record).flush();
    const currentOrganizationId = await keepCurrentOrganization(ctx, person, organization.id, input.IsCurrentOrganization, !relationshipId);
    return toModel(record, { ...person, organization: currentOrganizationId }, organization);
  });
}

/** `DELETE /api/contacts/{contactid}/relationships/{relationshipid}?auditid=`: one statement; the person's current organization falls back. */
export function deleteContactRelationship(ctx: RequestContext, contactId: number, relationshipId: number, auditId: number | null | undefined): Promise<number> {
  return inTransaction(ctx, async () => {
    const [row] = await leanRows(ctx.reader, ContactRelationship, { fields: ['person', 'organization'], where: { id: relationshipId, ...touching(contactId) }, limit: 1 });
    if (!row) throw new NotFound(NOUN);
    await lockContacts(ctx, [idOf(row.person), idOf(row.organization)]);
    const deleted = await deleteRecordReturning(ctx, ContactRelationship, ['person', 'organization'], relationshipId, auditId, NOUN, touching(contactId));
    await tenantSql(ctx).run(
      `update contact p set updated_at = now(), organization_id = (
         select r.organization_id from contact_relationship r where ${tenantIs('r')} and r.person_id = p.id order by r.updated_at desc, r.id desc limit 1)
        where p.id = ? and ${tenantIs('p')} and p.organization_id = ?`, [idOf(deleted.person), idOf(deleted.organization)]);
    return relationshipId;
  });
}

// ---------------------------------------------------------------------------------------------
// What other areas read

/** The distinct roles a person holds at its organizations (BillingContactInfo.ContactRoles), alphabetically, at most 100. */
export async function contactRoles(ctx: RequestContext, personId: number): Promise<string[]> {
  const rows = await tenantSql(ctx).all<{ role: string }>(
    `select distinct r.role from contact_relationship r join contact o on o.id = r.organization_id and o.deleted_at is null
      where ${tenantIs('r')} and r.person_id = ? and r.role is not null order by r.role limit 100`, [personId]);
  return rows.map((row) => row.role);
}

/**
 * The ids of the live people of the organization `organization` (an SQL expression): related to
 * it, or with it as their current organization. A sub-select for `tenantSql` statements.
 */
export function organizationPeopleSql(organization: string): string {
  return `select p.id from contact p where ${tenantIs('p')} and p.deleted_at is null and p.kind = 'person' and p.organization_id = ${organization}
     union select r.person_id from contact_relationship r join contact p on p.id = r.person_id and p.deleted_at is null
     where ${tenantIs('r')} and r.organization_id = ${organization}`;
}

/** Demo records: an organization and a person who is its primary contact (role and names carry the marker). */
export async function seedRelationships(em: EntityManager, tenant: Tenant, marker: string): Promise<void> {
  const organization = em.create(Contact, { tenant, kind: 'organization', name: `${marker}Harbour Works` });
  const person = em.create(Contact, { tenant, kind: 'person', firstName: `${marker}Rita`, lastName: `${marker}Owner`, organization });
  em.create(ContactRelationship, { tenant, person, organization, role: `${marker}Owner`, isPrimary: true });
  await em.flush();
}

// ---------------------------------------------------------------------------------------------

interface LockedContact {
  id: number;
  kind: ContactKind;
  name: string | null;
  firstName: string | null;
  lastName: string | null;
  organization: number | null;
}

/** Locks both contacts (404 for the path's contact, 400 for RelatedContactId) and answers which is the person and which the organization. */
async function lockPair(ctx: RequestContext, contactId: number, relatedId: number): Promise<{ person: LockedContact; organization: LockedContact }> {
  if (relatedId === contactId) throw BadInput.field('RelatedContactId', 'must be another contact than the one in the path');
  const locked = await lockContacts(ctx, [contactId, relatedId]);
  const contact = locked.find((row) => row.id === contactId);
  const related = locked.find((row) => row.id === relatedId);
  if (!contact) throw new NotFound('The contact');
  if (!related) throw BadInput.field('RelatedContactId', 'is not a contact');
  if (contact.kind === related.kind) {
    throw BadInput.field('RelatedContactId', contact.kind === 'person' ? 'must be an organization: the contact is a person' : 'must be a person: the contact is an organization');
  }
  return contact.kind === 'person' ? { person: contact, organization: related } : { person: related, organization: contact };
}

/** Locks the live contacts among `ids` for this transaction, in id order (every relationship write does, so two never wait on each other in a circle). */
async function lockContacts(ctx: RequestContext, ids: number[]): Promise<LockedContact[]> {
  const rows = await tenantSql(ctx).all<{ id: number; kind: ContactKind; name: string | null; first_name: string | null; last_name: string | null; organization_id: number | null }>(
    `select id, kind, name, first_name, last_name, organization_id from contact where id in (?, ?) and ${tenantIs()} and deleted_at is null order by id for update`,
    [ids[0], ids[1]]);
  return rows.map((row) => ({ id: row.id, kind: row.kind, name: row.name, firstName: row.first_name, lastName: row.last_name, organization: row.organization_id }));
}

/** Sets or clears the person's current organization as the save asked (see the rules above); answers it. */
async function keepCurrentOrganization(ctx: RequestContext, person: LockedContact, organizationId: number, asked: boolean | null | undefined, created: boolean): Promise<number | null> {
  let next = person.organization;
  if (asked === true) next = organizationId;
  else if (asked === false && person.organization === organizationId) next = null;
  else if (asked == null && created && person.organization === null) next = organizationId;
  if (next !== person.organization) {
    await tenantSql(ctx).run(`update contact set organization_id = ?, updated_at = now() where id = ? and ${tenantIs()}`, [next, person.id]);
  }
  return next;
}

type Named = Pick<Contact, 'kind' | 'name' | 'firstName' | 'lastName'>;

function toModel(row: RelationshipRow, person: Named & { organization: number | { id: number } | null }, organization: Named & { id: number }): ContactRelationshipModel {
  return {
    RelationshipId: row.id, PersonContactId: idOf(row.person), PersonName: displayName(person), OrganizationContactId: idOf(row.organization),
    OrganizationName: displayName(organization), Role: row.role, IsPrimary: row.isPrimary, IsCurrentOrganization: idOf(person.organization) === organization.id, AuditId: row.auditId,
  };
}
