import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { EvaluationsCreate } from '#evaluations/contracts/evaluations-create.js';
import { createEvaluation } from '#evaluations/evaluations.js';
import { type EvaluationsDeps, evaluationsDeps } from '#evaluations/evaluations-deps.js';
import { evaluationDetailView } from '#evaluations/model.js';
import { httpHandler } from '#platform/http/handler.js';
import { runIdempotent } from '#platform/http/idempotency.js';
import { json } from '#platform/http/responses.js';
import { type UsageMeter, usageMeter } from '#usage/index.js';

/**
 * POST /v2/evaluations: 201 the evaluation, `running`; with `run: true` its
 * runs are started by the evaluation-runs worker, so it is admitted as a run
 * is (a full window 429, 403 below the minimum balance).
 */
export const makeHandler = (
  deps: EvaluationsDeps & { tokens: TokensRepo } = { ...evaluationsDeps(), tokens: tokensRepo() },
  usage: Pick<UsageMeter, 'admit'> = usageMeter(),
) =>
  httpHandler(EvaluationsCreate, { auth: bearerAuth(deps.tokens), idempotency: runIdempotent }, async ({ principal, body }) => {
    if (body.run) await usage.admit(principal.accountId);
    return json(201, evaluationDetailView(await createEvaluation(deps, principal.accountId, body)));
  });

export const handler = makeHandler();
