import { bearerAuth } from '#accounts/bearer-auth.js';
import { ownedRequest } from '#execution/access.js';
import { WorkflowRequestsStop } from '#execution/contracts/workflow-requests-stop.js';
import { announceEnded, finishRequest } from '#execution/finish.js';
import { type EnqueueNodeTasks, enqueueNodeTasks } from '#execution/node-queue.js';
import { requestView } from '#execution/views.js';
import { type WorkflowRequests, workflowRequests } from '#execution/workflow-requests.js';
import { type InteractionsRepo, interactionsRepo } from '#interactions/interactions-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';
import { type WebhookNotices, webhookNotices } from '#webhooks/index.js';

/** Stops the request and its open nodes; a terminal request comes back unchanged. Idempotent. */
export const makeHandler = (
  deps: { requests: WorkflowRequests; interactions: InteractionsRepo; enqueue: EnqueueNodeTasks; webhooks: WebhookNotices } = {
    requests: workflowRequests(),
    interactions: interactionsRepo(),
    enqueue: enqueueNodeTasks,
    webhooks: webhookNotices(),
  },
) =>
  httpHandler(WorkflowRequestsStop, { auth: bearerAuth() }, async ({ principal, params }) => {
    const request = await ownedRequest(deps.requests, principal.accountId, params.id);
    const stopped = await finishRequest(deps, request.id, 'stopped', null);
    const current = stopped ?? (await deps.requests.get(request.id)) ?? request;
    // A stop again: the first may have died between the end's transaction and its notice.
    if (!stopped && current.status === 'stopped') await announceEnded(deps, current);
    return json(200, requestView(current));
  });

export const handler = makeHandler();
