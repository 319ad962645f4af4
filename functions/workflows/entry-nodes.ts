import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';
import { WorkflowEntryNodes } from '#workflows/contracts/workflow-entry-nodes.js';
import { entryNodesView, findVersion } from '#workflows/workflows.js';
import { type WorkflowsRepo, workflowsRepo } from '#workflows/workflows-repository.js';

/**
 * GET /v1/workflows/{id}/entry-nodes, where `id` is a workflow VERSION id
 * (the specification's `{versionId}`; the route names it `{id}` because API
 * Gateway wants one name per variable path segment).
 */
export const makeHandler = (deps: { tokens: TokensRepo; workflows: WorkflowsRepo } = { tokens: tokensRepo(), workflows: workflowsRepo() }) =>
  httpHandler(WorkflowEntryNodes, { auth: bearerAuth(deps.tokens) }, async ({ principal, params }) => {
    const version = await findVersion(deps.workflows, principal.accountId, params.id ?? '');
    return json(200, entryNodesView(version));
  });

export const handler = makeHandler();
