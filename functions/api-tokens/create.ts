import { accountsRepo } from '#accounts/accounts-repository.js';
import { mintToken } from '#accounts/api-tokens.js';
import { ApiTokensCreate } from '#accounts/contracts/api-tokens-create.js';
import { type RateLimiter, requestRateLimiter } from '#accounts/rate-limiter.js';
import { accountOfSession, cookieValue, SESSION_COOKIE, type SessionDeps } from '#accounts/sessions.js';
import { sessionsRepo } from '#accounts/sessions-repository.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { serviceEnv } from '#platform/config/env.js';
import { httpHandler } from '#platform/http/handler.js';
import { header, json } from '#platform/http/responses.js';
import { newTokenId } from '#platform/ids.js';

/**
 * Minting is authenticated by the browser session cookie only: a bearer
 * token cannot mint, so a leaked token cannot extend itself.
 */
export const makeHandler = (
  deps: SessionDeps & { tokens: TokensRepo; rates: RateLimiter; baseUrl: string } = {
    accounts: accountsRepo(),
    sessions: sessionsRepo(),
    tokens: tokensRepo(),
    rates: requestRateLimiter(),
    baseUrl: serviceEnv.baseUrl,
  },
) =>
  httpHandler(ApiTokensCreate, { auth: 'none' }, async ({ event, body }) => {
    const account = await accountOfSession(deps, cookieValue(event.cookies, header(event.headers, 'cookie'), SESSION_COOKIE));
    const minted = await mintToken({ tokens: deps.tokens, newTokenId }, account, body, deps.baseUrl);
    return json(201, minted);
  });

export const handler = makeHandler();
