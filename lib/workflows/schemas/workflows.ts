import * as z from 'zod';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '#platform/config/limits.js';
import { limitParam, withExample } from '#platform/http/common-schemas.js';

export const CreateWorkflowBody = withExample(
  z
    .strictObject({
      name: z.string().trim().min(1).max(200).meta({ description: 'Leading and trailing spaces are removed.' }),
      description: z.string().max(10_000).nullable().optional(),
    })
    .meta({ id: 'CreateWorkflowRequest' }),
  { name: 'Triage support tickets', description: 'Classifies a ticket and pages on-call for urgent ones.' },
);

export const ListWorkflowsQuery = z.object({
  search: z.string().max(200).optional().meta({ description: 'Only workflows whose name contains this, ignoring case. Empty means no filter.' }),
  limit: limitParam(LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT),
  cursor: z.string().min(1).optional().meta({ description: '`next_cursor` of the previous page, under the same `search`.' }),
});
