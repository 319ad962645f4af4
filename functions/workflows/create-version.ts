import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';
import { WorkflowVersionsCreate } from '#workflows/contracts/workflow-versions-create.js';
import { createVersion } from '#workflows/workflow-versions.js';
import { versionView } from '#workflows/workflows.js';
import { type WorkflowsRepo, workflowsRepo } from '#workflows/workflows-repository.js';

/**
 * POST /v1/workflows/{id}/versions: validates the graph (422 with a pointer
 * per fault) and stores it as the next immutable version, numbered 1, 2, 3…
 */
export const makeHandler = (deps: { tokens: TokensRepo; workflows: WorkflowsRepo } = { tokens: tokensRepo(), workflows: workflowsRepo() }) =>
  httpHandler(WorkflowVersionsCreate, { auth: bearerAuth(deps.tokens) }, async ({ principal, params, body }) => {
    const version = await createVersion(deps.workflows, principal.accountId, params.id ?? '', body);
    return json(201, versionView(version));
  });

export const handler = makeHandler();
