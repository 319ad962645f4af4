import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { EvaluationsGet } from '#evaluations/contracts/evaluations-get.js';
import { evaluationNotFound } from '#evaluations/errors.js';
import { type EvaluationsRepo, evaluationsRepo } from '#evaluations/evaluations-repository.js';
import { evaluationDetailView } from '#evaluations/model.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';

/** GET /v2/evaluations/{id}: with its cases and recorded attempts; malformed, unknown and other accounts' ids are the same 404. */
export const makeHandler = (deps: { tokens: TokensRepo; evaluations: EvaluationsRepo } = { tokens: tokensRepo(), evaluations: evaluationsRepo() }) =>
  httpHandler(EvaluationsGet, { auth: bearerAuth(deps.tokens) }, async ({ principal, params }) => {
    const whole = await deps.evaluations.whole(principal.accountId, params.id ?? '');
    if (!whole) throw evaluationNotFound();
    return json(200, evaluationDetailView(whole));
  });

export const handler = makeHandler();
