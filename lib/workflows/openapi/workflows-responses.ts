import * as z from 'zod';

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

export const ListWorkflowsResponse = z
  .object({
    workflows: z.array(WorkflowSchema).meta({ description: 'Newest first.' }),
    next_cursor: z.string().nullable(),
    has_more: z.boolean(),
    limit: z.number().int(),
  })
  .meta({ id: 'WorkflowList' });
