import { defineEndpoint } from '#platform/http/contract.js';
import { WorkflowIdParams } from './params.js';
import { WORKFLOWS_TAG } from './tags.js';

export const WorkflowsGet = defineEndpoint({
  id: 'WorkflowsGet',
  method: 'GET',
  path: '/v1/workflows/{id}',
  handler: 'functions/workflows/get.ts',
  auth: 'bearer',
  params: WorkflowIdParams,
  table: 'read',
  operationId: 'getWorkflow',
  summary: 'Get a workflow',
  tags: [WORKFLOWS_TAG],
  responses: () =>
    import('../openapi/workflows-responses.js').then(({ WorkflowSchema }) => ({
      200: { description: 'The workflow.', schema: WorkflowSchema },
      404: 'No such workflow (`not_found`).',
    })),
});
