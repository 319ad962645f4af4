import { defineEndpoint } from '#platform/http/contract.js';
import { ListWebhookQuery } from '../schemas.js';
import { EndpointIdParams } from './params.js';
import { WEBHOOKS_TAG } from './tags.js';

export const WebhookDeliveriesList = defineEndpoint({
  id: 'WebhookDeliveriesList',
  method: 'GET',
  path: '/v1/webhook-endpoints/{id}/deliveries',
  handler: 'functions/webhooks/deliveries-list.ts',
  auth: 'bearer',
  params: EndpointIdParams,
  query: ListWebhookQuery,
  table: 'read',
  serviceKey: true,
  operationId: 'listWebhookDeliveries',
  summary: 'List an endpoint’s deliveries',
  description:
    'The delivery log: one delivery per event sent to this endpoint, newest event first, paged with `limit` and `cursor`, each with its attempts, the last answer’s status, and when the next attempt is due. Kept 30 days.',
  tags: [WEBHOOKS_TAG],
  responses: () =>
    import('../openapi/webhooks-responses.js').then(({ WebhookDeliveryList, ENDPOINT_NOT_FOUND }) => ({
      200: { description: 'A page of deliveries.', schema: WebhookDeliveryList },
      400: '`limit` out of range (`invalid_parameter`), or a bad cursor (`cursor_invalid`, `cursor_filter_mismatch`).',
      404: ENDPOINT_NOT_FOUND,
    })),
});
