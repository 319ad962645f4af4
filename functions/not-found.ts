import { unservedRouteError } from '#app/routes.js';
import { httpHandler } from '#platform/http/handler.js';

/**
 * API Gateway's `$default` route: every path the route table does not serve,
 * including the legacy chat-completions path named in token answers.
 */
export const handler = httpHandler({ auth: 'none' }, async ({ event }) => {
  throw unservedRouteError(event.requestContext.http.method, event.rawPath);
});
