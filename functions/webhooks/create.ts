import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { runIdempotent } from '#platform/http/idempotency.js';
import { json } from '#platform/http/responses.js';
import { type ServiceKeySource, serviceKey } from '#platform/secrets/service-key.js';
import { WebhookEndpointsCreate } from '#webhooks/contracts/webhook-endpoints-create.js';
import { endpointSecretKeptOut } from '#webhooks/endpoint-secrets.js';
import { endpointView } from '#webhooks/model.js';
import { createEndpoint, type EndpointsDeps } from '#webhooks/webhook-endpoints.js';
import { endpointsDeps } from '#webhooks/webhooks-deps.js';

type Deps = EndpointsDeps & { tokens: TokensRepo; serviceKey: ServiceKeySource };

/** POST /v1/webhook-endpoints: 201 with the signing secret, shown this once; an Idempotency-Key's record holds the answer without it (a replay derives it again). */
export const makeHandler = (deps: Deps = { ...endpointsDeps(), serviceKey: serviceKey(), tokens: tokensRepo() }) => {
  const idempotency = endpointSecretKeptOut(runIdempotent, deps.serviceKey);
  return httpHandler(WebhookEndpointsCreate, { auth: bearerAuth(deps.tokens), idempotency }, async ({ principal, body }) => {
    const { endpoint, secret } = await createEndpoint(deps, principal.accountId, body);
    return json(201, { ...endpointView(endpoint), secret });
  });
};

export const handler = makeHandler();
