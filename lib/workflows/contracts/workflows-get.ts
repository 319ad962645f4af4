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
  description: 'The workflow, with the id of its latest version (`latest_version_id`, null before the first).',
  tags: [WORKFLOWS_TAG],
  responses: () =>
    import('../openapi/workflows-responses.js').then(({ WorkflowSchema }) => ({
      200: { description: 'The workflow.', schema: WorkflowSchema },
      404: 'No such workflow (`not_found`).',
    })),
});
