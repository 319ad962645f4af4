import * as z from 'zod';
import { retryAfter } from '#platform/openapi/headers.js';

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

export const HookSchema = z.object({ ...HookFields, ...HookTail }).meta({ id: 'Hook' });

export const HookWithSecretSchema = z
  .object({
    ...HookFields,
    secret: z.string().meta({
      description: 'The Standard Webhooks secret events are signed with: `whsec_` and the base64 of 32 bytes. Shown only in this answer.',
      example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    }),
    ...HookTail,
  })
  .meta({ id: 'HookWithSecret' });

export const ListHooksResponse = z
  .object({
    hooks: z.array(HookSchema).meta({ description: 'Newest first.' }),
    next_cursor: z.string().nullable(),
    has_more: z.boolean(),
  })
  .meta({ id: 'HookList' });

export const HookEventAccepted = z
  .object({ workflow_request_id: z.uuid().meta({ description: 'The request the event started; the same for every delivery of one `webhook-id`.' }) })
  .meta({ id: 'HookEventAccepted' });

/** What every route on one hook by id answers when it is not the caller's to see. */
export const HOOK_NOT_FOUND = "No such hook, a malformed id, or another account's (indistinguishable, `not_found`).";

/** A concurrent delivery of the same webhook-id has claimed it and not answered yet. */
export const EVENT_IN_FLIGHT = {
  description: 'A delivery of the same `webhook-id` is starting its request and has not answered within 10 seconds (`webhook_in_flight`); retry.',
  headers: retryAfter('always `1`'),
};
