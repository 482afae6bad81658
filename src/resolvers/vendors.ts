import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../core/context.js';
import { ListOptionsInput, PotentialDuplicateEntry } from '../schema/common.js';
import { VendorAddEdit, VendorAddEditInput, VendorCollectionItem } from '../schema/vendors.js';
import * as vendors from '../services/vendors/vendors.js';

@Resolver()
export class VendorResolver {
  @Authorized()
  @Query(() => [VendorCollectionItem], { description: 'The vendors, one page at a time; with `text`, only those whose name or website contains it.' })
  vendors(
    @Ctx() ctx: RequestContext,
    @Arg('options', () => ListOptionsInput, { nullable: true }) options?: ListOptionsInput | null,
    @Arg('text', () => String, { nullable: true, description: 'Only vendors whose name or website contains this text.' }) text?: string | null,
    @Arg('length', () => String, { nullable: true, description: 'Accepted for compatibility; not used.' }) _length?: string | null,
  ) {
    return vendors.listVendors(ctx, options, text);
  }

  @Authorized()
  @Query(() => VendorAddEdit, { description: 'One vendor, for editing.' })
  vendor(@Ctx() ctx: RequestContext, @Arg('vendorId', () => Int) vendorId: number) {
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
    @Arg('vendorId', () => Int) vendorId: number,
    @Arg('auditId', () => Int, { nullable: true, description: 'When given, the delete is refused (409) unless the vendor is still this version.' }) auditId?: number | null,
  ) {
    return vendors.deleteVendor(ctx, vendorId, auditId);
  }
}
