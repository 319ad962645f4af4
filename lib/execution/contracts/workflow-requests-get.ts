import { defineEndpoint } from '#platform/http/contract.js';
import { RequestIdParams } from './params.js';
import { WORKFLOW_REQUESTS_TAG } from './tags.js';

export const WorkflowRequestsGet = defineEndpoint({
  id: 'WorkflowRequestsGet',
  method: 'GET',
  path: '/v1/workflow-requests/{id}',
  handler: 'functions/workflow-requests/get.ts',
  auth: 'bearer',
  params: RequestIdParams,
  table: 'read',
  operationId: 'getWorkflowRequest',
  summary: 'A workflow request',
  description:
    'The request as it is now: its status, what its node executions used so far (`usage`), and its `error` once failed. Its node executions are in `GET /v1/workflow-requests/{id}/tree`, live in `GET /v1/workflow-requests/{id}/listen`.',
  tags: [WORKFLOW_REQUESTS_TAG],
  responses: () =>
    import('../openapi/workflow-requests-responses.js').then(({ WorkflowRequestSchema, REQUEST_NOT_FOUND }) => ({
      200: { description: 'The request.', schema: WorkflowRequestSchema },
      404: REQUEST_NOT_FOUND,
    })),
});
