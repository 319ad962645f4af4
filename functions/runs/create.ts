import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { runIdempotent } from '#platform/http/idempotency.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';
import { RunsCreate } from '#runs/contracts/runs-create.js';
import { type CreateRunDeps, createRun } from '#runs/create-run.js';
import { runView } from '#runs/model.js';
import { runsDeps } from '#runs/runs-deps.js';

/** POST /v2/runs: 201 the run, started on an idle machine or queued behind the runs before it. */
export const makeHandler = (deps: CreateRunDeps & { tokens: TokensRepo } = { ...runsDeps(), tokens: tokensRepo() }) =>
  httpHandler(RunsCreate, { auth: bearerAuth(deps.tokens), idempotency: runIdempotent }, async ({ principal, body }) =>
    json(201, runView(await createRun(deps, principal.accountId, body))),
  );

export const handler = makeHandler();
