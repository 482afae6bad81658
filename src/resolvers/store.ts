import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../core/context.js';
import { LookupChoiceInt } from '../schema/common.js';
import {
  StoreCheckoutInput, StoreDownloadListResult, StoreImageOrderInput, StoreItemInventoryInput, StoreItemInventoryView, StoreItemListResult, StoreItemOrderEntryInput,
  StoreItemPurchaseHistory, StoreItemV0, StoreItemV0Input, StoreItemV1, StoreItemV1Input, StoreItemV2, StoreItemV2Input, StoreItemV3, StoreItemV3Input,
  StoreListFilterInput, StoreOrderInput, StoreOrderListResult, StoreOrderView, StorePreImageInput, StorePreImageResult, StoreSettingsInput, StoreSettingsView,
} from '../schema/store.js';
import * as items from '../services/store/store-items.js';
import * as orders from '../services/store/store-orders.js';

const FILTER = { nullable: true, description: 'The documented StoreListFilter (REST: the POST body).' } as const;

@Resolver()
export class StoreResolver {
  @Authorized()
  @Query(() => StoreItemListResult, { description: 'Store items, one page with the total (members: active ones).' })
  storeItems(@Ctx() ctx: RequestContext, @Arg('filter', () => StoreListFilterInput, FILTER) filter?: StoreListFilterInput | null) {
    return items.listStoreItems(ctx, filter, false);
  }

  @Authorized()
  @Query(() => StoreItemListResult, { description: 'Membership add-ons (items offered to membership types), one page with the total.' })
  storeMembershipAddons(@Ctx() ctx: RequestContext, @Arg('filter', () => StoreListFilterInput, FILTER) filter?: StoreListFilterInput | null) {
    return items.listStoreItems(ctx, filter, true);
  }

  @Authorized()
  @Query(() => [LookupChoiceInt], { description: 'Store items as choices (ExtraData: the variant), at most 1000.' })
  storeItemLookup(@Ctx() ctx: RequestContext) {
    return items.storeItemLookup(ctx, false);
  }

  @Authorized()
  @Query(() => [LookupChoiceInt], { description: 'Membership add-ons as choices, at most 1000.' })
  storeMembershipAddonLookup(@Ctx() ctx: RequestContext) {
    return items.storeItemLookup(ctx, true);
  }

  @Authorized()
  @Query(() => StoreItemV0, { description: 'A product (variant 0); 404 for an item of another variant.' })
  storeItemV0(@Ctx() ctx: RequestContext, @Arg('storeItemId', () => Int) storeItemId: number) {
    return items.getStoreItem(ctx, 0, storeItemId);
  }

  @Authorized()
  @Query(() => StoreItemV1, { description: 'A digital download (variant 1); 404 for an item of another variant.' })
  storeItemV1(@Ctx() ctx: RequestContext, @Arg('storeItemId', () => Int) storeItemId: number) {
    return items.getStoreItem(ctx, 1, storeItemId);
  }

  @Authorized()
  @Query(() => StoreItemV2, { description: 'A voucher (variant 2); 404 for an item of another variant.' })
  storeItemV2(@Ctx() ctx: RequestContext, @Arg('storeItemId', () => Int) storeItemId: number) {
    return items.getStoreItem(ctx, 2, storeItemId);
  }

  @Authorized()
  @Query(() => StoreItemV3, { description: 'An information item (variant 3); 404 for an item of another variant.' })
  storeItemV3(@Ctx() ctx: RequestContext, @Arg('storeItemId', () => Int) storeItemId: number) {
    return items.getStoreItem(ctx, 3, storeItemId);
  }

  @Authorized('staff')
  @Mutation(() => StoreItemV0, { description: 'Creates (StoreItemId 0) or updates a product.' })
  saveStoreItemV0(@Ctx() ctx: RequestContext, @Arg('input', () => StoreItemV0Input) input: StoreItemV0Input) {
    return items.saveStoreItem(ctx, 0, input);
  }

  @Authorized('staff')
  @Mutation(() => StoreItemV1, { description: 'Creates (StoreItemId 0) or updates a digital download; PostSubmitDownloadFile is required.' })
  saveStoreItemV1(@Ctx() ctx: RequestContext, @Arg('input', () => StoreItemV1Input) input: StoreItemV1Input) {
    return items.saveStoreItem(ctx, 1, input);
  }

  @Authorized('staff')
  @Mutation(() => StoreItemV2, { description: 'Creates (StoreItemId 0) or updates a voucher; VoucherTypeId is required.' })
  saveStoreItemV2(@Ctx() ctx: RequestContext, @Arg('input', () => StoreItemV2Input) input: StoreItemV2Input) {
    return items.saveStoreItem(ctx, 2, input);
  }

  @Authorized('staff')
  @Mutation(() => StoreItemV3, { description: 'Creates (StoreItemId 0) or updates an information item; InfoMessage is required.' })
  saveStoreItemV3(@Ctx() ctx: RequestContext, @Arg('input', () => StoreItemV3Input) input: StoreItemV3Input) {
    return items.saveStoreItem(ctx, 3, input);
  }

  @Authorized('staff')
  @Mutation(() => Int, { description: 'Deletes an item nothing was bought of; an item with orders is retired instead (kept for its orders, hidden everywhere else). Answers its id.' })
  deleteStoreItem(@Ctx() ctx: RequestContext, @Arg('storeItemId', () => Int) storeItemId: number) {
    return items.deleteStoreItem(ctx, storeItemId);
  }

  @Authorized('staff')
  @Mutation(() => Boolean, { description: 'Display order of store items: DisplayOrder when given, else the position in the array.' })
  saveStoreItemOrder(@Ctx() ctx: RequestContext, @Arg('entries', () => [StoreItemOrderEntryInput]) entries: StoreItemOrderEntryInput[]) {
    return items.saveStoreItemOrder(ctx, entries, false);
  }

  @Authorized('staff')
  @Mutation(() => Boolean, { description: 'Display order of membership add-ons (other items named are left alone).' })
  saveStoreMembershipAddonOrder(@Ctx() ctx: RequestContext, @Arg('entries', () => [StoreItemOrderEntryInput]) entries: StoreItemOrderEntryInput[]) {
    return items.saveStoreItemOrder(ctx, entries, true);
  }

  @Authorized()
  @Query(() => [LookupChoiceInt], { description: 'The sub-items of an item (ExtraData: a price of their own).' })
  storeItemSubItems(@Ctx() ctx: RequestContext, @Arg('storeItemId', () => Int) storeItemId: number) {
    return items.storeItemSubItems(ctx, storeItemId);
  }

  @Authorized('staff')
  @Mutation(() => StorePreImageResult, { description: 'Attaches an uploaded file (imageId 0) to an item\'s gallery, or replaces a gallery image (imageId, or OldImageId) by fileId (0 keeps the file).' })
  saveStorePreImage(
    @Ctx() ctx: RequestContext,
    @Arg('storeItemId', () => Int) storeItemId: number,
    @Arg('imageId', () => Int) imageId: number,
    @Arg('fileId', () => Int) fileId: number,
    @Arg('input', () => StorePreImageInput, { nullable: true }) input?: StorePreImageInput | null,
  ) {
    return items.saveStorePreImage(ctx, storeItemId, imageId, fileId, input ?? {});
  }

  @Authorized('staff')
  @Mutation(() => Int, { description: 'Removes an image from an item\'s gallery (and deletes it). Answers its id.' })
  deleteStorePreImage(@Ctx() ctx: RequestContext, @Arg('storeItemId', () => Int) storeItemId: number, @Arg('imageId', () => Int) imageId: number) {
    return items.deleteStorePreImage(ctx, storeItemId, imageId);
  }

  @Authorized('staff')
  @Mutation(() => Boolean, { description: 'Reorders an item\'s gallery: the images named first, the others after.' })
  orderStorePreImages(@Ctx() ctx: RequestContext, @Arg('storeItemId', () => Int) storeItemId: number, @Arg('images', () => [StoreImageOrderInput]) images: StoreImageOrderInput[]) {
    return items.orderStorePreImages(ctx, storeItemId, images);
  }

  @Authorized('staff')
  @Query(() => StoreItemPurchaseHistory, { description: 'Who bought an item (the latest 1000 purchases).' })
  storeItemPurchaseHistory(@Ctx() ctx: RequestContext, @Arg('storeItemId', () => Int) storeItemId: number) {
    return items.storeItemPurchaseHistory(ctx, storeItemId);
  }

  @Authorized('staff')
  @Query(() => StoreItemInventoryView, { description: 'An inventory receipt.' })
  storeItemInventory(@Ctx() ctx: RequestContext, @Arg('storeItemInventoryId', () => Int) storeItemInventoryId: number) {
    return items.getStoreItemInventory(ctx, storeItemInventoryId);
  }

  @Authorized('staff')
  @Mutation(() => StoreItemInventoryView, { description: 'Records an inventory receipt and adds its units to the stock (GraphQL only: no documented REST operation).' })
  saveStoreItemInventory(@Ctx() ctx: RequestContext, @Arg('input', () => StoreItemInventoryInput) input: StoreItemInventoryInput) {
    return items.saveStoreItemInventory(ctx, input);
  }

  @Authorized()
  @Query(() => StoreSettingsView, { description: 'The store settings (defaults, AuditId 0, before the first save).' })
  storeSettings(@Ctx() ctx: RequestContext) {
    return items.getStoreSettings(ctx);
  }

  @Authorized('staff')
  @Mutation(() => StoreSettingsView, { description: 'Saves the store settings; fields left out keep their value.' })
  saveStoreSettings(@Ctx() ctx: RequestContext, @Arg('input', () => StoreSettingsInput) input: StoreSettingsInput) {
    return items.saveStoreSettings(ctx, input);
  }

  @Authorized()
  @Mutation(() => StoreOrderView, {
    description: 'Buys a cart (GraphQL only: not a documented REST operation). The server prices every line, adds shipping and tax from the store settings, ' +
      'reserves the stock (409 when too few are left and the item allows no back-order) and bills the order (an invoice with sourceKey store-order:<id>). ' +
      'Members buy for their own contact; staff name ContactId.',
  })
  checkoutStoreOrder(@Ctx() ctx: RequestContext, @Arg('input', () => StoreCheckoutInput) input: StoreCheckoutInput) {
    return orders.checkoutStoreOrder(ctx, input);
  }

  @Authorized()
  @Query(() => StoreOrderListResult, { description: 'Orders, one page with the total; members see their own.' })
  storeOrders(@Ctx() ctx: RequestContext, @Arg('filter', () => StoreListFilterInput, FILTER) filter?: StoreListFilterInput | null) {
    return orders.listStoreOrders(ctx, filter);
  }

  @Authorized()
  @Query(() => StoreOrderView, { description: 'One order; members reach their own.' })
  storeOrder(@Ctx() ctx: RequestContext, @Arg('storePurchaseId', () => Int) storePurchaseId: number) {
    return orders.getStoreOrder(ctx, storePurchaseId);
  }

  @Authorized('staff')
  @Mutation(() => StoreOrderView, { description: 'Changes an order\'s status, shipping details and notes; totals are recomputed by the server.' })
  updateStoreOrder(@Ctx() ctx: RequestContext, @Arg('storePurchaseId', () => Int) storePurchaseId: number, @Arg('input', () => StoreOrderInput) input: StoreOrderInput) {
    return orders.updateStoreOrder(ctx, storePurchaseId, input);
  }

  @Authorized()
  @Query(() => StoreDownloadListResult, { description: 'Bought downloads, one page with the total; members see their own.' })
  storeDownloads(@Ctx() ctx: RequestContext, @Arg('filter', () => StoreListFilterInput, FILTER) filter?: StoreListFilterInput | null) {
    return orders.listStoreDownloads(ctx, filter);
  }

  @Authorized('staff')
  @Mutation(() => Int, { description: 'Revokes a bought download (its link stops working). Answers its id.' })
  deleteStoreDownload(@Ctx() ctx: RequestContext, @Arg('storeItemDigitalDownloadPurchaseId', () => Int) storeItemDigitalDownloadPurchaseId: number) {
    return orders.deleteStoreDownload(ctx, storeItemDigitalDownloadPurchaseId);
  }
}
