import { bearerAuth } from '#accounts/bearer-auth.js';
import { ownedRequest } from '#execution/access.js';
import { WorkflowRequestsGet } from '#execution/contracts/workflow-requests-get.js';
import { requestView } from '#execution/views.js';
import { type WorkflowRequestsRepo, workflowRequestsRepo } from '#execution/workflow-requests-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';

export const makeHandler = (deps: { requests: WorkflowRequestsRepo } = { requests: workflowRequestsRepo() }) =>
  httpHandler(WorkflowRequestsGet, { auth: bearerAuth() }, async ({ principal, params }) =>
    json(200, requestView(await ownedRequest(deps.requests, principal.accountId, params.id))),
  );

export const handler = makeHandler();
