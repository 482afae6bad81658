import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { Length } from 'class-validator';

/** A module entry shown in a portal menu (AboutMe DirectoryModuleItems / ContentModuleItems). */
@ObjectType({ description: 'A portal module the caller can open.' })
export class ModuleItem {
  @Field(() => Int)
  Id!: number;

  @Field(() => String)
  Name!: string;

  @Field(() => String, { nullable: true })
  Url!: string | null;
}

@ObjectType({ description: "The caller's tenant, contact and roles." })
export class AboutMe {
  @Field(() => String, { nullable: true }) FirstName!: string | null;
  @Field(() => String, { nullable: true }) Name!: string | null;
  @Field(() => Int, { nullable: true }) ContactId!: number | null;
  @Field(() => Int) TenantId!: number;
  @Field(() => String) TenantName!: string;
  @Field(() => String, { nullable: true }) TenantDomain!: string | null;
  @Field(() => String) TenantKey!: string;
  @Field(() => Int, { nullable: true }) CurrentOrganizationId!: number | null;
  @Field(() => String, { nullable: true }) CurrentOrganizationName!: string | null;
  @Field(() => String, { nullable: true }) LastName!: string | null;
  @Field(() => Boolean) HasAgreedOnBackOfficeTerms!: boolean;
  @Field(() => String, { nullable: true }) TermsContent!: string | null;
  @Field(() => String, { nullable: true }) TermsOfUseId!: string | null;
  @Field(() => String, { nullable: true }) TenantLogoUrl!: string | null;
  @Field(() => String, { nullable: true }) TenantLogoShortDescription!: string | null;
  @Field(() => String, { nullable: true }) ContactLogoUrl!: string | null;
  @Field(() => String, { nullable: true }) ContactLogoShortDescription!: string | null;
  @Field(() => [String], { description: 'Role names of the caller.' }) AllRoles!: string[];
  @Field(() => [ModuleItem]) DirectoryModuleItems!: ModuleItem[];
  @Field(() => [ModuleItem]) ContentModuleItems!: ModuleItem[];
  @Field(() => String, { nullable: true }) InfoHubTermsOfUseId!: string | null;
  @Field(() => Boolean) HasAgreedOnInfoHubTerms!: boolean;
  @Field(() => String, { nullable: true }) InfoHubTermsOfUseContent!: string | null;
}

@ObjectType({ description: 'A question offered for account recovery.' })
export class SecurityQuestion {
  @Field(() => Int) Id!: number;
  @Field(() => String) Name!: string;
}

@InputType({ description: 'The token from a sign-in link.' })
export class MagicLinkRedeemInput {
  @Field(() => String)
  @Length(10, 200)
  Token!: string;
}

@ObjectType({ description: 'A new session: send `Authorization: Bearer <Token>` with later requests.' })
export class SessionToken {
  @Field(() => String) Token!: string;
  @Field(() => String, { nullable: true, description: 'ISO 8601 expiry (UTC).' }) ExpiresAt!: string | null;
}
