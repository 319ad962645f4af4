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
  tags: [WORKFLOW_REQUESTS_TAG],
  responses: () =>
    import('../openapi/workflow-requests-responses.js').then(({ WorkflowRequestSchema, REQUEST_NOT_FOUND }) => ({
      200: { description: 'The request.', schema: WorkflowRequestSchema },
      404: REQUEST_NOT_FOUND,
    })),
});
