import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../core/context.js';
import { ListOptionsInput } from '../schema/common.js';
import { Invoice, InvoiceFilterInput, InvoiceInput, InvoicePaymentInput, SaleableItem, SaleableItemInput } from '../schema/commerce.js';
import * as commerce from '../services/commerce/invoices.js';

@Resolver()
export class CommerceResolver {
  @Authorized('staff')
  @Query(() => [SaleableItem], { description: 'GraphQL only. The saleable items (OrderBy Name, SaleableItemId, ItemType, Price).' })
  saleableItems(@Ctx() ctx: RequestContext, @Arg('options', () => ListOptionsInput, { nullable: true }) options?: ListOptionsInput | null) {
    return commerce.listSaleableItems(ctx, options);
  }

  @Authorized('staff')
  @Query(() => SaleableItem, { description: 'GraphQL only. One saleable item.' })
  saleableItem(@Ctx() ctx: RequestContext, @Arg('saleableItemId', () => Int) saleableItemId: number) {
    return commerce.getSaleableItem(ctx, saleableItemId);
  }

  @Authorized('staff')
  @Mutation(() => SaleableItem, { description: 'GraphQL only. Creates (saleableItemId 0) or updates a saleable item (AuditId checked).' })
  saveSaleableItem(@Ctx() ctx: RequestContext, @Arg('saleableItemId', () => Int) saleableItemId: number, @Arg('input', () => SaleableItemInput) input: SaleableItemInput) {
    return commerce.saveSaleableItem(ctx, saleableItemId, input);
  }

  @Authorized('staff')
  @Query(() => [Invoice], { description: 'GraphQL only. Invoices, newest number first (OrderBy InvoiceNumber, InvoiceDate, DueDate, Total, Status; CalendarStartDate/EndDate bound InvoiceDate).' })
  invoices(@Ctx() ctx: RequestContext, @Arg('filter', () => InvoiceFilterInput, { nullable: true }) filter?: InvoiceFilterInput | null) {
    return commerce.listInvoices(ctx, filter);
  }

  @Authorized('staff')
  @Query(() => Invoice, { description: 'GraphQL only. One invoice with its lines and payments.' })
  invoice(@Ctx() ctx: RequestContext, @Arg('invoiceId', () => Int) invoiceId: number) {
    return commerce.getInvoice(ctx, invoiceId);
  }

  @Authorized('staff')
  @Mutation(() => Invoice, { description: 'GraphQL only. Raises an invoice by hand: lines at their saleable items\' prices unless UnitPrice is given; the total is computed exactly.' })
  raiseInvoice(@Ctx() ctx: RequestContext, @Arg('input', () => InvoiceInput) input: InvoiceInput) {
    return commerce.raiseInvoice(ctx, input);
  }

  @Authorized('staff')
  @Mutation(() => Invoice, { description: 'GraphQL only. Records a payment (negative: a refund) against an invoice; paid in full moves it to paid.' })
  payInvoice(@Ctx() ctx: RequestContext, @Arg('invoiceId', () => Int) invoiceId: number, @Arg('input', () => InvoicePaymentInput) input: InvoicePaymentInput) {
    return commerce.payInvoice(ctx, invoiceId, input);
  }
}
