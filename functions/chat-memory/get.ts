import { bearerAuth } from '#accounts/bearer-auth.js';
import { ChatMemoryGet } from '#memory/contracts/chat-memory-get.js';
import { type MemoryRepo, memoryRepo } from '#memory/memory-repository.js';
import { CursorInvalidError, NotFoundError } from '#platform/errors.js';
import { decodeCursor, encodeCursor } from '#platform/http/cursor.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';
import { isUuid } from '#platform/uuid.js';

/** An agent node's context memory in a chat, oldest first; only the owner's messages are ever read. */
export const makeHandler = (deps: { memory: MemoryRepo } = { memory: memoryRepo() }) =>
  httpHandler(ChatMemoryGet, { auth: bearerAuth() }, async ({ principal, params, query }) => {
    const agentNodeId = params.agentNodeId ?? '';
    if (!isUuid(agentNodeId)) throw new NotFoundError('No agent node with that id.');
    const scope = `memory:${principal.accountId}:${agentNodeId}`;
    const filters = { chat_id: query.chat_id };
    const position = query.cursor ? decodeCursor(query.cursor, scope, filters) : undefined;
    if (position && (typeof position.after !== 'string' || !position.after.startsWith('MSG#'))) throw new CursorInvalidError();
    const page = await deps.memory.page(principal.accountId, query.chat_id, agentNodeId, { limit: query.limit, after: position?.after as string | undefined });
    return json(200, {
      messages: page.messages,
      next_cursor: page.nextAfter ? encodeCursor(scope, filters, { after: page.nextAfter }) : null,
      has_more: page.nextAfter !== undefined,
      limit: query.limit,
    });
  });

export const handler = makeHandler();
