import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { HooksList } from '#hooks/contracts/hooks-list.js';
import { type HooksRepo, hooksRepo } from '#hooks/hooks-repository.js';
import { HOOK_POSITION, hookView } from '#hooks/model.js';
import { serviceEnv } from '#platform/config/env.js';
import { CursorInvalidError } from '#platform/errors.js';
import { decodeCursor, encodeCursor } from '#platform/http/cursor.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';

/** GET /v1/hooks: newest first, paged by an opaque cursor holding the last hook's position. */
export const makeHandler = (deps: { tokens: TokensRepo; hooks: HooksRepo } = { tokens: tokensRepo(), hooks: hooksRepo() }) =>
  httpHandler(HooksList, { auth: bearerAuth(deps.tokens) }, async ({ principal, query }) => {
    const scope = `hooks:${principal.accountId}`;
    const after = query.cursor ? (await decodeCursor(query.cursor, scope, {})).after : undefined;
    if (query.cursor && (typeof after !== 'string' || !HOOK_POSITION.test(after))) throw new CursorInvalidError();
    const page = await deps.hooks.list(principal.accountId, { limit: query.limit, after: after as string | undefined });
    const now = new Date();
    return json(200, {
      hooks: page.hooks.map((hook) => hookView(hook, serviceEnv.baseUrl, now)),
      next_cursor: page.nextAfter ? await encodeCursor(scope, {}, { after: page.nextAfter }) : null,
      has_more: page.nextAfter !== undefined,
    });
  });

export const handler = makeHandler();
