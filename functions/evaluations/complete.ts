import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { EvaluationsComplete } from '#evaluations/contracts/evaluations-complete.js';
import { completeEvaluation } from '#evaluations/evaluations.js';
import { type EvaluationsDeps, evaluationsDeps } from '#evaluations/evaluations-deps.js';
import { evaluationDetailView } from '#evaluations/model.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';

/** POST /v2/evaluations/{id}/complete: 200 `completed` with its results, or 409 `evaluation_incomplete` naming the cases. */
export const makeHandler = (deps: EvaluationsDeps & { tokens: TokensRepo } = { ...evaluationsDeps(), tokens: tokensRepo() }) =>
  httpHandler(EvaluationsComplete, { auth: bearerAuth(deps.tokens) }, async ({ principal, params }) =>
    json(200, evaluationDetailView(await completeEvaluation(deps, principal.accountId, params.id ?? ''))),
  );

export const handler = makeHandler();
