import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'vitest';
import type { AccountsRepo } from '#accounts/accounts-repository.js';
import type { AccountWithSecret } from '#accounts/model.js';
import type { RateLimiter } from '#accounts/rate-limiter.js';
import { accountOfSession, cookieValue, login, logout, sessionCookie } from '#accounts/sessions.js';
import type { SessionsRepo } from '#accounts/sessions-repository.js';
import { hashPassword, sha256Hex, verifyPassword } from '#platform/crypto.js';
import { RateLimitedError, UnauthorizedError } from '#platform/errors.js';

async function fakes() {
  const account: AccountWithSecret = {
    id: randomUUID(),
    email: 'a@example.com',
    plan: 'pro',
    balance_micro_usd: 0,
    suspended: false,
    extra_usage: false,
    created_at: '',
    updated_at: '',
    password_hash: await hashPassword('right password'),
  };
  const sessions = new Map<string, { account_id: string; expires_at: string; created_at: string }>();
  const accounts = {
    findByEmail: async (email: string) => (email === account.email ? account : undefined),
    get: async (id: string) => (id === account.id ? account : undefined),
  } as unknown as AccountsRepo;
  const sessionsRepo = {
    put: async (hash: string, accountId: string, expiresAt: Date) => {
      const s = { account_id: accountId, expires_at: expiresAt.toISOString(), created_at: '' };
      sessions.set(hash, s);
      return s;
    },
    get: async (hash: string) => sessions.get(hash),
    delete: async (hash: string) => void sessions.delete(hash),
  } as unknown as SessionsRepo;
  const admitted: string[] = [];
  const rates: RateLimiter = { admit: async (accountId) => void admitted.push(accountId) };
  return { account, sessions, admitted, deps: { accounts, sessions: sessionsRepo, rates } };
}

describe('passwords', () => {
  test('scrypt hashes verify the right password only and are salted', async () => {
    const a = await hashPassword('pw');
    assert.match(a, /^scrypt\$32768\$8\$1\$/);
    assert.notEqual(a, await hashPassword('pw'));
    assert.equal(await verifyPassword('pw', a), true);
    assert.equal(await verifyPassword('pW', a), false);
    assert.equal(await verifyPassword('pw', 'garbage'), false);
  });
});

describe('sessions', () => {
  test('login stores the SHA-256 of the secret, never the secret, for 12 hours', async () => {
    const { deps, sessions, account } = await fakes();
    const now = new Date('2026-11-21T00:00:00Z');
    const session = await login(deps, account.email, 'right password', now);
    assert.deepEqual([...sessions.keys()], [sha256Hex(session.secret)]);
    assert.equal(session.expiresAt.toISOString(), '2026-11-21T12:00:00.000Z');
    assert.equal((await accountOfSession(deps, session.secret)).id, account.id);
  });

  test('wrong password and unknown email are both Unauthorized', async () => {
    const { deps, sessions, account } = await fakes();
    await assert.rejects(login(deps, account.email, 'wrong'), UnauthorizedError);
    await assert.rejects(login(deps, 'b@example.com', 'right password'), UnauthorizedError);
    assert.equal(sessions.size, 0);
  });

  test('logout deletes the session; a missing or unknown cookie is Unauthorized', async () => {
    const { deps, account } = await fakes();
    const { secret } = await login(deps, account.email, 'right password');
    await logout(deps, secret);
    await assert.rejects(accountOfSession(deps, secret), UnauthorizedError);
    await assert.rejects(accountOfSession(deps, undefined), UnauthorizedError);
  });

  test('a session request counts against the account rate limit: admitted, or refused with its 429', async () => {
    const { deps, account, admitted } = await fakes();
    const { secret } = await login(deps, account.email, 'right password');
    await accountOfSession(deps, secret);
    assert.deepEqual(admitted, [account.id]);
    const refused = { ...deps, rates: { admit: async () => Promise.reject(new RateLimitedError('past the limit', 2)) } };
    await assert.rejects(accountOfSession(refused, secret), RateLimitedError);
    await assert.rejects(accountOfSession(refused, undefined), UnauthorizedError, 'no session: 401 before any rate check');
  });

  test('cookie helpers: attributes and lookup in the event cookie list or header', () => {
    assert.equal(sessionCookie('abc'), 'session=abc; HttpOnly; Secure; SameSite=Strict; Path=/; Max-Age=43200');
    assert.equal(cookieValue(['a=1', 'session=xyz'], undefined, 'session'), 'xyz');
    assert.equal(cookieValue(undefined, 'a=1; session=q=1', 'session'), 'q=1');
    assert.equal(cookieValue(['sessionx=1'], undefined, 'session'), undefined);
  });
});
