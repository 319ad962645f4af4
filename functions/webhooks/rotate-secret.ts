import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';
import { type ServiceKeySource, serviceKey } from '#platform/secrets/service-key.js';
import { WebhookEndpointsRotateSecret } from '#webhooks/contracts/webhook-endpoints-rotate-secret.js';
import { endpointView } from '#webhooks/model.js';
import { type EndpointsDeps, rotateEndpointSecret } from '#webhooks/webhook-endpoints.js';
import { endpointsDeps } from '#webhooks/webhooks-deps.js';

type Deps = EndpointsDeps & { tokens: TokensRepo; serviceKey: ServiceKeySource };

/** POST /v1/webhook-endpoints/{id}/rotate-secret: the new secret, shown once; deliveries are signed with the replaced one too for 24 hours. */
export const makeHandler = (deps: Deps = { ...endpointsDeps(), serviceKey: serviceKey(), tokens: tokensRepo() }) =>
  httpHandler(WebhookEndpointsRotateSecret, { auth: bearerAuth(deps.tokens) }, async ({ principal, params }) => {
    const { endpoint, secret } = await rotateEndpointSecret(deps, principal.accountId, params.id ?? '');
    return json(200, { ...endpointView(endpoint), secret });
  });

export const handler = makeHandler();
