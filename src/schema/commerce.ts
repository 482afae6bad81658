import { ArrayMaxSize, ArrayMinSize, IsIn, IsInt, IsOptional, IsString, Length, Matches, Max, Min, ValidateNested } from 'class-validator';
import { Field, Float, InputType, Int, ObjectType } from 'type-graphql';
import { INVOICE_STATUSES, SALEABLE_ITEM_TYPES } from '../entities/commerce.js';
import { FilterBaseInput } from './common.js';

// Saleable items, invoices and payments are not documented REST models: GraphQL only (staff).

@ObjectType({ description: 'Something the tenant sells (GraphQL only): store items, event fees, membership dues and scheduled billing name one.' })
export class SaleableItem {
  @Field(() => Int) SaleableItemId!: number;
  @Field(() => String) Name!: string;
  @Field(() => String, { description: `One of ${SALEABLE_ITEM_TYPES.join(', ')}.` }) ItemType!: string;
  @Field(() => Float, { description: 'List price, exact to the cent.' }) Price!: number;
  @Field(() => String, { nullable: true }) AccountingClass!: string | null;
  @Field(() => Boolean) Taxable!: boolean;
  @Field(() => Boolean) IsActive!: boolean;
  @Field(() => Int) AuditId!: number;
}

@InputType({ description: 'A saleable item to create or update.' })
export class SaleableItemInput {
  @Field(() => String) @IsString() @Length(1, 200) Name!: string;
  @Field(() => String) @IsIn(SALEABLE_ITEM_TYPES) ItemType!: string;
  @Field(() => Float, { description: 'At most two decimals, not negative.' }) Price!: number;
  @Field(() => String, { nullable: true }) @IsOptional() @IsString() @Length(0, 100) AccountingClass?: string | null;
  @Field(() => Boolean, { nullable: true }) Taxable?: boolean | null;
  @Field(() => Boolean, { nullable: true }) IsActive?: boolean | null;
  @Field(() => Int, { nullable: true, description: 'The version read; a stale one is 409.' }) AuditId?: number | null;
}

@ObjectType({ description: 'One line of an invoice (GraphQL only).' })
export class InvoiceLine {
  @Field(() => Int) LineNumber!: number;
  @Field(() => Int, { nullable: true }) SaleableItemId!: number | null;
  @Field(() => String) Description!: string;
  @Field(() => Int) Quantity!: number;
  @Field(() => Float) UnitPrice!: number;
  @Field(() => Float) Amount!: number;
}

@ObjectType({ description: 'Money received against an invoice; a refund is negative (GraphQL only).' })
export class InvoicePayment {
  @Field(() => Int) PaymentId!: number;
  @Field(() => Float) Amount!: number;
  @Field(() => String, { description: 'ISO 8601 (UTC).' }) PaidAt!: string;
  @Field(() => String) Method!: string;
  @Field(() => String, { nullable: true }) Reference!: string | null;
}

@ObjectType({ description: 'A bill to a contact, raised by the store, event registration or scheduled billing (GraphQL only).' })
export class Invoice {
  @Field(() => Int) InvoiceId!: number;
  @Field(() => Int, { description: 'Counts up per tenant.' }) InvoiceNumber!: number;
  @Field(() => Int) ContactId!: number;
  @Field(() => String, { description: 'yyyy-mm-dd' }) InvoiceDate!: string;
  @Field(() => String, { description: 'yyyy-mm-dd' }) DueDate!: string;
  @Field(() => String, { description: `One of ${INVOICE_STATUSES.join(', ')}.` }) Status!: string;
  @Field(() => Float) Total!: number;
  @Field(() => Float) AmountPaid!: number;
  @Field(() => Float, { description: 'Total less AmountPaid.' }) Balance!: number;
  @Field(() => String, { description: 'The area that raised it.' }) Source!: string;
  @Field(() => String, { nullable: true }) Memo!: string | null;
  @Field(() => [InvoiceLine]) Lines!: InvoiceLine[];
  @Field(() => [InvoicePayment]) Payments!: InvoicePayment[];
  @Field(() => Int) AuditId!: number;
}

@InputType({ description: 'Which invoices to list: FilterBase paging plus a contact and a status (Filter matches the memo).' })
export class InvoiceFilterInput extends FilterBaseInput {
  @Field(() => Int, { nullable: true }) @IsOptional() @IsInt() @Min(1) @Max(2147483647) ContactId?: number | null;
  @Field(() => String, { nullable: true }) @IsOptional() @IsIn(INVOICE_STATUSES) Status?: string | null;
}

@InputType({ description: 'A payment to record against an invoice.' })
export class InvoicePaymentInput {
  @Field(() => Float, { description: 'Exact to the cent; negative for a refund.' }) Amount!: number;
  @Field(() => String) @IsString() @Length(1, 32) Method!: string;
  @Field(() => String, { nullable: true }) @IsOptional() @IsString() @Length(0, 200) Reference?: string | null;
}

@InputType({ description: 'A line of an invoice staff raise: a saleable item at its price unless UnitPrice says otherwise.' })
export class InvoiceLineInput {
  @Field(() => Int) @IsInt() @Min(1) @Max(2147483647) SaleableItemId!: number;
  @Field(() => String, { nullable: true, description: 'The saleable item\'s name when absent.' }) @IsOptional() @IsString() @Length(1, 500) Description?: string | null;
  @Field(() => Int) @IsInt() @Min(1) @Max(100000) Quantity!: number;
  @Field(() => Float, { nullable: true, description: 'The saleable item\'s price when absent.' }) UnitPrice?: number | null;
}

@InputType({ description: 'An invoice staff raise by hand.' })
export class InvoiceInput {
  @Field(() => Int) @IsInt() @Min(1) @Max(2147483647) ContactId!: number;
  @Field(() => [InvoiceLineInput]) @ArrayMinSize(1) @ArrayMaxSize(200) @ValidateNested({ each: true }) Lines!: InvoiceLineInput[];
  @Field(() => String, { nullable: true, description: 'yyyy-mm-dd; today when absent.' }) @IsOptional() @Matches(/^\d{4}-\d{2}-\d{2}$/) DueDate?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @IsString() @Length(0, 2000) Memo?: string | null;
}
