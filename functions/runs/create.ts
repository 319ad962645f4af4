import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { runIdempotent } from '#platform/http/idempotency.js';
import { json } from '#platform/http/responses.js';
import { RunsCreate } from '#runs/contracts/runs-create.js';
import { type CreateRunDeps, createRun } from '#runs/create-run.js';
import { runView } from '#runs/model.js';
import { createRunDeps } from '#runs/runs-deps.js';
import { type UsageMeter, usageMeter } from '#usage/index.js';

/**
 * POST /v2/runs: 201 the run, started on an idle machine or queued behind the
 * runs before it; when its usage is funded (a full window: 429 with the quota
 * document, or 403 below the minimum balance), holding one of the account's
 * slots of work in progress until it ends.
 */
export const makeHandler = (
  deps: CreateRunDeps & { tokens: TokensRepo } = { ...createRunDeps(), tokens: tokensRepo() },
  usage: Pick<UsageMeter, 'admit'> = usageMeter(),
) =>
  httpHandler(RunsCreate, { auth: bearerAuth(deps.tokens), idempotency: runIdempotent }, async ({ principal, body }) => {
    await usage.admit(principal.accountId);
    const run = await createRun(deps, principal.accountId, body, undefined, { concurrency: principal.limits.concurrency });
    return json(201, runView(run));
  });

export const handler = makeHandler();
