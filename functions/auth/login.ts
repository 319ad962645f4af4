import { accountsRepo } from '#accounts/accounts-repository.js';
import { AuthLogin } from '#accounts/contracts/auth-login.js';
import { login, type SessionDeps, sessionCookie } from '#accounts/sessions.js';
import { sessionsRepo } from '#accounts/sessions-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';

export const makeHandler = (deps: SessionDeps = { accounts: accountsRepo(), sessions: sessionsRepo() }) =>
  httpHandler(AuthLogin, { auth: 'none' }, async ({ body }) => {
    const session = await login(deps, body.email, body.password);
    const response = json(200, { account_id: session.accountId, expires_at: session.expiresAt.toISOString() });
    return { ...response, cookies: [sessionCookie(session.secret)] };
  });

export const handler = makeHandler();
