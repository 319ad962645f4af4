import * as z from 'zod';
import { withExample } from '#platform/http/common-schemas.js';
import { retryAfter } from '#platform/openapi/headers.js';
import { v1Page } from '#platform/openapi/pagination.js';
import { DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES } from '../model.js';

const endpointFields = {
  id: z.string().meta({ description: '`whe_…`.', example: 'whe_0mwvm6w715Up1NimNL49uBANV' }),
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  description: z.string().nullable(),
  disabled: z.boolean().meta({ description: 'A disabled endpoint receives nothing: no new deliveries, and its pending ones end `failed`.' }),
  disabled_reason: z
    .enum(['gone', 'user'])
    .nullable()
    .meta({ description: '`gone`: a delivery was answered 410; `user`: PATCH `disabled: true`; null while enabled.' }),
  secret_rotated_at: z.string().datetime().nullable().meta({ description: 'When the secret was last rotated; null before any rotation.' }),
  previous_secret_expires_at: z.string().datetime().nullable().meta({
    description:
      'Until when deliveries also carry a signature with the secret the last rotation replaced (24 hours after it; a time in the past once over); null before any rotation.',
  }),
  created_at: z.string().datetime(),
  updated_at: z.string().datetime(),
};

const ENDPOINT = {
  id: 'whe_0mwvm6w715Up1NimNL49uBANV',
  url: 'https://hooks.example.com/workflow-service',
  events: ['run.completed', 'run.failed'],
  description: 'Ops dashboard',
  disabled: false,
  disabled_reason: null,
  secret_rotated_at: null,
  previous_secret_expires_at: null,
  created_at: '2026-01-31T09:15:00.000Z',
  updated_at: '2026-01-31T09:15:00.000Z',
} as const;

export const WebhookEndpointSchema = withExample(z.object(endpointFields).meta({ id: 'WebhookEndpoint' }), ENDPOINT);

export const CreatedWebhookEndpointSchema = withExample(
  z
    .object({
      ...endpointFields,
      secret: z.string().meta({
        description: 'The Standard Webhooks signing secret (`whsec_` + base64), shown only in this answer: verify each delivery’s `webhook-signature` with it.',
        example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      }),
    })
    .meta({ id: 'CreatedWebhookEndpoint' }),
  { ...ENDPOINT, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
);

export const WebhookEndpointList = v1Page('endpoints', WebhookEndpointSchema, { id: 'WebhookEndpointList', itemsDescription: 'Newest first.' });

export const WebhookDeliverySchema = withExample(
  z
    .object({
      id: z.string().meta({ description: '`whd_…`: one per (endpoint, event).' }),
      endpoint_id: z.string(),
      event_id: z.string().meta({ description: 'The event’s id: the `webhook-id` header of every attempt, retries included.' }),
      event_type: z.enum(WEBHOOK_EVENT_TYPES),
      status: z.enum(DELIVERY_STATUSES).meta({
        description:
          '`pending` while attempts remain; `delivered` after a 2xx; `failed` when the schedule ran out, the endpoint answered 410, it was disabled or deleted, or the service could not make the next attempt after repeated tries (`last_error` starts `internal_error:`). A failed delivery can be retried.',
      }),
      attempts: z.number().int().min(0).meta({ description: 'Attempts made, manual retries included.' }),
      last_status_code: z
        .number()
        .int()
        .nullable()
        .meta({ description: 'The status of the last attempt’s answer; null before one, or when it got none (network error, timeout, refused address).' }),
      last_error: z
        .string()
        .nullable()
        .meta({ description: 'Why the last attempt did not deliver, or why the delivery ended without one; null once delivered.' }),
      next_attempt_at: z.string().datetime().nullable().meta({ description: 'When the next attempt is due while `pending`; null otherwise.' }),
      created_at: z.string().datetime(),
      delivered_at: z.string().datetime().nullable(),
    })
    .meta({ id: 'WebhookDelivery' }),
  {
    id: 'whd_0mwvm6w7aAb3Cd5Ef7Gh9Ij1K',
    endpoint_id: ENDPOINT.id,
    event_id: 'c1d2e3f4-a5b6-5c7d-8e9f-0a1b2c3d4e5f',
    event_type: 'run.completed',
    status: 'delivered',
    attempts: 1,
    last_status_code: 200,
    last_error: null,
    next_attempt_at: null,
    created_at: '2026-01-31T09:30:05.000Z',
    delivered_at: '2026-01-31T09:30:05.300Z',
  },
);

export const WebhookDeliveryList = v1Page('deliveries', WebhookDeliverySchema, { id: 'WebhookDeliveryList', itemsDescription: 'Newest first.' });

/** What every route on one endpoint by id answers when it is not the caller's to see. */
export const ENDPOINT_NOT_FOUND = "No such webhook endpoint, a malformed id, or another account's (indistinguishable, `not_found`).";

/** The 422 of a create or an update. */
export const ENDPOINT_INVALID =
  'A field is missing or malformed (`validation_failed`, naming it): `url` an absolute URL of at most 2048 characters that passes the address checks (`https:` only, no credentials, a public host; `url_not_allowed`, `insecure_url`, `invalid_url`, `url_not_resolvable` naming `/url`), each entry of `events` one of the event types (naming `/events/<i>`), `description` at most 500 characters.';

/** The delivery kept changing under a retry (retryDelivery gives up). */
export const DELIVERY_TOO_BUSY = {
  description: 'The delivery kept changing under the retry (`unavailable`); retry.',
  headers: retryAfter('always `1`'),
};
