import { defineEndpoint } from '#platform/http/contract.js';
import { CreateVersionBody } from '../schemas/workflow-versions.js';
import { WorkflowIdParams } from './params.js';
import { WORKFLOWS_TAG } from './tags.js';

export const WorkflowVersionsCreate = defineEndpoint({
  id: 'WorkflowVersionsCreate',
  method: 'POST',
  path: '/v1/workflows/{id}/versions',
  handler: 'functions/workflows/create-version.ts',
  auth: 'bearer',
  params: WorkflowIdParams,
  body: CreateVersionBody,
  table: 'readwrite',
  operationId: 'createWorkflowVersion',
  summary: 'Create a workflow version',
  description: [
    'Stores an immutable version numbered 1, 2, 3… per workflow and makes it the latest. The definition is a directed acyclic graph `{nodes, edges}`.',
    'Nodes without an `id` get a UUID. An edge’s `from` and `to` name a node by its id or by its name (names are unique within a definition; a string that is both an id and a name means the id); the stored edges carry ids.',
    'Every fault is one `errors` entry of a 422 `validation_failed`, named by a JSON Pointer into this body, with these codes: `duplicate_id`, `duplicate_name` (`/definition/nodes/i/id|name`); `unknown_type` (`/definition/nodes/i/type`); a config that does not fit its node type, with zod’s codes, `required` and `unknown_field` (`/definition/nodes/i/config/...`); `too_deep` for a config nesting objects and arrays deeper than the limit (`/definition/nodes/i/config`); `invalid_expression` for JSONata that does not compile (`/definition/nodes/i/config/expression`, `/definition/edges/j/when`); `unknown_node` (`/definition/edges/j/from|to`); `self_loop`, `duplicate_edge` and `cycle` (the edge that closes the cycle, `/definition/edges/j`); `when_not_allowed` (`when` on an edge that does not leave a `condition` node); `no_entry_node` (`/definition/nodes`); `too_large` (`/definition`); and for `workflow` nodes, `not_found` (`.../config/workflow_version_id`, not a version of this account) and `unknown_node` (`.../config/entry_node_ids/k`).',
  ].join('\n\n'),
  tags: [WORKFLOWS_TAG],
  responses: () =>
    import('../openapi/workflow-versions-responses.js').then(({ WorkflowVersionSchema }) => ({
      201: { description: 'The version.', schema: WorkflowVersionSchema },
      404: 'No such workflow (`not_found`).',
      409: 'Too many versions of this workflow were being created at once (`version_conflict`); retry.',
      422: 'The definition is not valid (`validation_failed`, one entry per fault).',
    })),
});
