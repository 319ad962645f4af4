import { defineEndpoint } from '#platform/http/contract.js';
import { WorkflowIdParams } from './params.js';
import { WORKFLOWS_TAG } from './tags.js';

export const WorkflowVersionsLatest = defineEndpoint({
  id: 'WorkflowVersionsLatest',
  method: 'GET',
  path: '/v1/workflows/{id}/versions/latest',
  handler: 'functions/workflows/latest-version.ts',
  auth: 'bearer',
  params: WorkflowIdParams,
  table: 'read',
  operationId: 'getLatestWorkflowVersion',
  summary: 'Get the latest version of a workflow',
  description:
    'The version with the highest number: its definition as stored (every node with its id, its config with the defaults applied; edges by node id) and its entry nodes.',
  tags: [WORKFLOWS_TAG],
  responses: () =>
    import('../openapi/workflow-versions-responses.js').then(({ WorkflowVersionSchema }) => ({
      200: { description: 'The version with the highest number.', schema: WorkflowVersionSchema },
      404: 'No such workflow, or it has no version yet (`not_found`).',
    })),
});
