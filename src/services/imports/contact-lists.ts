import { validateSync } from 'class-validator';
import type { ContactWebsite, PostalAddress } from '../../entities/contact.js';
import { ContactAddress, ContactEmail as EmailInput, ContactInput, ContactPhone as PhoneInput, ContactWebsite as WebsiteInput } from '../../schema/contacts.js';
import { primaryAddress } from '../contacts/contacts.js';

/*
 * The contact's own fields beyond the columns the import always wrote: name parts and title
 * (plain columns), and the primary entry of its address and website lists (JSON lists with
 * exactly one primary each). A row's address columns are the primary address's parts: a mapped
 * part replaces the primary's, an empty mapped cell removes that part, and a primary left with no
 * part is removed (the next address, if any, becomes primary) — an empty address block clears the
 * primary address, as an empty cell clears any other value. The other entries of the lists are
 * kept. Cells are checked with the contacts service's own input rules (schema/contacts.ts) — the
 * e-mail and phone columns too, so that an import stores nothing a staff save would refuse.
 */

/** The address columns, by the part of a stored address each fills. */
const ADDRESS_PARTS = { AddressLine1: 'line1', AddressLine2: 'line2', City: 'city', State: 'region', PostalCode: 'postalCode', Country: 'country' } as const;
/** The same columns by the property of the contacts service's address input whose rules they keep. */
const ADDRESS_PROPERTIES = { AddressLine1: 'Line1', AddressLine2: 'Line2', City: 'City', State: 'State', PostalCode: 'PostalCode', Country: 'Country' } as const;
type AddressColumn = keyof typeof ADDRESS_PARTS;
const ADDRESS_COLUMNS = Object.keys(ADDRESS_PARTS) as AddressColumn[];
/** The name-part columns, checked by the contact input's rules of the same property. */
const NAME_PART_COLUMNS = ['Prefix', 'MiddleName', 'Suffix', 'Title'] as const;

type Cells = ReadonlyMap<string, string | null>;
export interface ContactLists { addresses: PostalAddress[] | null; websites: ContactWebsite[] | null }

/** The phone columns, each checked as one entry of the contact input's Phones. */
const PHONE_COLUMNS = ['Phone', 'MobilePhone'] as const;

/** The first value of these columns that the contacts service would refuse, as the column and why; else null. */
export function contactCellProblem(values: Cells): { field: string; message: string } | null {
  const given = <C extends string, P extends string>(columns: readonly C[], property: (column: C) => P) =>
    Object.fromEntries(columns.flatMap((column) => (values.get(column) ? [[property(column), values.get(column)]] : [])));
  const email = values.get('Email');
  const website = values.get('Website');
  return (email ? firstProblem(Object.assign(new EmailInput(), { EmailAddress: email }), () => 'Email') : null)
    ?? phoneProblem(values)
    ?? firstProblem(Object.assign(new ContactInput(), given(NAME_PART_COLUMNS, (column) => column)), (property) => property)
    ?? firstProblem(Object.assign(new ContactAddress(), given(ADDRESS_COLUMNS, (column) => ADDRESS_PROPERTIES[column])),
      (property) => ADDRESS_COLUMNS.find((column) => ADDRESS_PROPERTIES[column] === property) ?? property)
    ?? (website ? firstProblem(Object.assign(new WebsiteInput(), { Url: website }), () => 'Website') : null);
}

/** The first phone column whose number the contacts service would refuse, as the column and why; else null. */
function phoneProblem(values: Cells): { field: string; message: string } | null {
  for (const column of PHONE_COLUMNS) {
    const number = values.get(column);
    const problem = number ? firstProblem(Object.assign(new PhoneInput(), { PhoneNumber: number }), () => column) : null;
    if (problem) return problem;
  }
  return null;
}

/** The first rule `input` breaks (its present properties only), named as the import's column. */
function firstProblem(input: object, columnOf: (property: string) => string): { field: string; message: string } | null {
  if (Object.keys(input).length === 0) return null; // nothing given: nothing to break (and validation is not free, row after row)
  const [error] = validateSync(input, { skipMissingProperties: true });
  if (!error) return null;
  const message = Object.values(error.constraints ?? {})[0] ?? 'is not valid';
  return { field: columnOf(error.property), message: message.startsWith(`${error.property} `) ? message.slice(error.property.length + 1) : message };
}

/** The lists after a row's cells; the same `lists` object when the row changes neither. */
export function listsAfterRow(lists: ContactLists, values: Cells): ContactLists {
  const addresses = addressesAfterRow(lists.addresses, values);
  const websites = websitesAfterRow(lists.websites, values);
  return addresses === lists.addresses && websites === lists.websites ? lists : { addresses, websites };
}

function addressesAfterRow(addresses: PostalAddress[] | null, values: Cells): PostalAddress[] | null {
  const mapped = ADDRESS_COLUMNS.filter((column) => values.has(column));
  const primary = primaryAddress(addresses);
  if (mapped.every((column) => (primary?.[ADDRESS_PARTS[column]] ?? null) === values.get(column))) return addresses;
  const next: PostalAddress = { ...primary };
  for (const column of mapped) {
    const value = values.get(column);
    if (value) next[ADDRESS_PARTS[column]] = value;
    else delete next[ADDRESS_PARTS[column]];
  }
  const hasParts = Object.values(ADDRESS_PARTS).some((part) => next[part] !== undefined);
  return withPrimary(addresses ?? [], primary, hasParts ? next : null);
}

/** The primary website: the one marked primary, else the first. */
const primaryWebsite = (websites: ContactWebsite[] | null): ContactWebsite | undefined =>
  Array.isArray(websites) ? websites.find((website) => website.isPrimary) ?? websites[0] : undefined;

function websitesAfterRow(websites: ContactWebsite[] | null, values: Cells): ContactWebsite[] | null {
  if (!values.has('Website')) return websites;
  const url = values.get('Website') ?? null;
  const primary = primaryWebsite(websites);
  if ((primary?.url ?? null) === url) return websites;
  return withPrimary(websites ?? [], primary, url === null ? null : { url, kind: primary?.kind ?? null, isPrimary: true });
}

/** `list` with `next` in place of its primary `old` (none: the next entry becomes primary); exactly one primary, first. */
function withPrimary<E extends { isPrimary?: boolean }>(list: E[], old: E | undefined, next: E | null): E[] | null {
  const rest = list.filter((entry) => entry !== old);
  const entries = next ? [next, ...rest] : rest;
  return entries.length ? entries.map((entry, index) => ({ ...entry, isPrimary: index === 0 })) : null;
}

/** The export's cells of the lists, in the import's column order: the primary address's parts, then the primary website. */
export function contactListCells(lists: ContactLists): (string | null)[] {
  const address = primaryAddress(lists.addresses);
  return [...ADDRESS_COLUMNS.map((column) => address?.[ADDRESS_PARTS[column]] ?? null), primaryWebsite(lists.websites)?.url ?? null];
}
