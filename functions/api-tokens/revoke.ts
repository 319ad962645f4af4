import { type TokensRepo, tokensRepo } from '../../lib/data/tokens.js';
import { revokeToken } from '../../lib/domain/api-tokens.js';
import { bearerAuth } from '../../lib/http/bearer-auth.js';
import { httpHandler } from '../../lib/http/handler.js';
import { json } from '../../lib/http/responses.js';
import { RevokeTokenBody } from '../../lib/schemas/api-tokens.js';

/** Revoking an unknown or foreign id is 404 and changes nothing. */
export const makeHandler = (deps: { tokens: TokensRepo } = { tokens: tokensRepo() }) =>
  httpHandler({ auth: bearerAuth(deps.tokens), errors: 'message', body: RevokeTokenBody }, async ({ principal, body }) => {
    await revokeToken(deps.tokens, principal.accountId, body.token_id);
    return json(200, { message: 'Token revoked.' });
  });

export const handler = makeHandler();
