import * as z from 'zod';
import { withExample } from '#platform/http/common-schemas.js';
import { exampleOf } from '#platform/openapi/examples.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../model.js';

/**
 * The deliveries as the OpenAPI document's `webhooks` (one per event type):
 * the body `{type, timestamp, data}` and the Standard Webhooks headers. The
 * composition (the app's document) passes each type's `data` schema, the
 * resource as its feature's API shows it.
 */

/** What each type's `data` is, said in its description. */
const DATA_OF: Record<WebhookEventType, string> = {
  'workflow_request.completed': 'the workflow request as `GET /v1/workflow-requests/{id}` shows it, `completed`',
  'workflow_request.failed':
    'the workflow request as `GET /v1/workflow-requests/{id}` shows it, `failed`; an end the service could not store whole (`internal_error`) carries it without `payload` (`{}`), `query` and `metadata` (null)',
  'workflow_request.stopped': 'the workflow request as `GET /v1/workflow-requests/{id}` shows it, `stopped`',
  'run.completed': 'the run as `GET /v2/runs/{id}` shows it when it completed',
  'run.failed':
    'the run as `GET /v2/runs/{id}` shows it when it failed; an end the service could not store whole (`internal_error`) carries it without `input` (`""`) and `metadata` (null)',
  'run.cancelled': 'the run as `GET /v2/runs/{id}` shows it when it was cancelled',
  'interaction.created': 'the interaction as `GET /v2/interactions/{id}` shows it when it was created',
  'evaluation.completed': 'the evaluation (without its cases) as `GET /v2/evaluations` lists it when it completed, with its results',
};

/** `run.completed` → `RunCompletedWebhook`. */
const componentId = (type: string) =>
  `${type
    .split(/[._]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')}Webhook`;

const WebhookHeaders = z.object({
  'webhook-id': z.string().meta({ description: 'The event’s id: the same on every attempt and retry of this event, so a receiver can drop repeats.' }),
  'webhook-timestamp': z
    .string()
    .meta({ description: 'When this attempt was signed, in epoch seconds; refuse one too far from now (Standard Webhooks suggests 5 minutes).' }),
  'webhook-signature': z.string().meta({
    description:
      '`v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>">` with the endpoint’s secret (after `whsec_`, base64-decoded); verify it with a Standard Webhooks library before parsing the body.',
  }),
});

export interface WebhookDoc {
  name: WebhookEventType;
  operationId: string;
  summary: string;
  description: string;
  headers: z.ZodObject;
  body: z.ZodType;
  responses: Record<number, string>;
}

/** The example of `data`: its schema's, in the state its event tells (`run.failed`: a failed run). */
function dataExample(type: WebhookEventType, schema: z.ZodType): unknown {
  const example = exampleOf(schema) as Record<string, unknown> | undefined;
  const state = type.split('.')[1];
  return example && 'status' in example && state !== 'created' ? { ...example, status: state } : example;
}

export function webhookDocs(dataSchemas: Readonly<Record<WebhookEventType, z.ZodType>>): WebhookDoc[] {
  return WEBHOOK_EVENT_TYPES.map((type) => ({
    name: type,
    operationId: `webhook${componentId(type).replace(/Webhook$/, '')}`,
    summary: `The ${type} event`,
    description: `POSTed to each enabled endpoint subscribed to \`${type}\` once per event, signed per Standard Webhooks; \`data\` is ${DATA_OF[type]}.`,
    headers: WebhookHeaders,
    body: withExample(
      z
        .object({
          type: z.literal(type),
          timestamp: z.string().datetime().meta({ description: 'When the event happened (the same on every attempt).' }),
          data: dataSchemas[type],
        })
        .meta({ id: componentId(type) }),
      { type, timestamp: '2026-01-31T09:30:02.000Z', data: dataExample(type, dataSchemas[type]) },
    ),
    responses: {
      200: 'Any 2xx delivers the event; the body of the answer is ignored.',
      410: 'Disables the endpoint: it receives nothing more until `PATCH /v1/webhook-endpoints/{id}` with `disabled: false`.',
      500: 'Any other answer, or none within 15 s, is retried after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then the delivery is `failed`.',
    },
  }));
}
