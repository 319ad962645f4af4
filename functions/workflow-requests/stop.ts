import { type InteractionsRepo, interactionsRepo } from '../../lib/data/interactions.js';
import { type WorkflowRequestsRepo, workflowRequestsRepo } from '../../lib/data/workflow-requests.js';
import { ownedRequest } from '../../lib/engine/access.js';
import { finishRequest } from '../../lib/engine/finish.js';
import { type EnqueueNodeTasks, enqueueNodeTasks } from '../../lib/engine/node-queue.js';
import { requestView } from '../../lib/engine/views.js';
import { bearerAuth } from '../../lib/http/bearer-auth.js';
import { httpHandler } from '../../lib/http/handler.js';
import { json } from '../../lib/http/responses.js';

/** Stops the request and its open nodes; a terminal request comes back unchanged. Idempotent. */
export const makeHandler = (
  deps: { requests: WorkflowRequestsRepo; interactions: InteractionsRepo; enqueue: EnqueueNodeTasks } = {
    requests: workflowRequestsRepo(),
    interactions: interactionsRepo(),
    enqueue: enqueueNodeTasks,
  },
) =>
  httpHandler({ auth: bearerAuth() }, async ({ principal, params }) => {
    const request = await ownedRequest(deps.requests, principal.accountId, params.id);
    const stopped = await finishRequest(deps, request.id, 'stopped', null);
    return json(200, requestView(stopped ?? (await deps.requests.get(request.id)) ?? request));
  });

export const handler = makeHandler();
