import { defineEndpoint } from '#platform/http/contract.js';
import { RunWorkflowBody } from '../schemas/workflow-requests.js';
import { WORKFLOW_REQUESTS_TAG } from './tags.js';

export const WorkflowRequestsRun = defineEndpoint({
  id: 'WorkflowRequestsRun',
  method: 'POST',
  path: '/v1/workflow-requests/run',
  handler: 'functions/workflow-requests/run.ts',
  auth: 'bearer',
  body: RunWorkflowBody,
  idempotency: 'optional',
  table: 'readwrite',
  sends: true,
  operationId: 'runWorkflow',
  summary: 'Run a workflow version',
  description:
    'Creates a workflow request (`pending`) with one node execution per node and queues the chosen entry nodes. Nodes run on SQS workers as they become ready. An `Idempotency-Key` header is optional here; with one, retries return the first answer with `Idempotency-Replayed: true`. Node types that cannot run yet, unconfigured model providers and agent tools are refused with 422 before anything starts.',
  tags: [WORKFLOW_REQUESTS_TAG],
  responses: () =>
    Promise.all([import('../openapi/workflow-requests-responses.js'), import('#usage/openapi/usage-responses.js')]).then(
      ([{ RunWorkflowResponse }, { USAGE_REFUSALS }]) => ({
        202: { description: 'Started.', schema: RunWorkflowResponse },
        400: 'Not JSON, not an object, an unknown field (`invalid_json`, `invalid_body`, `unknown_field`), or a malformed Idempotency-Key (`idempotency_key_invalid`).',
        409: 'Idempotency-Key reused with another body (`idempotency_key_conflict`), or still in flight (`idempotency_key_in_flight`, with `Retry-After`).',
        422: 'A field is missing or malformed, or refers to something unusable (`validation_failed`; `errors` name it; `payload` or `metadata` nested too deep: code `too_deep`).',
        403: 'A usage window is full, extra usage would pay, and the balance is below the minimum of 2.00 USD (`insufficient_balance`).',
        ...USAGE_REFUSALS,
      }),
    ),
});
