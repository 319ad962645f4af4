import { bearerAuth } from '#accounts/bearer-auth.js';
import { ownedRequest } from '#execution/access.js';
import { WorkflowRequestsTree } from '#execution/contracts/workflow-requests-tree.js';
import { executionTree } from '#execution/tree.js';
import { type WorkflowRequestsRepo, workflowRequestsRepo } from '#execution/workflow-requests-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';

export const makeHandler = (deps: { requests: WorkflowRequestsRepo } = { requests: workflowRequestsRepo() }) =>
  httpHandler(WorkflowRequestsTree, { auth: bearerAuth() }, async ({ principal, params }) => {
    const request = await ownedRequest(deps.requests, principal.accountId, params.id);
    return json(200, await executionTree(deps.requests, request));
  });

export const handler = makeHandler();
