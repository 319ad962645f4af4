import * as z from 'zod';
import { withExample } from '#platform/http/common-schemas.js';
import { v2Page } from '#platform/openapi/pagination.js';
import { INTERACTION_STATUSES } from '../model.js';

export const InteractionSchema = withExample(
  z
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
          'A run’s interaction can be answered until then (24 hours after it opened); after it, it is `expired` and its run fails with `timeout`. Null for approval nodes of workflow requests, which wait as long as it takes.',
      }),
    })
    .meta({ id: 'Interaction' }),
  {
    id: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
    type: 'approval',
    status: 'pending',
    prompt: 'The run asks to call the tool tickets__close with the arguments {"id":"SUP-1042"}. Allow it?',
    run_id: 'run_0mwvm6w71Qx3LhT0pV9sKe2bA',
    workflow_request_id: null,
    node_execution_id: null,
    response: null,
    created_at: '2026-01-31T09:30:03.000Z',
    resolved_at: null,
    expires_at: '2026-02-01T09:30:03.000Z',
  },
);

export const InteractionList = v2Page(InteractionSchema, { id: 'InteractionList', itemsDescription: 'Newest first.' });

/** What every route on one interaction by id answers when it is not the caller's to see. */
export const INTERACTION_NOT_FOUND = "No such interaction, a malformed id, or another account's (indistinguishable, `not_found`).";
