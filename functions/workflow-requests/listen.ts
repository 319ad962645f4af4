import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { matchRoute, unservedRouteError } from '#app/routes.js';
import { type RequestStreamDeps, requestStream, requestStreamDeps } from '#execution/request-stream.js';
import { streamingHttpHandler } from '#platform/http/handler.js';
import type { HttpEvent } from '#platform/http/types.js';

/**
 * `GET /v1/workflow-requests/{id}/listen`, served by the response-streaming
 * function URL: the live execution stream (lib/execution/request-stream.ts).
 */
export type ListenDeps = RequestStreamDeps & { tokens: TokensRepo };

/** A function URL names no route: the path is matched here, as API Gateway would. */
function pathParameters(event: HttpEvent): Record<string, string> {
  const method = event.requestContext?.http?.method ?? 'GET';
  const path = event.rawPath ?? '/';
  const matched = matchRoute(method, path);
  if (matched?.route.id === 'WorkflowRequestsListen') return matched.params;
  throw unservedRouteError(method, path);
}

export const makeHandler = (deps: ListenDeps = { ...requestStreamDeps(), tokens: tokensRepo() }) =>
  streamingHttpHandler({ auth: bearerAuth(deps.tokens), pathParameters }, (request) => requestStream(deps, request));

export const handler = makeHandler();
