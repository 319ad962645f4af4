import { defineEndpoint } from '#platform/http/contract.js';
import { EndpointIdParams } from './params.js';
import { WEBHOOKS_TAG } from './tags.js';

export const WebhookEndpointsGet = defineEndpoint({
  id: 'WebhookEndpointsGet',
  method: 'GET',
  path: '/v1/webhook-endpoints/{id}',
  handler: 'functions/webhooks/get.ts',
  auth: 'bearer',
  params: EndpointIdParams,
  table: 'read',
  operationId: 'getWebhookEndpoint',
  summary: 'Get a webhook endpoint',
  description: 'Never with its secret: that is shown once, when the endpoint is created.',
  tags: [WEBHOOKS_TAG],
  responses: () =>
    import('../openapi/webhooks-responses.js').then(({ WebhookEndpointSchema, ENDPOINT_NOT_FOUND }) => ({
      200: { description: 'The endpoint.', schema: WebhookEndpointSchema },
      404: ENDPOINT_NOT_FOUND,
    })),
});
