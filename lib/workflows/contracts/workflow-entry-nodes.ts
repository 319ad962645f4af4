import { defineEndpoint } from '#platform/http/contract.js';
import { WORKFLOWS_TAG } from './tags.js';

/** API Gateway wants one name per variable segment, so every `/v1/workflows/{…}` route says `{id}`; here it is a version id. */
export const WorkflowEntryNodes = defineEndpoint({
  id: 'WorkflowEntryNodes',
  method: 'GET',
  path: '/v1/workflows/{id}/entry-nodes',
  handler: 'functions/workflows/entry-nodes.ts',
  auth: 'bearer',
  params: { id: { description: 'A workflow version id. A malformed, unknown or other account’s id answers the same 404.' } },
  table: 'read',
  operationId: 'getWorkflowEntryNodes',
  summary: 'Entry nodes of a workflow version',
  description:
    'Here `id` is a workflow **version** id (the specification’s `{versionId}`): API Gateway requires one parameter name per path segment, so the route names it `{id}`. Entry nodes are the nodes with no incoming edge, in node order.',
  tags: [WORKFLOWS_TAG],
  responses: () =>
    import('../openapi/workflow-versions-responses.js').then(({ EntryNodesResponse }) => ({
      200: { description: 'The entry nodes.', schema: EntryNodesResponse },
      404: 'No such workflow version (`not_found`).',
    })),
});
