import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';
import { WorkflowsCreate } from '#workflows/contracts/workflows-create.js';
import { createWorkflow, workflowView } from '#workflows/workflows.js';
import { type WorkflowsRepo, workflowsRepo } from '#workflows/workflows-repository.js';

/** POST /v1/workflows: a workflow with no version yet. */
export const makeHandler = (deps: { tokens: TokensRepo; workflows: WorkflowsRepo } = { tokens: tokensRepo(), workflows: workflowsRepo() }) =>
  httpHandler(WorkflowsCreate, { auth: bearerAuth(deps.tokens) }, async ({ principal, body }) => {
    const workflow = await createWorkflow(deps.workflows, principal.accountId, body);
    return json(201, workflowView(workflow));
  });

export const handler = makeHandler();
