import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';
import { WebhookEndpointsGet } from '#webhooks/contracts/webhook-endpoints-get.js';
import { endpointView } from '#webhooks/model.js';
import { type EndpointsDeps, findEndpoint } from '#webhooks/webhook-endpoints.js';
import { endpointsDeps } from '#webhooks/webhooks-deps.js';

/** GET /v1/webhook-endpoints/{id}: never the secret; malformed, unknown and other accounts' ids are the same 404. */
export const makeHandler = (deps: Pick<EndpointsDeps, 'endpoints'> & { tokens: TokensRepo } = { ...endpointsDeps(), tokens: tokensRepo() }) =>
  httpHandler(WebhookEndpointsGet, { auth: bearerAuth(deps.tokens) }, async ({ principal, params }) =>
    json(200, endpointView(await findEndpoint(deps.endpoints, principal.accountId, params.id ?? ''))),
  );

export const handler = makeHandler();
