import { bearerAuth } from '#accounts/bearer-auth.js';
import { InteractionsList } from '#interactions/contracts/interactions-list.js';
import { interactionView } from '#interactions/interactions.js';
import { type InteractionsRepo, interactionsRepo } from '#interactions/interactions-repository.js';
import { CursorInvalidError } from '#platform/errors.js';
import { decodeCursor, encodeCursor } from '#platform/http/cursor.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';

/** The account's interactions, newest first, by run, request or status. */
export const makeHandler = (deps: { interactions: InteractionsRepo } = { interactions: interactionsRepo() }) =>
  httpHandler(InteractionsList, { auth: bearerAuth() }, async ({ principal, query }) => {
    const { cursor, limit, ...filters } = query;
    const scope = `interactions:${principal.accountId}`;
    const after = cursor ? ((await decodeCursor(cursor, scope, filters)) as { gsi1sk: string; pk: string; sk: string }) : undefined;
    if (after && !(typeof after.gsi1sk === 'string' && typeof after.sk === 'string' && typeof after.pk === 'string' && after.pk.startsWith('INTERACTION#'))) {
      throw new CursorInvalidError();
    }
    const page = await deps.interactions.list(principal.accountId, filters, { limit, after });
    return json(200, {
      data: page.interactions.map(interactionView),
      page: { has_more: page.next !== undefined, next_cursor: page.next ? await encodeCursor(scope, filters, page.next) : null },
    });
  });

export const handler = makeHandler();
