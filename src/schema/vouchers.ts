import { IsIn, IsOptional, Length, Matches, Max, Min } from 'class-validator';
import { Field, Float, InputType, Int, ObjectType } from 'type-graphql';
import { AcrossFields, type CrossFieldRule } from '../core/argument-rules.js';
import { BadInput } from '../core/errors.js';
import { VOUCHER_VALUE_KINDS } from '../entities/store.js';

// Voucher types and vouchers are not documented models (StoreItemV2.VoucherTypeId and
// BillingContactInfo.Vouchers name them): our additions, staff only.

@ObjectType('VoucherType', { description: 'A kind of voucher the store sells (StoreItemV2.VoucherTypeId names one).' })
export class VoucherTypeView {
  @Field(() => Int) VoucherTypeId!: number;
  @Field(() => String) Name!: string;
  @Field(() => String, { description: 'amount (Value is money) or percent (Value is a percentage of the invoice the voucher pays).' }) ValueType!: string;
  @Field(() => Float, { description: 'Exact to two decimals.' }) Value!: number;
  @Field(() => Int, { nullable: true, description: 'Days a voucher stays valid from the day it is issued (that day included); null: no end.' }) ValidityDays!: number | null;
  @Field(() => Boolean, { description: 'Inactive: its items are not sold (vouchers issued stay valid).' }) IsActive!: boolean;
  @Field(() => Int) AuditId!: number;
}

/** A percent voucher pays at most the whole invoice. */
const PERCENT_AT_MOST_100: CrossFieldRule<VoucherTypeInput> = {
  schema: { if: { required: ['ValueType'], properties: { ValueType: { const: 'percent' } } }, then: { properties: { Value: { maximum: 100 } } } },
  check({ ValueType, Value }) {
    if (ValueType === 'percent' && Value > 100) throw BadInput.field('Value', 'must be at most 100 (percent)');
  },
};

@InputType('VoucherTypeInput', { description: 'A voucher type to create (path/argument id 0) or update.' })
@AcrossFields(PERCENT_AT_MOST_100)
export class VoucherTypeInput {
  @Field(() => String) @Length(1, 200) @Matches(/\S/, { message: 'Name must not be blank' }) Name!: string;
  @Field(() => String, { description: 'amount or percent.' }) @IsIn(VOUCHER_VALUE_KINDS, { message: `ValueType must be one of ${VOUCHER_VALUE_KINDS.join(', ')}` }) ValueType!: string;
  @Field(() => Float, { description: 'More than 0, at most two decimals; a percent at most 100.' }) @Min(0.01) Value!: number;
  @Field(() => Int, { nullable: true, description: '1 to 3650; null or absent: no end.' }) @IsOptional() @Min(1) @Max(3650) ValidityDays?: number | null;
  @Field(() => Boolean, { nullable: true, description: 'Default true.' }) IsActive?: boolean | null;
  @Field(() => Int, { nullable: true, description: 'The AuditId read; a stale one is 409.' }) @IsOptional() @Min(0) AuditId?: number | null;
}

@ObjectType('BillingVoucher', { description: 'A voucher the contact holds and has not redeemed (BillingContactInfo.Vouchers): its code pays an invoice once.' })
export class BillingVoucher {
  @Field(() => Int) VoucherId!: number;
  @Field(() => String, { description: 'The code that redeems it (give it as BillingInfo.VoucherCode when registering for an event).' }) Code!: string;
  @Field(() => Int) VoucherTypeId!: number;
  @Field(() => String) Name!: string;
  @Field(() => String, { description: 'amount or percent.' }) ValueType!: string;
  @Field(() => Float) Value!: number;
  @Field(() => String, { description: 'ISO 8601 (UTC).' }) IssuedAt!: string;
  @Field(() => String, { nullable: true, description: 'yyyy-mm-dd: the last day it may be redeemed; null: no end.' }) ExpiresOn!: string | null;
}

@InputType('VoucherRedemptionInput', { description: 'A voucher code to spend on an invoice.' })
export class VoucherRedemptionInput {
  @Field(() => String) @Length(1, 64) Code!: string;
  @Field(() => Int) @Min(1) InvoiceId!: number;
}

@ObjectType('VoucherRedemption', { description: 'What a redeemed voucher paid.' })
export class VoucherRedemption {
  @Field(() => Int) VoucherId!: number;
  @Field(() => Int) InvoiceId!: number;
  @Field(() => Float, { description: 'The payment the voucher made (at most its value, or its percentage of the invoice total, and never more than the balance).' }) Amount!: number;
  @Field(() => String, { description: 'open or paid: the invoice after the payment.' }) InvoiceStatus!: string;
}
