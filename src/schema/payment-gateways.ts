import { ArrayMaxSize, ArrayMinSize, IsDefined, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Length, Matches, Max, Min, ValidateNested } from 'class-validator';
import { AcrossFields, always, Conforms, DAY_RULE, inConfigurations, isAbsentOrOneOf } from '../core/argument-rules.js';
import { ArgsType, Field, Float, InputType, Int, ObjectType } from 'type-graphql';
import { GATEWAY_TRANSACTION_KINDS, PAYMENT_GATEWAY_TYPES } from '../entities/billing.js';

const GATEWAY_ID = /^[\w.:-]{1,100}$/;

@ObjectType('MonthlyStatement', {
  description: 'One month of a gateway account, from its imported transactions (UTC months). Amounts are magnitudes; NetActivity is the balance change of ' +
    'everything but transfers (sales, refunds, disputes, reversals, their fees and stand-alone fees); SummaryLessTransfers = TransfersAmount − TransferReversalsAmount; ' +
    'SummaryMonthlyBalance = SummaryNetActivity − SummaryLessTransfers = the month\'s balance change.',
})
export class MonthlyStatement {
  @Field(() => String) AccountId!: string;
  @Field(() => String) PaymentGatewayTypeId!: string;
  @Field(() => Int) Month!: number;
  @Field(() => Int) Year!: number;
  @Field(() => Int) SalesCount!: number;
  @Field(() => Float) SalesAmount!: number;
  @Field(() => Float) SalesFeesAmount!: number;
  @Field(() => Int) RefundCount!: number;
  @Field(() => Float) RefundAmount!: number;
  @Field(() => Float) RefundFeesAmount!: number;
  @Field(() => Int) DisputeCount!: number;
  @Field(() => Float) DisputeAmount!: number;
  @Field(() => Float) DisputeFeesAmount!: number;
  @Field(() => Int) DisputeReversalCount!: number;
  @Field(() => Float) DisputeReversalAmount!: number;
  @Field(() => Float) DisputeReversalFeesReturnedAmount!: number;
  @Field(() => Float) NetActivity!: number;
  @Field(() => Int) TransfersCount!: number;
  @Field(() => Float) TransfersAmount!: number;
  @Field(() => Float) TransferReversalsAmount!: number;
  @Field(() => Float) SummaryNetActivity!: number;
  @Field(() => Float) SummaryLessTransfers!: number;
  @Field(() => Float) SummaryMonthlyBalance!: number;
}

/**
 * The gateway account a read is about, by the gateway's own ids. As arguments (REST: query
 * parameters, `?AccountId=…&PaymentGatewayTypeId=…`); missing is a 400 naming the documented field.
 */
@ArgsType()
export class GatewayAccountArgs {
  // Nullable in GraphQL (as documented), required by the rules: the service sees them given.
  @Field(() => String, { nullable: true }) @IsNotEmpty({ message: 'is required' }) accountId!: string;
  @Field(() => Int, { nullable: true }) @IsDefined({ message: 'is required' }) @Min(1) paymentGatewayTypeId!: number;
}

/** Which month of an account: the statement and the transfers (UTC months). */
@ArgsType()
export class AccountMonthArgs extends GatewayAccountArgs {
  @Field(() => Int, { nullable: true }) @IsDefined({ message: 'is required' }) @Min(1) @Max(12) month!: number;
  @Field(() => Int, { nullable: true }) @IsDefined({ message: 'is required' }) @Min(1) @Max(9999) year!: number;
}

/** Which transactions of an account: on `date`, or from `startDate` to `endDate` (yyyy-mm-dd). */
@ArgsType()
export class AccountTransactionsArgs extends GatewayAccountArgs {
  @Field(() => String, { nullable: true }) @Conforms(DAY_RULE) date?: string | null;
  @Field(() => String, { nullable: true }) @Conforms(DAY_RULE) startDate?: string | null;
  @Field(() => String, { nullable: true }) @Conforms(DAY_RULE) endDate?: string | null;
}

@ObjectType('PaymentGatewayTransactionItem', { description: 'One imported gateway transaction. Amount and Fee are signed as they move the balance; Net = Amount + Fee.' })
export class PaymentGatewayTransactionItem {
  @Field(() => String) TransactionId!: string;
  @Field(() => String, { description: `One of ${GATEWAY_TRANSACTION_KINDS.join(', ')}.` }) Type!: string;
  @Field(() => String, { description: 'ISO 8601 (UTC).' }) Date!: string;
  @Field(() => Float) Amount!: number;
  @Field(() => Float) Fee!: number;
  @Field(() => Float) Net!: number;
  @Field(() => String, { nullable: true, description: 'The payout that paid it out.' }) TransferId!: string | null;
  @Field(() => String, { nullable: true }) Description!: string | null;
}

@ObjectType('PaymentGatewayTransfer', { description: 'One payout (transfer) of the month.' })
export class PaymentGatewayTransfer {
  @Field(() => String) TransferId!: string;
  @Field(() => String, { description: 'ISO 8601 (UTC).' }) Date!: string;
  @Field(() => Float, { description: 'Paid out (a magnitude).' }) Amount!: number;
  @Field(() => Boolean, { description: 'Whether a transfer reversal names it.' }) Reversed!: boolean;
  @Field(() => Int, { description: 'The transactions it paid out.' }) TransactionCount!: number;
}

@ObjectType('Transfers', { description: 'The payouts of an account in a month (UTC), oldest first.' })
export class Transfers {
  @Field(() => String) AccountId!: string;
  @Field(() => String) PaymentGatewayTypeId!: string;
  @Field(() => Int) Month!: number;
  @Field(() => Int) Year!: number;
  @Field(() => [PaymentGatewayTransfer]) Transfers!: PaymentGatewayTransfer[];
}

@ObjectType('TransferDetails', { description: 'The transactions one payout paid out.' })
export class TransferDetails {
  @Field(() => String) AccountId!: string;
  @Field(() => String, { description: 'The payout\'s gateway id.' }) Id!: string;
  @Field(() => Int) PaymentGatewayTypeId!: number;
  @Field(() => String, { nullable: true, description: 'As requested.' }) Date!: string | null;
  @Field(() => Boolean, { description: 'true when the payout was reversed (its statement should not be printed as paid).' }) DisAllowPrint!: boolean;
  @Field(() => [PaymentGatewayTransactionItem]) Transactions!: PaymentGatewayTransactionItem[];
}

@ObjectType('Transactions', { description: 'An account\'s transactions from StartDate to EndDate inclusive (or on Date), oldest first, at most 5000.' })
export class Transactions {
  @Field(() => String) AccountId!: string;
  @Field(() => Int) PaymentGatewayTypeId!: number;
  @Field(() => String, { nullable: true }) Date!: string | null;
  @Field(() => String, { nullable: true }) StartDate!: string | null;
  @Field(() => String, { nullable: true }) EndDate!: string | null;
  @Field(() => [PaymentGatewayTransactionItem]) Transactions!: PaymentGatewayTransactionItem[];
}

@InputType('PaymentGatewayTransactionImportItemInput', {
  description: 'One gateway transaction. Amount and Fee are magnitudes (not negative); the Type says how they move the balance (see PaymentGatewayTransaction).',
})
export class PaymentGatewayTransactionImportItemInput {
  @Field(() => String) @Matches(GATEWAY_ID, { message: 'TransactionId must be 1-100 letters, digits, _ . : -' }) TransactionId!: string;
  @Field(() => String, { description: `One of ${GATEWAY_TRANSACTION_KINDS.join(', ')}.` }) @IsIn(GATEWAY_TRANSACTION_KINDS) Type!: string;
  @Field(() => String, { description: 'ISO 8601 date-time.' }) @IsString() @Length(10, 40) Date!: string;
  @Field(() => Float) Amount!: number;
  @Field(() => Float, { nullable: true }) Fee?: number | null;
  @Field(() => String, { nullable: true }) @IsOptional() @Matches(GATEWAY_ID, { message: 'TransferId must be 1-100 letters, digits, _ . : -' }) TransferId?: string | null;
  @Field(() => String, { nullable: true }) @IsOptional() @IsString() @Length(0, 500) Description?: string | null;
}

@InputType('PaymentGatewayTransactionImportInput', { description: 'Transactions of one gateway account (created with Name when new).' })
export class PaymentGatewayTransactionImportInput {
  @Field(() => String) @Matches(GATEWAY_ID, { message: 'AccountId must be 1-100 letters, digits, _ . : -' }) AccountId!: string;
  @Field(() => Int) @IsInt() @Min(1) @Max(1000) PaymentGatewayTypeId!: number;
  @Field(() => String, { nullable: true }) @IsOptional() @IsString() @Length(1, 200) Name?: string | null;
  @Field(() => Int, { nullable: true, description: 'The chapter the account belongs to (none: the tenant\'s own).' }) @IsOptional() @Min(1) ChapterId?: number | null;
  @Field(() => [PaymentGatewayTransactionImportItemInput]) @ArrayMinSize(0) @ArrayMaxSize(5000) @ValidateNested({ each: true })
  Transactions!: PaymentGatewayTransactionImportItemInput[];
}

@ObjectType('PaymentGatewayTransactionImportResult')
export class PaymentGatewayTransactionImportResult {
  @Field(() => String) AccountId!: string;
  @Field(() => Int) Imported!: number;
  @Field(() => Int, { description: 'Transactions imported before (same gateway transaction id): left as they were.' }) AlreadyImported!: number;
}

@ObjectType('PaymentGatewayAccount', { description: 'A payment gateway account of the tenant or one of its chapters (not in the API documents). Its credential is never returned.' })
export class PaymentGatewayAccountView {
  @Field(() => Int, { description: 'The account\'s record id (the Id of the gateway lookups).' }) GatewayAccountId!: number;
  @Field(() => String, { description: 'The gateway\'s own id of the account.' }) AccountId!: string;
  @Field(() => Int, { description: 'The documented PaymentGatewayTypeId: 1 Stripe, 2 PayPal, 3 Authorize.Net, 4 PlatformPay.' }) PaymentGatewayTypeId!: number;
  @Field(() => String) PaymentGatewayTypeName!: string;
  @Field(() => String) Name!: string;
  @Field(() => Int, { nullable: true, description: 'The chapter (its ChapterId) the account belongs to; null: the tenant\'s own.' }) ChapterId!: number | null;
  @Field(() => Boolean, { description: 'Whether a credential is stored (it is kept encrypted and never shown).' }) HasSecret!: boolean;
  @Field(() => Int) AuditId!: number;
}

/** Why a Secret cannot be stored on a server without GATEWAY_SECRET_KEY (core/config.ts). */
export const SECRET_NEEDS_KEY = 'cannot be stored: the server has no GATEWAY_SECRET_KEY to encrypt it with';

@AcrossFields<PaymentGatewayAccountInput>(inConfigurations(
  (config) => !config.GATEWAY_SECRET_KEY,
  always(isAbsentOrOneOf('Secret', [null, '']), 'Secret', SECRET_NEEDS_KEY),
  { Secret: 'This server has no GATEWAY_SECRET_KEY to encrypt a credential with: Secret can only be absent, null or "" (removed) here.' },
))
@InputType('PaymentGatewayAccountInput', { description: 'A payment gateway account to create (gatewayAccountId 0) or update.' })
export class PaymentGatewayAccountInput {
  @Field(() => String) @Matches(GATEWAY_ID, { message: 'AccountId must be 1-100 letters, digits, _ . : -' }) AccountId!: string;
  @Field(() => Int, { description: 'The documented PaymentGatewayTypeId: 1 Stripe, 2 PayPal, 3 Authorize.Net, 4 PlatformPay.' })
  @IsIn(PAYMENT_GATEWAY_TYPES.map((type) => type.id), { message: `PaymentGatewayTypeId must be one of ${PAYMENT_GATEWAY_TYPES.map((type) => type.id).join(', ')}` })
  PaymentGatewayTypeId!: number;
  @Field(() => String) @IsString() @Length(1, 200) Name!: string;
  @Field(() => Int, { nullable: true, description: 'A chapter of the tenant (its ChapterId); none: the tenant\'s own account.' }) @IsOptional() @IsInt() @Min(1) @Max(2147483647) ChapterId?: number | null;
  @Field(() => String, {
    nullable: true,
    description: 'Write-only: the gateway credential (API key), stored encrypted. Absent: unchanged; empty: removed. No answer ever carries it.',
  })
  @IsOptional() @IsString() @Length(0, 4096) Secret?: string | null;
  @Field(() => Int, { nullable: true, description: 'The version read (updates); a stale one is 409.' }) @IsOptional() @IsInt() AuditId?: number | null;
}
