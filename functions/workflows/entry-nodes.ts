import { type TokensRepo, tokensRepo } from '../../lib/data/tokens.js';
import { type WorkflowsRepo, workflowsRepo } from '../../lib/data/workflows.js';
import { entryNodesView, findVersion } from '../../lib/domain/workflows.js';
import { bearerAuth } from '../../lib/http/bearer-auth.js';
import { httpHandler } from '../../lib/http/handler.js';
import { json } from '../../lib/http/responses.js';

/**
 * GET /v1/workflows/{id}/entry-nodes, where `id` is a workflow VERSION id
 * (the specification's `{versionId}`; the route names it `{id}` because API
 * Gateway wants one name per variable path segment).
 */
export const makeHandler = (deps: { tokens: TokensRepo; workflows: WorkflowsRepo } = { tokens: tokensRepo(), workflows: workflowsRepo() }) =>
  httpHandler({ auth: bearerAuth(deps.tokens) }, async ({ principal, params }) => {
    const version = await findVersion(deps.workflows, principal.accountId, params.id ?? '');
    return json(200, entryNodesView(version));
  });

export const handler = makeHandler();
