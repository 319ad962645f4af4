import { sessionsRepo } from '../../lib/data/sessions.js';
import { clearedSessionCookie, cookieValue, logout, SESSION_COOKIE, type SessionDeps } from '../../lib/domain/sessions.js';
import { httpHandler } from '../../lib/http/handler.js';
import { header, noContent } from '../../lib/http/responses.js';

/** Ends the browser session, if any; answering 204 either way keeps logout idempotent. */
export const makeHandler = (deps: Pick<SessionDeps, 'sessions'> = { sessions: sessionsRepo() }) =>
  httpHandler({ auth: 'none' }, async ({ event }) => {
    await logout(deps, cookieValue(event.cookies, header(event.headers, 'cookie'), SESSION_COOKIE));
    return { ...noContent(), cookies: [clearedSessionCookie()] };
  });

export const handler = makeHandler();
