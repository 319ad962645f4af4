import { accountsRepo } from '../../lib/data/accounts.js';
import { sessionsRepo } from '../../lib/data/sessions.js';
import { login, type SessionDeps, sessionCookie } from '../../lib/domain/sessions.js';
import { httpHandler } from '../../lib/http/handler.js';
import { json } from '../../lib/http/responses.js';
import { LoginBody } from '../../lib/schemas/auth.js';

export const makeHandler = (deps: SessionDeps = { accounts: accountsRepo(), sessions: sessionsRepo() }) =>
  httpHandler({ auth: 'none', body: LoginBody }, async ({ body }) => {
    const session = await login(deps, body.email, body.password);
    const response = json(200, { account_id: session.accountId, expires_at: session.expiresAt.toISOString() });
    return { ...response, cookies: [sessionCookie(session.secret)] };
  });

export const handler = makeHandler();
