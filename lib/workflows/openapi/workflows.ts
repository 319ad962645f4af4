import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import type { Common } from '#platform/openapi/common.js';
import { CreateChatBody } from '../schemas/chats.js';
import { CreateVersionBody } from '../schemas/workflow-versions.js';
import { CreateWorkflowBody, ListWorkflowsQuery } from '../schemas/workflows.js';
import { ChatSchema } from './chats-responses.js';
import { EntryNodesResponse, WorkflowVersionSchema } from './workflow-versions-responses.js';
import { ListWorkflowsResponse, WorkflowSchema } from './workflows-responses.js';

const idParam = (description: string) => z.object({ id: z.string().meta({ description }) });
const workflowId = idParam('The workflow id. A malformed, unknown or other account’s id answers the same 404.');

const json = (description: string, schema: z.ZodType) => ({ description, content: { 'application/json': { schema } } });

export function registerWorkflowPaths(registry: OpenAPIRegistry, common: Common): void {
  const unauthorized = common.problems.unauthorized('Missing, malformed, expired or revoked token (`unauthorized`).');
  const forbidden = common.problems.suspended;
  const internal = common.problems.internal;
  const badBody = common.problem(
    'Body is not JSON (`invalid_json`), not an object (`invalid_body`), or has unknown fields (`unknown_field`, with a pointer per field).',
  );

  registry.registerPath({
    method: 'post',
    path: '/v1/workflows',
    operationId: 'createWorkflow',
    summary: 'Create a workflow',
    description: 'The workflow has no version until one is created (`latest_version_id` null).',
    tags: ['Workflows'],
    security: common.bearer,
    request: { body: { content: { 'application/json': { schema: CreateWorkflowBody } } } },
    responses: {
      201: json('The workflow.', WorkflowSchema),
      400: badBody,
      401: unauthorized,
      403: forbidden,
      422: common.problem('A field is missing or malformed (`validation_failed`).'),
      500: internal,
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/workflows',
    operationId: 'listWorkflows',
    summary: 'List or search workflows',
    description:
      'Newest first, paged with `limit` and `cursor`. `search` keeps the workflows whose name contains it, ignoring case; a cursor is only valid under the `search` it was issued for (otherwise 400 `cursor_filter_mismatch`). A sparse search may answer a short (even empty) page with `has_more` true: follow `next_cursor`.',
    tags: ['Workflows'],
    security: common.bearer,
    request: { query: ListWorkflowsQuery },
    responses: {
      200: json('A page of workflows.', ListWorkflowsResponse),
      400: common.problem('`invalid_parameter`, `cursor_invalid` or `cursor_filter_mismatch`.'),
      401: unauthorized,
      403: forbidden,
      500: internal,
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/workflows/{id}',
    operationId: 'getWorkflow',
    summary: 'Get a workflow',
    tags: ['Workflows'],
    security: common.bearer,
    request: { params: workflowId },
    responses: {
      200: json('The workflow.', WorkflowSchema),
      401: unauthorized,
      403: forbidden,
      404: common.problem('No such workflow (`not_found`).'),
      500: internal,
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/v1/workflows/{id}/versions',
    operationId: 'createWorkflowVersion',
    summary: 'Create a workflow version',
    description: [
      'Stores an immutable version numbered 1, 2, 3… per workflow and makes it the latest. The definition is a directed acyclic graph `{nodes, edges}`.',
      'Nodes without an `id` get a UUID. An edge’s `from` and `to` name a node by its id or by its name (names are unique within a definition; a string that is both an id and a name means the id); the stored edges carry ids.',
      'Every fault is one `errors` entry of a 422 `validation_failed`, named by a JSON Pointer into this body, with these codes: `duplicate_id`, `duplicate_name` (`/definition/nodes/i/id|name`); `unknown_type` (`/definition/nodes/i/type`); a config that does not fit its node type, with zod’s codes, `required` and `unknown_field` (`/definition/nodes/i/config/...`); `invalid_expression` for JSONata that does not compile (`/definition/nodes/i/config/expression`, `/definition/edges/j/when`); `unknown_node` (`/definition/edges/j/from|to`); `self_loop`, `duplicate_edge` and `cycle` (the edge that closes the cycle, `/definition/edges/j`); `when_not_allowed` (`when` on an edge that does not leave a `condition` node); `no_entry_node` (`/definition/nodes`); `too_large` (`/definition`); and for `workflow` nodes, `not_found` (`.../config/workflow_version_id`, not a version of this account) and `unknown_node` (`.../config/entry_node_ids/k`).',
    ].join('\n\n'),
    tags: ['Workflows'],
    security: common.bearer,
    request: { params: workflowId, body: { content: { 'application/json': { schema: CreateVersionBody } } } },
    responses: {
      201: json('The version.', WorkflowVersionSchema),
      400: badBody,
      401: unauthorized,
      403: forbidden,
      404: common.problem('No such workflow (`not_found`).'),
      409: common.problem('`version_conflict`: too many versions of this workflow were being created at once; retry.'),
      422: common.problem('The definition is not valid (`validation_failed`, one entry per fault).'),
      500: internal,
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/workflows/{id}/versions/latest',
    operationId: 'getLatestWorkflowVersion',
    summary: 'Get the latest version of a workflow',
    tags: ['Workflows'],
    security: common.bearer,
    request: { params: workflowId },
    responses: {
      200: json('The version with the highest number.', WorkflowVersionSchema),
      401: unauthorized,
      403: forbidden,
      404: common.problem('No such workflow, or it has no version yet (`not_found`).'),
      500: internal,
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/workflows/{id}/entry-nodes',
    operationId: 'getWorkflowEntryNodes',
    summary: 'Entry nodes of a workflow version',
    description:
      'Here `id` is a workflow **version** id (the specification’s `{versionId}`): API Gateway requires one parameter name per path segment, so the route names it `{id}`. Entry nodes are the nodes with no incoming edge, in node order.',
    tags: ['Workflows'],
    security: common.bearer,
    request: { params: idParam('A workflow version id. A malformed, unknown or other account’s id answers the same 404.') },
    responses: {
      200: json('The entry nodes.', EntryNodesResponse),
      401: unauthorized,
      403: forbidden,
      404: common.problem('No such workflow version (`not_found`).'),
      500: internal,
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/v1/chats',
    operationId: 'createChat',
    summary: 'Create a chat',
    description: 'The chat id is the context memory id. `machine_id` stays null until the chat’s first run binds it to a machine.',
    tags: ['Chats'],
    security: common.bearer,
    request: { body: { content: { 'application/json': { schema: CreateChatBody } } } },
    responses: {
      201: json('The chat.', ChatSchema),
      400: badBody,
      401: unauthorized,
      403: forbidden,
      422: common.problem(
        'A field is malformed, or `workflow_id` is not a workflow of this account (`validation_failed` naming `/workflow_id`; unknown and foreign ids answer alike).',
      ),
      500: internal,
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/chats/{id}',
    operationId: 'getChat',
    summary: 'Get a chat',
    tags: ['Chats'],
    security: common.bearer,
    request: { params: idParam('The chat id. A malformed, unknown or other account’s id answers the same 404.') },
    responses: {
      200: json('The chat.', ChatSchema),
      401: unauthorized,
      403: forbidden,
      404: common.problem('No such chat (`not_found`).'),
      500: internal,
    },
  });
}
