import { bearerAuth } from '#accounts/bearer-auth.js';
import { WorkflowRequestsList } from '#execution/contracts/workflow-requests-list.js';
import { requestView } from '#execution/views.js';
import { type WorkflowRequestsRepo, workflowRequestsRepo } from '#execution/workflow-requests-repository.js';
import { CursorInvalidError } from '#platform/errors.js';
import { decodeCursor, encodeCursor } from '#platform/http/cursor.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';

/** History, newest first, filtered by chat, workflow or status. */
export const makeHandler = (deps: { requests: WorkflowRequestsRepo } = { requests: workflowRequestsRepo() }) =>
  httpHandler(WorkflowRequestsList, { auth: bearerAuth() }, async ({ principal, query }) => {
    const { cursor, limit, ...filters } = query;
    const scope = `workflow-requests:${principal.accountId}`;
    const position = cursor ? await decodeCursor(cursor, scope, filters) : undefined;
    const after = position as { gsi1sk: string; pk: string; sk: string } | undefined;
    if (after && ![after.gsi1sk, after.pk, after.sk].every((v) => typeof v === 'string')) throw new CursorInvalidError();
    if (after && !after.pk.startsWith('WFREQ#')) throw new CursorInvalidError();
    const page = await deps.requests.list(principal.accountId, filters, { limit, after });
    return json(200, {
      workflow_requests: page.requests.map(requestView),
      next_cursor: page.next ? await encodeCursor(scope, filters, page.next) : null,
      has_more: page.next !== undefined,
      limit,
    });
  });

export const handler = makeHandler();
