import { type TokensRepo, tokensRepo } from '../../lib/data/tokens.js';
import { listedToken } from '../../lib/domain/api-tokens.js';
import { CursorInvalidError } from '../../lib/errors.js';
import { bearerAuth } from '../../lib/http/bearer-auth.js';
import { decodeCursor, encodeCursor } from '../../lib/http/cursor.js';
import { httpHandler } from '../../lib/http/handler.js';
import { json } from '../../lib/http/responses.js';
import { ListTokensQuery } from '../../lib/schemas/api-tokens.js';

export const makeHandler = (deps: { tokens: TokensRepo } = { tokens: tokensRepo() }) =>
  httpHandler({ auth: bearerAuth(deps.tokens), errors: 'message', query: ListTokensQuery }, async ({ principal, query }) => {
    const scope = `api-tokens:${principal.accountId}`;
    const position = query.cursor ? decodeCursor(query.cursor, scope, {}) : undefined;
    if (position && (typeof position.after !== 'string' || !position.after.startsWith('TOKEN#'))) throw new CursorInvalidError();
    const page = await deps.tokens.list(principal.accountId, { limit: query.limit, after: position?.after as string | undefined });
    return json(200, {
      tokens: page.tokens.map(listedToken),
      next_cursor: page.nextAfter ? encodeCursor(scope, {}, { after: page.nextAfter }) : null,
      has_more: page.nextAfter !== undefined,
    });
  });

export const handler = makeHandler();
