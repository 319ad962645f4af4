import { defineEndpoint } from '#platform/http/contract.js';
import { RequestIdParams } from './params.js';
import { WORKFLOW_REQUESTS_TAG } from './tags.js';

export const WorkflowRequestsStop = defineEndpoint({
  id: 'WorkflowRequestsStop',
  method: 'POST',
  path: '/v1/workflow-requests/{id}/stop',
  handler: 'functions/workflow-requests/stop.ts',
  auth: 'bearer',
  params: RequestIdParams,
  table: 'readwrite',
  sends: true,
  operationId: 'stopWorkflowRequest',
  summary: 'Stop a workflow request',
  description: 'Stops the request and every node still open. A terminal request comes back unchanged (200). Idempotent.',
  tags: [WORKFLOW_REQUESTS_TAG],
  responses: () =>
    import('../openapi/workflow-requests-responses.js').then(({ WorkflowRequestSchema, REQUEST_NOT_FOUND }) => ({
      200: { description: 'The request.', schema: WorkflowRequestSchema },
      404: REQUEST_NOT_FOUND,
    })),
});
