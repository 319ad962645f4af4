import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { CursorInvalidError } from '#platform/errors.js';
import { decodeCursor, encodeCursor } from '#platform/http/cursor.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';
import { WebhookEndpointsList } from '#webhooks/contracts/webhook-endpoints-list.js';
import { ENDPOINT_ID, endpointView } from '#webhooks/model.js';
import type { EndpointsDeps } from '#webhooks/webhook-endpoints.js';
import { endpointsDeps } from '#webhooks/webhooks-deps.js';

/** GET /v1/webhook-endpoints: newest first, paged by an opaque cursor holding the last endpoint id. */
export const makeHandler = (deps: Pick<EndpointsDeps, 'endpoints'> & { tokens: TokensRepo } = { ...endpointsDeps(), tokens: tokensRepo() }) =>
  httpHandler(WebhookEndpointsList, { auth: bearerAuth(deps.tokens) }, async ({ principal, query }) => {
    const scope = `webhook-endpoints:${principal.accountId}`;
    const after = query.cursor ? (await decodeCursor(query.cursor, scope, {})).after : undefined;
    if (query.cursor && (typeof after !== 'string' || !ENDPOINT_ID.test(after))) throw new CursorInvalidError();
    const page = await deps.endpoints.list(principal.accountId, { limit: query.limit, after: after as string | undefined });
    return json(200, {
      endpoints: page.endpoints.map(endpointView),
      next_cursor: page.nextAfter ? await encodeCursor(scope, {}, { after: page.nextAfter }) : null,
      has_more: page.nextAfter !== undefined,
    });
  });

export const handler = makeHandler();
