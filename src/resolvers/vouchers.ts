import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../core/context.js';
import { ListOptionsInput } from '../schema/common.js';
import { VoucherRedemption, VoucherRedemptionInput, VoucherTypeInput, VoucherTypeView } from '../schema/vouchers.js';
import * as vouchers from '../services/store/vouchers.js';

@Resolver()
export class VoucherResolver {
  @Authorized('staff')
  @Query(() => [VoucherTypeView], { description: 'The voucher types (OrderBy Name (default), VoucherTypeId, Value).' })
  voucherTypes(@Ctx() ctx: RequestContext, @Arg('options', () => ListOptionsInput, { nullable: true }) options?: ListOptionsInput | null) {
    return vouchers.listVoucherTypes(ctx, options);
  }

  @Authorized('staff')
  @Mutation(() => VoucherTypeView, { description: 'Creates (voucherTypeId 0) or updates a voucher type (AuditId checked).' })
  saveVoucherType(@Ctx() ctx: RequestContext, @Arg('voucherTypeId', () => Int) voucherTypeId: number, @Arg('input', () => VoucherTypeInput) input: VoucherTypeInput) {
    return vouchers.saveVoucherType(ctx, voucherTypeId, input);
  }

  @Authorized('staff')
  @Mutation(() => Int, { description: 'Deletes a voucher type: 409 while store items sell it or vouchers of it were issued (deactivate it instead). Answers its id.' })
  deleteVoucherType(@Ctx() ctx: RequestContext, @Arg('voucherTypeId', () => Int) voucherTypeId: number, @Arg('auditId', () => Int) auditId: number) {
    return vouchers.deleteVoucherType(ctx, voucherTypeId, auditId);
  }

  @Authorized('staff')
  @Mutation(() => VoucherRedemption, { description: 'Spends a voucher code on an invoice (a payment of method voucher), once: 409 when it was redeemed already.' })
  redeemVoucher(@Ctx() ctx: RequestContext, @Arg('input', () => VoucherRedemptionInput) input: VoucherRedemptionInput) {
    return vouchers.redeemVoucher(ctx, input.Code, input.InvoiceId);
  }
}
