import { type WorkflowRequestsRepo, workflowRequestsRepo } from '../../lib/data/workflow-requests.js';
import { ownedRequest } from '../../lib/engine/access.js';
import { executionTree } from '../../lib/engine/tree.js';
import { bearerAuth } from '../../lib/http/bearer-auth.js';
import { httpHandler } from '../../lib/http/handler.js';
import { json } from '../../lib/http/responses.js';

export const makeHandler = (deps: { requests: WorkflowRequestsRepo } = { requests: workflowRequestsRepo() }) =>
  httpHandler({ auth: bearerAuth() }, async ({ principal, params }) => {
    const request = await ownedRequest(deps.requests, principal.accountId, params.id);
    return json(200, await executionTree(deps.requests, request));
  });

export const handler = makeHandler();
