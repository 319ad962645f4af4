import { type TokensRepo, tokensRepo } from '../../lib/data/tokens.js';
import { foldName, WORKFLOW_POSITION, type WorkflowsRepo, workflowsRepo } from '../../lib/data/workflows.js';
import { workflowView } from '../../lib/domain/workflows.js';
import { CursorInvalidError } from '../../lib/errors.js';
import { bearerAuth } from '../../lib/http/bearer-auth.js';
import { decodeCursor, encodeCursor } from '../../lib/http/cursor.js';
import { httpHandler } from '../../lib/http/handler.js';
import { json } from '../../lib/http/responses.js';
import { ListWorkflowsQuery } from '../../lib/schemas/workflows.js';

/** GET /v1/workflows: newest first; `search` is part of the cursor's filters. */
export const makeHandler = (deps: { tokens: TokensRepo; workflows: WorkflowsRepo } = { tokens: tokensRepo(), workflows: workflowsRepo() }) =>
  httpHandler({ auth: bearerAuth(deps.tokens), query: ListWorkflowsQuery }, async ({ principal, query }) => {
    const scope = `workflows:${principal.accountId}`;
    const search = query.search ? foldName(query.search) : undefined;
    const filters = { search };
    const position = query.cursor ? decodeCursor(query.cursor, scope, filters) : undefined;
    const after = position?.after;
    if (position && (typeof after !== 'string' || !WORKFLOW_POSITION.test(after))) throw new CursorInvalidError();
    const page = await deps.workflows.list(principal.accountId, { limit: query.limit, after: after as string | undefined, search });
    return json(200, {
      workflows: page.workflows.map(workflowView),
      next_cursor: page.nextAfter ? encodeCursor(scope, filters, { after: page.nextAfter }) : null,
      has_more: page.nextAfter !== undefined,
      limit: query.limit,
    });
  });

export const handler = makeHandler();
