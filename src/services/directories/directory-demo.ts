import type { EntityManager } from '@mikro-orm/postgresql';
import { Contact } from '../../entities/contact.js';
import { DEFAULT_SEARCH_SETTINGS, DEFAULT_VISIBILITY, Directory, DirectoryListing, DirectoryListingType } from '../../entities/directory.js';
import { Membership, MembershipType } from '../../entities/membership.js';
import type { Tenant } from '../../entities/tenant.js';

/** Demo directory for a new tenant: a listing type, a public directory listing the members of a type automatically, and two member businesses listed. */
export async function seedDirectories(em: EntityManager, tenant: Tenant, marker: string): Promise<void> {
  const type = em.create(DirectoryListingType, { tenant, name: `${marker}Enhanced listing`, description: `${marker}Logo and description`, showContactDetails: 'true' });
  const membershipType = em.create(MembershipType, { tenant, name: `${marker}Business member` });
  const directory = em.create(Directory, {
    tenant, name: `${marker}Business directory`, displayName: `${marker}Find a member business`, description: `${marker}Our members`, listingType: type,
    isPublic: true, automaticallyAddRemoveMembers: true, membershipTypeIds: [], searchSettings: { ...DEFAULT_SEARCH_SETTINGS, DisplayRadiusSearch: true, ShowPostalCodeFilter: true },
    customFields: { note: `${marker}custom` },
  });
  for (const [name, postalCode, latitude, longitude] of [['Harbor Bakery', '02110', 42.3577, -71.0518], ['Summit Outfitters', '80302', 40.0172, -105.2851]] as const) {
    const contact = em.create(Contact, {
      tenant, kind: 'organization', name: `${marker}${name}`, email: `info@${name.replace(/\s/g, '').toLowerCase()}.example`, phone: '555-0100',
      addresses: [{ line1: `${marker}1 Main St`, city: 'Town', postalCode, country: 'US' }],
    });
    em.create(Membership, { tenant, contact, membershipType, startDate: '2020-01-01', status: 'active' });
    em.create(DirectoryListing, {
      tenant, directory, contact, listingType: type, name: `${marker}${name}`, shortDescription: `${marker}${name} since 1990`, keywords: `${marker}local`,
      visibility: { ...DEFAULT_VISIBILITY, Email: true }, source: 'membership', postalCode, latitude, longitude,
    });
  }
  await em.flush();
  directory.membershipTypeIds = [membershipType.id];
  await em.flush();
}
