import { type ChatsRepo, chatsRepo } from '../../lib/data/chats.js';
import { type TokensRepo, tokensRepo } from '../../lib/data/tokens.js';
import { type WorkflowsRepo, workflowsRepo } from '../../lib/data/workflows.js';
import { chatView, createChat } from '../../lib/domain/chats.js';
import { bearerAuth } from '../../lib/http/bearer-auth.js';
import { httpHandler } from '../../lib/http/handler.js';
import { json } from '../../lib/http/responses.js';
import { CreateChatBody } from '../../lib/schemas/chats.js';

/** POST /v1/chats: a chat, optionally tied to one of the caller's workflows. */
export const makeHandler = (
  deps: { tokens: TokensRepo; chats: ChatsRepo; workflows: WorkflowsRepo } = { tokens: tokensRepo(), chats: chatsRepo(), workflows: workflowsRepo() },
) =>
  httpHandler({ auth: bearerAuth(deps.tokens), body: CreateChatBody }, async ({ principal, body }) => {
    const chat = await createChat(deps, principal.accountId, body);
    return json(201, chatView(chat));
  });

export const handler = makeHandler();
