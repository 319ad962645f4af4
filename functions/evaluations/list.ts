import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { EvaluationsList } from '#evaluations/contracts/evaluations-list.js';
import { type EvaluationsRepo, evaluationsRepo } from '#evaluations/evaluations-repository.js';
import { evaluationView } from '#evaluations/model.js';
import { CursorInvalidError } from '#platform/errors.js';
import { decodeCursor, encodeCursor } from '#platform/http/cursor.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';
import { keys } from '#platform/table/keys.js';

type Position = { gsi1sk: string; pk: string; sk: string };
const isPosition = (p: Record<string, unknown>): p is Position =>
  typeof p.gsi1sk === 'string' && typeof p.pk === 'string' && p.pk.startsWith('EVALUATION#') && p.sk === keys.evaluation('').sk;

/** GET /v2/evaluations: the account's evaluations, newest first, by status; `{data, page}`. */
export const makeHandler = (deps: { tokens: TokensRepo; evaluations: EvaluationsRepo } = { tokens: tokensRepo(), evaluations: evaluationsRepo() }) =>
  httpHandler(EvaluationsList, { auth: bearerAuth(deps.tokens) }, async ({ principal, query }) => {
    const scope = `evaluations:${principal.accountId}`;
    const filters = { status: query.status };
    const position = query.cursor ? await decodeCursor(query.cursor, scope, filters) : undefined;
    if (position && !isPosition(position)) throw new CursorInvalidError();
    const page = await deps.evaluations.list(principal.accountId, filters, { limit: query.limit, after: position });
    return json(200, {
      data: page.evaluations.map(evaluationView),
      page: { has_more: page.next !== undefined, next_cursor: page.next ? await encodeCursor(scope, filters, page.next) : null },
    });
  });

export const handler = makeHandler();
