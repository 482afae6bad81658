import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { isURL, IsOptional, Length, Matches, Min, ValidateIf } from 'class-validator';
import { Conforms, type ArgumentRule } from '../core/argument-rules.js';
import { BadInput } from '../core/errors.js';

/** The URL rule for addresses in SAML metadata: absolute http(s), host names without a TLD allowed (intranet, localhost). */
const METADATA_URL: Parameters<typeof isURL>[1] = { require_protocol: true, protocols: ['http', 'https'], require_tld: false };

/** Names are one line of text: no control characters (PostgreSQL refuses NUL, XML most of the others). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const SINGLE_LINE = /^[^\u0000-\u001f\u007f]*$/;

/** An http(s) URL as the document states it: a host name of letter-led labels, then an optional path of plain characters. */
const PLAIN_HTTP_URL = '[hH][tT][tT][pP][sS]?://[a-z]([a-z0-9]|-[a-z0-9]){0,30}(\\.[a-z]([a-z0-9]|-[a-z0-9]){0,30})*(/[A-Za-z0-9._~/-]*)?';

/** A URL in SAML metadata (absolute http(s)) or, with `orUrn`, a URN too; at most `maxLength` characters. */
function samlUriRule(maxLength: number, orUrn: boolean): ArgumentRule<string> {
  const urn = /^urn:[a-z0-9][a-z0-9-]{0,31}:[\w.~!$&'()*+,;=:@/?#%-]+$/i;
  return {
    schema: { type: 'string', maxLength, pattern: orUrn ? `^(${PLAIN_HTTP_URL}|urn:[a-z][a-z0-9-]{0,31}:[A-Za-z0-9._~-]+)$` : `^${PLAIN_HTTP_URL}$` },
    parse(text, field) {
      if (text.length > maxLength) throw BadInput.field(field, `must be at most ${maxLength} characters`);
      if (!isURL(text, METADATA_URL) && !(orUrn && urn.test(text))) throw BadInput.field(field, orUrn ? 'must be an http(s) URL or a URN' : 'must be an absolute http(s) URL');
      return text;
    },
  };
}

/** A SAML entity id is a URI of at most 1024 characters (SAML 2.0 core 8.3.6): an http(s) URL or a URN. */
const ENTITY_ID_RULE = samlUriRule(1024, true);
/** Where assertions are posted: an absolute http(s) URL. */
const ACS_URL_RULE = samlUriRule(2048, false);

@ObjectType({ description: 'A SAML service provider as read for editing. EntityId and AssertionConsumerServiceUrl are additions to the documented model: the values its metadata carries.' })
export class SamlServiceProviderAddEdit {
  @Field(() => Int) SamlServiceProviderId!: number;
  @Field(() => String, { nullable: true }) Name!: string | null;
  @Field(() => String, { nullable: true }) ServiceProviderName!: string | null;
  @Field(() => String, { description: 'The SAML entity id of the provider (explicit, or derived from the tenant\'s address and the record id).' })
  EntityId!: string;

  @Field(() => String, { description: 'Where assertions are posted (HTTP-POST binding): explicit, or derived like EntityId.' })
  AssertionConsumerServiceUrl!: string;
}

@InputType('SamlServiceProviderAddEditInput', { description: 'A SAML service provider to create (SamlServiceProviderId 0 or absent) or update (an existing id; unknown is 404).' })
export class SamlServiceProviderAddEditInput {
  @Field(() => Int, { nullable: true })
  @IsOptional() @Min(0)
  SamlServiceProviderId?: number | null;

  @Field(() => String, { description: 'The name the tenant knows the provider by (1-200 characters).' })
  @Length(1, 200) @Matches(/\S/, { message: 'Name must not be blank' }) @Matches(SINGLE_LINE, { message: 'Name must not contain control characters' })
  Name!: string;

  @Field(() => String, { description: 'The provider\'s own name, shown to users in its metadata (1-200 characters).' })
  @Length(1, 200) @Matches(/\S/, { message: 'ServiceProviderName must not be blank' }) @Matches(SINGLE_LINE, { message: 'ServiceProviderName must not contain control characters' })
  ServiceProviderName!: string;

  @Field(() => String, {
    nullable: true,
    description: 'Addition to the documented model. The SAML entity id (http(s) URL or URN, at most 1024 characters), unique in the tenant. '
      + 'Absent or null: on create the derived default, on update unchanged. Empty string: back to the derived default.',
  })
  @ValidateIf((input: SamlServiceProviderAddEditInput) => Boolean(input.EntityId))
  @Conforms(ENTITY_ID_RULE)
  EntityId?: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Addition to the documented model. The assertion consumer service URL (absolute http(s), at most 2048 characters). '
      + 'Absent or null: on create the derived default, on update unchanged. Empty string: back to the derived default.',
  })
  @ValidateIf((input: SamlServiceProviderAddEditInput) => Boolean(input.AssertionConsumerServiceUrl))
  @Conforms(ACS_URL_RULE)
  AssertionConsumerServiceUrl?: string | null;
}

@ObjectType({ description: 'A SAML service provider as listed, and as answered by a save.' })
export class SamlServiceProviderCollectionItem {
  @Field(() => Int) SamlServiceProviderId!: number;
  @Field(() => String, { nullable: true }) Name!: string | null;
  @Field(() => [String], { description: 'Actions the caller may take on the row (Edit, Delete, Download).' }) Actions!: readonly string[];
}
