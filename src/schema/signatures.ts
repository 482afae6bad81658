import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { IsOptional, Length, Matches, Min, ValidateIf } from 'class-validator';

@ObjectType({ description: 'An e-mail signature as read for editing.' })
export class SignatureAddEdit {
  @Field(() => Int) SignatureId!: number;
  @Field(() => String, { nullable: true }) Name!: string | null;
  @Field(() => String, { nullable: true, description: 'The owner: the contact id (as a string) of the person whose signature it is.' }) ContactId!: string | null;
  @Field(() => String, { nullable: true, description: 'The signature as sanitized HTML.' }) SignatureHtml!: string | null;
}

@InputType('SignatureAddEditInput', { description: 'A signature to create (path id 0) or update.' })
export class SignatureAddEditInput {
  @Field(() => Int, { nullable: true, description: 'Ignored over REST: the path id wins.' })
  @IsOptional() @Min(0)
  SignatureId?: number | null;

  @Field(() => String)
  @Length(1, 200) @Matches(/\S/, { message: 'Name must not be blank' })
  Name!: string;

  @Field(() => String, {
    nullable: true,
    description: "The owner's contact id. Staff may name any contact of the tenant (default: the caller on create, unchanged on update); a member's signatures are always the member's own, so a member's ContactId is ignored.",
  })
  @ValidateIf((signature: SignatureAddEditInput) => Boolean(signature.ContactId)) // "" means not given
  @Matches(/^[1-9]\d{0,9}$/, { message: 'ContactId must be a contact id (a positive integer as a string)' })
  ContactId?: string | null;

  @Field(() => String, { nullable: true, description: 'HTML; scripts, event handlers and URLs other than http(s), mailto and tel are removed before it is stored.' })
  @IsOptional() @Length(0, 100_000)
  SignatureHtml?: string | null;
}

@ObjectType({ description: 'A signature as listed.' })
export class SignatureCollectionItem {
  @Field(() => Int) SignatureId!: number;
  @Field(() => String, { nullable: true }) Name!: string | null;
  @Field(() => String, { nullable: true, description: "The owner's display name." }) User!: string | null;
}

@ObjectType({ description: "The caller's own signatures, for the manage-signatures dialog." })
export class ManageSignatures {
  @Field(() => [SignatureAddEdit], { description: "The caller's signatures (a JSON array of SignatureAddEdit), by name." })
  Signatures!: SignatureAddEdit[];
}
