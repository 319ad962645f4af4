import type { HttpMiddleware } from '#platform/http/handler.js';
import { header } from '#platform/http/responses.js';
import { authenticateBearer } from './bearer.js';
import { type TokensRepo, tokensRepo } from './tokens-repository.js';

/**
 * Requires `Authorization: Bearer <token>` and puts the principal on the
 * request. Cookies are never read here, so v2 ignores browser sessions.
 */
export const bearerAuth = (tokens: TokensRepo = tokensRepo()): HttpMiddleware => ({
  before: async (request) => {
    request.context.api.principal = await authenticateBearer(tokens, header(request.event.headers, 'authorization'));
  },
});
