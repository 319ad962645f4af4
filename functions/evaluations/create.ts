import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { EvaluationsCreate } from '#evaluations/contracts/evaluations-create.js';
import { createEvaluation } from '#evaluations/evaluations.js';
import { type EvaluationsDeps, evaluationsDeps } from '#evaluations/evaluations-deps.js';
import { evaluationDetailView } from '#evaluations/model.js';
import { httpHandler } from '#platform/http/handler.js';
import { runIdempotent } from '#platform/http/idempotency.js';
import { json } from '#platform/http/responses.js';

/** POST /v2/evaluations: 201 the evaluation, `running`; with `run: true` its runs are started by the evaluation-runs worker. */
export const makeHandler = (deps: EvaluationsDeps & { tokens: TokensRepo } = { ...evaluationsDeps(), tokens: tokensRepo() }) =>
  httpHandler(EvaluationsCreate, { auth: bearerAuth(deps.tokens), idempotency: runIdempotent }, async ({ principal, body }) =>
    json(201, evaluationDetailView(await createEvaluation(deps, principal.accountId, body))),
  );

export const handler = makeHandler();
