import { SESSION_TTL_SECONDS } from '#platform/config/limits.js';
import { limitsInForce } from '#platform/config/plans.js';
import { decoyPasswordHash, randomSecret, sha256Hex, verifyPassword } from '#platform/crypto.js';
import { UnauthorizedError } from '#platform/errors.js';
import { appendLogKeys } from '#platform/observability/logger.js';
import type { AccountsRepo } from './accounts-repository.js';
import type { Account } from './model.js';
import type { RateLimiter } from './rate-limiter.js';
import type { SessionsRepo } from './sessions-repository.js';

export const SESSION_COOKIE = 'session';

export interface SessionDeps {
  accounts: AccountsRepo;
  sessions: SessionsRepo;
}

/**
 * Checks the credentials and opens a browser session. An unknown email
 * verifies against a decoy hash, so both failures cost the same scrypt work.
 */
export async function login(deps: SessionDeps, email: string, password: string, now = new Date()) {
  const account = await deps.accounts.findByEmail(email);
  const ok = await verifyPassword(password, account?.password_hash ?? (await decoyPasswordHash()));
  if (!account || !ok) throw new UnauthorizedError('The email or password is incorrect.');
  appendLogKeys({ account_id: account.id });
  const secret = randomSecret(32);
  const expiresAt = new Date(now.getTime() + SESSION_TTL_SECONDS * 1000);
  await deps.sessions.put(sha256Hex(secret), account.id, expiresAt);
  return { secret, accountId: account.id, expiresAt };
}

export async function logout(deps: Pick<SessionDeps, 'sessions'>, secret: string | undefined): Promise<void> {
  if (secret) await deps.sessions.delete(sha256Hex(secret));
}

/**
 * The account behind a session cookie value; 401 when there is none. A
 * session is a credential like a token, so the request then counts against
 * the account's rate limit (429 past it) before the caller does anything.
 */
export async function accountOfSession(deps: SessionDeps & { rates: RateLimiter }, secret: string | undefined): Promise<Account> {
  const session = secret ? await deps.sessions.get(sha256Hex(secret)) : undefined;
  const account = session ? await deps.accounts.get(session.account_id) : undefined;
  if (!account) throw new UnauthorizedError('A signed-in browser session is required.');
  appendLogKeys({ account_id: account.id });
  await deps.rates.admit(account.id, limitsInForce(account));
  return account;
}

export function sessionCookie(secret: string, maxAgeSeconds = SESSION_TTL_SECONDS): string {
  return `${SESSION_COOKIE}=${secret}; HttpOnly; Secure; SameSite=Strict; Path=/; Max-Age=${maxAgeSeconds}`;
}

export const clearedSessionCookie = (): string => `${SESSION_COOKIE}=; HttpOnly; Secure; SameSite=Strict; Path=/; Max-Age=0`;

/** Payload 2.0 events carry cookies as a list of `name=value` strings. */
export function cookieValue(cookies: string[] | undefined, headerValue: string | undefined, name: string): string | undefined {
  const pairs = [...(cookies ?? []), ...(headerValue ? headerValue.split(';') : [])];
  for (const pair of pairs) {
    const index = pair.indexOf('=');
    if (index > 0 && pair.slice(0, index).trim() === name) return pair.slice(index + 1).trim() || undefined;
  }
  return undefined;
}
