import type { ContactKind } from '../../entities/contact.js';
import type { MembershipStatus } from '../../entities/membership.js';

/*
 * The columns an import takes and the export writes, in the export's order. A row is one contact
 * (a person or an organization), optionally a person's organization (by name, with the person's
 * role there) and one membership term; a contact with several terms has one row per term.
 */

export const IMPORT_FIELDS = [
  'ContactId', 'ExternalId', 'Kind', 'NationalID', 'FirstName', 'LastName', 'Name', 'Email', 'Phone', 'MobilePhone', 'JobTitle',
  'Prefix', 'MiddleName', 'Suffix', 'Title', 'AddressLine1', 'AddressLine2', 'City', 'State', 'PostalCode', 'Country', 'Website',
  'Organization', 'OrganizationRole',
  'MembershipType', 'MembershipLevel', 'MembershipStatus', 'MembershipJoinDate', 'MembershipStartDate', 'MembershipEndDate',
] as const;
export type ImportField = (typeof IMPORT_FIELDS)[number];

/** What a row's contact is matched on: an existing contact with the same value is updated. */
export const MATCH_KEYS = ['ContactId', 'ExternalId', 'NationalID', 'Email'] as const;
export type MatchKey = (typeof MATCH_KEYS)[number];

/** A column of a contact's custom field maps to `cf:<key>` (of a person or an organization, as the row's Kind says), a membership's to `cf:membership:<key>`. */
export const CUSTOM_FIELD_PREFIX = 'cf:';
const MEMBERSHIP_PREFIX = `${CUSTOM_FIELD_PREFIX}membership:`;

/** The field a custom field's column maps to. */
export function customFieldColumnName(target: 'contact' | 'membership', key: string): string {
  return target === 'membership' ? `${MEMBERSHIP_PREFIX}${key}` : `${CUSTOM_FIELD_PREFIX}${key}`;
}

/** The custom field key a mapped field names for a record of `target`, else null. */
export function customFieldColumn(field: string, target: 'person' | 'organization' | 'membership'): string | null {
  if (field.startsWith(MEMBERSHIP_PREFIX)) return target === 'membership' ? field.slice(MEMBERSHIP_PREFIX.length) : null;
  if (field.startsWith(CUSTOM_FIELD_PREFIX)) return target === 'membership' ? null : field.slice(CUSTOM_FIELD_PREFIX.length);
  return null;
}

/** The longest text each contact column takes (the contact table's lengths). */
export const FIELD_LENGTHS: Partial<Record<ImportField, number>> = {
  ExternalId: 100, NationalID: 64, FirstName: 100, LastName: 100, Name: 200, Email: 254, Phone: 40, MobilePhone: 40, JobTitle: 200,
  Organization: 200, OrganizationRole: 100, MembershipType: 200, MembershipLevel: 200,
};

/**
 * Headers of other systems' exports that mean one of our fields (compared lower case, without
 * spaces, dashes, underscores and dots): Wild Apricot (User ID, Membership level is its type,
 * Mobile, Web page), CiviCRM (Contact ID, External Identifier, Contact Type, Current Employer,
 * Member Since, Membership Expiration Date, Street Address, Supplemental Address 1,
 * State/Province, Individual Prefix) and GrowthZone (Member ID, Organization Name, Expiration
 * Date, Address Line 1, Zip/Postal Code). A header of one system's address block means the
 * primary address's part.
 * Our own headers are matched exactly first, so our `ContactId` is ours and another system's
 * "Contact ID" is its identifier, our ExternalId.
 */
const ALIASES: Record<string, ImportField> = {
  contactid: 'ExternalId', userid: 'ExternalId', memberid: 'ExternalId', externalidentifier: 'ExternalId', externalid: 'ExternalId', id: 'ExternalId',
  kind: 'Kind', contacttype: 'Kind', type: 'Kind',
  nationalid: 'NationalID',
  firstname: 'FirstName', first: 'FirstName', givenname: 'FirstName',
  lastname: 'LastName', last: 'LastName', surname: 'LastName', familyname: 'LastName',
  name: 'Name', organizationname: 'Name', organisationname: 'Name', companyname: 'Name', displayname: 'Name',
  email: 'Email', emailaddress: 'Email', primaryemail: 'Email',
  phone: 'Phone', phonenumber: 'Phone', primaryphone: 'Phone', workphone: 'Phone',
  mobile: 'MobilePhone', mobilephone: 'MobilePhone', cellphone: 'MobilePhone', cell: 'MobilePhone',
  jobtitle: 'JobTitle', position: 'JobTitle',
  prefix: 'Prefix', individualprefix: 'Prefix', nameprefix: 'Prefix',
  middlename: 'MiddleName', middle: 'MiddleName',
  suffix: 'Suffix', individualsuffix: 'Suffix', namesuffix: 'Suffix',
  title: 'Title',
  streetaddress: 'AddressLine1', street: 'AddressLine1', address: 'AddressLine1', address1: 'AddressLine1', addressline1: 'AddressLine1', street1: 'AddressLine1',
  supplementaladdress1: 'AddressLine2', address2: 'AddressLine2', addressline2: 'AddressLine2', street2: 'AddressLine2',
  city: 'City', town: 'City',
  state: 'State', province: 'State', region: 'State', 'state/province': 'State', stateprovince: 'State',
  postalcode: 'PostalCode', zip: 'PostalCode', zipcode: 'PostalCode', postcode: 'PostalCode', 'zip/postalcode': 'PostalCode',
  country: 'Country',
  website: 'Website', webpage: 'Website', web: 'Website', url: 'Website', homepage: 'Website',
  organization: 'Organization', organisation: 'Organization', currentemployer: 'Organization', employer: 'Organization', company: 'Organization',
  organizationrole: 'OrganizationRole', role: 'OrganizationRole', relationshiptype: 'OrganizationRole',
  membershiptype: 'MembershipType', membershiplevel: 'MembershipType', membership: 'MembershipType',
  membershipstatus: 'MembershipStatus', status: 'MembershipStatus',
  membershipjoindate: 'MembershipJoinDate', joindate: 'MembershipJoinDate', membersince: 'MembershipJoinDate',
  membershipstartdate: 'MembershipStartDate', startdate: 'MembershipStartDate',
  membershipenddate: 'MembershipEndDate', enddate: 'MembershipEndDate', membershipexpirationdate: 'MembershipEndDate', expirationdate: 'MembershipEndDate',
  renewaldue: 'MembershipEndDate',
};

const squeeze = (header: string): string => header.toLowerCase().replace(/[\s\-_.]+/g, '');

/** A custom field as a column: the field it maps to (`cf:…`) and its label. */
export interface CustomFieldColumn { field: string; label: string }

/**
 * The suggested mapping of `headers` (header → field): our own headers exactly, then custom
 * fields by `cf:<key>` or label, then the alias table; each field at most once (the first header).
 * Our `MembershipLevel` header is exact; another system's "Membership level" is its type.
 */
export function suggestMapping(headers: readonly string[], customFields: readonly CustomFieldColumn[] = []): Record<string, string> {
  const mapping: Record<string, string> = {};
  const taken = new Set<string>();
  const byLabel = new Map(customFields.map((field) => [squeeze(field.label), field.field]));
  const keys = new Set(customFields.map((field) => field.field));
  const guess = (header: string): string | undefined => {
    const trimmed = header.trim();
    if ((IMPORT_FIELDS as readonly string[]).includes(trimmed) || keys.has(trimmed)) return trimmed;
    return byLabel.get(squeeze(trimmed)) ?? ALIASES[squeeze(trimmed)];
  };
  for (const header of headers) {
    const field = guess(header);
    if (field && !taken.has(field) && !(header in mapping)) {
      mapping[header] = field;
      taken.add(field);
    }
  }
  return mapping;
}

/** The key a mapping suggests matching on: ContactId when mapped (our own export), else ExternalId, NationalID, Email. */
export function suggestMatchKey(mapping: Record<string, string>): MatchKey {
  const fields = new Set(Object.values(mapping));
  return MATCH_KEYS.find((key) => fields.has(key)) ?? 'Email';
}

const KINDS: Record<string, ContactKind> = { person: 'person', individual: 'person', organization: 'organization', organisation: 'organization', company: 'organization' };
/** Statuses of our own and other systems' exports (CiviCRM's New, Current, Grace, Expired). */
const STATUSES: Record<string, MembershipStatus> = {
  pending: 'pending', active: 'active', new: 'active', current: 'active', grace: 'active', lapsed: 'lapsed', expired: 'lapsed', cancelled: 'cancelled', canceled: 'cancelled',
};

export function kindOf(text: string): ContactKind | undefined {
  return KINDS[text.trim().toLowerCase()];
}

export function statusOf(text: string): MembershipStatus | undefined {
  return STATUSES[text.trim().toLowerCase()];
}

/**
 * A cell as the export writes it: text a spreadsheet would read as a formula (= + - @, tab,
 * carriage return first) gets an apostrophe first, so opening an export never runs its data;
 * `cellValue` takes it off again on import, so an export re-imports unchanged.
 */
export function exportCell(value: string | null): string {
  if (value === null) return '';
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

export function cellValue(cell: string): string {
  return /^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell;
}
