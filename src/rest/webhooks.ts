import type { RouteRow } from './route-table.js';

/** Our addition (no documented path): the tenant's outbound webhooks, staff only. */
export const webhookRoutes: RouteRow[] = [
  { method: 'GET', path: '/api/setup/webhooks', field: 'Query.webhookSubscriptions', extension: true, summary: 'The webhook subscriptions of this tenant, staff only.' },
  { method: 'POST', path: '/api/setup/webhooks', field: 'Mutation.saveWebhookSubscription', body: 'input', extension: true, summary: 'Creates (WebhookId 0) or updates a webhook subscription; a new one\'s secret is answered once.' },
  { method: 'GET', path: '/api/setup/webhooks/{webhookid}', field: 'Query.webhookSubscription', extension: true, summary: 'One webhook subscription.' },
  { method: 'DELETE', path: '/api/setup/webhooks/{webhookid}', field: 'Mutation.deleteWebhookSubscription', extension: true, summary: 'Deletes a webhook subscription and its delivery log.' },
  { method: 'POST', path: '/api/setup/webhooks/{webhookid}/rotatesecret', field: 'Mutation.rotateWebhookSecret', extension: true, summary: 'A new signing secret, answered once; the previous one signs too for 24 hours.' },
  { method: 'GET', path: '/api/setup/webhooks/{webhookid}/deliveries', field: 'Query.webhookDeliveries', extension: true, summary: 'The delivery log of one webhook subscription, newest first.' },
  { method: 'POST', path: '/api/setup/webhooks/{webhookid}/deliveries/{deliveryid}/redeliver', field: 'Mutation.redeliverWebhookDelivery', extension: true, summary: 'Sends one delivery again, with the same webhook-id.' },
];
