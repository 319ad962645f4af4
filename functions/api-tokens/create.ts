import { serviceEnv } from '../../lib/config/env.js';
import { accountsRepo } from '../../lib/data/accounts.js';
import { sessionsRepo } from '../../lib/data/sessions.js';
import { type TokensRepo, tokensRepo } from '../../lib/data/tokens.js';
import { mintToken } from '../../lib/domain/api-tokens.js';
import { newTokenId } from '../../lib/domain/ids.js';
import { accountOfSession, cookieValue, SESSION_COOKIE, type SessionDeps } from '../../lib/domain/sessions.js';
import { httpHandler } from '../../lib/http/handler.js';
import { header, json } from '../../lib/http/responses.js';
import { CreateTokenBody } from '../../lib/schemas/api-tokens.js';

/**
 * Minting is authenticated by the browser session cookie only: a bearer
 * token cannot mint, so a leaked token cannot extend itself.
 */
export const makeHandler = (
  deps: SessionDeps & { tokens: TokensRepo; baseUrl: string } = {
    accounts: accountsRepo(),
    sessions: sessionsRepo(),
    tokens: tokensRepo(),
    baseUrl: serviceEnv.baseUrl,
  },
) =>
  httpHandler({ auth: 'none', errors: 'message', body: CreateTokenBody }, async ({ event, body }) => {
    const account = await accountOfSession(deps, cookieValue(event.cookies, header(event.headers, 'cookie'), SESSION_COOKIE));
    const minted = await mintToken({ tokens: deps.tokens, newTokenId }, account, body, deps.baseUrl);
    return json(201, minted);
  });

export const handler = makeHandler();
