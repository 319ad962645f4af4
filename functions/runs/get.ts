import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';
import { RunsGet } from '#runs/contracts/runs-get.js';
import { runNotFound } from '#runs/errors.js';
import { runView } from '#runs/model.js';
import { type RunsRepo, runsRepo } from '#runs/runs-repository.js';

/** GET /v2/runs/{id}: malformed, unknown and other accounts' ids are the same 404. */
export const makeHandler = (deps: { tokens: TokensRepo; runs: RunsRepo } = { tokens: tokensRepo(), runs: runsRepo() }) =>
  httpHandler(RunsGet, { auth: bearerAuth(deps.tokens) }, async ({ principal, params }) => {
    const run = await deps.runs.getOwned(principal.accountId, params.id ?? '');
    if (!run) throw runNotFound();
    return json(200, runView(run));
  });

export const handler = makeHandler();
