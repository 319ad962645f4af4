import * as z from 'zod';
import { INTERACTION_STATUSES } from '../model.js';

export const InteractionSchema = z
  .object({
    id: z.uuid(),
    type: z.enum(['approval', 'answer']),
    status: z.enum(INTERACTION_STATUSES),
    prompt: z.string().nullable(),
    run_id: z.string().nullable(),
    workflow_request_id: z.uuid().nullable(),
    node_execution_id: z.uuid().nullable(),
    response: z.record(z.string(), z.unknown()).nullable(),
    created_at: z.string(),
    resolved_at: z.string().nullable(),
    expires_at: z.string().nullable().meta({
      description:
        'A run’s interaction can be answered until then (24 hours after it opened, RUN_INTERACTION_TIMEOUT_SECONDS); after it, it is `expired` and its run fails with `timeout`. Null for approval nodes of workflow requests, which wait as long as it takes.',
    }),
  })
  .meta({ id: 'Interaction' });

export const InteractionList = z
  .object({ data: z.array(InteractionSchema), page: z.object({ has_more: z.boolean(), next_cursor: z.string().nullable() }) })
  .meta({ id: 'InteractionList' });

/** What every route on one interaction by id answers when it is not the caller's to see. */
export const INTERACTION_NOT_FOUND = "No such interaction, a malformed id, or another account's (indistinguishable, `not_found`).";
