import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';
import { WorkflowVersionsLatest } from '#workflows/contracts/workflow-versions-latest.js';
import { latestVersion, versionView } from '#workflows/workflows.js';
import { type WorkflowsRepo, workflowsRepo } from '#workflows/workflows-repository.js';

/** GET /v1/workflows/{id}/versions/latest: 404 also when the workflow has no version yet. */
export const makeHandler = (deps: { tokens: TokensRepo; workflows: WorkflowsRepo } = { tokens: tokensRepo(), workflows: workflowsRepo() }) =>
  httpHandler(WorkflowVersionsLatest, { auth: bearerAuth(deps.tokens) }, async ({ principal, params }) => {
    const version = await latestVersion(deps.workflows, principal.accountId, params.id ?? '');
    return json(200, versionView(version));
  });

export const handler = makeHandler();
