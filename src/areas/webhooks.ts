import { defineArea } from '../core/area.js';
import { WebhookDelivery, WebhookEvent, WebhookSubscription } from '../entities/webhook.js';
import { WebhookResolver } from '../resolvers/webhooks.js';
import { webhookRoutes } from '../rest/webhooks.js';
import { webhookDeliveryJobs } from '../services/webhooks/delivery.js';
import { seedWebhooks } from '../services/webhooks/subscriptions.js';

/** Outbound webhooks (Standard Webhooks): subscriptions, the events other areas emit (`emitWebhookEvent`) and the jobs that deliver them. */
export const webhooksArea = defineArea({
  name: 'webhooks',
  entities: [WebhookSubscription, WebhookEvent, WebhookDelivery],
  resolvers: [WebhookResolver],
  routes: webhookRoutes,
  jobs: webhookDeliveryJobs(),
  demo: seedWebhooks,
});
