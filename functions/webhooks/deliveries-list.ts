import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { CursorInvalidError } from '#platform/errors.js';
import { decodeCursor, encodeCursor } from '#platform/http/cursor.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';
import { WebhookDeliveriesList } from '#webhooks/contracts/webhook-deliveries-list.js';
import { DELIVERY_ID, deliveryView } from '#webhooks/model.js';
import { type EndpointsDeps, findEndpoint } from '#webhooks/webhook-endpoints.js';
import { endpointsDeps } from '#webhooks/webhooks-deps.js';

/** GET /v1/webhook-endpoints/{id}/deliveries: the endpoint's delivery log, newest first, paged by a cursor holding the last delivery id. */
export const makeHandler = (deps: Pick<EndpointsDeps, 'endpoints' | 'deliveries'> & { tokens: TokensRepo } = { ...endpointsDeps(), tokens: tokensRepo() }) =>
  httpHandler(WebhookDeliveriesList, { auth: bearerAuth(deps.tokens) }, async ({ principal, params, query }) => {
    const endpoint = await findEndpoint(deps.endpoints, principal.accountId, params.id ?? '');
    const scope = `webhook-deliveries:${endpoint.id}`;
    const after = query.cursor ? (await decodeCursor(query.cursor, scope, {})).after : undefined;
    if (query.cursor && (typeof after !== 'string' || !DELIVERY_ID.test(after))) throw new CursorInvalidError();
    const page = await deps.deliveries.list(endpoint.id, { limit: query.limit, after: after as string | undefined });
    return json(200, {
      deliveries: page.deliveries.map(deliveryView),
      next_cursor: page.nextAfter ? await encodeCursor(scope, {}, { after: page.nextAfter }) : null,
      has_more: page.nextAfter !== undefined,
    });
  });

export const handler = makeHandler();
