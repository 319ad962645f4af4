import { bearerAuth } from '#accounts/bearer-auth.js';
import { WorkflowRequestsRun } from '#execution/contracts/workflow-requests-run.js';
import { enqueueNodeTasks } from '#execution/node-queue.js';
import { type StartDeps, startRequest } from '#execution/start.js';
import { workflowRequests } from '#execution/workflow-requests.js';
import { httpHandler } from '#platform/http/handler.js';
import { runIdempotent } from '#platform/http/idempotency.js';
import { json } from '#platform/http/responses.js';
import { type UsageMeter, usageMeter } from '#usage/index.js';
import { webhookNotices } from '#webhooks/index.js';
import { chatsRepo } from '#workflows/chats-repository.js';
import { workflowsRepo } from '#workflows/workflows-repository.js';

/**
 * Starts a workflow request, when its usage is funded (a full window: 429
 * with the quota document, or 403 below the minimum balance) and within the
 * account's ceiling of work in progress; an Idempotency-Key, when sent, makes retries safe.
 */
export const makeHandler = (
  deps: StartDeps = { requests: workflowRequests(), versions: workflowsRepo(), chats: chatsRepo(), enqueue: enqueueNodeTasks, webhooks: webhookNotices() },
  usage: Pick<UsageMeter, 'admit'> = usageMeter(),
) =>
  httpHandler(WorkflowRequestsRun, { auth: bearerAuth(), idempotency: runIdempotent }, async ({ principal, body }) => {
    await usage.admit(principal.accountId);
    const request = await startRequest(deps, principal.accountId, body, undefined, principal.limits);
    return json(202, { workflow_request_id: request.id, status: request.status });
  });

export const handler = makeHandler();
