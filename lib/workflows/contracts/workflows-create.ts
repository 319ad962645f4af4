import { defineEndpoint } from '#platform/http/contract.js';
import { CreateWorkflowBody } from '../schemas/workflows.js';
import { WORKFLOWS_TAG } from './tags.js';

export const WorkflowsCreate = defineEndpoint({
  id: 'WorkflowsCreate',
  method: 'POST',
  path: '/v1/workflows',
  handler: 'functions/workflows/create.ts',
  auth: 'bearer',
  body: CreateWorkflowBody,
  table: 'readwrite',
  operationId: 'createWorkflow',
  summary: 'Create a workflow',
  description: 'The workflow has no version until one is created (`latest_version_id` null).',
  tags: [WORKFLOWS_TAG],
  responses: () =>
    import('../openapi/workflows-responses.js').then(({ WorkflowSchema }) => ({
      201: { description: 'The workflow.', schema: WorkflowSchema },
      422: 'A field is missing or malformed (`validation_failed`).',
    })),
});
