import { type TokensRepo, tokensRepo } from '../../lib/data/tokens.js';
import { type WorkflowsRepo, workflowsRepo } from '../../lib/data/workflows.js';
import { createWorkflow, workflowView } from '../../lib/domain/workflows.js';
import { bearerAuth } from '../../lib/http/bearer-auth.js';
import { httpHandler } from '../../lib/http/handler.js';
import { json } from '../../lib/http/responses.js';
import { CreateWorkflowBody } from '../../lib/schemas/workflows.js';

/** POST /v1/workflows: a workflow with no version yet. */
export const makeHandler = (deps: { tokens: TokensRepo; workflows: WorkflowsRepo } = { tokens: tokensRepo(), workflows: workflowsRepo() }) =>
  httpHandler({ auth: bearerAuth(deps.tokens), body: CreateWorkflowBody }, async ({ principal, body }) => {
    const workflow = await createWorkflow(deps.workflows, principal.accountId, body);
    return json(201, workflowView(workflow));
  });

export const handler = makeHandler();
