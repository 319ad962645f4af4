import * as z from 'zod';
import { withExample } from '#platform/http/common-schemas.js';
import { retryAfter } from '#platform/openapi/headers.js';
import { v1Page } from '#platform/openapi/pagination.js';

const HookFields = {
  id: z.string().meta({ description: '`hook_…`.', example: 'hook_0mwvm6w715Up1NimNL49uBANV' }),
  name: z.string(),
  url: z.string().meta({ description: 'Where events are posted: `{base}/v1/hooks/{id}/events`.' }),
};
const HookTail = {
  workflow_version_id: z.uuid(),
  entry_node_ids: z.array(z.uuid()),
  secret_rotated_at: z.string().datetime().nullable().meta({ description: 'When the secret was last rotated; null before any rotation.' }),
  previous_secret_expires_at: z
    .string()
    .datetime()
    .nullable()
    .meta({ description: 'Until when the secret before the last rotation still verifies (24 hours after it); null when none does.' }),
  created_at: z.string().datetime(),
};

const HOOK = {
  id: 'hook_0mwvm6w715Up1NimNL49uBANV',
  name: 'Support inbox',
  url: 'https://api.example.com/v1/hooks/hook_0mwvm6w715Up1NimNL49uBANV/events',
};
const HOOK_TAIL = {
  workflow_version_id: '9a3e5c71-2b4d-4e8f-8c1a-6d7e8f9a0b1c',
  entry_node_ids: ['5b0c8e2a-7d41-4f3b-9a6e-000000000001'],
  secret_rotated_at: null,
  previous_secret_expires_at: null,
  created_at: '2026-01-31T09:10:00.000Z',
};

export const HookSchema = withExample(z.object({ ...HookFields, ...HookTail }).meta({ id: 'Hook' }), { ...HOOK, ...HOOK_TAIL });

export const HookWithSecretSchema = withExample(
  z
    .object({
      ...HookFields,
      secret: z.string().meta({
        description: 'The Standard Webhooks secret events are signed with: `whsec_` and the base64 of 32 bytes. Shown only in this answer.',
        example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      }),
      ...HookTail,
    })
    .meta({ id: 'HookWithSecret' }),
  { ...HOOK, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', ...HOOK_TAIL },
);

export const ListHooksResponse = v1Page('hooks', HookSchema, { id: 'HookList', itemsDescription: 'Newest first.' });

export const HookEventAccepted = withExample(
  z
    .object({ workflow_request_id: z.uuid().meta({ description: 'The request the event started; the same for every delivery of one `webhook-id`.' }) })
    .meta({ id: 'HookEventAccepted' }),
  { workflow_request_id: '7e9a1c3d-5f2b-4d6e-8a0c-2b4d6f8a0c1e' },
);

/** What every route on one hook by id answers when it is not the caller's to see. */
export const HOOK_NOT_FOUND = "No such hook, a malformed id, or another account's (indistinguishable, `not_found`).";

/** A concurrent delivery of the same webhook-id has claimed it and not answered yet. */
export const EVENT_IN_FLIGHT = {
  description: 'A delivery of the same `webhook-id` is starting its request and has not answered within 10 seconds (`webhook_in_flight`); retry.',
  headers: retryAfter('always `1`'),
};
