import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import { ListWorkflowRequestsQuery, RunWorkflowBody } from '../../schemas/workflow-requests.js';
import { ExecutionTreeSchema, RunWorkflowResponse, WorkflowRequestList, WorkflowRequestSchema } from '../responses/workflow-requests.js';
import type { Common } from './common.js';

const idParam = z.object({ id: z.uuid() });

export function registerWorkflowRequestPaths(registry: OpenAPIRegistry, common: Common): void {
  const notFound = common.problem('No such request, a malformed id, or another account\'s (indistinguishable).');
  const unauthorized = common.problem('Missing, malformed, expired or revoked token.');
  registry.registerPath({
    method: 'post',
    path: '/v1/workflow-requests/run',
    operationId: 'runWorkflow',
    summary: 'Run a workflow version',
    description:
      'Creates a workflow request (`pending`) with one node execution per node and queues the chosen entry nodes. Nodes run on SQS workers as they become ready. An `Idempotency-Key` header is optional here; with one, retries return the first answer with `Idempotency-Replayed: true`. Node types that cannot run yet, unconfigured model providers and agent tools are refused with 422 before anything starts.',
    security: common.bearer,
    request: {
      headers: z.object({ 'Idempotency-Key': z.string().min(1).max(255).optional() }),
      body: { content: { 'application/json': { schema: RunWorkflowBody } } },
    },
    responses: {
      202: { description: 'Started.', content: { 'application/json': { schema: RunWorkflowResponse } } },
      400: common.problem('Not JSON, not an object, an unknown field, or a bad Idempotency-Key.'),
      401: unauthorized,
      409: common.problem('Idempotency-Key reused with another body, or still in flight.'),
      422: common.problem('A field is missing or malformed, or refers to something unusable (errors name it).'),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/workflow-requests',
    operationId: 'listWorkflowRequests',
    summary: 'History of workflow requests, newest first',
    security: common.bearer,
    request: { query: ListWorkflowRequestsQuery },
    responses: {
      200: { description: 'A page.', content: { 'application/json': { schema: WorkflowRequestList } } },
      400: common.problem('A bad parameter or cursor (cursor_filter_mismatch when filters changed).'),
      401: unauthorized,
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/workflow-requests/{id}',
    operationId: 'getWorkflowRequest',
    summary: 'A workflow request',
    security: common.bearer,
    request: { params: idParam },
    responses: { 200: { description: 'The request.', content: { 'application/json': { schema: WorkflowRequestSchema } } }, 401: unauthorized, 404: notFound },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/workflow-requests/{id}/tree',
    operationId: 'getExecutionTree',
    summary: 'The execution tree',
    description: 'The request, its node executions, and the trees of its child requests.',
    security: common.bearer,
    request: { params: idParam },
    responses: { 200: { description: 'The tree.', content: { 'application/json': { schema: ExecutionTreeSchema } } }, 401: unauthorized, 404: notFound },
  });
  registry.registerPath({
    method: 'post',
    path: '/v1/workflow-requests/{id}/stop',
    operationId: 'stopWorkflowRequest',
    summary: 'Stop a workflow request',
    description: 'Stops the request and every node still open. A terminal request comes back unchanged (200). Idempotent.',
    security: common.bearer,
    request: { params: idParam },
    responses: { 200: { description: 'The request.', content: { 'application/json': { schema: WorkflowRequestSchema } } }, 401: unauthorized, 404: notFound },
  });
}
