import { limitsInForce } from '#platform/config/plans.js';
import { AccountSuspendedError, UnauthorizedError } from '#platform/errors.js';
import type { AuthMiddleware } from '#platform/http/handler.js';
import { header } from '#platform/http/responses.js';
import type { Principal } from '#platform/http/types.js';
import { accountIdOfToken, tokenHash } from './api-tokens.js';
import { type RateLimiter, requestRateLimiter } from './rate-limiter.js';
import { type TokensRepo, tokensRepo } from './tokens-repository.js';

/**
 * Requires `Authorization: Bearer <token>` and puts the principal on the
 * request. Cookies are never read here, so v2 ignores browser sessions.
 * Then starts the account's rate limit check (`rates`) without waiting for
 * it: the stack (lib/platform/http/handler.ts) awaits it before a write and
 * beside a read, so a read stays at two round trips (the token, then its
 * own read with the rate write).
 */
export const bearerAuth = (tokens: TokensRepo = tokensRepo(), rates: RateLimiter = requestRateLimiter()): AuthMiddleware<'bearer'> => ({
  scheme: 'bearer',
  before: async (request) => {
    const principal = await authenticateBearer(tokens, header(request.event.headers, 'authorization'));
    request.context.api.principal = principal;
    request.context.api.admission = startAdmission(rates, principal);
  },
});

/** The account's check, made safe to leave unawaited (a request refused first for a malformed body never reads it). */
function startAdmission(rates: RateLimiter, principal: Principal): Promise<void> {
  const admission = rates.admit(principal.accountId, principal.limits);
  admission.catch(() => undefined);
  return admission;
}

/**
 * Resolves `Authorization: Bearer <token>` to a principal. No cache: the hash
 * is looked up on every request, so revocation and expiry apply at once.
 * The account item comes in the same round trip, with its limits.
 */
async function authenticateBearer(tokens: TokensRepo, authorization: string | undefined): Promise<Principal> {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '');
  const token = match?.[1];
  const accountId = token ? accountIdOfToken(token) : undefined;
  if (!token || !accountId) throw new UnauthorizedError();
  const found = await tokens.authenticate(tokenHash(token), accountId);
  if (!found) throw new UnauthorizedError('The bearer token is unknown, expired or revoked.');
  if (found.account.suspended) throw new AccountSuspendedError();
  return { accountId, tokenId: found.token.id, plan: found.account.plan, limits: limitsInForce(found.account) };
}
