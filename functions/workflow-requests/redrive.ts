import { bearerAuth } from '#accounts/bearer-auth.js';
import { ownedRequest } from '#execution/access.js';
import { WorkflowRequestsRedrive } from '#execution/contracts/workflow-requests-redrive.js';
import { enqueueNodeTasks } from '#execution/node-queue.js';
import { type RedriveDeps, redriveForCaller } from '#execution/redrive.js';
import { requestView } from '#execution/views.js';
import { workflowRequests } from '#execution/workflow-requests.js';
import { httpHandler } from '#platform/http/handler.js';
import { runIdempotent } from '#platform/http/idempotency.js';
import { json } from '#platform/http/responses.js';
import { type UsageMeter, usageMeter } from '#usage/index.js';
import { webhookNotices } from '#webhooks/index.js';
import { workflowsRepo } from '#workflows/workflows-repository.js';

/** Runs a failed or stopped request again from where it ended; an Idempotency-Key, when sent, makes retries safe. */
export const makeHandler = (
  deps: RedriveDeps = { requests: workflowRequests(), versions: workflowsRepo(), enqueue: enqueueNodeTasks, webhooks: webhookNotices() },
  usage: Pick<UsageMeter, 'admit'> = usageMeter(),
) =>
  httpHandler(WorkflowRequestsRedrive, { auth: bearerAuth(), idempotency: runIdempotent }, async ({ principal, params }) => {
    const request = await ownedRequest(deps.requests, principal.accountId, params.id);
    return json(200, requestView(await redriveForCaller(deps, usage, request, principal.limits)));
  });

export const handler = makeHandler();
