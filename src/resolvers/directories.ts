import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { RuledArg } from '../core/argument-rules.js';
import type { RequestContext } from '../core/context.js';
import { ListOptionsInput } from '../schema/common.js';
import {
  DirectoriesListFilterInput, DirectoriesListItem, DirectoriesListResult, DirectoryAddEdit, DirectoryAddEditInput, DirectoryAllItem, DirectoryContactDetail, DirectoryDetail,
  DirectoryItemsSaveInput, DirectoryItemsSaveResult, DirectoryListingInput, DirectoryListingSaved, DirectoryListingType, DirectoryListingTypeInput, DirectoryListingTypeListItem,
  DirectoryGalleryImage, DirectorySearch,
} from '../schema/directories.js';
import * as directories from '../services/directories/directories.js';
import * as gallery from '../services/directories/directory-gallery.js';
import * as listings from '../services/directories/directory-listings.js';
import * as publicDirectory from '../services/directories/directory-public.js';

const OPTIONS = { nullable: true, description: 'Paging and ordering (Skip, Take: default 100, at most 1000).' } as const;

@Resolver()
export class DirectoryResolver {
  // Setup -------------------------------------------------------------------------------------

  @Authorized()
  @Query(() => [DirectoriesListItem], { description: 'The directories (members see those not in development). OrderBy Name, SortOrder, DirectoryId.' })
  directories(@Ctx() ctx: RequestContext, @Arg('options', () => ListOptionsInput, OPTIONS) options?: ListOptionsInput | null) {
    return directories.listDirectories(ctx, options);
  }

  @Authorized()
  @Query(() => [DirectoriesListItem], { description: 'The directories of a chapter (members see those not in development).' })
  chapterDirectories(@Ctx() ctx: RequestContext, @Arg('chapterId', () => Int) chapterId: number, @Arg('options', () => ListOptionsInput, OPTIONS) options?: ListOptionsInput | null) {
    return directories.listDirectories(ctx, options, chapterId);
  }

  @Authorized('staff')
  @Query(() => DirectoriesListResult, { description: 'The directories setup list (REST: the DirectoriesListFilter fields in the query string, or a JSON body).' })
  directoriesSetup(@Ctx() ctx: RequestContext, @Arg('filter', () => DirectoriesListFilterInput, { nullable: true }) filter?: DirectoriesListFilterInput | null) {
    return directories.directoriesSetup(ctx, filter);
  }

  @Authorized('staff')
  @Query(() => DirectoryAddEdit, { description: 'One directory, for editing (an id that is not an integer finds none: 404).' })
  directory(@Ctx() ctx: RequestContext, @Arg('directoryId', () => String) directoryId: string) {
    return directories.getDirectory(ctx, directoryId);
  }

  @Authorized('staff')
  @Mutation(() => DirectoriesListItem, { description: 'Creates (directoryId 0) or updates a directory; with AutomaticallyAddRemoveMembers its membership holders are listed at once.' })
  saveDirectory(@Ctx() ctx: RequestContext, @Arg('directoryId', () => Int) directoryId: number, @Arg('input', () => DirectoryAddEditInput) input: DirectoryAddEditInput) {
    return directories.saveDirectory(ctx, directoryId, input);
  }

  @Authorized('staff')
  @Mutation(() => Int, { description: 'Deletes a directory (its listings are reported as deleted by directoryListingsModifiedSince); answers its id.' })
  deleteDirectory(@Ctx() ctx: RequestContext, @Arg('directoryId', () => Int) directoryId: number) {
    return directories.deleteDirectory(ctx, directoryId);
  }

  // Listing types -----------------------------------------------------------------------------

  @Authorized('staff')
  @Query(() => [DirectoryListingTypeListItem], { description: 'The directory listing types. OrderBy Name, DirectoryListingTypeId.' })
  directoryListingTypes(@Ctx() ctx: RequestContext, @Arg('options', () => ListOptionsInput, OPTIONS) options?: ListOptionsInput | null) {
    return directories.listListingTypes(ctx, options);
  }

  @Authorized('staff')
  @Query(() => DirectoryListingType, { description: 'One directory listing type.' })
  directoryListingType(@Ctx() ctx: RequestContext, @Arg('directoryListingTypeId', () => Int) directoryListingTypeId: number) {
    return directories.getListingType(ctx, directoryListingTypeId);
  }

  @Authorized('staff')
  @Mutation(() => DirectoryListingType, { description: 'Creates (DirectoryListingTypeId 0 or absent) or updates a listing type (AuditId checked).' })
  saveDirectoryListingType(@Ctx() ctx: RequestContext, @Arg('input', () => DirectoryListingTypeInput) input: DirectoryListingTypeInput) {
    return directories.saveListingType(ctx, input);
  }

  @Authorized('staff')
  @Mutation(() => Int, { description: 'Deletes a listing type no directory or listing uses (409 otherwise, and for a stale AuditId); answers its id.' })
  deleteDirectoryListingType(@Ctx() ctx: RequestContext, @Arg('directoryListingTypeId', () => Int) directoryListingTypeId: number, @Arg('auditId', () => Int) auditId: number) {
    return directories.deleteListingType(ctx, directoryListingTypeId, auditId);
  }

  // Listings ----------------------------------------------------------------------------------

  @Authorized('staff')
  @Mutation(() => DirectoryItemsSaveResult, { description: 'Lists the active holders of membership types in directories (and records the types on each directory, for AutomaticallyAddRemoveMembers).' })
  addDirectoryListingsByMembershipType(@Ctx() ctx: RequestContext, @Arg('input', () => DirectoryItemsSaveInput) input: DirectoryItemsSaveInput) {
    return listings.addListingsByMembershipType(ctx, input);
  }

  @Authorized('staff')
  @Query(() => [DirectoryAllItem], {
    description: 'Every listing changed at or after modifiedSince (ISO 8601), oldest first; removed listings have Directories[0].IsDeleted true. Page with options (Skip/Take) or pass the last LastModifiedDate again.',
  })
  directoryListingsModifiedSince(
    @Ctx() ctx: RequestContext, @RuledArg('modifiedSince', listings.MODIFIED_SINCE_RULE) modifiedSince: Date, @Arg('options', () => ListOptionsInput, OPTIONS) options?: ListOptionsInput | null,
  ) {
    return listings.listingsModifiedSince(ctx, modifiedSince, options);
  }

  @Authorized('staff')
  @Mutation(() => DirectoryListingSaved, { description: 'GraphQL only: lists a contact in a directory or changes its listing (texts, categories, visibility, IsVisible).' })
  saveDirectoryListing(
    @Ctx() ctx: RequestContext, @Arg('directoryId', () => Int) directoryId: number, @Arg('contactId', () => Int) contactId: number,
    @Arg('input', () => DirectoryListingInput) input: DirectoryListingInput,
  ) {
    return listings.saveDirectoryListing(ctx, directoryId, contactId, input);
  }

  @Authorized('staff')
  @Mutation(() => Int, { description: 'GraphQL only: removes a listing (kept as a tombstone for synchronization); answers its DirectoryContactId.' })
  deleteDirectoryListing(@Ctx() ctx: RequestContext, @Arg('directoryContactId', () => Int) directoryContactId: number, @Arg('auditId', () => Int) auditId: number) {
    return listings.deleteDirectoryListing(ctx, directoryContactId, auditId);
  }

  // Gallery (extension) -----------------------------------------------------------------------

  @Authorized()
  @Query(() => [DirectoryGalleryImage], { description: 'A listing\'s gallery images in order, with their captions (staff, or the listed contact).' })
  directoryGalleryImages(@Ctx() ctx: RequestContext, @Arg('directoryContactId', () => Int) directoryContactId: number) {
    return gallery.listingGallery(ctx, directoryContactId);
  }

  @Authorized()
  @Mutation(() => [DirectoryGalleryImage], { description: 'Puts a listing\'s gallery images in the order given (each of them once); staff, or the listed contact.' })
  reorderDirectoryGalleryImages(
    @Ctx() ctx: RequestContext,
    @Arg('directoryContactId', () => Int) directoryContactId: number,
    @Arg('imageIds', () => [Int], { description: 'Every ImageId of the gallery, in the new order.' }) imageIds: number[],
  ) {
    return gallery.reorderListingGallery(ctx, directoryContactId, imageIds);
  }

  // Public (no credential: the tenant comes from X-Tenant-Key, ?tenant= or the Host) ----------

  @Query(() => DirectoryDetail, { description: 'Public: a public directory\'s front page (visible listings counted per category).' })
  publicDirectoryIndex(@Ctx() ctx: RequestContext, @Arg('directoryId', () => Int) directoryId: number) {
    return publicDirectory.publicDirectoryIndex(ctx, directoryId);
  }

  @Query(() => DirectorySearch, {
    description: 'Public: searches a public directory. term: words in name, keywords or short description; nameStartsWithTerm: name prefix; advFilter/parsedFilter: JSON '
      + '{ CategoryItemId, CategoryItemIds, PostalCode, RadiusMiles, Latitude, Longitude }; pid: page (1-based, 50 per page); tenantId and organizationId are accepted and not used.',
  })
  publicDirectorySearch(
    @Ctx() ctx: RequestContext,
    @Arg('directoryId', () => String) directoryId: string,
    @Arg('pid', () => String, { nullable: true }) pid?: string | null,
    @Arg('term', () => String, { nullable: true }) term?: string | null,
    @Arg('nameStartsWithTerm', () => String, { nullable: true }) nameStartsWithTerm?: string | null,
    @Arg('returnGeoData', () => String, { nullable: true, description: '"true": answer coordinates and allow a radius search.' }) returnGeoData?: string | null,
    @Arg('advFilter', () => String, { nullable: true }) advFilter?: string | null,
    @Arg('tenantId', () => String, { nullable: true, description: 'Ignored: the tenant is the one the request names.' }) tenantId?: string | null,
    @Arg('showPostalCodeFilter', () => String, { nullable: true }) showPostalCodeFilter?: string | null,
    @Arg('organizationId', () => String, { nullable: true, description: 'Accepted, not used.' }) organizationId?: string | null,
    @Arg('defaultLayout', () => String, { nullable: true }) defaultLayout?: string | null,
    @Arg('parsedFilter', () => String, { nullable: true, description: 'Same shape as advFilter; its fields win.' }) parsedFilter?: string | null,
  ) {
    return publicDirectory.publicDirectorySearch(ctx, directoryId, {
      pid, term, nameStartsWithTerm, returnGeoData, advFilter, tenantId, showPostalCodeFilter, organizationId, defaultLayout, parsedFilter,
    });
  }

  @Query(() => DirectoryContactDetail, { description: 'Public: one listing of a public directory by its DirectoryContactId, with only what its visibility allows.' })
  publicDirectoryListing(@Ctx() ctx: RequestContext, @Arg('directoryId', () => Int) directoryId: number, @Arg('id', () => Int) id: number) {
    return publicDirectory.publicDirectoryListing(ctx, directoryId, id);
  }
}
