import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { HarnessesGet } from '#harnesses/contracts/harnesses-get.js';
import { findHarnessWithFiles, harnessView } from '#harnesses/harnesses.js';
import { type HarnessesRepo, harnessesRepo } from '#harnesses/harnesses-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';

/** GET /v2/harnesses/{id}: the harness with its files; malformed, unknown and other accounts' ids are the same 404. */
export const makeHandler = (deps: { tokens: TokensRepo; harnesses: HarnessesRepo } = { tokens: tokensRepo(), harnesses: harnessesRepo() }) =>
  httpHandler(HarnessesGet, { auth: bearerAuth(deps.tokens) }, async ({ principal, params }) => {
    const { harness, files } = await findHarnessWithFiles(deps.harnesses, principal.accountId, params.id ?? '');
    return json(200, harnessView(harness, files));
  });

export const handler = makeHandler();
