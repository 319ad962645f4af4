import { listedToken } from '#accounts/api-tokens.js';
import { bearerAuth } from '#accounts/bearer-auth.js';
import { ApiTokensList } from '#accounts/contracts/api-tokens-list.js';
import type { RateLimiter } from '#accounts/rate-limiter.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { CursorInvalidError } from '#platform/errors.js';
import { decodeCursor, encodeCursor } from '#platform/http/cursor.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';

/** `rates`: the request rate limiter, bearerAuth's own by default (the bench measures the read without it). */
export const makeHandler = (deps: { tokens: TokensRepo; rates?: RateLimiter } = { tokens: tokensRepo() }) =>
  httpHandler(ApiTokensList, { auth: bearerAuth(deps.tokens, deps.rates) }, async ({ principal, query }) => {
    const scope = `api-tokens:${principal.accountId}`;
    const position = query.cursor ? await decodeCursor(query.cursor, scope, {}) : undefined;
    if (position && (typeof position.after !== 'string' || !position.after.startsWith('TOKEN#'))) throw new CursorInvalidError();
    const page = await deps.tokens.list(principal.accountId, { limit: query.limit, after: position?.after as string | undefined });
    return json(200, {
      tokens: page.tokens.map(listedToken),
      next_cursor: page.nextAfter ? await encodeCursor(scope, {}, { after: page.nextAfter }) : null,
      has_more: page.nextAfter !== undefined,
    });
  });

export const handler = makeHandler();
