import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { noContent } from '#platform/http/responses.js';
import { WebhookEndpointsDelete } from '#webhooks/contracts/webhook-endpoints-delete.js';
import type { EndpointsDeps } from '#webhooks/webhook-endpoints.js';
import { endpointsDeps } from '#webhooks/webhooks-deps.js';

/** DELETE /v1/webhook-endpoints/{id}: 204; 404 as GET answers it. */
export const makeHandler = (deps: Pick<EndpointsDeps, 'endpoints'> & { tokens: TokensRepo } = { ...endpointsDeps(), tokens: tokensRepo() }) =>
  httpHandler(WebhookEndpointsDelete, { auth: bearerAuth(deps.tokens) }, async ({ principal, params }) => {
    await deps.endpoints.delete(principal.accountId, params.id ?? '');
    return noContent();
  });

export const handler = makeHandler();
