import { type ChatsRepo, chatsRepo } from '../../lib/data/chats.js';
import { type TokensRepo, tokensRepo } from '../../lib/data/tokens.js';
import { chatView, findChat } from '../../lib/domain/chats.js';
import { bearerAuth } from '../../lib/http/bearer-auth.js';
import { httpHandler } from '../../lib/http/handler.js';
import { json } from '../../lib/http/responses.js';

/** GET /v1/chats/{id}: malformed, unknown and other accounts' ids are the same 404. */
export const makeHandler = (deps: { tokens: TokensRepo; chats: ChatsRepo } = { tokens: tokensRepo(), chats: chatsRepo() }) =>
  httpHandler({ auth: bearerAuth(deps.tokens) }, async ({ principal, params }) => {
    const chat = await findChat(deps.chats, principal.accountId, params.id ?? '');
    return json(200, chatView(chat));
  });

export const handler = makeHandler();
