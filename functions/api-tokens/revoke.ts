import { revokeToken } from '#accounts/api-tokens.js';
import { bearerAuth } from '#accounts/bearer-auth.js';
import { ApiTokensRevoke } from '#accounts/contracts/api-tokens-revoke.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';

/** Revoking an unknown or foreign id is 404 and changes nothing. */
export const makeHandler = (deps: { tokens: TokensRepo } = { tokens: tokensRepo() }) =>
  httpHandler(ApiTokensRevoke, { auth: bearerAuth(deps.tokens) }, async ({ principal, body }) => {
    await revokeToken(deps.tokens, principal.accountId, body.token_id);
    return json(200, { message: 'Token revoked.' });
  });

export const handler = makeHandler();
