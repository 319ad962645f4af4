import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';
import { chatView, findChat } from '#workflows/chats.js';
import { type ChatsRepo, chatsRepo } from '#workflows/chats-repository.js';
import { ChatsGet } from '#workflows/contracts/chats-get.js';

/** GET /v1/chats/{id}: malformed, unknown and other accounts' ids are the same 404. */
export const makeHandler = (deps: { tokens: TokensRepo; chats: ChatsRepo } = { tokens: tokensRepo(), chats: chatsRepo() }) =>
  httpHandler(ChatsGet, { auth: bearerAuth(deps.tokens) }, async ({ principal, params }) => {
    const chat = await findChat(deps.chats, principal.accountId, params.id ?? '');
    return json(200, chatView(chat));
  });

export const handler = makeHandler();
