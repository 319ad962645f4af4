import { defineEndpoint } from '#platform/http/contract.js';
import { MAX_ENDPOINTS_PER_ACCOUNT } from '../model.js';
import { CreateWebhookEndpointBody } from '../schemas.js';
import { WEBHOOKS_TAG } from './tags.js';

export const WebhookEndpointsCreate = defineEndpoint({
  id: 'WebhookEndpointsCreate',
  method: 'POST',
  path: '/v1/webhook-endpoints',
  handler: 'functions/webhooks/create.ts',
  auth: 'bearer',
  body: CreateWebhookEndpointBody,
  idempotency: 'optional',
  table: 'readwrite',
  outbound: true,
  serviceKey: true,
  operationId: 'createWebhookEndpoint',
  summary: 'Register a webhook endpoint',
  description: [
    'From now on each event of the account of one of `events`’ types is POSTed to `url` as `{type, timestamp, data}` (this document’s `webhooks`), with the Standard Webhooks headers `webhook-id` (the event’s id, the same on every retry), `webhook-timestamp` and `webhook-signature`. Verify them with the `secret` of this answer, which is shown only here.',
    'A 2xx answer delivers it. Anything else (also no answer within 15 s, or an address the checks refuse) is tried again after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then the delivery is `failed`. A 410 answer disables the endpoint (PATCH `disabled: false` enables it again).',
    'The URL passes the address checks of every outbound call now (422 naming `/url`) and again on every delivery. An `Idempotency-Key` header is optional; with one, a retry answers the first answer (the same secret) with `Idempotency-Replayed: true`.',
    `An account has at most ${MAX_ENDPOINTS_PER_ACCOUNT} endpoints, exactly, also under concurrent creates: past it the answer is 409 \`webhook_endpoint_limit_reached\`, whose problem document carries the \`limit\`. Deleting one frees its place; one endpoint may subscribe to every event type.`,
  ].join('\n\n'),
  tags: [WEBHOOKS_TAG],
  responses: () =>
    import('../openapi/webhooks-responses.js').then(({ CreatedWebhookEndpointSchema, ENDPOINT_INVALID }) => ({
      201: { description: 'The endpoint, with its signing secret (shown this once).', schema: CreatedWebhookEndpointSchema },
      400: 'Not JSON, not an object, an unknown field (`invalid_json`, `invalid_body`, `unknown_field`), or a malformed Idempotency-Key (`idempotency_key_invalid`).',
      409: `The account has ${MAX_ENDPOINTS_PER_ACCOUNT} endpoints already (\`webhook_endpoint_limit_reached\`; \`limit\` names the number); or the Idempotency-Key was reused with another body (\`idempotency_key_conflict\`), or is still in flight (\`idempotency_key_in_flight\`, with \`Retry-After\`).`,
      422: ENDPOINT_INVALID,
    })),
});
