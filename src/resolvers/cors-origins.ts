import { Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { RuledArg } from '../core/argument-rules.js';
import type { RequestContext } from '../core/context.js';
import * as cors from '../services/cors-origins/cors-origins.js';

/** The tenant's own allowed browser origins (CORS), staff only; our addition, not a documented operation. */
@Resolver()
export class CorsOriginResolver {
  @Authorized('staff')
  @Query(() => [String], { description: 'The browser origins this tenant allows to call the API from another site (CORS), besides the instance\'s CORS_ORIGINS; they apply to requests naming the tenant (its domain as the Host, or ?tenant=<key>).' })
  corsOrigins(@Ctx() ctx: RequestContext) {
    return cors.corsOrigins(ctx);
  }

  @Authorized('staff')
  @Mutation(() => [String], { description: `Replaces this tenant's allowed browser origins (at most ${cors.MAX_TENANT_CORS_ORIGINS}, each http(s)://host[:port]); answers them as stored (normalized, sorted).` })
  saveCorsOrigins(@Ctx() ctx: RequestContext, @RuledArg('origins', cors.ORIGINS_RULE, { type: () => [String] }) origins: string[]) {
    return cors.saveCorsOrigins(ctx, origins);
  }
}
