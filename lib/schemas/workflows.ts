import * as z from 'zod';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '../config/limits.js';
import { limitParam } from './common.js';

export const CreateWorkflowBody = z
  .strictObject({
    name: z.string().trim().min(1).max(200).meta({ description: 'Leading and trailing spaces are removed.' }),
    description: z.string().max(10_000).nullable().optional(),
  })
  .meta({ id: 'CreateWorkflowRequest' });

export const WorkflowSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    latest_version_id: z.uuid().nullable().meta({ description: 'Null until the first version is created.' }),
    created_at: z.string().datetime(),
    updated_at: z.string().datetime().meta({ description: 'Also moves when a version is created.' }),
  })
  .meta({ id: 'Workflow' });

export const ListWorkflowsQuery = z.object({
  search: z.string().max(200).optional().meta({ description: 'Only workflows whose name contains this, ignoring case. Empty means no filter.' }),
  limit: limitParam(LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT),
  cursor: z.string().min(1).optional().meta({ description: '`next_cursor` of the previous page, under the same `search`.' }),
});

export const ListWorkflowsResponse = z
  .object({
    workflows: z.array(WorkflowSchema).meta({ description: 'Newest first.' }),
    next_cursor: z.string().nullable(),
    has_more: z.boolean(),
    limit: z.number().int(),
  })
  .meta({ id: 'WorkflowList' });
