import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';
import { WorkflowsGet } from '#workflows/contracts/workflows-get.js';
import { findWorkflow, workflowView } from '#workflows/workflows.js';
import { type WorkflowsRepo, workflowsRepo } from '#workflows/workflows-repository.js';

/** GET /v1/workflows/{id}: malformed, unknown and other accounts' ids are the same 404. */
export const makeHandler = (deps: { tokens: TokensRepo; workflows: WorkflowsRepo } = { tokens: tokensRepo(), workflows: workflowsRepo() }) =>
  httpHandler(WorkflowsGet, { auth: bearerAuth(deps.tokens) }, async ({ principal, params }) => {
    const workflow = await findWorkflow(deps.workflows, principal.accountId, params.id ?? '');
    return json(200, workflowView(workflow));
  });

export const handler = makeHandler();
