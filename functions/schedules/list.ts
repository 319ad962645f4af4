import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { CursorInvalidError } from '#platform/errors.js';
import { decodeCursor, encodeCursor } from '#platform/http/cursor.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';
import { SchedulesList } from '#schedules/contracts/schedules-list.js';
import { SCHEDULE_ID, scheduleView } from '#schedules/model.js';
import { type SchedulesRepo, schedulesRepo } from '#schedules/schedules-repository.js';

/** GET /v1/schedules: newest first, paged by an opaque cursor holding the last schedule id. */
export const makeHandler = (deps: { tokens: TokensRepo; schedules: SchedulesRepo } = { tokens: tokensRepo(), schedules: schedulesRepo() }) =>
  httpHandler(SchedulesList, { auth: bearerAuth(deps.tokens) }, async ({ principal, query }) => {
    const scope = `schedules:${principal.accountId}`;
    const after = query.cursor ? (await decodeCursor(query.cursor, scope, {})).after : undefined;
    if (query.cursor && (typeof after !== 'string' || !SCHEDULE_ID.test(after))) throw new CursorInvalidError();
    const page = await deps.schedules.list(principal.accountId, { limit: query.limit, after: after as string | undefined });
    return json(200, {
      schedules: page.schedules.map(scheduleView),
      next_cursor: page.nextAfter ? await encodeCursor(scope, {}, { after: page.nextAfter }) : null,
      has_more: page.nextAfter !== undefined,
    });
  });

export const handler = makeHandler();
