import { defineEndpoint } from '#platform/http/contract.js';
import { ListWebhookQuery } from '../schemas.js';
import { WEBHOOKS_TAG } from './tags.js';

export const WebhookEndpointsList = defineEndpoint({
  id: 'WebhookEndpointsList',
  method: 'GET',
  path: '/v1/webhook-endpoints',
  handler: 'functions/webhooks/list.ts',
  auth: 'bearer',
  query: ListWebhookQuery,
  table: 'read',
  serviceKey: true,
  operationId: 'listWebhookEndpoints',
  summary: 'List webhook endpoints',
  description: 'Newest first, paged with `limit` and `cursor`; never with their secrets.',
  tags: [WEBHOOKS_TAG],
  responses: () =>
    import('../openapi/webhooks-responses.js').then(({ WebhookEndpointList }) => ({
      200: { description: 'A page of endpoints.', schema: WebhookEndpointList },
      400: '`limit` out of range (`invalid_parameter`), or a bad cursor (`cursor_invalid`, `cursor_filter_mismatch`).',
    })),
});
