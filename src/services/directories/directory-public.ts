import type { RequestContext } from '../../core/context.js';
import { jsonText } from '../../core/values.js';
import { BadInput, NotFound } from '../../core/errors.js';
import { escapeLike } from '../../core/data/list-query.js';
import { geocodePostalCode, normalizePostalCode } from '../../core/external/postal-geocode.js';
import { displayName, type ContactKind, type PostalAddress } from '../../entities/contact.js';
import { DEFAULT_SEARCH_SETTINGS, DEFAULT_VISIBILITY, type DirectorySearchSettings, type ListingVisibility } from '../../entities/directory.js';
import type { DirectoryContactDetail, DirectoryDetail, DirectoryRelatedContact, DirectorySearch, DirectorySearchItem } from '../../schema/directories.js';
import { directoryIdOf } from './directories.js';
import { galleryOf } from './directory-gallery.js';
import { toAddress } from './directory-listings.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';
import type { CustomFieldTarget, CustomFieldValues } from '../../entities/custom-field.js';
import { customFieldsFor } from '../custom-fields/custom-fields.js';
import { fieldsVisibleTo, type CustomFieldAudience } from '../custom-fields/values.js';

/*
 * The public directory (no credential; the tenant is settled by usePublicTenant). Only a public
 * directory (IsPublic, not in development, not deleted) answers; only visible listings of live
 * contacts appear; of a listing, only what its visibility and its listing type allow (a hidden
 * part is null or empty, and hidden addresses are not searchable by postal code or radius either).
 * Listings are named by HashedContactId (a random key) and DirectoryContactId, never the contact
 * id. Every query names the tenant and the directory; search reads `directory_listing` through its
 * indexes (trigram on search_text, lower(name) prefix, categories GIN, earth box GiST) and costs
 * the same statements at any result size.
 */

const DIRECTORY_NOUN = 'The directory';
export const SEARCH_PAGE_SIZE = 50;
const METERS_PER_MILE = 1609.344;
const MAX_RADIUS_MILES = 500;

interface PublicDirectoryRow {
  id: number; name: string; display_name: string | null; description: string | null; listing_type_id: number | null; search_settings: DirectorySearchSettings;
}

/** The directory if the public may see it, else 404. */
async function publicDirectory(ctx: RequestContext, directoryId: string | number): Promise<PublicDirectoryRow & { settings: DirectorySearchSettings }> {
  const tenantId = await ctx.usePublicTenant();
  const id = directoryIdOf(directoryId);
  const [row] = await tenantSql({ em: ctx.em, tenantId }).all<PublicDirectoryRow>(
    `select id, name, display_name, description, listing_type_id, search_settings from directory
      where id = ? and ${tenantIs()} and is_public and not in_development and deleted_at is null`, [id]);
  if (!row) throw new NotFound(DIRECTORY_NOUN);
  return { ...row, settings: { ...DEFAULT_SEARCH_SETTINGS, ...row.search_settings } };
}

/**
 * A listing is listed: visible and not removed. (A deleted contact's listings are removed by the
 * reconcile job within a minute; until then they may be counted, but a page never shows them:
 * searches read `directory_listing` alone, through its indexes, and join the contact for the page.)
 */
const LISTED = `${tenantIs('l')} and l.directory_id = ? and l.deleted_at is null and l.is_visible`;
/** A listing shows: listed, and its contact not deleted. */
const SHOWN = `${LISTED} and c.deleted_at is null`;
/** The listing's address may be shown (and searched). */
const ADDRESS_SHOWN = `coalesce((l.visibility->>'Address')::boolean, true) and coalesce(lt.show_contact_details, '') <> 'false'`;

export async function publicDirectoryIndex(ctx: RequestContext, directoryId: number): Promise<DirectoryDetail> {
  const directory = await publicDirectory(ctx, directoryId);
  const sql = tenantSql(ctx);
  const params = [directory.id];
  const [[total], categories] = await Promise.all([
    sql.all<{ count: string }>(`select count(*) as count from directory_listing l where ${LISTED}`, params),
    sql.all<{ id: string; count: string }>(
      `select category.value as id, count(*) as count
         from directory_listing l, jsonb_array_elements_text(l.category_item_ids) as category(value)
        where ${LISTED} group by category.value order by category.value::int`,
      params,
    ),
  ]);
  return {
    DirectoryId: directory.id, displayName: directory.display_name ?? directory.name, name: directory.name, Name: directory.name, Description: directory.description,
    ShowCategoryImages: directory.settings.ShowCategoryImages, OGMeta: ogMeta(directory), TotalEntries: Number(total?.count ?? 0),
    Categories: categories.map((category) => ({ CategoryItemId: Number(category.id), EntryCount: Number(category.count) })),
    ShowPostalCodeFilter: directory.settings.ShowPostalCodeFilter, DisplayRadiusSearch: directory.settings.DisplayRadiusSearch,
  };
}

/** The parameters of public/find, as documented (all strings). */
export interface DirectoryFindArgs {
  pid?: string | null; term?: string | null; nameStartsWithTerm?: string | null; returnGeoData?: string | null; advFilter?: string | null;
  tenantId?: string | null; showPostalCodeFilter?: string | null; organizationId?: string | null; defaultLayout?: string | null; parsedFilter?: string | null;
}

/** The advanced filter (advfilter, or parsedfilter which wins field by field): JSON. */
interface AdvancedFilter {
  CategoryItemId?: number; CategoryItemIds?: number[]; PostalCode?: string; RadiusMiles?: number; Latitude?: number; Longitude?: number;
}

interface SearchRow {
  id: number; public_key: string; name: string; short_description: string | null; category_item_ids: number[]; postal_code: string | null;
  latitude: number | null; longitude: number | null; logo_url: string | null; addresses: PostalAddress[] | null; address_shown: boolean;
  distance: number | null; total: string; contact_deleted: boolean;
}

/**
 * Public search: words of `term` (each must occur in name, keywords or short description),
 * `namestartswithterm` (name prefix), and the advanced filter: categories (all must match),
 * PostalCode (alone: listings of that postal code; with RadiusMiles: around its centroid) or
 * Latitude/Longitude with RadiusMiles. A radius search needs the directory's DisplayRadiusSearch
 * or returngeodata=true, and orders by distance. `pid` is the page (1-based, 50 per page).
 */
export async function publicDirectorySearch(ctx: RequestContext, directoryId: string, args: DirectoryFindArgs): Promise<DirectorySearch> {
  const directory = await publicDirectory(ctx, directoryId);
  const page = pageOf(args.pid);
  const returnGeo = flag(args.returnGeoData, 'returngeodata');
  const filter: AdvancedFilter = { ...advancedFilter(args.advFilter, 'advfilter'), ...advancedFilter(args.parsedFilter, 'parsedfilter') };
  const conditions: string[] = [];
  const params: unknown[] = [];
  const add = (condition: string, ...values: unknown[]) => { conditions.push(condition); params.push(...values); };

  const words = text(args.term, 'term', 200).toLowerCase().split(/\s+/).filter(Boolean).slice(0, 8);
  for (const word of words) add(`l.search_text like ?`, `%${escapeLike(word)}%`);
  const prefix = text(args.nameStartsWithTerm, 'namestartswithterm', 100).toLowerCase().trim();
  if (prefix) add(`lower(l.name) like ?`, `${escapeLike(prefix)}%`);
  const categories = [...new Set([...(filter.CategoryItemIds ?? []), ...(filter.CategoryItemId ? [filter.CategoryItemId] : [])])];
  if (categories.length) add(`l.category_item_ids @> ?::jsonb`, JSON.stringify(categories));

  let origin: { latitude: number; longitude: number } | null = null;
  if (filter.RadiusMiles !== undefined) {
    if (!directory.settings.DisplayRadiusSearch && !returnGeo) throw BadInput.field('advfilter.RadiusMiles', 'radius search is not offered by this directory (send returngeodata=true)');
    if (filter.Latitude !== undefined && filter.Longitude !== undefined) origin = { latitude: filter.Latitude, longitude: filter.Longitude };
    else if (filter.PostalCode) origin = await geocodePostalCode(filter.PostalCode);
    else throw BadInput.field('advfilter.PostalCode', 'a radius search needs a PostalCode or Latitude and Longitude');
    if (!origin) throw BadInput.field('advfilter.PostalCode', 'is not a known postal code');
    add(`l.latitude is not null and ${ADDRESS_SHOWN} and earth_box(ll_to_earth(?, ?), ?) @> ll_to_earth(l.latitude, l.longitude)
         and earth_distance(ll_to_earth(?, ?), ll_to_earth(l.latitude, l.longitude)) <= ?`,
    origin.latitude, origin.longitude, filter.RadiusMiles * METERS_PER_MILE, origin.latitude, origin.longitude, filter.RadiusMiles * METERS_PER_MILE);
  } else if (filter.PostalCode) {
    add(`l.postal_code = ? and ${ADDRESS_SHOWN}`, normalizePostalCode(filter.PostalCode) ?? filter.PostalCode.trim().toUpperCase());
  }

  const distance = origin ? `earth_distance(ll_to_earth(${Number(origin.latitude)}, ${Number(origin.longitude)}), ll_to_earth(l.latitude, l.longitude))` : 'null::float8';
  const order = origin ? 'distance, lower(l.name), l.id' : 'lower(l.name), l.id';
  // The matches (and their count) from the listings' own indexes; the contact joined for the page only.
  const matched = await tenantSql(ctx).all<SearchRow>(
    `with page as (
       select l.id, l.contact_id, l.public_key, l.name, l.short_description, l.category_item_ids, l.postal_code, l.latitude, l.longitude,
              (${ADDRESS_SHOWN}) as address_shown, ${distance} as distance, count(*) over () as total
         from directory_listing l left join directory_listing_type lt on lt.id = l.listing_type_id
        where ${LISTED} ${conditions.map((condition) => `and ${condition}`).join(' ')}
        order by ${order} limit ? offset ?)
     select page.*, c.logo_url, c.addresses, c.deleted_at is not null as contact_deleted
       from page join contact c on c.id = page.contact_id
      order by ${order.replace(/l\./g, 'page.')}`,
    [directory.id, ...params, SEARCH_PAGE_SIZE, (page - 1) * SEARCH_PAGE_SIZE],
  );
  const rows = matched.filter((row) => !row.contact_deleted);
  const items: DirectorySearchItem[] = rows.map((row) => {
    const address = row.address_shown ? (row.addresses ?? [])[0] ?? null : null;
    const geo = returnGeo || directory.settings.DisplayRadiusSearch;
    return {
      DirectoryContactId: row.id, HashedContactId: row.public_key, Name: row.name, ShortDescription: row.short_description,
      ImageUrl: row.logo_url, Categories: row.category_item_ids ?? [], City: address?.city ?? null, PostalCode: row.address_shown ? row.postal_code : null,
      Latitude: geo && row.address_shown ? row.latitude : null, Longitude: geo && row.address_shown ? row.longitude : null,
      DistanceMiles: row.distance === null ? null : Math.round((Number(row.distance) / METERS_PER_MILE) * 100) / 100,
    };
  });
  const total = matched[0]?.total ?? (page > 1 ? await countOnly(ctx, directory.id, conditions, params) : '0');
  return {
    DefaultListingTypeId: directory.listing_type_id, Description: directory.description, settingsJson: directory.settings,
    displayName: directory.display_name ?? directory.name, name: directory.name, Name: directory.name,
    AlphabetizeResults: directory.settings.AlphabetizeResults, ShowRelatedContacts: directory.settings.ShowRelatedContacts,
    ShowPrimaryContact: directory.settings.ShowPrimaryContact, CategoryItemId: categories.length ? categories.join(',') : null,
    ShowPostalCodeFilter: flag(args.showPostalCodeFilter, 'showpostalcodefilter') || directory.settings.ShowPostalCodeFilter, ListItems: items,
    DisplayRadiusSearch: directory.settings.DisplayRadiusSearch, AdvancedSearchFilter: Object.keys(filter).length ? JSON.stringify(filter) : null, ResultCount: String(total),
    DefaultLayout: text(args.defaultLayout, 'defaultlayout', 50) || directory.settings.DefaultLayout,
  };
}

/** The match count alone, for a page past the last. */
async function countOnly(ctx: RequestContext, directoryId: number, conditions: string[], params: unknown[]): Promise<string> {
  const [row] = await tenantSql(ctx).all<{ count: string }>(
    `select count(*) as count from directory_listing l left join directory_listing_type lt on lt.id = l.listing_type_id
      where ${LISTED} ${conditions.map((condition) => `and ${condition}`).join(' ')}`,
    [directoryId, ...params],
  );
  return row?.count ?? '0';
}

interface DetailRow {
  id: number; public_key: string; name: string; short_description: string | null; description: string | null; bio: string | null; highlights: string | null;
  keywords: string | null; website: string | null; category_item_ids: number[]; visibility: ListingVisibility; listing_type_id: number | null;
  latitude: number | null; kind: string; first_name: string | null; last_name: string | null; title: string | null; email: string | null; phone: string | null;
  addresses: PostalAddress[] | null; logo_url: string | null; logo_short_description: string | null; show_contact_details: string | null;
  show_custom_fields: string | null; enhanced_on_map: boolean | null; show_related_contacts: boolean | null; show_primary_contact: boolean | null;
  contact_id: number; current_organization: string | null; contact_custom_fields: CustomFieldValues;
}

/** One public listing by DirectoryContactId, with only what its visibility and type allow. */
export async function publicDirectoryListing(ctx: RequestContext, directoryId: number, directoryContactId: number): Promise<DirectoryContactDetail> {
  const directory = await publicDirectory(ctx, directoryId);
  const [row] = await tenantSql(ctx).all<DetailRow>(
    `select l.id, l.public_key, l.name, l.short_description, l.description, l.bio, l.highlights, l.keywords, l.website, l.category_item_ids,
            l.visibility, l.listing_type_id, l.latitude, c.kind, c.first_name, c.last_name, c.title, c.email, c.phone, c.addresses, c.logo_url, c.logo_short_description,
            lt.show_contact_details, lt.show_custom_fields, lt.enhanced_on_map, lt.show_related_contacts, lt.show_primary_contact,
            l.contact_id, co.name as current_organization, c.custom_fields as contact_custom_fields
       from directory_listing l join contact c on c.id = l.contact_id left join directory_listing_type lt on lt.id = l.listing_type_id
            left join contact co on co.id = c.organization_id and ${tenantIs('co')} and co.deleted_at is null
      where ${SHOWN} and l.id = ?`,
    [directory.id, directoryContactId],
  );
  if (!row) throw new NotFound('The directory listing');
  const person = row.kind === 'person';
  const showRelated = row.show_related_contacts ?? directory.settings.ShowRelatedContacts;
  const showPrimary = row.show_primary_contact ?? directory.settings.ShowPrimaryContact;
  const [related, gallery, customFields] = await Promise.all([
    showRelated || showPrimary ? relatedContacts(ctx, directory.id, row.contact_id) : Promise.resolve([]),
    galleryOf(ctx, row.id),
    listedCustomFields(ctx, row),
  ]);
  const relatedPeople = related.filter((contact) => contact.ContactTypeId === 'person');
  const relatedOrganizations = related.filter((contact) => contact.ContactTypeId === 'organization');
  const primaryContact = person ? undefined : relatedPeople.find((contact) => contact.IsPrimary);
  const details = row.show_contact_details !== 'false';
  const shown: ListingVisibility = {
    Email: details && (row.visibility?.Email ?? DEFAULT_VISIBILITY.Email), Phone: details && (row.visibility?.Phone ?? DEFAULT_VISIBILITY.Phone),
    Address: details && (row.visibility?.Address ?? DEFAULT_VISIBILITY.Address), Website: details && (row.visibility?.Website ?? DEFAULT_VISIBILITY.Website),
    Description: row.visibility?.Description ?? DEFAULT_VISIBILITY.Description,
    CustomFields: row.show_custom_fields !== 'false' && (row.visibility?.CustomFields ?? DEFAULT_VISIBILITY.CustomFields),
  };
  const addresses = shown.Address ? (row.addresses ?? []).map(toAddress) : [];
  const contactFields = (['Email', 'Phone', 'Address', 'Website'] as const).filter((field) => shown[field]);
  const directoryFields = ['Name', 'ShortDescription', 'Categories', ...(shown.Description ? ['Description', 'Bio', 'Highlights', 'Keywords'] : []), ...(shown.CustomFields ? ['CustomFields'] : [])];
  return {
    DirectoryContactId: row.id, DirectoryId: directory.id, ContactId: null, HashedContactId: row.public_key, Name: row.name,
    MainImage: row.logo_url, ImageUrl: row.logo_url, ImageShortDescription: row.logo_short_description,
    GalleryImages: gallery.map((image) => image.Url), GalleryImageDetails: gallery,
    contactFields: [...contactFields], directoryFields, fieldOrder: [...directoryFields, ...contactFields],
    CustomFields: shown.CustomFields ? jsonText(customFields) : null, ShortDescription: row.short_description,
    Description: shown.Description ? row.description : null, Bio: shown.Description ? row.bio : null, Highlights: shown.Description ? row.highlights : null,
    Keywords: shown.Description ? row.keywords : null, CommonName: row.name, ContactCommonName: row.name, OrgName: person ? null : row.name,
    Categories: row.category_item_ids ?? [], PrimaryAddress: addresses[0] ?? null, primaryAddressId: null, Addresses: addresses,
    primaryPhoneId: null, PrimaryPhone: shown.Phone ? row.phone : null, Phones: shown.Phone && row.phone ? [row.phone] : [],
    primaryWebsiteId: null, PrimaryWebsite: shown.Website ? row.website : null, Websites: shown.Website && row.website ? [row.website] : [],
    PrimaryEmail: shown.Email ? row.email : null, primaryEmailId: null, EmailAddresses: shown.Email && row.email ? [row.email] : [],
    images: row.logo_url ? [row.logo_url] : [], Videos: [], EnhancedOnMap: row.enhanced_on_map ?? false,
    ShowRelatedContacts: showRelated, ShowPrimaryContact: showPrimary,
    visibilityJson: shown, visibility: shown, Visibility: shown, settingsJson: directory.settings, settings: directory.settings, Settings: directory.settings,
    RelatedContacts: showRelated ? relatedPeople : [], RelatedOrgs: showRelated ? relatedOrganizations : [], RelatedOrgsAndContactsSorted: showRelated ? related : [],
    ContactTypeId: row.kind, MembershipType: null, MembershipTypes: [], PublicContent: null,
    Prefix: null, FirstName: person ? row.first_name : null, MiddleName: null, LastName: person ? row.last_name : null, Suffix: null, Title: person ? row.title : null,
    PrimaryOrg: showPrimary && person ? row.current_organization : null, PrimaryContactId: showPrimary ? primaryContact?.DirectoryContactId?.toString() ?? null : null,
    IsAddressValid: shown.Address && row.latitude !== null, MLSId: null, RETSVendorId: null, EditionFieldsJson: null,
    DirectoryListingTypeId: row.listing_type_id === null ? null : String(row.listing_type_id),
    OGMeta: { Title: row.name, Description: row.short_description, Type: 'profile' },
  };
}

/** One custom field value as a listing shows it. */
interface ListedCustomField {
  Key: string; Label: string; Kind: string; Value: CustomFieldValues[string];
}

/**
 * The listed contact's custom field values the reader may see, in the fields' order: the public
 * ones for an anonymous reader, also those for members for a signed-in one of the tenant (a hub
 * login); staff-only and retired fields never. The listing type's ShowCustomFields narrows them:
 * "false" none (the caller hides them all), a comma-separated list of keys only those, anything
 * else (empty, "true") all the reader may see.
 */
async function listedCustomFields(ctx: RequestContext, row: Pick<DetailRow, 'kind' | 'show_custom_fields' | 'contact_custom_fields'>): Promise<ListedCustomField[]> {
  const values = row.contact_custom_fields ?? {};
  if (row.show_custom_fields === 'false' || Object.keys(values).length === 0) return [];
  const audience: CustomFieldAudience = ctx.caller ? 'members' : 'public';
  const named = (row.show_custom_fields ?? '').split(',').map((key) => key.trim()).filter((key) => key && key.toLowerCase() !== 'true');
  const fields = fieldsVisibleTo(await customFieldsFor(ctx, row.kind as CustomFieldTarget), audience)
    .filter((field) => values[field.key] !== undefined && (named.length === 0 || named.includes(field.key)));
  return fields.map((field) => ({ Key: field.key, Label: field.label, Kind: field.kind, Value: values[field.key] }));
}

/** The most related contacts a listing shows. */
const RELATED_LIMIT = 200;

interface RelatedRow {
  kind: string; name: string | null; first_name: string | null; last_name: string | null; title: string | null; role: string | null; is_primary: boolean;
  listing_id: number | null; public_key: string | null;
}

/**
 * The live contacts related to the listed contact (an organization's people, a person's
 * organizations: services/relationships/relationships.ts), by name, with their own visible
 * listing in this directory when they have one. Names, roles and titles only. One statement.
 */
async function relatedContacts(ctx: RequestContext, directoryId: number, contactId: number): Promise<DirectoryRelatedContact[]> {
  const rows = await tenantSql(ctx).all<RelatedRow>(
    `select o.kind, o.name, o.first_name, o.last_name, o.title, r.role, r.is_primary, ol.id as listing_id, ol.public_key
       from contact_relationship r
       join contact o on o.id = case when r.person_id = ? then r.organization_id else r.person_id end and ${tenantIs('o')} and o.deleted_at is null
       left join directory_listing ol on ol.contact_id = o.id and ol.directory_id = ? and ${tenantIs('ol')} and ol.deleted_at is null and ol.is_visible
      where ${tenantIs('r')} and (r.person_id = ? or r.organization_id = ?)
      order by lower(coalesce(o.name, concat_ws(' ', o.first_name, o.last_name))), o.id limit ${RELATED_LIMIT}`,
    [contactId, directoryId, contactId, contactId]);
  return rows.map((row) => ({
    Name: displayName({ kind: row.kind as ContactKind, name: row.name, firstName: row.first_name, lastName: row.last_name }), ContactTypeId: row.kind,
    Role: row.role, IsPrimary: row.is_primary, Title: row.kind === 'person' ? row.title : null, DirectoryContactId: row.listing_id, HashedContactId: row.public_key,
  }));
}

// ---------------------------------------------------------------------------------------------

function ogMeta(directory: PublicDirectoryRow) {
  return { Title: directory.display_name ?? directory.name, Description: directory.description, Type: 'website' };
}

function text(value: string | null | undefined, field: string, max: number): string {
  if (value === null || value === undefined) return '';
  if (value.length > max) throw BadInput.field(field, `must be at most ${max} characters`);
  if (value.includes('\u0000')) throw BadInput.field(field, 'must not contain NUL characters');
  return value;
}

function flag(value: string | null | undefined, field: string): boolean {
  const given = text(value, field, 10).trim().toLowerCase();
  if (given === '' || given === 'false' || given === '0') return false;
  if (given === 'true' || given === '1') return true;
  throw BadInput.field(field, 'must be true or false');
}

function pageOf(value: string | null | undefined): number {
  const given = text(value, 'pid', 12).trim();
  if (given === '') return 1;
  const page = /^\d{1,6}$/.test(given) ? Number(given) : NaN;
  if (!(page >= 1)) throw BadInput.field('pid', 'must be a page number from 1 to 999999');
  return page;
}

function advancedFilter(value: string | null | undefined, field: string): AdvancedFilter {
  const given = text(value, field, 2000).trim();
  if (given === '') return {};
  let raw: unknown;
  try {
    raw = JSON.parse(given);
  } catch {
    throw BadInput.field(field, 'is not valid JSON');
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw BadInput.field(field, 'must be a JSON object');
  const object = raw as Record<string, unknown>;
  const filter: AdvancedFilter = {};
  const id = (entry: unknown, name: string) => {
    if (typeof entry !== 'number' || !Number.isInteger(entry) || entry < 1 || entry > 2147483647) throw BadInput.field(`${field}.${name}`, 'must be a positive integer');
    return entry;
  };
  const number = (name: string, min: number, max: number) => {
    const entry = object[name];
    if (typeof entry !== 'number' || !Number.isFinite(entry) || entry < min || entry > max) throw BadInput.field(`${field}.${name}`, `must be a number from ${min} to ${max}`);
    return entry;
  };
  if (object.CategoryItemId != null) filter.CategoryItemId = id(object.CategoryItemId, 'CategoryItemId');
  if (object.CategoryItemIds != null) {
    if (!Array.isArray(object.CategoryItemIds) || object.CategoryItemIds.length > 50) throw BadInput.field(`${field}.CategoryItemIds`, 'must be an array of at most 50 ids');
    filter.CategoryItemIds = object.CategoryItemIds.map((entry) => id(entry, 'CategoryItemIds'));
  }
  if (object.PostalCode != null) {
    if (typeof object.PostalCode !== 'string') throw BadInput.field(`${field}.PostalCode`, 'must be a string');
    filter.PostalCode = text(object.PostalCode, `${field}.PostalCode`, 20);
  }
  if (object.RadiusMiles != null) filter.RadiusMiles = number('RadiusMiles', 0, MAX_RADIUS_MILES);
  if (object.Latitude != null) filter.Latitude = number('Latitude', -90, 90);
  if (object.Longitude != null) filter.Longitude = number('Longitude', -180, 180);
  if ((filter.Latitude === undefined) !== (filter.Longitude === undefined)) throw BadInput.field(`${field}.Longitude`, 'Latitude and Longitude go together');
  return filter;
}
