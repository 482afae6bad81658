import type { GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { authChecker, validateInput } from '../core/graphql-policies.js';
import { CalendarResolver } from './calendars.js';
import { CallbackResolver } from './callbacks.js';
import { ImageResolver } from './images.js';
import { LoginResolver } from './login.js';
import { SamlServiceProviderResolver } from './saml-service-providers.js';
import { SignatureResolver } from './signatures.js';
import { socialFeedResolvers } from './social-feeds.js';
import { VendorResolver } from './vendors.js';
import { TermsOfUseResolver } from './terms-of-use.js';

/** Every resolver of the API. A new area adds its resolver here. */
export const resolvers = [
  LoginResolver,
  VendorResolver,
  SignatureResolver,
  SamlServiceProviderResolver,
  ...socialFeedResolvers,
  TermsOfUseResolver,
  ImageResolver,
  CalendarResolver,
  CallbackResolver,
] as const;

/** The one schema both interfaces serve. */
export function buildApiSchema(): Promise<GraphQLSchema> {
  return buildSchema({ resolvers, authChecker, validateFn: validateInput, emitSchemaFile: false });
}
