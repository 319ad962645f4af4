import * as z from 'zod';
import { withExample } from '#platform/http/common-schemas.js';
import { v1Page } from '#platform/openapi/pagination.js';

export const WORKFLOW_ID_EXAMPLE = '2c4e6a80-1b3d-4f5a-8e7c-9d0b1a2c3e4f';

export const WorkflowSchema = withExample(
  z
    .object({
      id: z.uuid(),
      name: z.string(),
      description: z.string().nullable(),
      latest_version_id: z.uuid().nullable().meta({ description: 'Null until the first version is created.' }),
      created_at: z.string().datetime(),
      updated_at: z.string().datetime().meta({ description: 'Also moves when a version is created.' }),
    })
    .meta({ id: 'Workflow' }),
  {
    id: WORKFLOW_ID_EXAMPLE,
    name: 'Triage support tickets',
    description: 'Classifies a ticket and pages on-call for urgent ones.',
    latest_version_id: '9a3e5c71-2b4d-4e8f-8c1a-6d7e8f9a0b1c',
    created_at: '2026-01-30T16:12:00.000Z',
    updated_at: '2026-01-31T09:00:00.000Z',
  },
);

export const ListWorkflowsResponse = v1Page('workflows', WorkflowSchema, { id: 'WorkflowList', limit: true, itemsDescription: 'Newest first.' });
