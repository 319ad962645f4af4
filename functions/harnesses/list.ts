import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { HarnessesList } from '#harnesses/contracts/harnesses-list.js';
import { harnessListView } from '#harnesses/harnesses.js';
import { type HarnessesRepo, harnessesRepo } from '#harnesses/harnesses-repository.js';
import { CursorInvalidError } from '#platform/errors.js';
import { decodeCursor, encodeCursor } from '#platform/http/cursor.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';
import { keys } from '#platform/table/keys.js';

type Position = { gsi1sk: string; pk: string; sk: string };
const isPosition = (p: Record<string, unknown>): p is Position =>
  typeof p.gsi1sk === 'string' && typeof p.pk === 'string' && p.pk.startsWith('HARNESS#') && p.sk === keys.harness('').sk;

/** GET /v2/harnesses: the account's harnesses, newest first, `{data, page}`. */
export const makeHandler = (deps: { tokens: TokensRepo; harnesses: HarnessesRepo } = { tokens: tokensRepo(), harnesses: harnessesRepo() }) =>
  httpHandler(HarnessesList, { auth: bearerAuth(deps.tokens) }, async ({ principal, query }) => {
    const scope = `harnesses:${principal.accountId}`;
    const position = query.cursor ? await decodeCursor(query.cursor, scope, {}) : undefined;
    if (position && !isPosition(position)) throw new CursorInvalidError();
    const page = await deps.harnesses.list(principal.accountId, { limit: query.limit, after: position });
    return json(200, {
      data: page.harnesses.map(harnessListView),
      page: { has_more: page.next !== undefined, next_cursor: page.next ? await encodeCursor(scope, {}, page.next) : null },
    });
  });

export const handler = makeHandler();
