import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { runIdempotent } from '#platform/http/idempotency.js';
import { json } from '#platform/http/responses.js';
import { RunsFork } from '#runs/contracts/runs-fork.js';
import { type ForkRunDeps, forkRun } from '#runs/fork-run.js';
import { forksRepo } from '#runs/forks-repository.js';
import { runView } from '#runs/model.js';
import { createRunDeps } from '#runs/runs-deps.js';
import { type UsageMeter, usageMeter } from '#usage/index.js';

/**
 * POST /v2/runs/{id}/fork: 201 a new run that reuses the ended run's
 * conversation up to `from_seq` and goes on live from there; created as
 * POST /v2/runs creates one (its money rules, its slot of work in progress).
 */
export const makeHandler = (
  deps: ForkRunDeps & { tokens: TokensRepo } = { ...createRunDeps(), forks: forksRepo(), tokens: tokensRepo() },
  usage: Pick<UsageMeter, 'admit'> = usageMeter(),
) =>
  httpHandler(RunsFork, { auth: bearerAuth(deps.tokens), idempotency: runIdempotent }, async ({ principal, params, body }) => {
    const run = await forkRun({ ...deps, admit: (accountId) => usage.admit(accountId) }, principal.accountId, params.id ?? '', body, {
      concurrency: principal.limits.concurrency,
    });
    return json(201, runView(run));
  });

export const handler = makeHandler();
