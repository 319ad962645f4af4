import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { HooksGet } from '#hooks/contracts/hooks-get.js';
import { findHook } from '#hooks/hooks.js';
import { type HooksRepo, hooksRepo } from '#hooks/hooks-repository.js';
import { hookView } from '#hooks/model.js';
import { serviceEnv } from '#platform/config/env.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';

/** GET /v1/hooks/{id}: never the secret; malformed, unknown and other accounts' ids are the same 404. */
export const makeHandler = (deps: { tokens: TokensRepo; hooks: HooksRepo } = { tokens: tokensRepo(), hooks: hooksRepo() }) =>
  httpHandler(HooksGet, { auth: bearerAuth(deps.tokens) }, async ({ principal, params }) => {
    const hook = await findHook(deps.hooks, principal.accountId, params.id ?? '');
    return json(200, hookView(hook, serviceEnv.baseUrl, new Date()));
  });

export const handler = makeHandler();
