import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../core/context.js';
import { PotentialDuplicateEntry } from '../schema/common.js';
import { VendorAddEdit, VendorAddEditInput, VendorCollectionItem } from '../schema/vendors.js';
import * as vendors from '../services/vendors.js';
import { OPTIONS_DESCRIPTION } from './shared.js';

@Resolver()
export class VendorResolver {
  @Authorized()
  @Query(() => [VendorCollectionItem], { description: 'The vendors, one page at a time.' })
  vendors(@Ctx() ctx: RequestContext, @Arg('options', () => String, { nullable: true, description: OPTIONS_DESCRIPTION }) options?: string | null) {
    return vendors.listVendors(ctx, options);
  }

  @Authorized()
  @Query(() => [VendorCollectionItem], { description: 'Vendors whose name or website contains the text.' })
  vendorSearch(
    @Ctx() ctx: RequestContext,
    @Arg('text', () => String, { nullable: true, description: 'The search text (REST: this[]).' }) text?: string | null,
    @Arg('length', () => String, { nullable: true, description: 'Accepted for compatibility; not used.' }) _length?: string | null,
    @Arg('options', () => String, { nullable: true, description: OPTIONS_DESCRIPTION }) options?: string | null,
  ) {
    return vendors.searchVendors(ctx, text, options);
  }

  @Authorized()
  @Query(() => VendorAddEdit, { description: 'One vendor, for editing.' })
  vendor(@Ctx() ctx: RequestContext, @Arg('vendorid', () => Int) vendorId: number) {
    return vendors.getVendor(ctx, vendorId);
  }

  @Authorized('staff')
  @Query(() => [PotentialDuplicateEntry], { description: 'Vendors whose name equals the given name, ignoring case and whitespace.' })
  vendorDuplicateCheck(@Ctx() ctx: RequestContext, @Arg('input', () => VendorAddEditInput) input: VendorAddEditInput) {
    return vendors.findDuplicateVendors(ctx, input);
  }

  @Authorized('staff')
  @Mutation(() => VendorCollectionItem, { description: 'Creates (VendorId 0 or absent) or updates a vendor.' })
  saveVendor(@Ctx() ctx: RequestContext, @Arg('input', () => VendorAddEditInput) input: VendorAddEditInput) {
    return vendors.saveVendor(ctx, input);
  }

  @Authorized('staff')
  @Mutation(() => Int, { description: 'Deletes a vendor; answers its id.' })
  deleteVendor(
    @Ctx() ctx: RequestContext,
    @Arg('vendorid', () => Int) vendorId: number,
    @Arg('auditid', () => Int, { nullable: true, description: 'When given, the delete is refused (409) unless the vendor is still this version.' }) auditId?: number | null,
  ) {
    return vendors.deleteVendor(ctx, vendorId, auditId);
  }
}
