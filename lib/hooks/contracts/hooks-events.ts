import { defineEndpoint } from '#platform/http/contract.js';
import { HookEventBody } from '../schemas/hooks.js';
import { HookIdParams } from './params.js';
import { HOOKS_TAG } from './tags.js';

export const HooksEvents = defineEndpoint({
  id: 'HooksEvents',
  method: 'POST',
  path: '/v1/hooks/{id}/events',
  handler: 'functions/hooks/events.ts',
  auth: 'none',
  params: HookIdParams,
  headers: {
    'webhook-id': {
      description: 'The event’s id, the same on every delivery of the event: a replay within 24 hours answers the first answer.',
      required: true,
    },
    'webhook-timestamp': { description: 'When it was signed, in epoch seconds; more than 5 minutes from now is refused 401.', required: true },
    'webhook-signature': {
      description:
        'Space-separated `v1,<base64>` signatures: HMAC-SHA256, keyed with the base64-decoded part of the secret after `whsec_`, of `<webhook-id>.<webhook-timestamp>.<body>`. One that matches is enough.',
      required: true,
    },
  },
  body: HookEventBody,
  table: 'readwrite',
  sends: true,
  serviceKey: true,
  operationId: 'postHookEvent',
  summary: 'Post an event to a hook',
  description: [
    'No bearer token: the event is authenticated by its Standard Webhooks signature with the hook’s secret (during the 24 hours after a rotation, the previous secret is accepted too). A verified event starts a workflow request of the hook’s version at its entry nodes, with the body as its `payload` and `metadata` `{hook_id, webhook_id}`; follow it with `GET /v1/workflow-requests/{id}`.',
    'A replayed `webhook-id` within 24 hours answers the first answer (202, the same `workflow_request_id`) and starts nothing, also when deliveries arrive at once.',
    'The account pays for the request as for any other: past a full usage window, below the minimum balance, or at its ceiling of workflow requests and runs in progress, the event is refused (429, 403) and nothing is remembered, so a retry of the same `webhook-id` is tried afresh. Each event (not a replay) counts as one request against the account’s request rate, as a bearer call does.',
  ].join('\n\n'),
  tags: [HOOKS_TAG],
  responses: () =>
    Promise.all([import('../openapi/hooks-responses.js'), import('#usage/openapi/usage-responses.js')]).then(
      ([{ HookEventAccepted, EVENT_IN_FLIGHT }, { USAGE_REFUSALS, USAGE_WINDOW_FULL }]) => ({
        202: { description: 'Started, or the first answer to this `webhook-id` again.', schema: HookEventAccepted },
        400: 'The body is not JSON (`invalid_json`, also an empty body) or not a JSON object (`invalid_body`).',
        401: 'Missing webhook headers, a timestamp more than 5 minutes from now, or no signature that matches the hook’s secret (`invalid_signature`).',
        403: 'The account is suspended (`forbidden`), or a usage window is full, extra usage would pay, and the balance is below the minimum of 2.00 USD (`insufficient_balance`).',
        404: 'No such hook, a malformed id, or a deleted hook (`not_found`).',
        409: EVENT_IN_FLIGHT,
        413: 'The body is larger than 256 KiB (`payload_too_large`).',
        422: 'The body nests objects and arrays too deep (`validation_failed`, code `too_deep`), or the hook’s version can no longer run here (`validation_failed`), as running it would answer.',
        429: {
          ...USAGE_REFUSALS[429],
          description: `${USAGE_WINDOW_FULL} Or the account made more requests than its rate allows, events and bearer calls together, or its workflow requests and runs in progress are at its limit (\`rate_limited\`, \`Retry-After\`). Nothing started, nothing remembered.`,
        },
      }),
    ),
});
