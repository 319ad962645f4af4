import { type TokensRepo, tokensRepo } from '../data/tokens.js';
import { authenticateBearer } from '../domain/bearer.js';
import type { HttpMiddleware } from './handler.js';
import { header } from './responses.js';

/**
 * Requires `Authorization: Bearer <token>` and puts the principal on the
 * request. Cookies are never read here, so v2 ignores browser sessions.
 */
export const bearerAuth = (tokens: TokensRepo = tokensRepo()): HttpMiddleware => ({
  before: async (request) => {
    request.context.api.principal = await authenticateBearer(tokens, header(request.event.headers, 'authorization'));
  },
});
