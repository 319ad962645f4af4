import { NotFound } from '#app/contracts/not-found.js';
import { SERVED_ROUTES } from '#app/served-routes.generated.js';
import { httpHandler } from '#platform/http/handler.js';
import { unservedRouteError } from '#platform/http/routing.js';

/**
 * API Gateway's `$default` route: every path the route table does not serve,
 * including the legacy chat-completions path named in token answers.
 */
export const handler = httpHandler(NotFound, { auth: 'none' }, async ({ event }) => {
  throw unservedRouteError(event.requestContext.http.method, event.rawPath, SERVED_ROUTES);
});
