import { type TokensRepo, tokensRepo } from '../../lib/data/tokens.js';
import { type WorkflowsRepo, workflowsRepo } from '../../lib/data/workflows.js';
import { createVersion } from '../../lib/domain/workflow-versions.js';
import { versionView } from '../../lib/domain/workflows.js';
import { bearerAuth } from '../../lib/http/bearer-auth.js';
import { httpHandler } from '../../lib/http/handler.js';
import { json } from '../../lib/http/responses.js';
import { CreateVersionBody } from '../../lib/schemas/workflow-versions.js';

/**
 * POST /v1/workflows/{id}/versions: validates the graph (422 with a pointer
 * per fault) and stores it as the next immutable version, numbered 1, 2, 3…
 */
export const makeHandler = (deps: { tokens: TokensRepo; workflows: WorkflowsRepo } = { tokens: tokensRepo(), workflows: workflowsRepo() }) =>
  httpHandler({ auth: bearerAuth(deps.tokens), body: CreateVersionBody }, async ({ principal, params, body }) => {
    const version = await createVersion(deps.workflows, principal.accountId, params.id ?? '', body);
    return json(201, versionView(version));
  });

export const handler = makeHandler();
