import { defineEndpoint } from '#platform/http/contract.js';
import { DeliveryParams } from './params.js';
import { WEBHOOKS_TAG } from './tags.js';

export const WebhookDeliveriesRetry = defineEndpoint({
  id: 'WebhookDeliveriesRetry',
  method: 'POST',
  path: '/v1/webhook-endpoints/{id}/deliveries/{delivery_id}/retry',
  handler: 'functions/webhooks/deliveries-retry.ts',
  auth: 'bearer',
  params: DeliveryParams,
  idempotency: 'optional',
  table: 'readwrite',
  sends: true,
  operationId: 'retryWebhookDelivery',
  summary: 'Send a delivery again',
  description: [
    'Sends the delivery again now, whatever its status, as a new series of attempts (retried on the same schedule if it fails) with the same `webhook-id` and body. A pending delivery’s waiting attempt is replaced by this one.',
    'A disabled endpoint answers 409 `webhook_endpoint_disabled`: enable it first. An `Idempotency-Key` header is optional; with one, a retry of this call answers the first answer and sends nothing again.',
  ].join('\n\n'),
  tags: [WEBHOOKS_TAG],
  responses: () =>
    import('../openapi/webhooks-responses.js').then(({ WebhookDeliverySchema, DELIVERY_TOO_BUSY }) => ({
      202: { description: 'The delivery, `pending`, its next attempt due now.', schema: WebhookDeliverySchema },
      400: 'A malformed Idempotency-Key (`idempotency_key_invalid`).',
      404: "No such endpoint or delivery, a malformed id, another account's endpoint or another endpoint's delivery (indistinguishable, `not_found`).",
      409: 'The endpoint is disabled (`webhook_endpoint_disabled`); or an Idempotency-Key reused with another body (`idempotency_key_conflict`) or still in flight (`idempotency_key_in_flight`, with `Retry-After`).',
      503: DELIVERY_TOO_BUSY,
    })),
});
