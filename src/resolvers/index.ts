import type { GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { authChecker, validateInput } from '../core/graphql-policies.js';
import { CallbackResolver } from './callbacks.js';
import { LoginResolver } from './login.js';
import { VendorResolver } from './vendors.js';

/** Every resolver of the API. A new area adds its resolver here. */
export const resolvers = [LoginResolver, VendorResolver, CallbackResolver] as const;

/** The one schema both interfaces serve. */
export function buildApiSchema(): Promise<GraphQLSchema> {
  return buildSchema({ resolvers, authChecker, validateFn: validateInput, emitSchemaFile: false });
}
