import { defineEndpoint } from '#platform/http/contract.js';
import { SESSIONS_TAG } from './tags.js';

export const AuthLogout = defineEndpoint({
  id: 'AuthLogout',
  method: 'POST',
  path: '/v1/auth/logout',
  handler: 'functions/auth/logout.ts',
  auth: 'none',
  table: 'readwrite',
  operationId: 'logout',
  summary: 'End the browser session',
  description:
    'Ends the session named by the `session` cookie, if any, and clears the cookie. No credential is required and there is no 4xx: without a cookie, or with an unknown one, it answers 204 all the same.',
  tags: [SESSIONS_TAG],
  responses: () =>
    import('../openapi/auth-responses.js').then(({ SESSION_CLEARED }) => ({
      204: { description: 'The session, if any, is ended and the cookie cleared.', headers: SESSION_CLEARED },
    })),
});
