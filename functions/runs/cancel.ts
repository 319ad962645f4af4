import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';
import { RunsCancel } from '#runs/contracts/runs-cancel.js';
import { cancelRun, type EndDeps } from '#runs/end-run.js';
import { runNotFound } from '#runs/errors.js';
import { runView } from '#runs/model.js';
import { endRunDeps } from '#runs/runs-deps.js';
import type { RunsRepo } from '#runs/runs-repository.js';

/** POST /v2/runs/{id}/cancel: idempotent; an ended run comes back unchanged. */
export const makeHandler = (deps: EndDeps & { runs: RunsRepo; tokens: TokensRepo } = { ...endRunDeps(), tokens: tokensRepo() }) =>
  httpHandler(RunsCancel, { auth: bearerAuth(deps.tokens) }, async ({ principal, params }) => {
    const run = await deps.runs.getOwned(principal.accountId, params.id ?? '');
    if (!run) throw runNotFound();
    return json(200, runView(await cancelRun(deps, run)));
  });

export const handler = makeHandler();
