import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { EvaluationsRecordAttempt } from '#evaluations/contracts/evaluations-record-attempt.js';
import { recordAttempt } from '#evaluations/evaluations.js';
import { type EvaluationsDeps, evaluationsDeps } from '#evaluations/evaluations-deps.js';
import { attemptView } from '#evaluations/model.js';
import { httpHandler } from '#platform/http/handler.js';
import { runIdempotent } from '#platform/http/idempotency.js';
import { json } from '#platform/http/responses.js';

/** POST /v2/evaluations/{id}/attempts: 201 recorded, 200 the same run was there already. */
export const makeHandler = (deps: EvaluationsDeps & { tokens: TokensRepo } = { ...evaluationsDeps(), tokens: tokensRepo() }) =>
  httpHandler(EvaluationsRecordAttempt, { auth: bearerAuth(deps.tokens), idempotency: runIdempotent }, async ({ principal, params, body }) => {
    const { created, attempt } = await recordAttempt(deps, principal.accountId, params.id ?? '', body);
    return json(created ? 201 : 200, attemptView(attempt));
  });

export const handler = makeHandler();
