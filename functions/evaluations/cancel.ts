import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { EvaluationsCancel } from '#evaluations/contracts/evaluations-cancel.js';
import { cancelEvaluation } from '#evaluations/evaluations.js';
import { type EvaluationsDeps, evaluationsDeps } from '#evaluations/evaluations-deps.js';
import { evaluationDetailView } from '#evaluations/model.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';

/** POST /v2/evaluations/{id}/cancel: 200 `cancelled`; the unfinished runs of a `run: true` evaluation are cancelled by its worker. */
export const makeHandler = (deps: EvaluationsDeps & { tokens: TokensRepo } = { ...evaluationsDeps(), tokens: tokensRepo() }) =>
  httpHandler(EvaluationsCancel, { auth: bearerAuth(deps.tokens) }, async ({ principal, params }) =>
    json(200, evaluationDetailView(await cancelEvaluation(deps, principal.accountId, params.id ?? ''))),
  );

export const handler = makeHandler();
