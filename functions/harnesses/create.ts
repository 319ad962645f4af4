import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { HarnessesCreate } from '#harnesses/contracts/harnesses-create.js';
import { createHarness } from '#harnesses/create-harness.js';
import { harnessCreatedView } from '#harnesses/harnesses.js';
import { type HarnessesRepo, harnessesRepo } from '#harnesses/harnesses-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { runIdempotent } from '#platform/http/idempotency.js';
import { json } from '#platform/http/responses.js';

/**
 * POST /v2/harnesses (Idempotency-Key required): validates the files as a
 * harness (400 `harness_files_invalid` naming every offending path) and
 * stores it, files first, head last.
 */
export const makeHandler = (deps: { tokens: TokensRepo; harnesses: HarnessesRepo } = { tokens: tokensRepo(), harnesses: harnessesRepo() }) =>
  httpHandler(HarnessesCreate, { auth: bearerAuth(deps.tokens), idempotency: runIdempotent }, async ({ principal, body }) =>
    json(201, harnessCreatedView(await createHarness(deps.harnesses, principal.accountId, body))),
  );

export const handler = makeHandler();
