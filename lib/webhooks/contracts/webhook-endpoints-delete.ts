import { defineEndpoint } from '#platform/http/contract.js';
import { EndpointIdParams } from './params.js';
import { WEBHOOKS_TAG } from './tags.js';

export const WebhookEndpointsDelete = defineEndpoint({
  id: 'WebhookEndpointsDelete',
  method: 'DELETE',
  path: '/v1/webhook-endpoints/{id}',
  handler: 'functions/webhooks/delete.ts',
  auth: 'bearer',
  params: EndpointIdParams,
  table: 'readwrite',
  operationId: 'deleteWebhookEndpoint',
  summary: 'Delete a webhook endpoint',
  description:
    'No further event is delivered to it; its pending deliveries end `failed` when their next attempt is due. Deleting an endpoint that is already gone answers 404, so of concurrent deletes exactly one answers 204.',
  tags: [WEBHOOKS_TAG],
  responses: () =>
    import('../openapi/webhooks-responses.js').then(({ ENDPOINT_NOT_FOUND }) => ({
      204: { description: 'Deleted.' },
      404: ENDPOINT_NOT_FOUND,
    })),
});
