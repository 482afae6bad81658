import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { IsOptional, IsUrl, Length, Matches, Min, ValidateIf } from 'class-validator';

@ObjectType({ description: 'A vendor as read for editing.' })
export class VendorAddEdit {
  @Field(() => Int) VendorId!: number;
  @Field(() => String, { nullable: true }) Name!: string | null;
  @Field(() => String, { nullable: true }) WebsiteUrl!: string | null;
  @Field(() => Int, { description: 'Record version for optimistic concurrency (send it back when saving).' }) AuditId!: number;
}

@InputType('VendorAddEditInput', { description: 'A vendor to create (VendorId 0 or absent) or update.' })
export class VendorAddEditInput {
  @Field(() => Int, { nullable: true })
  @IsOptional() @Min(0)
  VendorId?: number | null;

  @Field(() => String)
  @Length(1, 200) @Matches(/\S/, { message: 'Name must not be blank' })
  Name!: string;

  @Field(() => String, { nullable: true })
  @ValidateIf((vendor: VendorAddEditInput) => Boolean(vendor.WebsiteUrl)) // "" means no URL
  @Length(0, 2048) @IsUrl({ require_protocol: true, protocols: ['http', 'https'] }, { message: 'WebsiteUrl must be an http(s) URL' })
  WebsiteUrl?: string | null;

  @Field(() => Int, { nullable: true, description: 'The AuditId read with the vendor; a stale one is refused with 409.' })
  @IsOptional() @Min(0)
  AuditId?: number | null;
}

@ObjectType({ description: 'A vendor as listed.' })
export class VendorCollectionItem {
  @Field(() => Int) VendorId!: number;
  @Field(() => String, { nullable: true }) Name!: string | null;
  @Field(() => String, { nullable: true }) WebsiteUrl!: string | null;
  @Field(() => [String], { description: 'Actions the caller may take on the row.' }) Actions!: readonly string[];
}
