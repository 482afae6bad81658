import { ArrayMaxSize, IsOptional, IsUrl, Length, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { Field, Float, InputType, Int, ObjectType } from 'type-graphql';
import { FilterBaseInput, ListResultType } from './common.js';

const NOT_BLANK = { message: 'Name must not be blank' };
/** The longest JSON text a free-form field (Options, KeywordSearchOptions, CustomFields) keeps. */
const JSON_TEXT_MAX = 20000;

// ---------------------------------------------------------------------------------------------
// Listing types

@ObjectType({ description: 'A kind of directory listing (how listings of it are presented).' })
export class DirectoryListingType {
  @Field(() => Int) DirectoryListingTypeId!: number;
  @Field(() => Int, { description: 'The same as DirectoryListingTypeId.' }) Id!: number;
  @Field(() => Int) AuditId!: number;
  @Field(() => String, { nullable: true }) Name!: string | null;
  @Field(() => String, { nullable: true }) Description!: string | null;
  @Field(() => String, { nullable: true }) DefaultRank!: string | null;
  @Field(() => String, { nullable: true }) ShowIndividualDetails!: string | null;
  @Field(() => String, { nullable: true, description: '"false" hides the contact details (e-mail, phone, website, address) of every listing of this type.' }) ShowContactDetails!: string | null;
  @Field(() => String, { nullable: true, description: '"false" hides the custom fields of every listing of this type; a comma-separated list of custom field keys shows only those; empty or "true": every one the reader may see.' }) ShowCustomFields!: string | null;
  @Field(() => Boolean) ShowRelatedContacts!: boolean;
  @Field(() => Boolean) ShowContactsWithMemberships!: boolean;
  @Field(() => Boolean) ShowPrimaryContact!: boolean;
  @Field(() => Boolean) DirectLinkToDestinationSite!: boolean;
  @Field(() => Boolean) OpenLinksInNewTab!: boolean;
  @Field(() => String, { nullable: true, description: 'Free-form options: JSON as text (documented as str): stored and answered as sent.' }) Options!: string | null;
  @Field(() => String, { nullable: true }) Retargeting!: string | null;
  @Field(() => Boolean) EnhancedOnMap!: boolean;
  @Field(() => Boolean, { description: 'False while a directory or listing uses the type.' }) IsDeletable!: boolean;
  @Field(() => Int, { description: 'How many (live) listings have this type.' }) Count!: number;
  @Field(() => Boolean) ShowRETSDirectoryLinkOption!: boolean;
}

@InputType('DirectoryListingTypeInput', { description: 'A listing type to create (DirectoryListingTypeId 0 or absent) or update (with its AuditId). IsDeletable and Count are server-owned.' })
export class DirectoryListingTypeInput {
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(0) DirectoryListingTypeId?: number | null;
  @Field(() => Int, { nullable: true, description: 'Alias of DirectoryListingTypeId.' }) @IsOptional() @Min(0) Id?: number | null;
  @Field(() => Int, { nullable: true, description: 'The AuditId read with the type; a stale one is refused with 409.' }) @IsOptional() @Min(0) AuditId?: number | null;
  @Field(() => String) @Length(1, 200) @Matches(/\S/, NOT_BLANK) Name!: string;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 4000) Description?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 50) DefaultRank?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 200) ShowIndividualDetails?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 200) ShowContactDetails?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 200) ShowCustomFields?: string | null;
  @Field(() => Boolean, { nullable: true }) ShowRelatedContacts?: boolean | null;
  @Field(() => Boolean, { nullable: true }) ShowContactsWithMemberships?: boolean | null;
  @Field(() => Boolean, { nullable: true }) ShowPrimaryContact?: boolean | null;
  @Field(() => Boolean, { nullable: true }) DirectLinkToDestinationSite?: boolean | null;
  @Field(() => Boolean, { nullable: true }) OpenLinksInNewTab?: boolean | null;
  @Field(() => String, { nullable: true, description: 'JSON as text (documented as str): stored and answered as sent.' }) @IsOptional() @MaxLength(JSON_TEXT_MAX) Options?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 4000) Retargeting?: string | null;
  @Field(() => Boolean, { nullable: true }) EnhancedOnMap?: boolean | null;
  @Field(() => Boolean, { nullable: true }) ShowRETSDirectoryLinkOption?: boolean | null;
}

@ObjectType({ description: 'A listing type as listed.' })
export class DirectoryListingTypeListItem {
  @Field(() => Int) DirectoryListingTypeId!: number;
  @Field(() => Int) Id!: number;
  @Field(() => Int) AuditId!: number;
  @Field(() => String, { nullable: true }) Name!: string | null;
  @Field(() => String, { nullable: true }) Description!: string | null;
  @Field(() => Int, { description: 'How many (live) listings have this type.' }) Count!: number;
  @Field(() => [String]) Actions!: readonly string[];
}

// ---------------------------------------------------------------------------------------------
// Directories (setup)

@ObjectType({ description: 'How a public directory is searched and shown (SearchFilterOptions).' })
export class DirectorySearchSettings {
  @Field(() => Boolean, { description: 'Offer the postal code filter.' }) ShowPostalCodeFilter!: boolean;
  @Field(() => Boolean, { description: 'Offer the radius search (and answer coordinates).' }) DisplayRadiusSearch!: boolean;
  @Field(() => Boolean, { description: 'Order results by name (else by listing type rank, then name).' }) AlphabetizeResults!: boolean;
  @Field(() => Boolean) ShowCategoryImages!: boolean;
  @Field(() => Boolean) ShowRelatedContacts!: boolean;
  @Field(() => Boolean) ShowPrimaryContact!: boolean;
  @Field(() => String, { nullable: true }) DefaultLayout!: string | null;
}

@InputType('DirectorySearchSettingsInput', { description: 'SearchFilterOptions: absent fields keep their defaults.' })
export class DirectorySearchSettingsInput {
  @Field(() => Boolean, { nullable: true }) ShowPostalCodeFilter?: boolean | null;
  @Field(() => Boolean, { nullable: true }) DisplayRadiusSearch?: boolean | null;
  @Field(() => Boolean, { nullable: true }) AlphabetizeResults?: boolean | null;
  @Field(() => Boolean, { nullable: true }) ShowCategoryImages?: boolean | null;
  @Field(() => Boolean, { nullable: true }) ShowRelatedContacts?: boolean | null;
  @Field(() => Boolean, { nullable: true }) ShowPrimaryContact?: boolean | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 50) DefaultLayout?: string | null;
}

@ObjectType({ description: 'A directory as listed.' })
export class DirectoriesListItem {
  @Field(() => Int) Id!: number;
  @Field(() => Int) DirectoryId!: number;
  @Field(() => String, { nullable: true }) Name!: string | null;
  @Field(() => Int) AuditId!: number;
  @Field(() => String, { nullable: true, description: 'The display name (localized name).' }) Localize!: string | null;
  @Field(() => String, { nullable: true }) Description!: string | null;
  @Field(() => Int, { nullable: true }) DirectoryListingTypeId!: number | null;
  @Field(() => String, { nullable: true }) DirectoryListingTypeName!: string | null;
  @Field(() => Boolean) IsPublic!: boolean;
  @Field(() => Boolean, { description: 'Whether the directory is a hub directory.' }) ExtraData!: boolean;
  @Field(() => Boolean, { description: 'Visible to signed-in members (every directory not in development).' }) IsVisibleToMembers!: boolean;
  @Field(() => String, { nullable: true, description: '"Public", "Members" or "In development".' }) Availability!: string | null;
  @Field(() => Boolean) AutomaticallyAddRemoveMembers!: boolean;
  @Field(() => [String]) Actions!: readonly string[];
}

@ObjectType({ description: 'A directory as read for editing.' })
export class DirectoryAddEdit {
  @Field(() => Int) DirectoryId!: number;
  @Field(() => String, { nullable: true }) Name!: string | null;
  @Field(() => String, { nullable: true }) DisplayName!: string | null;
  @Field(() => String, { nullable: true }) Description!: string | null;
  @Field(() => Int, { nullable: true }) DirectoryListingTypeId!: number | null;
  @Field(() => Int) SortOrder!: number;
  @Field(() => Int, { nullable: true, description: 'The main category list id.' }) CategoryListId!: number | null;
  @Field(() => [Int], { description: 'The category list ids, in display order.' }) CatLists!: number[];
  @Field(() => String, { nullable: true }) OrderCategoryResults!: string | null;
  @Field(() => Boolean) IsPublic!: boolean;
  @Field(() => Boolean) IsHub!: boolean;
  @Field(() => String, { nullable: true }) HubIconCssClass!: string | null;
  @Field(() => DirectorySearchSettings) SearchFilterOptions!: DirectorySearchSettings;
  @Field(() => String, { nullable: true, description: 'JSON as text (documented as str): stored and answered as sent. A term search always reads name, keywords and short description.' }) KeywordSearchOptions!: string | null;
  @Field(() => String, { nullable: true, description: 'JSON as text (documented as str): stored and answered as sent.' }) CustomFields!: string | null;
  @Field(() => Boolean) IsMultiTenant!: boolean;
  @Field(() => Boolean) AutomaticallyAddRemoveMembers!: boolean;
  @Field(() => String, { nullable: true }) ObjectTypeId!: string | null;
  @Field(() => String, { nullable: true }) SearchObjectTypeId!: string | null;
  @Field(() => Boolean) ShowIsPublicProperty!: boolean;
  @Field(() => Boolean) InDevelopment!: boolean;
  @Field(() => Int, { nullable: true, description: 'Extension: the chapter the directory belongs to.' }) ChapterId!: number | null;
  @Field(() => [Int], { description: 'Extension: the membership types whose holders are listed (set by adddirectorylistingsbymembershiptype).' }) MembershipTypeIds!: number[];
  @Field(() => Int, { description: 'Extension: the version, for the next save.' }) AuditId!: number;
}

@InputType('DirectoryAddEditInput', { description: 'A directory to create (path id 0) or update (the path id wins over DirectoryId).' })
export class DirectoryAddEditInput {
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(0) DirectoryId?: number | null;
  @Field(() => String) @Length(1, 200) @Matches(/\S/, NOT_BLANK) Name!: string;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 200) DisplayName?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 4000) Description?: string | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(1) DirectoryListingTypeId?: number | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(-100000) @Max(100000) SortOrder?: number | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(1) CategoryListId?: number | null;
  @Field(() => [Int], { nullable: true, description: 'Category list ids in display order.' }) @IsOptional() @ArrayMaxSize(100) @Min(1, { each: true }) CatLists?: number[] | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 50) OrderCategoryResults?: string | null;
  @Field(() => Boolean, { nullable: true }) IsPublic?: boolean | null;
  @Field(() => Boolean, { nullable: true }) IsHub?: boolean | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 100) HubIconCssClass?: string | null;
  @Field(() => DirectorySearchSettingsInput, { nullable: true }) @IsOptional() @ValidateNested() SearchFilterOptions?: DirectorySearchSettingsInput | null;
  @Field(() => String, { nullable: true, description: 'JSON as text (documented as str): stored and answered as sent.' }) @IsOptional() @MaxLength(JSON_TEXT_MAX) KeywordSearchOptions?: string | null;
  @Field(() => String, { nullable: true, description: 'JSON as text (documented as str): stored and answered as sent.' }) @IsOptional() @MaxLength(JSON_TEXT_MAX) CustomFields?: string | null;
  @Field(() => Boolean, { nullable: true }) IsMultiTenant?: boolean | null;
  @Field(() => Boolean, { nullable: true }) AutomaticallyAddRemoveMembers?: boolean | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 100) ObjectTypeId?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 100) SearchObjectTypeId?: string | null;
  @Field(() => Boolean, { nullable: true }) ShowIsPublicProperty?: boolean | null;
  @Field(() => Boolean, { nullable: true }) InDevelopment?: boolean | null;
  @Field(() => Int, { nullable: true, description: 'Extension: the chapter the directory belongs to.' }) @IsOptional() @Min(1) ChapterId?: number | null;
  @Field(() => Int, { nullable: true, description: 'Extension: the AuditId read; a stale one is refused with 409.' }) @IsOptional() @Min(0) AuditId?: number | null;
}

@ObjectType('DirectoriesListCriteria', { description: 'The criteria of the directories setup list.' })
export class DirectoriesListCriteria {
  @Field(() => Boolean, { nullable: true, description: 'Only public (true) or only non-public (false) directories.' }) IsPublic!: boolean | null;
  @Field(() => Int, { nullable: true, description: 'Only directories of this chapter.' }) ChapterId!: number | null;
}

@InputType('DirectoriesListCriteriaInput')
export class DirectoriesListCriteriaInput {
  @Field(() => Boolean, { nullable: true }) IsPublic?: boolean | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(1) ChapterId?: number | null;
}

@InputType('DirectoriesListFilterInput', { description: 'FilterBase plus Criteria. OrderBy: Name (default), SortOrder, DirectoryId.' })
export class DirectoriesListFilterInput extends FilterBaseInput {
  @Field(() => DirectoriesListCriteriaInput, { nullable: true }) @IsOptional() @ValidateNested() Criteria?: DirectoriesListCriteriaInput | null;
}

export const DirectoriesListResult = ListResultType('DirectoriesListResult', {
  description: 'ListResult of the directories setup list.',
  item: DirectoriesListItem,
  criteria: DirectoriesListCriteria,
  criteriaItemsDescription: 'The listing types (Id, Name): what DirectoryListingTypeId can be.',
  modelItemsDescription: 'Always empty.',
});

// ---------------------------------------------------------------------------------------------
// Listings

@InputType('DirectoryItemsSaveItemInput', { description: 'List the holders of these membership types in this directory.' })
export class DirectoryItemsSaveItemInput {
  @Field(() => Int) @Min(1) DirectoryId!: number;
  @Field(() => [Int]) @ArrayMaxSize(200) @Min(1, { each: true }) MembershipTypeIds!: number[];
}

@InputType('DirectoryItemsSaveInput', { description: 'DirectoryItems: which membership types to list in which directories.' })
export class DirectoryItemsSaveInput {
  @Field(() => [DirectoryItemsSaveItemInput]) @ArrayMaxSize(100) @ValidateNested({ each: true }) DirectoryItems!: DirectoryItemsSaveItemInput[];
}

@ObjectType({ description: 'What adddirectorylistingsbymembershiptype did (GraphQL only: REST answers 200 with no body).' })
export class DirectoryItemsSaveResult {
  @Field(() => Int, { description: 'Listings added or revived.' }) Added!: number;
}

@ObjectType({ description: 'A postal address of a listed contact.' })
export class DirectoryAddress {
  @Field(() => String, { nullable: true }) Line1!: string | null;
  @Field(() => String, { nullable: true }) Line2!: string | null;
  @Field(() => String, { nullable: true }) City!: string | null;
  @Field(() => String, { nullable: true }) Region!: string | null;
  @Field(() => String, { nullable: true }) PostalCode!: string | null;
  @Field(() => String, { nullable: true }) Country!: string | null;
}

@ObjectType({ description: 'A directory a changed listing belongs to.' })
export class DirectoryAllItemDirectory {
  @Field(() => Int) DirectoryId!: number;
  @Field(() => Int) DirectoryContactId!: number;
  @Field(() => String, { nullable: true }) Name!: string | null;
  @Field(() => Boolean) IsVisible!: boolean;
  @Field(() => Boolean, { description: 'The listing was removed (or its directory or contact deleted) at LastModifiedDate.' }) IsDeleted!: boolean;
}

@ObjectType({ description: 'A listing changed since the instant asked for: one item per listing, removed ones included (Directories[0].IsDeleted).' })
export class DirectoryAllItem {
  @Field(() => Int) ContactId!: number;
  @Field(() => String, { nullable: true }) DisplayName!: string | null;
  @Field(() => String, { nullable: true }) CommonName!: string | null;
  @Field(() => String, { nullable: true }) ShortDescription!: string | null;
  @Field(() => String, { nullable: true }) Description!: string | null;
  @Field(() => String, { nullable: true }) Keywords!: string | null;
  @Field(() => String, { nullable: true }) Highlights!: string | null;
  @Field(() => String, { description: 'ISO 8601 (UTC) instant of the change; pass the last one back to continue.' }) LastModifiedDate!: string;
  @Field(() => String, { nullable: true, description: 'person or organization.' }) SystemContactTypeId!: string | null;
  @Field(() => [String]) Images!: string[];
  @Field(() => [DirectoryAddress]) Addresses!: DirectoryAddress[];
  @Field(() => [String]) EmailAddresses!: string[];
  @Field(() => [String]) PhoneNumbers!: string[];
  @Field(() => [DirectoryAllItemDirectory]) Directories!: DirectoryAllItemDirectory[];
  @Field(() => [String]) WebAddresses!: string[];
  @Field(() => [Int], { description: 'Category item ids.' }) Categories!: number[];
}

@ObjectType({ description: 'Which parts of a listing the public may see.' })
export class DirectoryListingVisibility {
  @Field(() => Boolean) Email!: boolean;
  @Field(() => Boolean) Phone!: boolean;
  @Field(() => Boolean) Address!: boolean;
  @Field(() => Boolean) Website!: boolean;
  @Field(() => Boolean) Description!: boolean;
  @Field(() => Boolean) CustomFields!: boolean;
}

@InputType('DirectoryListingVisibilityInput', { description: 'Absent fields keep their current (or default) value.' })
export class DirectoryListingVisibilityInput {
  @Field(() => Boolean, { nullable: true }) Email?: boolean | null;
  @Field(() => Boolean, { nullable: true }) Phone?: boolean | null;
  @Field(() => Boolean, { nullable: true }) Address?: boolean | null;
  @Field(() => Boolean, { nullable: true }) Website?: boolean | null;
  @Field(() => Boolean, { nullable: true }) Description?: boolean | null;
  @Field(() => Boolean, { nullable: true }) CustomFields?: boolean | null;
}

@InputType('DirectoryListingInput', { description: 'GraphQL only: a listing\'s own content and visibility.' })
export class DirectoryListingInput {
  @Field(() => Int, { nullable: true, description: 'The AuditId read; a stale one is refused with 409.' }) @IsOptional() @Min(0) AuditId?: number | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(1) DirectoryListingTypeId?: number | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 1000) ShortDescription?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 20000) Description?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 20000) Bio?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 4000) Highlights?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 1000) Keywords?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 2048) @IsUrl({ protocols: ['http', 'https'], require_protocol: true }, { message: 'Website must be an http(s) URL' }) Website?: string | null;
  @Field(() => [Int], { nullable: true }) @IsOptional() @ArrayMaxSize(200) @Min(1, { each: true }) CategoryItemIds?: number[] | null;
  @Field(() => String, { nullable: true, description: 'JSON as text (documented as str): stored and answered as sent.' }) @IsOptional() @MaxLength(JSON_TEXT_MAX) CustomFields?: string | null;
  @Field(() => DirectoryListingVisibilityInput, { nullable: true }) @IsOptional() @ValidateNested() Visibility?: DirectoryListingVisibilityInput | null;
  @Field(() => Boolean, { nullable: true, description: 'A hidden listing is never shown publicly.' }) IsVisible?: boolean | null;
}

@ObjectType({ description: 'GraphQL only: a listing as saved.' })
export class DirectoryListingSaved {
  @Field(() => Int) DirectoryContactId!: number;
  @Field(() => Int) DirectoryId!: number;
  @Field(() => Int) ContactId!: number;
  @Field(() => String) HashedContactId!: string;
  @Field(() => Boolean) IsVisible!: boolean;
  @Field(() => Int) AuditId!: number;
}

// ---------------------------------------------------------------------------------------------
// Public

@ObjectType({ description: 'Open Graph data for sharing a directory page.' })
export class DirectoryOGMeta {
  @Field(() => String, { nullable: true }) Title!: string | null;
  @Field(() => String, { nullable: true }) Description!: string | null;
  @Field(() => String) Type!: string;
}

@ObjectType({ description: 'A category of a directory and how many visible listings are in it.' })
export class DirectoryCategoryCount {
  @Field(() => Int) CategoryItemId!: number;
  @Field(() => Int) EntryCount!: number;
}

@ObjectType({ description: 'A public directory\'s front page.' })
export class DirectoryDetail {
  @Field(() => Int) DirectoryId!: number;
  @Field(() => String, { nullable: true }) displayName!: string | null;
  @Field(() => String, { nullable: true }) name!: string | null;
  @Field(() => String, { nullable: true }) Name!: string | null;
  @Field(() => String, { nullable: true }) Description!: string | null;
  @Field(() => Boolean) ShowCategoryImages!: boolean;
  @Field(() => DirectoryOGMeta) OGMeta!: DirectoryOGMeta;
  @Field(() => Int, { description: 'Visible listings.' }) TotalEntries!: number;
  @Field(() => [DirectoryCategoryCount], { description: 'Category items used by visible listings, with their counts (names come with the category lists area).' }) Categories!: DirectoryCategoryCount[];
  @Field(() => Boolean) ShowPostalCodeFilter!: boolean;
  @Field(() => Boolean) DisplayRadiusSearch!: boolean;
}

@ObjectType({ description: 'One listing found by a public search (only what its visibility allows).' })
export class DirectorySearchItem {
  @Field(() => Int) DirectoryContactId!: number;
  @Field(() => String) HashedContactId!: string;
  @Field(() => String) Name!: string;
  @Field(() => String, { nullable: true }) ShortDescription!: string | null;
  @Field(() => String, { nullable: true }) ImageUrl!: string | null;
  @Field(() => [Int]) Categories!: number[];
  @Field(() => String, { nullable: true, description: 'Only when the listing shows its address.' }) City!: string | null;
  @Field(() => String, { nullable: true, description: 'Only when the listing shows its address.' }) PostalCode!: string | null;
  @Field(() => Float, { nullable: true, description: 'Only with returngeodata and a listing that shows its address (postal code centroid).' }) Latitude!: number | null;
  @Field(() => Float, { nullable: true }) Longitude!: number | null;
  @Field(() => Float, { nullable: true, description: 'Miles from the radius search origin.' }) DistanceMiles!: number | null;
}

@ObjectType({ description: 'The result of a public directory search.' })
export class DirectorySearch {
  @Field(() => Int, { nullable: true }) DefaultListingTypeId!: number | null;
  @Field(() => String, { nullable: true }) Description!: string | null;
  @Field(() => DirectorySearchSettings) settingsJson!: DirectorySearchSettings;
  @Field(() => String, { nullable: true }) displayName!: string | null;
  @Field(() => String, { nullable: true }) name!: string | null;
  @Field(() => String, { nullable: true }) Name!: string | null;
  @Field(() => Boolean) AlphabetizeResults!: boolean;
  @Field(() => Boolean) ShowRelatedContacts!: boolean;
  @Field(() => Boolean) ShowPrimaryContact!: boolean;
  @Field(() => String, { nullable: true, description: 'The category item searched, if any.' }) CategoryItemId!: string | null;
  @Field(() => Boolean) ShowPostalCodeFilter!: boolean;
  @Field(() => [DirectorySearchItem], { description: 'One page (pid, 1-based, 50 per page) of the matches.' }) ListItems!: DirectorySearchItem[];
  @Field(() => Boolean) DisplayRadiusSearch!: boolean;
  @Field(() => String, { nullable: true, description: 'The advanced filter as applied, as JSON text (documented as str).' }) AdvancedSearchFilter!: string | null;
  @Field(() => String, { description: 'How many listings match over all pages (string of digits).' }) ResultCount!: string;
  @Field(() => String, { nullable: true }) DefaultLayout!: string | null;
}

@ObjectType({ description: 'A contact related to a listed contact (a person\'s organization, an organization\'s person): names only, never contact details.' })
export class DirectoryRelatedContact {
  @Field(() => String) Name!: string;
  @Field(() => String, { description: 'person or organization.' }) ContactTypeId!: string;
  @Field(() => String, { nullable: true, description: 'The person\'s role at the organization.' }) Role!: string | null;
  @Field(() => Boolean, { description: 'The person is the organization\'s primary contact.' }) IsPrimary!: boolean;
  @Field(() => String, { nullable: true, description: 'A person\'s title.' }) Title!: string | null;
  @Field(() => Int, { nullable: true, description: 'Its own visible listing in this directory (public/details/{id}), if any.' }) DirectoryContactId!: number | null;
  @Field(() => String, { nullable: true }) HashedContactId!: string | null;
}

@ObjectType({ description: 'An image of a listing\'s gallery, in gallery order.' })
export class DirectoryGalleryImage {
  @Field(() => Int) ImageId!: number;
  @Field(() => String, { description: 'GET it for the bytes (GalleryImages lists the same URLs).' }) Url!: string;
  @Field(() => String, { nullable: true }) Caption!: string | null;
  @Field(() => String, { nullable: true, description: 'Alternative text.' }) ShortDescription!: string | null;
  @Field(() => Int) Width!: number;
  @Field(() => Int) Height!: number;
  @Field(() => Int, { description: 'Its place in the gallery, from 1.' }) SortOrder!: number;
}

@ObjectType({ description: 'A public listing: only what the listing\'s visibility and its type allow; hidden parts are null or empty.' })
export class DirectoryContactDetail {
  @Field(() => Int) DirectoryContactId!: number;
  @Field(() => Int) DirectoryId!: number;
  @Field(() => Int, { nullable: true, description: 'Always null in public answers: HashedContactId identifies the listing.' }) ContactId!: number | null;
  @Field(() => String) HashedContactId!: string;
  @Field(() => String, { nullable: true }) Name!: string | null;
  @Field(() => String, { nullable: true }) MainImage!: string | null;
  @Field(() => String, { nullable: true }) ImageUrl!: string | null;
  @Field(() => String, { nullable: true }) ImageShortDescription!: string | null;
  @Field(() => [String], { description: 'The URLs of the gallery images, in gallery order.' }) GalleryImages!: string[];
  @Field(() => [DirectoryGalleryImage], { description: 'The gallery images with their captions, in gallery order.' }) GalleryImageDetails!: DirectoryGalleryImage[];
  @Field(() => [String], { description: 'The contact fields shown.' }) contactFields!: string[];
  @Field(() => [String], { description: 'The listing fields shown.' }) directoryFields!: string[];
  @Field(() => [String]) fieldOrder!: string[];
  @Field(() => String, { nullable: true, description: 'The listed contact\'s custom field values the reader may see, as JSON text (documented as str): an array of {Key, Label, Kind, Value} in the fields\' order, narrowed by the listing type\'s ShowCustomFields.' }) CustomFields!: string | null;
  @Field(() => String, { nullable: true }) ShortDescription!: string | null;
  @Field(() => String, { nullable: true }) Description!: string | null;
  @Field(() => String, { nullable: true }) Bio!: string | null;
  @Field(() => String, { nullable: true }) Highlights!: string | null;
  @Field(() => String, { nullable: true }) Keywords!: string | null;
  @Field(() => String, { nullable: true }) CommonName!: string | null;
  @Field(() => String, { nullable: true }) ContactCommonName!: string | null;
  @Field(() => String, { nullable: true }) OrgName!: string | null;
  @Field(() => [Int]) Categories!: number[];
  @Field(() => DirectoryAddress, { nullable: true }) PrimaryAddress!: DirectoryAddress | null;
  @Field(() => String, { nullable: true }) primaryAddressId!: string | null;
  @Field(() => [DirectoryAddress]) Addresses!: DirectoryAddress[];
  @Field(() => String, { nullable: true }) primaryPhoneId!: string | null;
  @Field(() => String, { nullable: true }) PrimaryPhone!: string | null;
  @Field(() => [String]) Phones!: string[];
  @Field(() => String, { nullable: true }) primaryWebsiteId!: string | null;
  @Field(() => String, { nullable: true }) PrimaryWebsite!: string | null;
  @Field(() => [String]) Websites!: string[];
  @Field(() => String, { nullable: true }) PrimaryEmail!: string | null;
  @Field(() => String, { nullable: true }) primaryEmailId!: string | null;
  @Field(() => [String]) EmailAddresses!: string[];
  @Field(() => [String]) images!: string[];
  @Field(() => [String]) Videos!: string[];
  @Field(() => Boolean) EnhancedOnMap!: boolean;
  @Field(() => Boolean) ShowRelatedContacts!: boolean;
  @Field(() => Boolean) ShowPrimaryContact!: boolean;
  @Field(() => DirectoryListingVisibility) visibilityJson!: DirectoryListingVisibility;
  @Field(() => DirectoryListingVisibility) visibility!: DirectoryListingVisibility;
  @Field(() => DirectoryListingVisibility) Visibility!: DirectoryListingVisibility;
  @Field(() => DirectorySearchSettings) settingsJson!: DirectorySearchSettings;
  @Field(() => DirectorySearchSettings) settings!: DirectorySearchSettings;
  @Field(() => DirectorySearchSettings) Settings!: DirectorySearchSettings;
  @Field(() => [DirectoryRelatedContact], { description: 'An organization\'s people (when the listing type shows related contacts).' }) RelatedContacts!: DirectoryRelatedContact[];
  @Field(() => [DirectoryRelatedContact], { description: 'A person\'s organizations (when the listing type shows related contacts).' }) RelatedOrgs!: DirectoryRelatedContact[];
  @Field(() => [DirectoryRelatedContact], { description: 'RelatedOrgs and RelatedContacts together, by name.' }) RelatedOrgsAndContactsSorted!: DirectoryRelatedContact[];
  @Field(() => String, { nullable: true }) ContactTypeId!: string | null;
  @Field(() => String, { nullable: true }) MembershipType!: string | null;
  @Field(() => [String]) MembershipTypes!: string[];
  @Field(() => String, { nullable: true }) PublicContent!: string | null;
  @Field(() => String, { nullable: true }) Prefix!: string | null;
  @Field(() => String, { nullable: true }) FirstName!: string | null;
  @Field(() => String, { nullable: true }) MiddleName!: string | null;
  @Field(() => String, { nullable: true }) LastName!: string | null;
  @Field(() => String, { nullable: true }) Suffix!: string | null;
  @Field(() => String, { nullable: true }) Title!: string | null;
  @Field(() => String, { nullable: true, description: 'A person\'s current organization (when the listing type shows the primary contact).' }) PrimaryOrg!: string | null;
  @Field(() => String, { nullable: true, description: 'An organization\'s primary contact: the DirectoryContactId of its visible listing in this directory (when the listing type shows the primary contact).' })
  PrimaryContactId!: string | null;
  @Field(() => Boolean, { description: 'The address\'s postal code was found (it has coordinates).' }) IsAddressValid!: boolean;
  @Field(() => String, { nullable: true }) MLSId!: string | null;
  @Field(() => String, { nullable: true }) RETSVendorId!: string | null;
  @Field(() => String, { nullable: true, description: 'Always null (documented as str).' }) EditionFieldsJson!: string | null;
  @Field(() => String, { nullable: true }) DirectoryListingTypeId!: string | null;
  @Field(() => DirectoryOGMeta) OGMeta!: DirectoryOGMeta;
}
