import { defineEndpoint } from '#platform/http/contract.js';
import { ListWorkflowRequestsQuery } from '../schemas/workflow-requests.js';
import { WORKFLOW_REQUESTS_TAG } from './tags.js';

export const WorkflowRequestsList = defineEndpoint({
  id: 'WorkflowRequestsList',
  method: 'GET',
  path: '/v1/workflow-requests',
  handler: 'functions/workflow-requests/list.ts',
  auth: 'bearer',
  query: ListWorkflowRequestsQuery,
  table: 'read',
  serviceKey: true,
  operationId: 'listWorkflowRequests',
  summary: 'History of workflow requests, newest first',
  description:
    'The account’s workflow requests, newest first, optionally only those of a chat (`chat_id`), of a workflow (`workflow_id`) or in one `status`, paged with `limit` (1 to 100, default 20) and `cursor`; a cursor used with other filters is 400 `cursor_filter_mismatch`.',
  tags: [WORKFLOW_REQUESTS_TAG],
  responses: () =>
    import('../openapi/workflow-requests-responses.js').then(({ WorkflowRequestList }) => ({
      200: { description: 'A page.', schema: WorkflowRequestList },
      400: 'A bad parameter or cursor (`invalid_parameter`, `cursor_invalid`; `cursor_filter_mismatch` when filters changed).',
    })),
});
