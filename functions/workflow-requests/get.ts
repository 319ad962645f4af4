import { type WorkflowRequestsRepo, workflowRequestsRepo } from '../../lib/data/workflow-requests.js';
import { ownedRequest } from '../../lib/engine/access.js';
import { requestView } from '../../lib/engine/views.js';
import { bearerAuth } from '../../lib/http/bearer-auth.js';
import { httpHandler } from '../../lib/http/handler.js';
import { json } from '../../lib/http/responses.js';

export const makeHandler = (deps: { requests: WorkflowRequestsRepo } = { requests: workflowRequestsRepo() }) =>
  httpHandler({ auth: bearerAuth() }, async ({ principal, params }) =>
    json(200, requestView(await ownedRequest(deps.requests, principal.accountId, params.id))),
  );

export const handler = makeHandler();
