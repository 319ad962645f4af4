import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import type { Common } from '#platform/openapi/common.js';
import { ListWorkflowRequestsQuery, RunWorkflowBody } from '../schemas/workflow-requests.js';
import { ExecutionTreeSchema, RunWorkflowResponse, WorkflowRequestList, WorkflowRequestSchema } from './workflow-requests-responses.js';

const idParam = z.object({ id: z.uuid() });

export function registerWorkflowRequestPaths(registry: OpenAPIRegistry, common: Common): void {
  const notFound = common.problem("No such request, a malformed id, or another account's (indistinguishable, `not_found`).");
  const { suspended, internal } = common.problems;
  const unauthorized = common.problems.unauthorized('Missing, malformed, expired or revoked token (`unauthorized`).');
  /** What every route on one request by id answers besides its success. */
  const byIdErrors = { 401: unauthorized, 403: suspended, 404: notFound, 500: internal };
  const tags = ['Workflow requests'];
  registry.registerPath({
    method: 'post',
    path: '/v1/workflow-requests/run',
    operationId: 'runWorkflow',
    summary: 'Run a workflow version',
    description:
      'Creates a workflow request (`pending`) with one node execution per node and queues the chosen entry nodes. Nodes run on SQS workers as they become ready. An `Idempotency-Key` header is optional here; with one, retries return the first answer with `Idempotency-Replayed: true`. Node types that cannot run yet, unconfigured model providers and agent tools are refused with 422 before anything starts.',
    tags,
    security: common.bearer,
    request: {
      headers: z.object({ 'Idempotency-Key': z.string().min(1).max(255).optional() }),
      body: { content: { 'application/json': { schema: RunWorkflowBody } } },
    },
    responses: {
      202: {
        description: 'Started.',
        headers: common.headers.idempotencyReplayed,
        content: { 'application/json': { schema: RunWorkflowResponse } },
      },
      400: common.problem(
        'Not JSON, not an object, an unknown field (`invalid_json`, `invalid_body`, `unknown_field`), or a malformed Idempotency-Key (`idempotency_key_invalid`).',
      ),
      401: unauthorized,
      403: suspended,
      409: common.problem(
        'Idempotency-Key reused with another body (`idempotency_key_conflict`), or still in flight (`idempotency_key_in_flight`, with `Retry-After`).',
        common.headers.retryAfter('sent with `idempotency_key_in_flight` (`1`)'),
      ),
      422: common.problem('A field is missing or malformed, or refers to something unusable (`validation_failed`; `errors` name it).'),
      500: internal,
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/workflow-requests',
    operationId: 'listWorkflowRequests',
    summary: 'History of workflow requests, newest first',
    tags,
    security: common.bearer,
    request: { query: ListWorkflowRequestsQuery },
    responses: {
      200: { description: 'A page.', content: { 'application/json': { schema: WorkflowRequestList } } },
      400: common.problem('A bad parameter or cursor (`invalid_parameter`, `cursor_invalid`; `cursor_filter_mismatch` when filters changed).'),
      401: unauthorized,
      403: suspended,
      500: internal,
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/workflow-requests/{id}',
    operationId: 'getWorkflowRequest',
    summary: 'A workflow request',
    tags,
    security: common.bearer,
    request: { params: idParam },
    responses: {
      200: { description: 'The request.', content: { 'application/json': { schema: WorkflowRequestSchema } } },
      ...byIdErrors,
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/workflow-requests/{id}/tree',
    operationId: 'getExecutionTree',
    summary: 'The execution tree',
    description: 'The request, its node executions, and the trees of its child requests.',
    tags,
    security: common.bearer,
    request: { params: idParam },
    responses: {
      200: { description: 'The tree.', content: { 'application/json': { schema: ExecutionTreeSchema } } },
      ...byIdErrors,
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/v1/workflow-requests/{id}/stop',
    operationId: 'stopWorkflowRequest',
    summary: 'Stop a workflow request',
    description: 'Stops the request and every node still open. A terminal request comes back unchanged (200). Idempotent.',
    tags,
    security: common.bearer,
    request: { params: idParam },
    responses: {
      200: { description: 'The request.', content: { 'application/json': { schema: WorkflowRequestSchema } } },
      ...byIdErrors,
    },
  });
}
