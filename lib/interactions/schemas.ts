import * as z from 'zod';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '#platform/config/limits.js';
import { limitParam, withExample } from '#platform/http/common-schemas.js';
import { INTERACTION_STATUSES } from './model.js';

export const RespondBody = withExample(
  z
    .discriminatedUnion('type', [
      z
        .strictObject({ type: z.literal('approval'), approved: z.boolean() })
        .meta({ id: 'ApprovalResponse', description: 'Approves or rejects an `approval`.' }),
      z
        .strictObject({ type: z.literal('answer'), text: z.string().min(1).max(100_000) })
        .meta({ id: 'AnswerResponse', description: 'Answers the question of an `answer` (an `ask_user` call).' }),
    ])
    .meta({ id: 'InteractionResponse', description: 'Its `type` is the interaction’s (otherwise 422 `interaction_type_mismatch`).' }),
  { type: 'approval', approved: true },
);

export const ListInteractionsQuery = z.object({
  run_id: z.string().min(1).optional(),
  workflow_request_id: z.uuid().optional(),
  status: z.enum(INTERACTION_STATUSES).optional(),
  limit: limitParam(LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT),
  cursor: z.string().min(1).optional(),
});
