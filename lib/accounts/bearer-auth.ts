import { AccountSuspendedError, UnauthorizedError } from '#platform/errors.js';
import type { AuthMiddleware } from '#platform/http/handler.js';
import { header } from '#platform/http/responses.js';
import type { Principal } from '#platform/http/types.js';
import { accountIdOfToken, tokenHash } from './api-tokens.js';
import { type TokensRepo, tokensRepo } from './tokens-repository.js';

/**
 * Requires `Authorization: Bearer <token>` and puts the principal on the
 * request. Cookies are never read here, so v2 ignores browser sessions.
 */
export const bearerAuth = (tokens: TokensRepo = tokensRepo()): AuthMiddleware<'bearer'> => ({
  scheme: 'bearer',
  before: async (request) => {
    request.context.api.principal = await authenticateBearer(tokens, header(request.event.headers, 'authorization'));
  },
});

/**
 * Resolves `Authorization: Bearer <token>` to a principal. No cache: the hash
 * is looked up on every request, so revocation and expiry apply at once.
 */
async function authenticateBearer(tokens: TokensRepo, authorization: string | undefined): Promise<Principal> {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '');
  const token = match?.[1];
  const accountId = token ? accountIdOfToken(token) : undefined;
  if (!token || !accountId) throw new UnauthorizedError();
  const found = await tokens.authenticate(tokenHash(token), accountId);
  if (!found) throw new UnauthorizedError('The bearer token is unknown, expired or revoked.');
  if (found.account.suspended) throw new AccountSuspendedError();
  return { accountId, tokenId: found.token.id, plan: found.account.plan };
}
