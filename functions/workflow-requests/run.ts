import { chatsRepo } from '../../lib/data/chats.js';
import { workflowRequestsRepo } from '../../lib/data/workflow-requests.js';
import { workflowsRepo } from '../../lib/data/workflows.js';
import { enqueueNodeTasks } from '../../lib/engine/node-queue.js';
import { type StartDeps, startRequest } from '../../lib/engine/start.js';
import { bearerAuth } from '../../lib/http/bearer-auth.js';
import { httpHandler } from '../../lib/http/handler.js';
import { runIdempotent } from '../../lib/http/idempotency.js';
import { json } from '../../lib/http/responses.js';
import { RunWorkflowBody } from '../../lib/schemas/workflow-requests.js';

/** Starts a workflow request; an Idempotency-Key, when sent, makes retries safe. */
export const makeHandler = (deps: StartDeps = { requests: workflowRequestsRepo(), versions: workflowsRepo(), chats: chatsRepo(), enqueue: enqueueNodeTasks }) =>
  httpHandler({ auth: bearerAuth(), body: RunWorkflowBody, idempotency: runIdempotent, idempotencyKeyOptional: true }, async ({ principal, body }) => {
    const request = await startRequest(deps, principal.accountId, body);
    return json(202, { workflow_request_id: request.id, status: request.status });
  });

export const handler = makeHandler();
