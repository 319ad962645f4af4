import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { HooksRotateSecret } from '#hooks/contracts/hooks-rotate-secret.js';
import { rotateHookSecret } from '#hooks/hooks.js';
import { type HooksRepo, hooksRepo } from '#hooks/hooks-repository.js';
import { type HookSecrets, hookSecrets } from '#hooks/secrets.js';
import { serviceEnv } from '#platform/config/env.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';

/** POST /v1/hooks/{id}/rotate-secret: the new secret, shown once; the previous one keeps verifying for 24 hours. */
export const makeHandler = (
  deps: { tokens: TokensRepo; hooks: HooksRepo; secrets: HookSecrets } = { tokens: tokensRepo(), hooks: hooksRepo(), secrets: hookSecrets() },
) =>
  httpHandler(HooksRotateSecret, { auth: bearerAuth(deps.tokens) }, async ({ principal, params }) => {
    const hook = await rotateHookSecret({ ...deps, baseUrl: serviceEnv.baseUrl }, principal.accountId, params.id ?? '');
    return json(200, hook);
  });

export const handler = makeHandler();
