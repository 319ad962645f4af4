import { defineEndpoint } from '#platform/http/contract.js';
import { RequestIdParams } from './params.js';
import { WORKFLOW_REQUESTS_TAG } from './tags.js';

export const WorkflowRequestsRedrive = defineEndpoint({
  id: 'WorkflowRequestsRedrive',
  method: 'POST',
  path: '/v1/workflow-requests/{id}/redrive',
  handler: 'functions/workflow-requests/redrive.ts',
  auth: 'bearer',
  params: RequestIdParams,
  idempotency: 'optional',
  table: 'readwrite',
  sends: true,
  operationId: 'redriveWorkflowRequest',
  summary: 'Redrive a failed or stopped workflow request',
  description:
    'Runs a `failed` or `stopped` request again from where it ended and answers it `in_progress` with `redrive_count` raised by one. Its nodes that ended `failed` or `stopped`, and those that never ran because of them, get new node executions (new ids; `attempt_count` goes on from the earlier attempts) and run again; `completed` and `skipped` nodes keep their executions and outputs and do not run again. A `workflow` node that runs again redrives the child request its earlier execution started. The replaced executions stay in `GET /v1/workflow-requests/{id}/tree` (`redriven_node_executions`). `GET /v1/workflow-requests/{id}/listen` streams the new executions and closes at the new end, which is announced to webhooks (`workflow_request.*`) like the first. Checked as at creation: the usage windows and funding, and a slot of the account’s work in progress; usage, daily activity and the wallet count only what runs again. Of two redrives at once, one runs it and the other answers 409. An `Idempotency-Key` header is optional; with one, retries return the first answer with `Idempotency-Replayed: true`.',
  tags: [WORKFLOW_REQUESTS_TAG],
  responses: () =>
    Promise.all([import('../openapi/workflow-requests-responses.js'), import('#usage/openapi/usage-responses.js')]).then(
      ([{ WorkflowRequestSchema, REQUEST_NOT_FOUND, REQUEST_NOT_REDRIVABLE }, { USAGE_REFUSALS }]) => ({
        200: { description: 'Redriven: the request, `in_progress`, its `redrive_count` raised by one.', schema: WorkflowRequestSchema },
        400: 'A malformed Idempotency-Key (`idempotency_key_invalid`).',
        403: 'A usage window is full, extra usage would pay, and the balance is below the minimum of 2.00 USD (`insufficient_balance`).',
        404: REQUEST_NOT_FOUND,
        409: REQUEST_NOT_REDRIVABLE,
        ...USAGE_REFUSALS,
      }),
    ),
});
