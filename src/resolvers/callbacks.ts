import { Arg, Authorized, Ctx, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../core/context.js';
import { ProviderCallbackItem } from '../schema/callbacks.js';
import { ListOptionsInput } from '../schema/common.js';
import * as callbacks from '../services/callbacks/callbacks.js';

/** The inbound callbacks themselves are served outside GraphQL (src/http/callbacks.ts: they need the raw body). */
@Resolver()
export class CallbackResolver {
  @Authorized('staff')
  @Query(() => [ProviderCallbackItem], { description: 'Stored provider callbacks with their processing state and error, newest first (OrderBy: ReceivedAt, CallbackId, Provider, State; Filter matches provider, state and error).' })
  providerCallbacks(
    @Ctx() ctx: RequestContext,
    @Arg('options', () => ListOptionsInput, { nullable: true }) options?: ListOptionsInput | null,
    @Arg('state', () => String, { nullable: true, description: 'Only callbacks in this state: queued, retrying, processed or dead.' }) state?: string | null,
  ) {
    return callbacks.listCallbacks(ctx, options, state);
  }
}
