import { defineEndpoint } from '#platform/http/contract.js';
import { ListWorkflowsQuery } from '../schemas/workflows.js';
import { WORKFLOWS_TAG } from './tags.js';

export const WorkflowsList = defineEndpoint({
  id: 'WorkflowsList',
  method: 'GET',
  path: '/v1/workflows',
  handler: 'functions/workflows/list.ts',
  auth: 'bearer',
  query: ListWorkflowsQuery,
  table: 'read',
  serviceKey: true,
  operationId: 'listWorkflows',
  summary: 'List or search workflows',
  description:
    'Newest first, paged with `limit` and `cursor`. `search` keeps the workflows whose name contains it, ignoring case; a cursor is only valid under the `search` it was issued for (otherwise 400 `cursor_filter_mismatch`). A sparse search may answer a short (even empty) page with `has_more` true: follow `next_cursor`.',
  tags: [WORKFLOWS_TAG],
  responses: () =>
    import('../openapi/workflows-responses.js').then(({ ListWorkflowsResponse }) => ({
      200: { description: 'A page of workflows.', schema: ListWorkflowsResponse },
      400: 'A bad parameter or cursor (`invalid_parameter`, `cursor_invalid`, `cursor_filter_mismatch`).',
    })),
});
