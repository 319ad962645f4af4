import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { adminCommands } from '#accounts/admin-commands.js';
import { formatToken, tokenHash } from '#accounts/api-tokens.js';
import { tokensRepo } from '#accounts/tokens-repository.js';
import { ROUTES } from '#app/routes.js';
import { bearer, createAccount, login, mintToken, signedUpUser, startTestStack } from '../helpers/stack.js';
import { TEST_ROUTES } from './fixtures/routes.js';

let stack: Awaited<ReturnType<typeof startTestStack>>;

beforeAll(async () => {
  stack = await startTestStack({ routes: [...ROUTES, ...TEST_ROUTES] });
});
afterAll(async () => {
  await stack.stop();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${stack.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
const get = (path: string, headers: Record<string, string> = {}) => fetch(`${stack.url}${path}`, { headers });

describe('browser sessions', () => {
  test('login sets an HttpOnly, Secure, SameSite=Strict session cookie for 12 hours', async () => {
    const account = await createAccount(stack.table);
    const response = await post('/v1/auth/login', { email: account.email, password: account.password });
    assert.equal(response.status, 200);
    const body = (await response.json()) as { account_id: string; expires_at: string };
    assert.equal(body.account_id, account.accountId);
    const hours = (Date.parse(body.expires_at) - Date.now()) / 3_600_000;
    assert.ok(hours > 11.9 && hours <= 12, `expires in ${hours} h`);
    const cookie = response.headers.getSetCookie()[0] ?? '';
    assert.match(cookie, /^session=[A-Za-z0-9_-]{43};/);
    for (const attribute of ['HttpOnly', 'Secure', 'SameSite=Strict', 'Path=/']) assert.ok(cookie.includes(attribute), `${attribute} in ${cookie}`);
  });

  test('wrong password and unknown email both answer 401 unauthorized', async () => {
    const account = await createAccount(stack.table);
    for (const credentials of [
      { email: account.email, password: 'wrong-password' },
      { email: `nobody-${account.email}`, password: account.password },
    ]) {
      const response = await post('/v1/auth/login', credentials);
      assert.equal(response.status, 401);
      assert.equal(response.headers.get('content-type'), 'application/problem+json');
      assert.equal(((await response.json()) as { code: string }).code, 'unauthorized');
      assert.deepEqual(response.headers.getSetCookie(), []);
    }
  });

  test('login input is validated: missing field 422, unknown field 400, not JSON 400', async () => {
    const missing = await post('/v1/auth/login', { email: 'a@example.com' });
    assert.equal(missing.status, 422);
    const problem = (await missing.json()) as { code: string; errors: Array<{ name: string; location: string; code: string }> };
    assert.equal(problem.code, 'validation_failed');
    assert.deepEqual(problem.errors, [{ name: '/password', location: 'body', reason: 'is required', code: 'required' }]);
    const unknown = await post('/v1/auth/login', { email: 'a@example.com', password: 'x', remember: true });
    assert.equal(unknown.status, 400);
    assert.equal(((await unknown.json()) as { code: string }).code, 'unknown_field');
    const notJson = await fetch(`${stack.url}/v1/auth/login`, { method: 'POST', body: '{"email":' });
    assert.equal(notJson.status, 400);
    assert.equal(((await notJson.json()) as { code: string }).code, 'invalid_json');
  });

  test('logout ends the session: the cookie no longer mints', async () => {
    const account = await createAccount(stack.table);
    const cookie = await login(stack.url, account);
    const out = await post('/v1/auth/logout', {}, { Cookie: cookie });
    assert.equal(out.status, 204);
    assert.match(out.headers.getSetCookie()[0] ?? '', /^session=; .*Max-Age=0/);
    const mint = await post('/v1/api-tokens', {}, { Cookie: cookie });
    assert.equal(mint.status, 401);
    assert.deepEqual(await mint.json(), { message: 'A signed-in browser session is required.' });
  });
});

describe('minting API tokens', () => {
  test('a session mints a token shown once, with the specified fields and defaults', async () => {
    const account = await createAccount(stack.table);
    const cookie = await login(stack.url, account);
    const before = Date.now();
    const response = await post('/v1/api-tokens', {}, { Cookie: cookie });
    assert.equal(response.status, 201);
    const minted = (await response.json()) as Record<string, unknown>;
    assert.match(minted.token as string, /^wfs_[A-Za-z0-9_-]{65}$/);
    assert.match(minted.name as string, /^API Token - \d{4}-\d{2}-\d{2}T/);
    assert.equal(minted.expires_in, 3600);
    assert.equal(minted.scope, 'api');
    assert.equal(minted.endpoint, `${stack.url}/v1/chat/completions`);
    assert.equal(minted.rate_limit, '10 requests per second');
    assert.equal(minted.max_concurrent_requests, 10);
    assert.equal(typeof minted.usage_note, 'string');
    const lifetime = Date.parse(minted.expires_at as string) - before;
    assert.ok(lifetime >= 3_595_000 && lifetime <= 3_605_000, `lifetime ${lifetime}`);
    // Only the hash is stored: the item is keyed by it and holds no plaintext.
    const stored = await tokensRepo(stack.table).getForAccount(account.accountId, minted.id as string);
    assert.equal(stored?.token_hash, tokenHash(minted.token as string));
    assert.ok(!JSON.stringify(stored).includes(minted.token as string));
  });

  test('duration_minutes: zero or less becomes 60, above 525600 is clamped, a fraction is 422', async () => {
    const account = await createAccount(stack.table);
    const cookie = await login(stack.url, account);
    const cases: Array<[number, number]> = [
      [0, 3600],
      [-5, 3600],
      [90, 5400],
      [10_000_000, 525_600 * 60],
    ];
    for (const [minutes, seconds] of cases) {
      const response = await post('/v1/api-tokens', { duration_minutes: minutes, name: `d${minutes}` }, { Cookie: cookie });
      assert.equal(response.status, 201);
      const body = (await response.json()) as { expires_in: number; name: string };
      assert.equal(body.expires_in, seconds, `duration ${minutes}`);
      assert.equal(body.name, `d${minutes}`);
    }
    const fraction = await post('/v1/api-tokens', { duration_minutes: 1.5 }, { Cookie: cookie });
    assert.equal(fraction.status, 422);
    assert.equal(typeof ((await fraction.json()) as { message: string }).message, 'string');
    const unknown = await post('/v1/api-tokens', { scope: 'admin' }, { Cookie: cookie });
    assert.equal(unknown.status, 400);
  });

  test('a bearer token alone, no cookie, or an unknown cookie cannot mint (401 {message})', async () => {
    const user = await signedUpUser(stack);
    for (const headers of [bearer(user.token), {}, { Cookie: 'session=not-a-session' }]) {
      const response = await post('/v1/api-tokens', {}, headers);
      assert.equal(response.status, 401);
      const body = (await response.json()) as Record<string, unknown>;
      assert.deepEqual(Object.keys(body), ['message']);
    }
  });

  test('free plan, low balance and suspended accounts get 403 {message}', async () => {
    const free = await createAccount(stack.table, { plan: 'free', balanceUsd: 50 });
    const poor = await createAccount(stack.table, { plan: 'pro', balanceUsd: 1.99 });
    const suspended = await createAccount(stack.table, { plan: 'team', balanceUsd: 50 });
    const suspendedCookie = await login(stack.url, suspended);
    await adminCommands(stack.table)['account:suspend']({ 'account-id': suspended.accountId });
    const expectations: Array<[string, RegExp]> = [
      [await login(stack.url, free), /paid plan/],
      [await login(stack.url, poor), /2\.00 USD/],
      [suspendedCookie, /suspended/],
    ];
    for (const [cookie, message] of expectations) {
      const response = await post('/v1/api-tokens', {}, { Cookie: cookie });
      assert.equal(response.status, 403);
      const body = (await response.json()) as { message: string };
      assert.match(body.message, message);
    }
  });

  test('exactly 2.00 USD is enough to mint', async () => {
    const account = await createAccount(stack.table, { balanceUsd: 2 });
    await mintToken(stack.url, await login(stack.url, account));
  });
});

describe('bearer authentication', () => {
  test('a minted token authenticates; missing, malformed and unknown tokens get 401 with WWW-Authenticate', async () => {
    const user = await signedUpUser(stack);
    const ok = await get('/v2/test/whoami', bearer(user.token));
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), { account_id: user.accountId, token_id: user.tokenId });
    const forged = formatToken(user.accountId);
    for (const headers of [{}, { Authorization: 'Basic abc' }, { Authorization: 'Bearer' }, bearer('wfs_short'), bearer(forged), bearer(`${user.token}x`)]) {
      const response = await get('/v2/test/whoami', headers);
      assert.equal(response.status, 401, JSON.stringify(headers));
      assert.equal(response.headers.get('www-authenticate'), 'Bearer realm="workflow-service"');
      const problem = (await response.json()) as { code: string; status: number };
      assert.equal(problem.code, 'unauthorized');
      assert.equal(problem.status, 401);
    }
  });

  test('v2 never reads cookies: a session cookie without a token is 401', async () => {
    const account = await createAccount(stack.table);
    const cookie = await login(stack.url, account);
    const response = await get('/v2/test/whoami', { Cookie: cookie });
    assert.equal(response.status, 401);
  });

  test('an expired token is refused and left out of the list, even before TTL deletes it', async () => {
    const user = await signedUpUser(stack);
    const expired = formatToken(user.accountId);
    const past = new Date(Date.now() - 60_000);
    await tokensRepo(stack.table).create({
      id: 'tok_expired',
      account_id: user.accountId,
      name: 'old',
      token_hash: tokenHash(expired),
      created_at: new Date(Date.now() - 3_600_000).toISOString(),
      expires_at: past.toISOString(),
    });
    assert.equal((await get('/v2/test/whoami', bearer(expired))).status, 401);
    const list = (await (await get('/v1/api-tokens', bearer(user.token))).json()) as { tokens: Array<{ id: string }> };
    assert.deepEqual(
      list.tokens.map((t) => t.id),
      [user.tokenId],
    );
  });

  test('a suspended account gets 403 forbidden saying so, and works again when unsuspended', async () => {
    const user = await signedUpUser(stack);
    const admin = adminCommands(stack.table);
    await admin['account:suspend']({ 'account-id': user.accountId });
    const response = await get('/v2/test/whoami', bearer(user.token));
    assert.equal(response.status, 403);
    const problem = (await response.json()) as { code: string; detail: string };
    assert.equal(problem.code, 'forbidden');
    assert.match(problem.detail, /suspended/);
    await admin['account:unsuspend']({ 'account-id': user.accountId });
    assert.equal((await get('/v2/test/whoami', bearer(user.token))).status, 200);
  });
});

describe('listing and revoking tokens', () => {
  test('the list shows live tokens oldest first with the listed fields, paginated by cursor', async () => {
    const user = await signedUpUser(stack);
    await mintToken(stack.url, user.cookie, { name: 'second' });
    await mintToken(stack.url, user.cookie, { name: 'third' });
    const seen: Array<Record<string, unknown>> = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : '?limit=2';
      const response = await get(`/v1/api-tokens${query}`, bearer(user.token));
      assert.equal(response.status, 200);
      const page = (await response.json()) as { tokens: Array<Record<string, unknown>>; next_cursor: string | null; has_more: boolean };
      assert.equal(page.has_more, page.next_cursor !== null);
      seen.push(...page.tokens);
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    assert.equal(pages, 2);
    assert.equal(seen.length, 3);
    // Oldest first: the token minted at sign-up, then the two named ones.
    assert.match(seen[0]!.name as string, /^API Token - /);
    assert.deepEqual(
      seen.slice(1).map((t) => t.name),
      ['second', 'third'],
    );
    for (const token of seen) {
      assert.deepEqual(Object.keys(token).sort(), ['created_at', 'expires_at', 'id', 'name', 'scope', 'status']);
      assert.equal(token.status, 'active');
      assert.equal(token.scope, 'api');
    }
  });

  test('bad list parameters: limit out of range and foreign or forged cursors are 400 {message}', async () => {
    const user = await signedUpUser(stack);
    const other = await signedUpUser(stack);
    await mintToken(stack.url, other.cookie);
    const otherPage = (await (await get('/v1/api-tokens?limit=1', bearer(other.token))).json()) as { next_cursor: string };
    for (const query of ['?limit=0', '?limit=101', '?limit=abc', '?cursor=garbage', `?cursor=${encodeURIComponent(otherPage.next_cursor)}`]) {
      const response = await get(`/v1/api-tokens${query}`, bearer(user.token));
      assert.equal(response.status, 400, query);
      assert.equal(typeof ((await response.json()) as { message: string }).message, 'string');
    }
  });

  test('revoke: the token gets 401 on its very next request', async () => {
    const user = await signedUpUser(stack);
    const second = await mintToken(stack.url, user.cookie);
    const response = await post('/v1/api-tokens/revoke', { token_id: second.id }, bearer(user.token));
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { message: 'Token revoked.' });
    assert.equal((await get('/v1/api-tokens', bearer(second.token))).status, 401);
    // A token can revoke itself, and is refused at once after.
    assert.equal((await post('/v1/api-tokens/revoke', { token_id: user.tokenId }, bearer(user.token))).status, 200);
    assert.equal((await get('/v1/api-tokens', bearer(user.token))).status, 401);
  });

  test("revoking an unknown or another account's token id is 404 {message} and that token keeps working", async () => {
    const user = await signedUpUser(stack);
    const other = await signedUpUser(stack);
    for (const tokenId of ['tok_unknown', other.tokenId]) {
      const response = await post('/v1/api-tokens/revoke', { token_id: tokenId }, bearer(user.token));
      assert.equal(response.status, 404);
      assert.deepEqual(Object.keys((await response.json()) as object), ['message']);
    }
    assert.equal((await get('/v1/api-tokens', bearer(other.token))).status, 200);
    const missing = await post('/v1/api-tokens/revoke', {}, bearer(user.token));
    assert.equal(missing.status, 422);
  });

  test('the legacy chat-completions path named in the token answer is 404', async () => {
    const user = await signedUpUser(stack);
    for (const method of ['GET', 'POST']) {
      const response = await fetch(`${stack.url}/v1/chat/completions`, { method, headers: bearer(user.token) });
      assert.equal(response.status, 404);
      assert.equal(((await response.json()) as { code: string }).code, 'not_found');
    }
  });
});
