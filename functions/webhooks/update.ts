import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { runIdempotent } from '#platform/http/idempotency.js';
import { json } from '#platform/http/responses.js';
import { WebhookEndpointsUpdate } from '#webhooks/contracts/webhook-endpoints-update.js';
import { endpointView } from '#webhooks/model.js';
import { type EndpointsDeps, updateEndpoint } from '#webhooks/webhook-endpoints.js';
import { endpointsDeps } from '#webhooks/webhooks-deps.js';

/** PATCH /v1/webhook-endpoints/{id}: `url`, `events`, `description`, `disabled`; 404 as GET answers it. */
export const makeHandler = (deps: EndpointsDeps & { tokens: TokensRepo } = { ...endpointsDeps(), tokens: tokensRepo() }) =>
  httpHandler(WebhookEndpointsUpdate, { auth: bearerAuth(deps.tokens), idempotency: runIdempotent }, async ({ principal, params, body }) =>
    json(200, endpointView(await updateEndpoint(deps, principal.accountId, params.id ?? '', body))),
  );

export const handler = makeHandler();
