import * as z from 'zod';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '#platform/config/limits.js';
import { limitParam } from '#platform/http/common-schemas.js';
import { INTERACTION_STATUSES } from './model.js';

export const RespondBody = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('approval'), approved: z.boolean() }),
    z.strictObject({ type: z.literal('answer'), text: z.string().min(1).max(100_000) }),
  ])
  .meta({ id: 'InteractionResponse' });

export const ListInteractionsQuery = z.object({
  run_id: z.string().min(1).optional(),
  workflow_request_id: z.uuid().optional(),
  status: z.enum(INTERACTION_STATUSES).optional(),
  limit: limitParam(LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT),
  cursor: z.string().min(1).optional(),
});
