import { ArrayMaxSize, ArrayMinSize, IsEmail, IsOptional, Length, Matches, Max, Min, ValidateNested } from 'class-validator';
import { GraphQLJSON } from 'graphql-scalars';
import { Field, Float, InputType, Int, ObjectType } from 'type-graphql';
import { AcrossFields, choiceRule, Conforms, notBefore, UnlessBlank, type ArgumentRule } from '../core/argument-rules.js';
import { BadInput } from '../core/errors.js';
import { ORDER_STATUSES, STORE_ITEM_VARIANTS, type StoreItemVariant } from '../entities/store.js';
import { FilterBaseInput, ListResultType } from './common.js';

/** An order's status (any case). */
export const ORDER_STATUS_RULE = choiceRule(ORDER_STATUSES);

/** A store item variant: "0"–"3" or its name (any case). */
export const STORE_ITEM_TYPE_RULE: ArgumentRule<StoreItemVariant> = {
  schema: {
    type: 'string', enum: [...STORE_ITEM_VARIANTS.map((_name, index) => String(index)), ...STORE_ITEM_VARIANTS],
    description: `A variant by number or name (any case): ${STORE_ITEM_VARIANTS.map((name, index) => `${index} ${name}`).join(', ')}.`,
  },
  parse(text, field) {
    const lower = text.trim().toLowerCase();
    const index = /^[0-3]$/.test(lower) ? Number(lower) : STORE_ITEM_VARIANTS.findIndex((name) => name.toLowerCase() === lower);
    if (index < 0) throw BadInput.field(field, `must be 0, 1, 2 or 3 (${STORE_ITEM_VARIANTS.join(', ')})`);
    return index as StoreItemVariant;
  },
};
import { CALENDAR_DAY } from '../core/dates.js';

/*
 * The Store models. Variants of StoreItemBase (the path segment of /api/store/storeitems/{n}/…):
 * 0 Product (physical; sub-items, a contact, shipping), 1 Download (a file bought for download,
 * its expiry, an active-membership requirement), 2 Voucher (of a voucher type), 3 Information
 * (an item whose purchase shows InfoMessage: a service, a donation). Compound `str` fields are typed.
 */

/** A real calendar day (yyyy-mm-dd): the services' own check, stated by the document. */
const ISO_DATE = CALENDAR_DAY;
const DIGITS = /^\s*\d{0,9}\s*$/;
/** A save may send back the Images a read answered (an array): accepted, whatever it holds, and not read. */
const IGNORED_IMAGES = 'Ignored, whatever JSON value it holds (a read\'s Images array may be sent back as is): the gallery is changed through the preimage operations.';
const VARIANTS_TEXT = '0 Product (physical: sub-items, a contact, shipping), 1 Download (a file, its expiry, an active-membership requirement), 2 Voucher (a voucher type), 3 Information (InfoMessage shown after purchase)';

@ObjectType('StorePreImageResult', { description: 'An image of an item\'s gallery, in gallery order.' })
export class StorePreImageResult {
  @Field(() => Int) ImageId!: number;
  @Field(() => String, { description: 'Where the rendition is served (the images area).' }) Url!: string;
  @Field(() => String, { nullable: true }) Title!: string | null;
  @Field(() => String, { nullable: true }) Caption!: string | null;
  @Field(() => String, { nullable: true }) ShortDescription!: string | null;
  @Field(() => Int, { description: 'The original upload (not in the documents).' }) FileId!: number;
  @Field(() => Int, { description: 'Position in the gallery, from 1 (not in the documents).' }) GalleryOrder!: number;
}

@ObjectType('StoreSubItem', { description: 'A sub-item (size, colour…) of a product (variant 0).' })
export class StoreSubItemView {
  @Field(() => Int) StoreSubItemId!: number;
  @Field(() => String) Name!: string;
  @Field(() => Float, { nullable: true, description: 'Null: the item\'s price.' }) Price!: number | null;
  @Field(() => String, { nullable: true, description: 'Units left when tracked per sub-item (tracking method 2).' }) InventoryRemaining!: string | null;
}

@InputType('StoreSubItemInput', { description: 'A sub-item: a known StoreSubItemId updates it, 0 or absent adds one; sub-items left out are removed.' })
export class StoreSubItemInput {
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(0) StoreSubItemId?: number | null;
  @Field(() => String) @Length(1, 200) @Matches(/\S/, { message: 'Name must not be blank' }) Name!: string;
  @Field(() => Float, { nullable: true, description: 'At most two decimals, not negative; null: the item\'s price.' }) @IsOptional() @Min(0) Price?: number | null;
  @Field(() => String, { nullable: true, description: 'Opening stock of a new sub-item (tracking method 2); later stock arrives as inventory receipts.' })
  @IsOptional() @Matches(DIGITS, { message: 'InventoryRemaining must be a whole number' }) InventoryRemaining?: string | null;
}

@ObjectType('StoreItemBase', { description: 'The fields every store item variant has (not emitted itself).' })
export abstract class StoreItemBase {
  @Field(() => Int) StoreItemId!: number;
  @Field(() => String) Name!: string;
  @Field(() => String, { description: `The variant's kind: Product, Download, Voucher or Information (${VARIANTS_TEXT}).` }) ItemType!: string;
  @Field(() => String, { nullable: true, description: 'Settings as JSON text.' }) SettingsJson!: string | null;
  @Field(() => String, { nullable: true, description: 'Free-form display settings: JSON as text (documented as str): stored and answered as sent.' }) Settings!: string | null;
  @Field(() => Float) Price!: number;
  @Field(() => Boolean) ShowAvailableQuantity!: boolean;
  @Field(() => Boolean) HasManualTracking!: boolean;
  @Field(() => Boolean) HasSubItems!: boolean;
  @Field(() => String, { description: '"0" not tracked, "1" the item\'s quantity, "2" each sub-item\'s quantity.' }) InventoryTrackingMethodTypeId!: string;
  @Field(() => String, { nullable: true, description: 'Units left (the sum over sub-items for method 2); null when not tracked.' }) InventoryRemaining!: string | null;
  @Field(() => String, { nullable: true }) SaleableItemId!: string | null;
  @Field(() => String, { nullable: true }) AccountingClassId!: string | null;
  @Field(() => String, { nullable: true, description: 'The id of the category item (category lists) the item is filed under.' }) CategoryItemId!: string | null;
  @Field(() => [Int], { description: 'MembershipType ids the item is offered to; not empty makes it a membership add-on.' }) MembershipTypes!: number[];
  @Field(() => Boolean) HasMembershipTypesChosen!: boolean;
  @Field(() => String, { nullable: true }) Description!: string | null;
  @Field(() => String, { nullable: true }) ShortDescription!: string | null;
  @Field(() => String, { nullable: true, description: 'yyyy-mm-dd: not sold before.' }) AvailableDate!: string | null;
  @Field(() => String, { nullable: true, description: 'yyyy-mm-dd: not sold after.' }) EndDate!: string | null;
  @Field(() => Boolean) IsActive!: boolean;
  @Field(() => String, { description: 'The fewest units one order line may buy.' }) MinimumQuantity!: string;
  @Field(() => Boolean) TrackInventory!: boolean;
  @Field(() => Boolean, { description: 'Sold beyond the stock (the excess is back-ordered).' }) AllowBackorder!: boolean;
  @Field(() => [StorePreImageResult], { description: 'The gallery, in order.' }) Images!: StorePreImageResult[];
  @Field(() => Int, { description: 'Record version (not in the documents): send it back when saving.' }) AuditId!: number;
}

@ObjectType('StoreItemV0', { description: 'Variant 0: a physical product, with sub-items, a contact and shipping.' })
export class StoreItemV0 extends StoreItemBase {
  @Field(() => String, { nullable: true, description: 'The contact\'s name.' }) Contact!: string | null;
  @Field(() => Boolean) ShippingNotAvailable!: boolean;
  @Field(() => String, { nullable: true }) ContactId!: string | null;
  @Field(() => [StoreSubItemView]) SubItems!: StoreSubItemView[];
}

@ObjectType('StoreItemV1', { description: 'Variant 1: a digital download.' })
export class StoreItemV1 extends StoreItemBase {
  @Field(() => String, { nullable: true, description: 'The FileId of the file bought (uploaded with POST /api/store/downloadfiles/upload).' }) PostSubmitDownloadFile!: string | null;
  @Field(() => String, { nullable: true, description: 'yyyy-mm-dd: the last day buyers may download the file.' }) FileExpirationDate!: string | null;
  @Field(() => Boolean, { description: 'Buyers must hold an active membership when they download.' }) RequireActiveMembership!: boolean;
}

@ObjectType('StoreItemV2', { description: 'Variant 2: a voucher of a voucher type.' })
export class StoreItemV2 extends StoreItemBase {
  @Field(() => Int, { nullable: true, description: 'The voucher type of the vouchers the item sells (voucherTypes).' }) VoucherTypeId!: number | null;
}

@ObjectType('StoreItemV3', { description: 'Variant 3: an item whose purchase shows an information message.' })
export class StoreItemV3 extends StoreItemBase {
  @Field(() => String, { nullable: true }) InfoMessage!: string | null;
}

@AcrossFields<StoreItemBaseInput>(notBefore('EndDate', 'AvailableDate'))
@InputType('StoreItemBaseInput', { description: 'The fields every store item variant has (not emitted itself).' })
export abstract class StoreItemBaseInput {
  @Field(() => Int, { nullable: true, description: '0 or absent creates; an existing id updates.' }) @IsOptional() @Min(0) StoreItemId?: number | null;
  @Field(() => String) @Length(1, 200) @Matches(/\S/, { message: 'Name must not be blank' }) Name!: string;
  @Field(() => String, { nullable: true, description: 'Ignored: the path\'s variant decides.' }) @IsOptional() @Length(0, 50) ItemType?: string | null;
  @Field(() => String, { nullable: true, description: 'The same text as Settings (Settings wins when both are sent).' }) @IsOptional() @Length(0, 20000) SettingsJson?: string | null;
  @Field(() => String, { nullable: true, description: 'Free-form display settings: JSON as text (documented as str): stored and answered as sent.' }) @IsOptional() @Length(0, 20000) Settings?: string | null;
  @Field(() => Float, { description: 'At most two decimals, not negative.' }) @Min(0) Price!: number;
  @Field(() => Boolean, { nullable: true }) ShowAvailableQuantity?: boolean | null;
  @Field(() => Boolean, { nullable: true }) HasManualTracking?: boolean | null;
  @Field(() => Boolean, { nullable: true, description: 'Ignored: a product has sub-items when SubItems holds some.' }) HasSubItems?: boolean | null;
  @Field(() => String, { nullable: true, description: '"0" not tracked (default), "1" the item\'s quantity, "2" each sub-item\'s (products with sub-items).' })
  @IsOptional() @Matches(/^\s*[012]?\s*$/, { message: 'InventoryTrackingMethodTypeId must be 0, 1 or 2' }) InventoryTrackingMethodTypeId?: string | null;
  @Field(() => String, { nullable: true, description: 'Opening stock of a new item (method 1); later stock arrives as inventory receipts (saveStoreItemInventory), so a save never overwrites sales.' })
  @IsOptional() @Matches(DIGITS, { message: 'InventoryRemaining must be a whole number' }) InventoryRemaining?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Matches(DIGITS, { message: 'SaleableItemId must be an id' }) SaleableItemId?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 100) AccountingClassId?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Matches(DIGITS, { message: 'CategoryItemId must be an id' }) CategoryItemId?: string | null;
  @Field(() => [Int], { nullable: true }) @IsOptional() @ArrayMaxSize(100) @Min(1, { each: true }) MembershipTypes?: number[] | null;
  @Field(() => Boolean, { nullable: true, description: 'Ignored: follows MembershipTypes.' }) HasMembershipTypesChosen?: boolean | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 20000) Description?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 500) ShortDescription?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Matches(ISO_DATE, { message: 'AvailableDate must be a date (yyyy-mm-dd)' }) AvailableDate?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Matches(ISO_DATE, { message: 'EndDate must be a date (yyyy-mm-dd)' }) EndDate?: string | null;
  @Field(() => Boolean, { nullable: true }) IsActive?: boolean | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Matches(DIGITS, { message: 'MinimumQuantity must be a whole number' }) MinimumQuantity?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'Ignored: follows InventoryTrackingMethodTypeId.' }) TrackInventory?: boolean | null;
  @Field(() => Boolean, { nullable: true }) AllowBackorder?: boolean | null;
  @Field(() => GraphQLJSON, { nullable: true, description: IGNORED_IMAGES }) Images?: unknown;
  @Field(() => Int, { nullable: true, description: 'The AuditId read; a stale one is 409.' }) @IsOptional() @Min(0) AuditId?: number | null;
}

@InputType('StoreItemV0Input', { description: 'A product to create or update.' })
export class StoreItemV0Input extends StoreItemBaseInput {
  @Field(() => String, { nullable: true, description: 'Ignored: ContactId decides.' }) @IsOptional() @Length(0, 200) Contact?: string | null;
  @Field(() => Boolean, { nullable: true }) ShippingNotAvailable?: boolean | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Matches(DIGITS, { message: 'ContactId must be an id' }) ContactId?: string | null;
  @Field(() => [StoreSubItemInput], { nullable: true, description: 'Absent keeps the sub-items; a list replaces them.' }) @IsOptional() @ArrayMaxSize(200) @ValidateNested({ each: true }) SubItems?: StoreSubItemInput[] | null;
}

@InputType('StoreItemV1Input', { description: 'A digital download to create or update.' })
export class StoreItemV1Input extends StoreItemBaseInput {
  @Field(() => String, { description: 'The FileId of the uploaded file (required).' }) @Matches(/^\s*\d{1,9}\s*$/, { message: 'PostSubmitDownloadFile must be a FileId' }) PostSubmitDownloadFile!: string;
  @Field(() => String, { nullable: true }) @IsOptional() @Matches(ISO_DATE, { message: 'FileExpirationDate must be a date (yyyy-mm-dd)' }) FileExpirationDate?: string | null;
  @Field(() => Boolean, { nullable: true }) RequireActiveMembership?: boolean | null;
}

@InputType('StoreItemV2Input', { description: 'A voucher to create or update.' })
export class StoreItemV2Input extends StoreItemBaseInput {
  @Field(() => Int, { description: 'Required: an active voucher type (voucherTypes).' }) @Min(1) VoucherTypeId!: number;
}

@InputType('StoreItemV3Input', { description: 'An information item to create or update.' })
export class StoreItemV3Input extends StoreItemBaseInput {
  @Field(() => String, { description: 'Required: shown to the buyer after purchase.' }) @Length(1, 4000) @Matches(/\S/, { message: 'InfoMessage must not be blank' }) InfoMessage!: string;
}

@ObjectType('StoreItemOrderEntry', { description: 'A store item as listed (and ordered for display).' })
export class StoreItemOrderEntry {
  @Field(() => Int) StoreItemId!: number;
  @Field(() => String, { nullable: true, description: 'Always null: sub-items are listed with their item.' }) ParentStoreItemId!: string | null;
  @Field(() => Boolean) HasSubItems!: boolean;
  @Field(() => String) ProductName!: string;
  @Field(() => String, { description: 'The variant, "0" to "3".' }) ItemType!: string;
  @Field(() => String) InventoryTrackingMethodTypeId!: string;
  @Field(() => String, { description: 'Product, Download, Voucher or Information.' }) ItemTypeStr!: string;
  @Field(() => String, { nullable: true }) SettingJson!: string | null;
  @Field(() => String, { nullable: true, description: 'JSON as text (documented as str): stored and answered as sent.' }) Settings!: string | null;
  @Field(() => String, { nullable: true, description: 'The CategoryItemId.' }) Category!: string | null;
  @Field(() => Float) Price!: number;
  @Field(() => String, { description: 'The lowest price over the item and its sub-items.' }) MinPrice!: string;
  @Field(() => String) MaxPrice!: string;
  @Field(() => String, { description: '"12.50", or "10.00 – 15.00" when sub-items differ.' }) PriceDescription!: string;
  @Field(() => String, { nullable: true }) InventoryRemaining!: string | null;
  @Field(() => Boolean) IsActive!: boolean;
  @Field(() => String) DisplayOrder!: string;
  @Field(() => [String]) Actions!: readonly string[];
}

@InputType('StoreItemOrderEntryInput', { description: 'An item\'s place: DisplayOrder when given, else its position in the array.' })
export class StoreItemOrderEntryInput {
  @Field(() => Int) @Min(1) StoreItemId!: number;
  @Field(() => String, { nullable: true }) @IsOptional() @Matches(DIGITS, { message: 'DisplayOrder must be a whole number' }) DisplayOrder?: string | null;
}

@ObjectType('StoreListCriteria', { description: 'Criteria of the store lists; every one given must match.' })
@InputType('StoreListCriteriaInput', { description: 'Criteria of the store lists; every one given must match.' })
export class StoreListCriteria {
  @Field(() => Boolean, { nullable: true, description: 'Items: only active (true) or inactive (false).' }) IsActive?: boolean | null;
  @Field(() => Int, { nullable: true, description: 'Orders and downloads: only this contact\'s.' }) @IsOptional() @Min(1) ContactId?: number | null;
  @Field(() => String, { nullable: true, description: 'Orders: only this PurchaseStatusId.' }) @IsOptional() @UnlessBlank() @Conforms(ORDER_STATUS_RULE) PurchaseStatusId?: string | null;
  @Field(() => Int, { nullable: true, description: 'Downloads: only of this item.' }) @IsOptional() @Min(1) StoreItemId?: number | null;
}

@InputType('StoreListFilterInput', {
  description: 'The documented StoreListFilter: FilterBase plus Criteria, and StoreItemType for the item and add-on lists ("0"–"3" or Product, Download, Voucher, Information).',
})
export class StoreListFilterInput extends FilterBaseInput {
  @Field(() => String, { nullable: true }) @IsOptional() @UnlessBlank() @Conforms(STORE_ITEM_TYPE_RULE) StoreItemType?: string | null;
  @Field(() => StoreListCriteria, { nullable: true }) @IsOptional() @ValidateNested() Criteria?: StoreListCriteria | null;
}

export const StoreItemListResult = ListResultType('StoreItemListResult', {
  description: 'ListResult of store items (OrderBy DisplayOrder (default), ProductName, Price, StoreItemId).',
  item: StoreItemOrderEntry,
  criteria: StoreListCriteria,
  criteriaItemsDescription: 'The variants (Id 0–3, Name): the choices of StoreItemType.',
  modelItemsDescription: 'Unused (empty).',
});

@InputType('StorePreImageInput', { description: 'An image for an item\'s gallery. ImageId 0 (path) attaches the FileId; an existing ImageId, or OldImageId, is replaced by FileId (its crop and texts updated).' })
export class StorePreImageInput {
  @Field(() => Int, { nullable: true, description: 'Ignored: the path names it.' }) @IsOptional() @Min(0) ImageId?: number | null;
  @Field(() => Int, { nullable: true, description: 'Ignored: the path names it.' }) @IsOptional() @Min(0) FileId?: number | null;
  @Field(() => String, { nullable: true, description: 'Ignored: the server sets it.' }) @IsOptional() @Length(0, 2048) Url?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 200) Title?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 1000) Caption?: string | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(0) @Max(100000) CropX?: number | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(0) @Max(100000) CropY?: number | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(0) @Max(100000) CropHeight?: number | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(0) @Max(100000) CropWidth?: number | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 500) ShortDescription?: string | null;
  @Field(() => Int, { nullable: true, description: 'Ignored: the path names it.' }) @IsOptional() @Min(0) StoreItemId?: number | null;
  @Field(() => Int, { nullable: true, description: 'The gallery image this one replaces (when the path\'s ImageId is 0).' }) @IsOptional() @Min(0) OldImageId?: number | null;
  @Field(() => Int, { nullable: true, description: 'The file being replaced: when given, must be the replaced image\'s (else 409: it changed meanwhile).' }) @IsOptional() @Min(0) OldFileId?: number | null;
  @Field(() => String, { nullable: true, description: 'Position for a new image (default: last).' }) @IsOptional() @Matches(DIGITS, { message: 'GalleryOrder must be a whole number' }) GalleryOrder?: string | null;
}

@InputType('StoreImageOrderInput', { description: 'One image of the gallery ordering: its GalleryOrder when given, else its position in the array; images left out follow.' })
export class StoreImageOrderInput {
  @Field(() => Int) @Min(1) ImageId!: number;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(0) @Max(100000) GalleryOrder?: number | null;
}

@ObjectType('StoreItemPurchase', { description: 'One purchase of an item (a line of an order).' })
export class StoreItemPurchase {
  @Field(() => Int) StorePurchaseId!: number;
  @Field(() => String, { description: 'ISO 8601 (UTC).' }) PurchaseDate!: string;
  @Field(() => Int) ContactId!: number;
  @Field(() => String, { nullable: true }) ContactName!: string | null;
  @Field(() => String, { nullable: true }) SubItemName!: string | null;
  @Field(() => Int) Quantity!: number;
  @Field(() => Int, { description: 'Units not in stock at purchase.' }) Backordered!: number;
  @Field(() => Float) UnitPrice!: number;
  @Field(() => Float) Amount!: number;
  @Field(() => String) PurchaseStatusId!: string;
}

@ObjectType('StoreItemPurchaseHistory', { description: 'Who bought an item: the latest 1000 purchases, newest first.' })
export class StoreItemPurchaseHistory {
  @Field(() => Int) StoreItemId!: number;
  @Field(() => [StoreItemPurchase]) Items!: StoreItemPurchase[];
}

@ObjectType('StoreItemInventory', { description: 'An inventory receipt: units bought in at a price.' })
export class StoreItemInventoryView {
  @Field(() => Int) StoreItemInventoryId!: number;
  @Field(() => Int) StoreItemId!: number;
  @Field(() => Boolean) HasSubItems!: boolean;
  @Field(() => String, { nullable: true }) StoreSubItemId!: string | null;
  @Field(() => String, { description: 'yyyy-mm-dd' }) PurchaseDate!: string;
  @Field(() => Float) PurchasePrice!: number;
  @Field(() => Int, { description: 'Units received.' }) Quantity!: number;
  @Field(() => Int, { description: 'Units of the item (or its sub-item) available now, after sales.' }) QuantityAvailable!: number;
}

@InputType('StoreItemInventoryInput', { description: 'An inventory receipt (GraphQL only): adds Quantity units to the tracked count in one UPDATE, so no sale is lost.' })
export class StoreItemInventoryInput {
  @Field(() => Int) @Min(1) StoreItemId!: number;
  @Field(() => Int, { nullable: true, description: 'Required for items tracked per sub-item.' }) @IsOptional() @Min(1) StoreSubItemId?: number | null;
  @Field(() => String, { description: 'yyyy-mm-dd' }) @Matches(ISO_DATE, { message: 'PurchaseDate must be a date (yyyy-mm-dd)' }) PurchaseDate!: string;
  @Field(() => Float, { description: 'Unit cost; at most two decimals, not negative.' }) @Min(0) PurchasePrice!: number;
  @Field(() => Int) @Min(1) @Max(1000000) Quantity!: number;
}

@ObjectType('StoreOrderLine', { description: 'One line of an order, priced by the server.' })
export class StoreOrderLineView {
  @Field(() => Int) StoreOrderLineId!: number;
  @Field(() => Int) StoreItemId!: number;
  @Field(() => Int, { nullable: true }) StoreSubItemId!: number | null;
  @Field(() => String) ProductName!: string;
  @Field(() => Int) Quantity!: number;
  @Field(() => Int, { description: 'Units back-ordered (not in stock at checkout).' }) Backordered!: number;
  @Field(() => Float) UnitPrice!: number;
  @Field(() => Float) Amount!: number;
  @Field(() => Boolean) Taxable!: boolean;
}

@ObjectType('StoreOrder', { description: 'A purchase. Totals are the server\'s: recomputed from the lines and the rates kept from checkout.' })
export class StoreOrderView {
  @Field(() => Int) StorePurchaseId!: number;
  @Field(() => String, { nullable: true, description: 'Null: the address is the one on the order.' }) ShippingAddressId!: string | null;
  @Field(() => String, { nullable: true }) ContactName!: string | null;
  @Field(() => String, { nullable: true }) EmailAddress!: string | null;
  @Field(() => String, { nullable: true }) PhoneNumber!: string | null;
  @Field(() => String, { description: 'ISO 8601 (UTC).' }) PurchaseDate!: string;
  @Field(() => String, { nullable: true }) ShipToCompanyName!: string | null;
  @Field(() => String, { nullable: true }) ShipToContactName!: string | null;
  @Field(() => String, { nullable: true }) Address1!: string | null;
  @Field(() => String, { nullable: true }) Address2!: string | null;
  @Field(() => String, { nullable: true }) City!: string | null;
  @Field(() => String, { nullable: true }) CountryId!: string | null;
  @Field(() => String, { nullable: true }) Country!: string | null;
  @Field(() => String, { nullable: true }) StateProvince!: string | null;
  @Field(() => String, { nullable: true }) PostalCode!: string | null;
  @Field(() => String, { description: 'Ship or Pickup (no shipping charge); fixed at checkout.' }) ShippingOption!: string;
  @Field(() => String, { description: 'Pending, Paid, Shipped, Completed or Cancelled.' }) PurchaseStatusId!: string;
  @Field(() => String, { nullable: true }) Notes!: string | null;
  @Field(() => [StoreOrderLineView]) OrderStoreItemList!: StoreOrderLineView[];
  @Field(() => Float) ShippingAmount!: number;
  @Field(() => Float) TaxAmount!: number;
  @Field(() => Float) GrandTotal!: number;
  @Field(() => Float, { description: 'The lines\' sum (not in the documents).' }) Subtotal!: number;
  @Field(() => Int, { nullable: true, description: 'The invoice billing the order (not in the documents).' }) InvoiceId!: number | null;
  @Field(() => Int, { description: 'The buyer (not in the documents).' }) ContactId!: number;
  @Field(() => Int, { description: 'Record version (not in the documents).' }) AuditId!: number;
}

/** The buyer's contact and shipping details, shared by checkout and an order's update. */
@InputType('StoreShippingDetailsInput')
abstract class StoreShippingDetailsInput {
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 200) ContactName?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 254) @IsEmail({}, { message: 'EmailAddress must be an e-mail address' }) EmailAddress?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 40) PhoneNumber?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 200) ShipToCompanyName?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 200) ShipToContactName?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 200) Address1?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 200) Address2?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 100) City?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 8) CountryId?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 100) Country?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 100) StateProvince?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 20) PostalCode?: string | null;
}

@InputType('StoreOrderInput', {
  description: 'Changes to an order: status, shipping details and notes. Totals, lines and ShippingOption are the server\'s and are ignored.',
})
export class StoreOrderInput extends StoreShippingDetailsInput {
  @Field(() => Int, { nullable: true, description: 'Ignored: the path names it.' }) @IsOptional() @Min(0) StorePurchaseId?: number | null;
  @Field(() => String, { nullable: true, description: 'Pending, Paid, Shipped, Completed or Cancelled (cancelling puts the stock back).' }) @IsOptional() @UnlessBlank() @Conforms(ORDER_STATUS_RULE) PurchaseStatusId?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 4000) Notes?: string | null;
  @Field(() => Int, { nullable: true, description: 'The AuditId read; a stale one is 409.' }) @IsOptional() @Min(0) AuditId?: number | null;
}

export const StoreOrderListResult = ListResultType('StoreOrderListResult', {
  description: 'ListResult of orders, newest first unless ordered otherwise (OrderBy PurchaseDate, StorePurchaseId, GrandTotal, PurchaseStatusId). Members see their own.',
  item: StoreOrderView,
  criteria: StoreListCriteria,
  criteriaItemsDescription: 'The statuses (Id 0–4, Name): the choices of Criteria.PurchaseStatusId.',
  modelItemsDescription: 'The buyers of this page (Id = ContactId, Name).',
});

@InputType('StoreCheckoutLineInput')
export class StoreCheckoutLineInput {
  @Field(() => Int) @Min(1) StoreItemId!: number;
  @Field(() => Int, { nullable: true, description: 'Required for a product with sub-items.' }) @IsOptional() @Min(1) StoreSubItemId?: number | null;
  @Field(() => Int) @Min(1) @Max(10000) Quantity!: number;
}

@InputType('StoreCheckoutInput', {
  description: 'A cart to buy (GraphQL only; not a documented REST operation). No prices: the server prices every line, adds shipping and tax from the store settings, reserves the stock and bills the order.',
})
export class StoreCheckoutInput extends StoreShippingDetailsInput {
  @Field(() => Int, { nullable: true, description: 'Staff: the buyer (required). Members buy for their own contact; this is ignored.' }) @IsOptional() @Min(1) ContactId?: number | null;
  @Field(() => [StoreCheckoutLineInput]) @ArrayMinSize(1) @ArrayMaxSize(100) @ValidateNested({ each: true }) Items!: StoreCheckoutLineInput[];
  @Field(() => String, { nullable: true, description: 'Ship (default) or Pickup.' }) @IsOptional() @Matches(/^(ship|pickup)$/i, { message: 'ShippingOption must be Ship or Pickup' }) ShippingOption?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 4000) Notes?: string | null;
}

@ObjectType('StoreDownloadPurchase', { description: 'A bought digital download (the right to download its file).' })
export class StoreDownloadPurchaseView {
  @Field(() => Int) StoreItemDigitalDownloadPurchaseId!: number;
  @Field(() => Int) StoreItemId!: number;
  @Field(() => Int) StorePurchaseId!: number;
  @Field(() => String) ProductName!: string;
  @Field(() => Int) ContactId!: number;
  @Field(() => String, { nullable: true }) ContactName!: string | null;
  @Field(() => String, { description: 'ISO 8601 (UTC).' }) PurchaseDate!: string;
  @Field(() => String, { nullable: true, description: 'yyyy-mm-dd: the last day of the link.' }) FileExpirationDate!: string | null;
  @Field(() => Boolean) IsExpired!: boolean;
  @Field(() => Boolean) RequireActiveMembership!: boolean;
  @Field(() => Int) DownloadCount!: number;
  @Field(() => String, { description: 'Where the file is served (a bearer credential of the buyer or staff).' }) DownloadUrl!: string;
}

export const StoreDownloadListResult = ListResultType('StoreDownloadListResult', {
  description: 'ListResult of bought downloads, newest first unless ordered otherwise (OrderBy PurchaseDate, ProductName, StoreItemDigitalDownloadPurchaseId). Members see their own.',
  item: StoreDownloadPurchaseView,
  criteria: StoreListCriteria,
  modelItemsDescription: 'The buyers of this page (Id = ContactId, Name).',
});

@ObjectType('StoreSettings', { description: 'The store\'s settings: the documented fields, then ours (tax and shipping rules).' })
export class StoreSettingsView {
  @Field(() => String, { nullable: true }) StaffUrl!: string | null;
  @Field(() => String, { nullable: true }) EntireUrl!: string | null;
  @Field(() => String, { nullable: true }) StoreDescription!: string | null;
  @Field(() => String, { nullable: true }) PaymentGatewayId!: string | null;
  @Field(() => Boolean) EnableAdditionalNotes!: boolean;
  @Field(() => Boolean) RequirePhone!: boolean;
  @Field(() => Boolean, { description: 'Shipping is not taxed.' }) ExemptTaxOnShipping!: boolean;
  @Field(() => Boolean, { description: 'Tax the whole shipping amount; otherwise only its taxable share (the taxable items\' part of the subtotal).' }) IncludeNonTaxableItemsInTaxableShippingAmmount!: boolean;
  @Field(() => Int, { description: 'Item image width in pixels.' }) Width!: number;
  @Field(() => Int, { description: 'Item image height in pixels.' }) Height!: number;
  @Field(() => Float, { description: 'Tax percentage applied to taxable lines (e.g. 8.25).' }) TaxRate!: number;
  @Field(() => Float, { description: 'Shipping charged once per shipped order.' }) ShippingFlatRate!: number;
  @Field(() => Float, { description: 'Shipping charged per shipped unit.' }) ShippingPerItem!: number;
  @Field(() => Int) AuditId!: number;
}

@InputType('StoreSettingsInput', { description: 'The store\'s settings; fields left out keep their value.' })
export class StoreSettingsInput {
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 2048) StaffUrl?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 2048) EntireUrl?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 20000) StoreDescription?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Length(0, 100) PaymentGatewayId?: string | null;
  @Field(() => Boolean, { nullable: true }) EnableAdditionalNotes?: boolean | null;
  @Field(() => Boolean, { nullable: true }) RequirePhone?: boolean | null;
  @Field(() => Boolean, { nullable: true }) ExemptTaxOnShipping?: boolean | null;
  @Field(() => Boolean, { nullable: true }) IncludeNonTaxableItemsInTaxableShippingAmmount?: boolean | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(1) @Max(10000) Width?: number | null;
  @Field(() => Int, { nullable: true }) @IsOptional() @Min(1) @Max(10000) Height?: number | null;
  @Field(() => Float, { nullable: true, description: 'Percentage, 0 to 100, at most four decimals.' }) @IsOptional() @Min(0) @Max(100) TaxRate?: number | null;
  @Field(() => Float, { nullable: true, description: 'At most two decimals, not negative.' }) @IsOptional() @Min(0) ShippingFlatRate?: number | null;
  @Field(() => Float, { nullable: true, description: 'At most two decimals, not negative.' }) @IsOptional() @Min(0) ShippingPerItem?: number | null;
  @Field(() => Int, { nullable: true, description: 'The AuditId read; a stale one is 409.' }) @IsOptional() @Min(0) AuditId?: number | null;
}
