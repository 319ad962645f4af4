import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';
import { chatView, createChat } from '#workflows/chats.js';
import { type ChatsRepo, chatsRepo } from '#workflows/chats-repository.js';
import { ChatsCreate } from '#workflows/contracts/chats-create.js';
import { type WorkflowsRepo, workflowsRepo } from '#workflows/workflows-repository.js';

/** POST /v1/chats: a chat, optionally tied to one of the caller's workflows. */
export const makeHandler = (
  deps: { tokens: TokensRepo; chats: ChatsRepo; workflows: WorkflowsRepo } = { tokens: tokensRepo(), chats: chatsRepo(), workflows: workflowsRepo() },
) =>
  httpHandler(ChatsCreate, { auth: bearerAuth(deps.tokens) }, async ({ principal, body }) => {
    const chat = await createChat(deps, principal.accountId, body);
    return json(201, chatView(chat));
  });

export const handler = makeHandler();
