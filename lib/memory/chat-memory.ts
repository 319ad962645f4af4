import { CursorInvalidError, NotFoundError } from '#platform/errors.js';
import { decodeCursor, encodeCursor } from '#platform/http/cursor.js';
import type { ServiceKeySource } from '#platform/secrets/service-key.js';
import { isUuid } from '#platform/uuid.js';
import type { MemoryRepo } from './memory-repository.js';
import { type MemoryMessage, messageView } from './model.js';

export interface ChatMemoryDeps {
  memory: Pick<MemoryRepo, 'page'>;
  /**
   * Whether a context memory id is the account's: one of its chats, or one
   * of its requests run without a chat (the ids agent nodes write under).
   * Execution and workflows know those; the handler wires them in.
   */
  ownsContext(accountId: string, contextMemoryId: string): Promise<boolean>;
  /** Signs and checks the page's cursors. */
  serviceKey: ServiceKeySource;
}

export interface ChatMemoryPage {
  messages: MemoryMessage[];
  next_cursor: string | null;
  has_more: boolean;
  limit: number;
}

/**
 * GET /v1/chat-memory/{agentNodeId}: an agent node's messages in a context
 * memory, oldest first. Another account's chat is 404, as on every other
 * route, not an empty page.
 */
export async function chatMemoryPage(
  deps: ChatMemoryDeps,
  accountId: string,
  agentNodeId: string,
  query: { chat_id: string; limit: number; cursor?: string },
): Promise<ChatMemoryPage> {
  if (!isUuid(agentNodeId)) throw new NotFoundError('No agent node with that id.');
  const scope = `memory:${accountId}:${agentNodeId}`;
  const filters = { chat_id: query.chat_id };
  const position = query.cursor ? await decodeCursor(query.cursor, scope, filters, deps.serviceKey) : undefined;
  if (position && (typeof position.after !== 'string' || !position.after.startsWith('MSG#'))) throw new CursorInvalidError();
  const page = await deps.memory.page(accountId, query.chat_id, agentNodeId, { limit: query.limit, after: position?.after as string | undefined });
  // The page reads only the caller's messages, and they are written only under the writer's own chat or request:
  // a page that has any is proof enough, so only an empty one costs the lookup.
  if (page.messages.length === 0 && !(await deps.ownsContext(accountId, query.chat_id))) throw new NotFoundError('No chat with that id.');
  return {
    messages: page.messages.map(messageView),
    next_cursor: page.nextAfter ? await encodeCursor(scope, filters, { after: page.nextAfter }, deps.serviceKey) : null,
    has_more: page.nextAfter !== undefined,
    limit: query.limit,
  };
}
