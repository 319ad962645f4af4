import { AuthLogout } from '#accounts/contracts/auth-logout.js';
import { clearedSessionCookie, cookieValue, logout, SESSION_COOKIE, type SessionDeps } from '#accounts/sessions.js';
import { sessionsRepo } from '#accounts/sessions-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { header, noContent } from '#platform/http/responses.js';

/** Ends the browser session, if any; answering 204 either way keeps logout idempotent. */
export const makeHandler = (deps: Pick<SessionDeps, 'sessions'> = { sessions: sessionsRepo() }) =>
  httpHandler(AuthLogout, { auth: 'none' }, async ({ event }) => {
    await logout(deps, cookieValue(event.cookies, header(event.headers, 'cookie'), SESSION_COOKIE));
    return { ...noContent(), cookies: [clearedSessionCookie()] };
  });

export const handler = makeHandler();
