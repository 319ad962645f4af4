import { bearerAuth } from '#accounts/bearer-auth.js';
import { type WorkflowRequestsRepo, workflowRequestsRepo } from '#execution/workflow-requests-repository.js';
import { type ChatMemoryDeps, chatMemoryPage } from '#memory/chat-memory.js';
import { ChatMemoryGet } from '#memory/contracts/chat-memory-get.js';
import { memoryRepo } from '#memory/memory-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';
import { serviceKey } from '#platform/secrets/service-key.js';
import { isUuid } from '#platform/uuid.js';
import { chatLookup } from '#workflows/index.js';

/**
 * A context memory id is a chat's id, or the id of a request run without a
 * chat (lib/execution/nodes/agent.ts): the account's if either is.
 */
const contextOwnership =
  (chats: ReturnType<typeof chatLookup>, requests: Pick<WorkflowRequestsRepo, 'get'>): ChatMemoryDeps['ownsContext'] =>
  async (accountId, contextMemoryId) => {
    if (await chats.get(accountId, contextMemoryId)) return true;
    return isUuid(contextMemoryId) && (await requests.get(contextMemoryId))?.account_id === accountId;
  };

/** An agent node's context memory in a chat, oldest first; only the owner's messages are ever read. */
export const makeHandler = (
  deps: ChatMemoryDeps = { memory: memoryRepo(), ownsContext: contextOwnership(chatLookup(), workflowRequestsRepo()), serviceKey: serviceKey() },
) =>
  httpHandler(ChatMemoryGet, { auth: bearerAuth() }, async ({ principal, params, query }) =>
    json(200, await chatMemoryPage(deps, principal.accountId, params.agentNodeId ?? '', query)),
  );

export const handler = makeHandler();
