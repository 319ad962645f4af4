import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { runIdempotent } from '#platform/http/idempotency.js';
import { json } from '#platform/http/responses.js';
import { WebhookDeliveriesRetry } from '#webhooks/contracts/webhook-deliveries-retry.js';
import { deliveryView } from '#webhooks/model.js';
import { type EndpointsDeps, retryDelivery } from '#webhooks/webhook-endpoints.js';
import { endpointsDeps } from '#webhooks/webhooks-deps.js';

/** POST /v1/webhook-endpoints/{id}/deliveries/{delivery_id}/retry: 202, a new series of attempts starting now, the same webhook-id. */
export const makeHandler = (deps: EndpointsDeps & { tokens: TokensRepo } = { ...endpointsDeps(), tokens: tokensRepo() }) =>
  httpHandler(WebhookDeliveriesRetry, { auth: bearerAuth(deps.tokens), idempotency: runIdempotent }, async ({ principal, params }) =>
    json(202, deliveryView(await retryDelivery(deps, principal.accountId, params.id ?? '', params.delivery_id ?? ''))),
  );

export const handler = makeHandler();
