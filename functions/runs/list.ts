import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { CursorInvalidError } from '#platform/errors.js';
import { decodeCursor, encodeCursor } from '#platform/http/cursor.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';
import { keys } from '#platform/table/keys.js';
import { RunsList } from '#runs/contracts/runs-list.js';
import { runView } from '#runs/model.js';
import { type RunsRepo, runsRepo } from '#runs/runs-repository.js';

type Position = { gsi1sk: string; pk: string; sk: string };
const isPosition = (p: Record<string, unknown>): p is Position =>
  typeof p.gsi1sk === 'string' && typeof p.pk === 'string' && p.pk.startsWith('RUN#') && p.sk === keys.run('').sk;

/** GET /v2/runs: the account's runs, newest first, by status and harness; `{data, page}`. */
export const makeHandler = (deps: { tokens: TokensRepo; runs: RunsRepo } = { tokens: tokensRepo(), runs: runsRepo() }) =>
  httpHandler(RunsList, { auth: bearerAuth(deps.tokens) }, async ({ principal, query }) => {
    const scope = `runs:${principal.accountId}`;
    const filters = { status: query.status, harness_id: query.harness_id };
    const position = query.cursor ? await decodeCursor(query.cursor, scope, filters) : undefined;
    if (position && !isPosition(position)) throw new CursorInvalidError();
    const page = await deps.runs.list(principal.accountId, filters, { limit: query.limit, after: position });
    return json(200, {
      data: page.runs.map(runView),
      page: { has_more: page.next !== undefined, next_cursor: page.next ? await encodeCursor(scope, filters, page.next) : null },
    });
  });

export const handler = makeHandler();
