import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { type RequestStarter, requestChecker } from '#execution/index.js';
import { HooksCreate } from '#hooks/contracts/hooks-create.js';
import { createHook } from '#hooks/hooks.js';
import { type HooksRepo, hooksRepo } from '#hooks/hooks-repository.js';
import { type HookSecrets, hookSecretKeptOut, hookSecrets } from '#hooks/secrets.js';
import { serviceEnv } from '#platform/config/env.js';
import { httpHandler } from '#platform/http/handler.js';
import { runIdempotent } from '#platform/http/idempotency.js';
import { json } from '#platform/http/responses.js';

/** POST /v1/hooks: checked as running its version would be; the secret is shown here only, and never stored (an Idempotency-Key's record holds the answer without it). */
export const makeHandler = (
  deps: { tokens: TokensRepo; hooks: HooksRepo; secrets: HookSecrets; starter: Pick<RequestStarter, 'check'> } = {
    tokens: tokensRepo(),
    hooks: hooksRepo(),
    secrets: hookSecrets(),
    starter: requestChecker(),
  },
) =>
  httpHandler(HooksCreate, { auth: bearerAuth(deps.tokens), idempotency: hookSecretKeptOut(runIdempotent, deps.secrets) }, async ({ principal, body }) => {
    const hook = await createHook({ ...deps, baseUrl: serviceEnv.baseUrl }, principal.accountId, body);
    return json(201, hook);
  });

export const handler = makeHandler();
