import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'vitest';
import { accountIdOfToken, assertMayMint, effectiveDurationMinutes, formatToken, mintToken, revokeToken, tokenHash } from '#accounts/api-tokens.js';
import type { Account, StoredToken } from '#accounts/model.js';
import type { TokensRepo } from '#accounts/tokens-repository.js';
import { ForbiddenError, NotFoundError } from '#platform/errors.js';
import { STATUS_OF } from '#platform/http/problem.js';

const account = (overrides: Partial<Account> = {}): Account => ({
  id: randomUUID(),
  email: 'a@example.com',
  plan: 'pro',
  balance_micro_usd: 5_000_000,
  suspended: false,
  extra_usage: false,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  ...overrides,
});

function fakeTokens(): TokensRepo & { created: StoredToken[]; deleted: StoredToken[] } {
  const created: StoredToken[] = [];
  const deleted: StoredToken[] = [];
  return {
    created,
    deleted,
    create: async (t: StoredToken) => void created.push(t),
    getForAccount: async (accountId: string, id: string) => created.find((t) => t.account_id === accountId && t.id === id),
    delete: async (t: StoredToken) => void deleted.push(t),
  } as unknown as TokensRepo & { created: StoredToken[]; deleted: StoredToken[] };
}

describe('token strings', () => {
  test('carry the prefix, name their account and hold 256 bits of secret', () => {
    const id = randomUUID();
    const token = formatToken(id);
    assert.match(token, /^wfs_[A-Za-z0-9_-]{65}$/);
    assert.equal(accountIdOfToken(token), id);
    assert.notEqual(formatToken(id), token);
  });

  test('anything else is not ours', () => {
    const token = formatToken(randomUUID());
    for (const bad of ['', 'wfs_', token.slice(0, -1), `${token}A`, token.replace('wfs_', 'xyz_'), token.replace(/.$/, '!')]) {
      assert.equal(accountIdOfToken(bad), undefined, bad);
    }
  });

  test('the stored hash is SHA-256 hex of the whole token', () => {
    assert.match(tokenHash('abc'), /^[0-9a-f]{64}$/);
    assert.equal(tokenHash('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('token lifetime', () => {
  test('defaults to 60, turns zero or less into 60, clamps above 525600', () => {
    assert.equal(effectiveDurationMinutes(undefined), 60);
    assert.equal(effectiveDurationMinutes(0), 60);
    assert.equal(effectiveDurationMinutes(-1), 60);
    assert.equal(effectiveDurationMinutes(1), 1);
    assert.equal(effectiveDurationMinutes(525_600), 525_600);
    assert.equal(effectiveDurationMinutes(525_601), 525_600);
  });
});

describe('who may mint', () => {
  test('paid plans with at least 2.00 USD', () => {
    assertMayMint(account({ plan: 'pro', balance_micro_usd: 2_000_000 }));
    assertMayMint(account({ plan: 'team', balance_micro_usd: 2_000_000 }));
  });

  test('free plan, low balance and suspended accounts are refused with 403', () => {
    for (const [a, message] of [
      [account({ plan: 'free', balance_micro_usd: 100_000_000 }), /paid plan/],
      [account({ balance_micro_usd: 1_999_999 }), /2\.00 USD/],
      [account({ suspended: true }), /suspended/],
    ] as const) {
      assert.throws(
        () => assertMayMint(a),
        (e: unknown) => e instanceof ForbiddenError && STATUS_OF[e.kind] === 403 && message.test(e.detail),
      );
    }
  });
});

describe('minting', () => {
  test('stores only the hash and answers the informational fields', async () => {
    const tokens = fakeTokens();
    const now = new Date('2026-11-21T10:00:00.000Z');
    const owner = account();
    const minted = await mintToken({ tokens, newTokenId: () => 'tok_1' }, owner, {}, 'https://api.example.com', now);
    assert.equal(minted.name, 'API Token - 2026-11-21T10:00:00.000Z');
    assert.equal(minted.expires_at, '2026-11-21T11:00:00.000Z');
    assert.equal(minted.expires_in, 3600);
    assert.equal(minted.endpoint, 'https://api.example.com/v1/chat/completions');
    assert.equal(tokens.created.length, 1);
    assert.equal(tokens.created[0]!.token_hash, tokenHash(minted.token));
    assert.ok(!JSON.stringify(tokens.created).includes(minted.token));
  });

  test('a refused account stores nothing', async () => {
    const tokens = fakeTokens();
    await assert.rejects(mintToken({ tokens, newTokenId: () => 'tok_1' }, account({ plan: 'free' }), {}, 'x'), ForbiddenError);
    assert.equal(tokens.created.length, 0);
  });
});

describe('revoking', () => {
  test('an id of another account is 404 and deletes nothing', async () => {
    const tokens = fakeTokens();
    const owner = account();
    await mintToken({ tokens, newTokenId: () => 'tok_1' }, owner, {}, 'x');
    await assert.rejects(revokeToken(tokens, randomUUID(), 'tok_1'), NotFoundError);
    assert.equal(tokens.deleted.length, 0);
    await revokeToken(tokens, owner.id, 'tok_1');
    assert.equal(tokens.deleted.length, 1);
  });
});
