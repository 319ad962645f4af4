import { type TokensRepo, tokensRepo } from '../../lib/data/tokens.js';
import { type WorkflowsRepo, workflowsRepo } from '../../lib/data/workflows.js';
import { latestVersion, versionView } from '../../lib/domain/workflows.js';
import { bearerAuth } from '../../lib/http/bearer-auth.js';
import { httpHandler } from '../../lib/http/handler.js';
import { json } from '../../lib/http/responses.js';

/** GET /v1/workflows/{id}/versions/latest: 404 also when the workflow has no version yet. */
export const makeHandler = (deps: { tokens: TokensRepo; workflows: WorkflowsRepo } = { tokens: tokensRepo(), workflows: workflowsRepo() }) =>
  httpHandler({ auth: bearerAuth(deps.tokens) }, async ({ principal, params }) => {
    const version = await latestVersion(deps.workflows, principal.accountId, params.id ?? '');
    return json(200, versionView(version));
  });

export const handler = makeHandler();
