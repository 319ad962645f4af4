import { defineEndpoint } from '#platform/http/contract.js';
import { UpdateWebhookEndpointBody } from '../schemas.js';
import { EndpointIdParams } from './params.js';
import { WEBHOOKS_TAG } from './tags.js';

export const WebhookEndpointsUpdate = defineEndpoint({
  id: 'WebhookEndpointsUpdate',
  method: 'PATCH',
  path: '/v1/webhook-endpoints/{id}',
  handler: 'functions/webhooks/update.ts',
  auth: 'bearer',
  params: EndpointIdParams,
  body: UpdateWebhookEndpointBody,
  idempotency: 'optional',
  table: 'readwrite',
  outbound: true,
  operationId: 'updateWebhookEndpoint',
  summary: 'Change a webhook endpoint',
  description: [
    'Changes the fields given: `url` (checked as at creation), `events`, `description`, `disabled`. `disabled: false` enables an endpoint, also one a 410 answer disabled; `disabled: true` stops its deliveries (those pending end `failed`). The secret stays the same. An empty body changes nothing.',
    'An `Idempotency-Key` header is optional; with one, a retry answers the first answer.',
  ].join('\n\n'),
  tags: [WEBHOOKS_TAG],
  responses: () =>
    import('../openapi/webhooks-responses.js').then(({ WebhookEndpointSchema, ENDPOINT_NOT_FOUND, ENDPOINT_INVALID }) => ({
      200: { description: 'The endpoint as changed.', schema: WebhookEndpointSchema },
      400: 'Not JSON, not an object, an unknown field (`invalid_json`, `invalid_body`, `unknown_field`), or a malformed Idempotency-Key (`idempotency_key_invalid`).',
      404: ENDPOINT_NOT_FOUND,
      409: 'Idempotency-Key reused with another body (`idempotency_key_conflict`), or still in flight (`idempotency_key_in_flight`, with `Retry-After`).',
      422: ENDPOINT_INVALID,
    })),
});
