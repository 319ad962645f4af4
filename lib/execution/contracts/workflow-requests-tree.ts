import { defineEndpoint } from '#platform/http/contract.js';
import { RequestIdParams } from './params.js';
import { WORKFLOW_REQUESTS_TAG } from './tags.js';

export const WorkflowRequestsTree = defineEndpoint({
  id: 'WorkflowRequestsTree',
  method: 'GET',
  path: '/v1/workflow-requests/{id}/tree',
  handler: 'functions/workflow-requests/tree.ts',
  auth: 'bearer',
  params: RequestIdParams,
  table: 'read',
  operationId: 'getExecutionTree',
  summary: 'The execution tree',
  description: 'The request, its node executions, and the trees of its child requests.',
  tags: [WORKFLOW_REQUESTS_TAG],
  responses: () =>
    import('../openapi/workflow-requests-responses.js').then(({ ExecutionTreeSchema, REQUEST_NOT_FOUND }) => ({
      200: { description: 'The tree.', schema: ExecutionTreeSchema },
      404: REQUEST_NOT_FOUND,
    })),
});
