import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { CursorInvalidError } from '#platform/errors.js';
import { decodeCursor, encodeCursor } from '#platform/http/cursor.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';
import { WorkflowsList } from '#workflows/contracts/workflows-list.js';
import { foldName, WORKFLOW_POSITION } from '#workflows/model.js';
import { workflowView } from '#workflows/workflows.js';
import { type WorkflowsRepo, workflowsRepo } from '#workflows/workflows-repository.js';

/** GET /v1/workflows: newest first; `search` is part of the cursor's filters. */
export const makeHandler = (deps: { tokens: TokensRepo; workflows: WorkflowsRepo } = { tokens: tokensRepo(), workflows: workflowsRepo() }) =>
  httpHandler(WorkflowsList, { auth: bearerAuth(deps.tokens) }, async ({ principal, query }) => {
    const scope = `workflows:${principal.accountId}`;
    const search = query.search ? foldName(query.search) : undefined;
    const filters = { search };
    const position = query.cursor ? await decodeCursor(query.cursor, scope, filters) : undefined;
    const after = position?.after;
    if (position && (typeof after !== 'string' || !WORKFLOW_POSITION.test(after))) throw new CursorInvalidError();
    const page = await deps.workflows.list(principal.accountId, { limit: query.limit, after: after as string | undefined, search });
    return json(200, {
      workflows: page.workflows.map(workflowView),
      next_cursor: page.nextAfter ? await encodeCursor(scope, filters, { after: page.nextAfter }) : null,
      has_more: page.nextAfter !== undefined,
      limit: query.limit,
    });
  });

export const handler = makeHandler();
