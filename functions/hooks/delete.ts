import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { HooksDelete } from '#hooks/contracts/hooks-delete.js';
import { type HooksRepo, hooksRepo } from '#hooks/hooks-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { noContent } from '#platform/http/responses.js';

/** DELETE /v1/hooks/{id}: 204, and its events answer 404 from then on; 404 as GET answers it. */
export const makeHandler = (deps: { tokens: TokensRepo; hooks: HooksRepo } = { tokens: tokensRepo(), hooks: hooksRepo() }) =>
  httpHandler(HooksDelete, { auth: bearerAuth(deps.tokens) }, async ({ principal, params }) => {
    await deps.hooks.delete(principal.accountId, params.id ?? '');
    return noContent();
  });

export const handler = makeHandler();
