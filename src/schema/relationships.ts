import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { IsOptional, Length, Min } from 'class-validator';

@ObjectType('ContactRelationship', { description: 'Our extension: a person\'s relationship with an organization, seen from either contact.' })
export class ContactRelationshipModel {
  @Field(() => Int) RelationshipId!: number;
  @Field(() => Int) PersonContactId!: number;
  @Field(() => String) PersonName!: string;
  @Field(() => Int) OrganizationContactId!: number;
  @Field(() => String) OrganizationName!: string;
  @Field(() => String, { nullable: true, description: 'The person\'s role at the organization (BillingContactInfo.ContactRoles).' }) Role!: string | null;
  @Field(() => Boolean, { description: 'The organization\'s primary contact (at most one per organization).' }) IsPrimary!: boolean;
  @Field(() => Boolean, { description: 'The organization is the person\'s current organization (AboutMe.CurrentOrganizationId).' }) IsCurrentOrganization!: boolean;
  @Field(() => Int, { description: 'Record version for optimistic concurrency (send it back when saving).' }) AuditId!: number;
}

@InputType('ContactRelationshipInput', { description: 'Our extension: a relationship to create (relationshipId 0) or change, from the side of the contact in the path.' })
export class ContactRelationshipInput {
  @Field(() => Int, { description: 'The other contact: an organization when the path names a person, a person when it names an organization. Fixed once created.' })
  @Min(1)
  RelatedContactId!: number;

  @Field(() => String, { nullable: true })
  @IsOptional() @Length(0, 100)
  Role?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'true makes the person the organization\'s primary contact, in place of the previous one; absent keeps it as it is.' })
  IsPrimary?: boolean | null;

  @Field(() => Boolean, {
    nullable: true,
    description: 'true makes the organization the person\'s current organization; false clears it when it is this one; absent keeps it (a person with none gets this one).',
  })
  IsCurrentOrganization?: boolean | null;

  @Field(() => Int, { nullable: true, description: 'The AuditId read; a stale one is refused with 409.' })
  @IsOptional() @Min(0)
  AuditId?: number | null;
}
