import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';
import { UsageGet } from '#usage/contracts/usage-get.js';
import { type UsageMeter, usageMeter } from '#usage/index.js';

/** GET /v2/usage: the caller's quota document. */
export const makeHandler = (deps: { tokens: TokensRepo; usage: Pick<UsageMeter, 'document'> } = { tokens: tokensRepo(), usage: usageMeter() }) =>
  httpHandler(UsageGet, { auth: bearerAuth(deps.tokens) }, async ({ principal }) => json(200, await deps.usage.document(principal.accountId)));

export const handler = makeHandler();
