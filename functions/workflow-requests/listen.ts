import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { SERVED_ROUTES } from '#app/served-routes.generated.js';
import { WorkflowRequestsListen } from '#execution/contracts/workflow-requests-listen.js';
import { type RequestStreamDeps, requestStream, requestStreamDeps } from '#execution/request-stream.js';
import { streamingHttpHandler } from '#platform/http/handler.js';

/**
 * `GET /v1/workflow-requests/{id}/listen`, served by the response-streaming
 * function URL: the live execution stream (lib/execution/request-stream.ts).
 * A function URL names no route: the handler matches the path to its
 * contract's, and answers any other as API Gateway would (SERVED_ROUTES).
 */
export type ListenDeps = RequestStreamDeps & { tokens: TokensRepo };

export const makeHandler = (deps: ListenDeps = { ...requestStreamDeps(), tokens: tokensRepo() }) =>
  streamingHttpHandler(WorkflowRequestsListen, { auth: bearerAuth(deps.tokens), served: SERVED_ROUTES }, (request) => requestStream(deps, request));

export const handler = makeHandler();
