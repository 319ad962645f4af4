import { type WorkflowRequestsRepo, workflowRequestsRepo } from '../../lib/data/workflow-requests.js';
import { requestView } from '../../lib/engine/views.js';
import { CursorInvalidError } from '../../lib/errors.js';
import { bearerAuth } from '../../lib/http/bearer-auth.js';
import { decodeCursor, encodeCursor } from '../../lib/http/cursor.js';
import { httpHandler } from '../../lib/http/handler.js';
import { json } from '../../lib/http/responses.js';
import { ListWorkflowRequestsQuery } from '../../lib/schemas/workflow-requests.js';

/** History, newest first, filtered by chat, workflow or status. */
export const makeHandler = (deps: { requests: WorkflowRequestsRepo } = { requests: workflowRequestsRepo() }) =>
  httpHandler({ auth: bearerAuth(), query: ListWorkflowRequestsQuery }, async ({ principal, query }) => {
    const { cursor, limit, ...filters } = query;
    const scope = `workflow-requests:${principal.accountId}`;
    const position = cursor ? decodeCursor(cursor, scope, filters) : undefined;
    const after = position as { gsi1sk: string; pk: string; sk: string } | undefined;
    if (after && ![after.gsi1sk, after.pk, after.sk].every((v) => typeof v === 'string')) throw new CursorInvalidError();
    if (after && !after.pk.startsWith('WFREQ#')) throw new CursorInvalidError();
    const page = await deps.requests.list(principal.accountId, filters, { limit, after });
    return json(200, {
      workflow_requests: page.requests.map(requestView),
      next_cursor: page.next ? encodeCursor(scope, filters, page.next) : null,
      has_more: page.next !== undefined,
      limit,
    });
  });

export const handler = makeHandler();
