import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../core/context.js';
import { ListOptionsInput } from '../schema/common.js';
import { WebhookDeliveryView, WebhookSecretRotation, WebhookSubscriptionInput, WebhookSubscriptionView } from '../schema/webhooks.js';
import * as webhooks from '../services/webhooks/subscriptions.js';

/** The tenant's outbound webhooks (Standard Webhooks), staff only; our addition, not a documented operation. */
@Resolver()
export class WebhookResolver {
  @Authorized('staff')
  @Query(() => [WebhookSubscriptionView], { description: 'The webhook subscriptions of this tenant, one page at a time.' })
  webhookSubscriptions(@Ctx() ctx: RequestContext, @Arg('options', () => ListOptionsInput, { nullable: true }) options?: ListOptionsInput | null) {
    return webhooks.listWebhookSubscriptions(ctx, options);
  }

  @Authorized('staff')
  @Query(() => WebhookSubscriptionView, { description: 'One webhook subscription (its secret is never shown).' })
  webhookSubscription(@Ctx() ctx: RequestContext, @Arg('webhookId', () => Int) webhookId: number) {
    return webhooks.getWebhookSubscription(ctx, webhookId);
  }

  @Authorized('staff')
  @Mutation(() => WebhookSubscriptionView, { description: 'Creates (WebhookId 0 or absent) or updates a webhook subscription; a new one\'s signing secret is in this answer only.' })
  saveWebhookSubscription(@Ctx() ctx: RequestContext, @Arg('input', () => WebhookSubscriptionInput) input: WebhookSubscriptionInput) {
    return webhooks.saveWebhookSubscription(ctx, input);
  }

  @Authorized('staff')
  @Mutation(() => Int, { description: 'Deletes a webhook subscription and its delivery log; answers its id.' })
  deleteWebhookSubscription(
    @Ctx() ctx: RequestContext,
    @Arg('webhookId', () => Int) webhookId: number,
    @Arg('auditId', () => Int, { nullable: true, description: 'When given, the delete is refused (409) unless the subscription is still this version.' }) auditId?: number | null,
  ) {
    return webhooks.deleteWebhookSubscription(ctx, webhookId, auditId);
  }

  @Authorized('staff')
  @Mutation(() => WebhookSecretRotation, { description: `A new signing secret, answered once; the previous one keeps signing beside it for ${webhooks.SECRET_OVERLAP_HOURS} hours.` })
  rotateWebhookSecret(
    @Ctx() ctx: RequestContext,
    @Arg('webhookId', () => Int) webhookId: number,
    @Arg('auditId', () => Int, { nullable: true, description: 'When given, the rotation is refused (409) unless the subscription is still this version.' }) auditId?: number | null,
  ) {
    return webhooks.rotateWebhookSecret(ctx, webhookId, auditId);
  }

  @Authorized('staff')
  @Query(() => [WebhookDeliveryView], { description: 'The delivery log of one webhook subscription, newest first.' })
  webhookDeliveries(
    @Ctx() ctx: RequestContext,
    @Arg('webhookId', () => Int) webhookId: number,
    @Arg('options', () => ListOptionsInput, { nullable: true }) options?: ListOptionsInput | null,
  ) {
    return webhooks.listWebhookDeliveries(ctx, webhookId, options);
  }

  @Authorized('staff')
  @Mutation(() => WebhookDeliveryView, { description: 'Sends one delivery again (same webhook-id), with a fresh retry schedule.' })
  redeliverWebhookDelivery(@Ctx() ctx: RequestContext, @Arg('webhookId', () => Int) webhookId: number, @Arg('deliveryId', () => Int) deliveryId: number) {
    return webhooks.redeliverWebhookDelivery(ctx, webhookId, deliveryId);
  }
}
