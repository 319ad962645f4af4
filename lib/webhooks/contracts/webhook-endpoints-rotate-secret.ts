import { defineEndpoint } from '#platform/http/contract.js';
import { EndpointIdParams } from './params.js';
import { WEBHOOKS_TAG } from './tags.js';

export const WebhookEndpointsRotateSecret = defineEndpoint({
  id: 'WebhookEndpointsRotateSecret',
  method: 'POST',
  path: '/v1/webhook-endpoints/{id}/rotate-secret',
  handler: 'functions/webhooks/rotate-secret.ts',
  auth: 'bearer',
  params: EndpointIdParams,
  table: 'readwrite',
  serviceKey: true,
  operationId: 'rotateWebhookEndpointSecret',
  summary: 'Rotate a webhook endpoint’s secret',
  description: [
    'A new signing secret, shown only in this answer. For 24 hours (`previous_secret_expires_at`) every delivery’s `webhook-signature` carries two signatures, `v1,<with the new secret> v1,<with the one it replaced>`, so a receiver verifies with either while it switches; then only the new one.',
    'A second rotation within those 24 hours makes the secret it replaces the previous one: the first secret stops verifying at once. Not idempotent by key: each call is a new secret, like the hooks’ rotation.',
  ].join('\n\n'),
  tags: [WEBHOOKS_TAG],
  responses: () =>
    import('../openapi/webhooks-responses.js').then(({ CreatedWebhookEndpointSchema, ENDPOINT_NOT_FOUND }) => ({
      200: { description: 'The endpoint, with its new signing secret (shown this once).', schema: CreatedWebhookEndpointSchema },
      404: ENDPOINT_NOT_FOUND,
    })),
});
