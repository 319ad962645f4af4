import { allowedMethods } from '#app/routes.js';
import { MethodNotAllowedError, NotFoundError } from '#platform/errors.js';
import { httpHandler } from '#platform/http/handler.js';

/**
 * API Gateway's `$default` route: every path the route table does not serve,
 * including the legacy chat-completions path named in token answers.
 */
export const handler = httpHandler({ auth: 'none' }, async ({ event }) => {
  const allowed = allowedMethods(event.rawPath);
  if (allowed.length > 0) throw new MethodNotAllowedError(allowed);
  throw new NotFoundError(`No endpoint at ${event.requestContext.http.method} ${event.rawPath}.`);
});
