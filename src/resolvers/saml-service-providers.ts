import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../core/context.js';
import { ListOptionsInput, LookupChoiceInt } from '../schema/common.js';
import { SamlServiceProviderAddEdit, SamlServiceProviderAddEditInput, SamlServiceProviderCollectionItem } from '../schema/saml-service-providers.js';
import * as saml from '../services/saml-service-providers/saml-service-providers.js';

@Resolver()
export class SamlServiceProviderResolver {
  @Authorized('staff')
  @Query(() => [LookupChoiceInt], { description: 'The SAML service providers, one page at a time (Id, Name; ServiceProviderName in ExtraData).' })
  samlServiceProviders(@Ctx() ctx: RequestContext, @Arg('options', () => ListOptionsInput, { nullable: true }) options?: ListOptionsInput | null) {
    return saml.listSamlServiceProviders(ctx, options);
  }

  @Authorized('staff')
  @Query(() => SamlServiceProviderAddEdit, { description: 'One SAML service provider, for editing.' })
  samlServiceProvider(@Ctx() ctx: RequestContext, @Arg('samlServiceProviderId', () => Int) id: number) {
    return saml.getSamlServiceProvider(ctx, id);
  }

  @Authorized('staff')
  @Query(() => String, { description: 'The SAML 2.0 metadata XML (md:EntityDescriptor) of a service provider. REST serves it as a file download.' })
  async samlServiceProviderMetadata(@Ctx() ctx: RequestContext, @Arg('samlServiceProviderId', () => Int) id: number) {
    return (await saml.samlServiceProviderMetadata(ctx, id)).xml;
  }

  @Authorized('staff')
  @Mutation(() => SamlServiceProviderCollectionItem, { description: 'Creates (SamlServiceProviderId 0 or absent) or updates a SAML service provider.' })
  saveSamlServiceProvider(@Ctx() ctx: RequestContext, @Arg('input', () => SamlServiceProviderAddEditInput) input: SamlServiceProviderAddEditInput) {
    return saml.saveSamlServiceProvider(ctx, input);
  }

  @Authorized('staff')
  @Mutation(() => SamlServiceProviderAddEdit, { description: 'Deletes a SAML service provider; answers it as it was.' })
  deleteSamlServiceProvider(@Ctx() ctx: RequestContext, @Arg('samlServiceProviderId', () => Int) id: number) {
    return saml.deleteSamlServiceProvider(ctx, id);
  }
}
