import { type TokensRepo, tokensRepo } from '../../lib/data/tokens.js';
import { type WorkflowsRepo, workflowsRepo } from '../../lib/data/workflows.js';
import { findWorkflow, workflowView } from '../../lib/domain/workflows.js';
import { bearerAuth } from '../../lib/http/bearer-auth.js';
import { httpHandler } from '../../lib/http/handler.js';
import { json } from '../../lib/http/responses.js';

/** GET /v1/workflows/{id}: malformed, unknown and other accounts' ids are the same 404. */
export const makeHandler = (deps: { tokens: TokensRepo; workflows: WorkflowsRepo } = { tokens: tokensRepo(), workflows: workflowsRepo() }) =>
  httpHandler({ auth: bearerAuth(deps.tokens) }, async ({ principal, params }) => {
    const workflow = await findWorkflow(deps.workflows, principal.accountId, params.id ?? '');
    return json(200, workflowView(workflow));
  });

export const handler = makeHandler();
