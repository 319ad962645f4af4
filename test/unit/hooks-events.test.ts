import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { Webhook } from 'standardwebhooks';
import { describe, test } from 'vitest';
import type { Account } from '#accounts/index.js';
import { EventInFlightError } from '#hooks/errors.js';
import { createHook, rotateHookSecret } from '#hooks/hooks.js';
import type { HooksRepo } from '#hooks/hooks-repository.js';
import type { ClaimResult, EventGuard } from '#hooks/model.js';
import { type Hook, MAX_EVENT_BYTES, newHookId } from '#hooks/model.js';
import { eventRequestId, type ReceiveDeps, receiveEvent } from '#hooks/receive-event.js';
import { HOOK_SECRET_PURPOSE, hookSecretKeptOut, hookSecrets } from '#hooks/secrets.js';
import { verifyEvent } from '#hooks/verify.js';
import { DomainError, RateLimitedError, ValidationError } from '#platform/errors.js';
import { STATUS_OF } from '#platform/http/problem.js';
import type { HttpResult } from '#platform/http/types.js';
import { deriveWebhookSecret } from '#platform/secrets/service-key.js';

const serviceKeyBytes = Buffer.alloc(32, 9);
const secrets = hookSecrets({ load: async () => serviceKeyBytes });

const baseHook = (overrides: Partial<Hook> = {}): Hook => ({
  id: newHookId(),
  account_id: 'acct-1',
  name: 'orders',
  workflow_version_id: randomUUID(),
  entry_node_ids: [randomUUID()],
  secret_version: 1,
  previous_secret_version: null,
  previous_valid_until: null,
  secret_rotated_at: null,
  created_at: '2026-01-01T00:00:00.000Z',
  ...overrides,
});

function sign(secret: string, body: string, id = `msg_${randomUUID()}`) {
  const at = new Date();
  return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign(id, at, body) };
}

const statusOf = (error: unknown) => (error instanceof DomainError ? STATUS_OF[error.kind] : undefined);
const refusedWith = (status: number, code: string) => (error: unknown) => statusOf(error) === status && (error as DomainError).code === code;

/** An in-memory replay guard with the table's conditions. */
function memoryGuards() {
  const items = new Map<string, EventGuard>();
  const calls: string[] = [];
  return {
    items,
    calls,
    async claim(
      hookId: string,
      hash: string,
      input: { requestId: string; token: string; now: Date; leaseMs: number; windowSeconds: number },
    ): Promise<ClaimResult> {
      calls.push('claim');
      const key = `${hookId}/${hash}`;
      const old = items.get(key);
      const nowSeconds = Math.floor(input.now.getTime() / 1000);
      if (old && old.expires_at > nowSeconds && !(old.state === 'claimed' && old.lease_until <= input.now.getTime())) return { claimed: false, guard: old };
      items.set(key, {
        state: 'claimed',
        request_id: input.requestId,
        claim_token: input.token,
        lease_until: input.now.getTime() + input.leaseMs,
        expires_at: nowSeconds + input.windowSeconds,
      });
      return { claimed: true };
    },
    async markStarted(hookId: string, hash: string, token: string) {
      calls.push('started');
      const item = items.get(`${hookId}/${hash}`);
      if (item?.claim_token !== token) return false;
      item.state = 'started';
      return true;
    },
    async release(hookId: string, hash: string, token: string) {
      calls.push('release');
      const item = items.get(`${hookId}/${hash}`);
      if (item?.claim_token === token && item.state === 'claimed') items.delete(`${hookId}/${hash}`);
    },
  };
}

function fixture(
  hook: Hook,
  options: { now?: () => Date; account?: Partial<Account>; admit?: () => Promise<void>; start?: () => Promise<void>; rate?: () => Promise<void> } = {},
) {
  const rated: Array<{ accountId: string; burst: number }> = [];
  const started: Array<{ accountId: string; input: Record<string, unknown>; options: { id?: string; limits: { concurrency: number } } }> = [];
  const guards = memoryGuards();
  const deps: ReceiveDeps = {
    hooks: { find: async (id) => (id === hook.id ? hook : undefined) },
    events: guards,
    secrets,
    starter: {
      async start(accountId, input, startOptions) {
        await options.start?.();
        started.push({ accountId, input: input as unknown as Record<string, unknown>, options: startOptions });
        return { id: startOptions.id ?? randomUUID() };
      },
    },
    usage: { admit: options.admit ?? (async () => undefined) },
    rates: {
      async admit(accountId, limits) {
        rated.push({ accountId, burst: limits.burst });
        await options.rate?.();
      },
    },
    accounts: {
      get: async (id) => (id === hook.account_id ? ({ account_id: id, plan: 'pro', suspended: false, ...options.account } as unknown as Account) : undefined),
    },
    clock: options.now,
    sleep: async () => undefined,
  };
  const post = (body: string, headers: Record<string, string>, hookId = hook.id) =>
    receiveEvent(deps, { hookId, rawBody: body, bytes: Buffer.byteLength(body), headers });
  return { deps, started, guards, post, rated };
}

describe('verifying an event', () => {
  test('any matching v1 signature verifies and answers the webhook-id; everything else is 401 invalid_signature', () => {
    const secret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    const body = '{"a":1}';
    const headers = sign(secret, body, 'msg_1');
    assert.equal(verifyEvent([secret], body, headers), 'msg_1');
    assert.equal(verifyEvent([secret], body, { ...headers, 'webhook-signature': `v1,AAAA v2,xyz ${headers['webhook-signature']}` }), 'msg_1');
    const other = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
    assert.equal(verifyEvent([other, secret], body, headers), 'msg_1');
    const invalid = refusedWith(401, 'invalid_signature');
    assert.throws(() => verifyEvent([other], body, headers), invalid);
    assert.throws(() => verifyEvent([secret], '{"a":2}', headers), invalid);
    assert.throws(() => verifyEvent([], body, headers), invalid);
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
      const { [name]: _, ...without } = headers;
      assert.throws(() => verifyEvent([secret], body, without), invalid);
    }
    const old = Math.floor(Date.now() / 1000) - 301;
    const stale = { ...headers, 'webhook-timestamp': String(old), 'webhook-signature': new Webhook(secret).sign('msg_1', new Date(old * 1000), body) };
    assert.throws(() => verifyEvent([secret], body, stale), invalid);
    assert.throws(() => verifyEvent([secret], body, { ...headers, 'webhook-timestamp': 'soon' }), invalid);
  });

  test('secrets are derived from the service key, hook id and version: stable, distinct per hook and version, never stored', async () => {
    const hook = baseHook();
    const first = await secrets.of(hook.id, 1);
    assert.equal(first, deriveWebhookSecret(serviceKeyBytes, HOOK_SECRET_PURPOSE, hook.id, 1));
    assert.equal(await secrets.of(hook.id, 1), first);
    assert.notEqual(await secrets.of(hook.id, 2), first);
    assert.notEqual(await secrets.of(newHookId(), 1), first);
    assert.notEqual(await hookSecrets({ load: async () => Buffer.alloc(32, 8) }).of(hook.id, 1), first);
  });
});

describe('a rotation, on an injected clock', () => {
  test('the old secret verifies until 24 hours after the rotation and not after; the new one throughout', async () => {
    let now = new Date('2026-05-01T10:00:00.000Z');
    const clock = () => now;
    let stored = baseHook();
    const hooks = {
      rotate: async (_account: string, _id: string, input: { now: string; previousValidUntil: string }) => {
        stored = {
          ...stored,
          previous_secret_version: stored.secret_version,
          secret_version: stored.secret_version + 1,
          previous_valid_until: input.previousValidUntil,
          secret_rotated_at: input.now,
        };
        return stored;
      },
    } as unknown as HooksRepo;
    const oldSecret = await secrets.of(stored.id, 1);
    const rotated = await rotateHookSecret({ hooks, secrets, baseUrl: 'https://api.example', clock }, 'acct-1', stored.id);
    assert.equal(rotated.secret, await secrets.of(stored.id, 2));
    assert.equal(rotated.previous_secret_expires_at, '2026-05-02T10:00:00.000Z');
    assert.equal(rotated.url, `https://api.example/v1/hooks/${stored.id}/events`);

    const { post } = fixture(stored, { now: clock });
    const body = '{"n":1}';
    assert.equal((await post(body, sign(oldSecret, body))).replayed, false);
    assert.equal((await post(body, sign(rotated.secret, body))).replayed, false);
    now = new Date(Date.parse('2026-05-02T10:00:00.000Z') - 1);
    assert.equal((await post(body, sign(oldSecret, body))).replayed, false);
    now = new Date('2026-05-02T10:00:00.000Z');
    await assert.rejects(post(body, sign(oldSecret, body)), refusedWith(401, 'invalid_signature'));
    assert.equal((await post(body, sign(rotated.secret, body))).replayed, false);
  });
});

describe('receiving an event', () => {
  test('a verified event starts the hook’s request with a deterministic id, the body as payload, the account’s limits; a replay starts nothing', async () => {
    const hook = baseHook();
    const secret = await secrets.of(hook.id, 1);
    const { post, started, guards } = fixture(hook, { account: { concurrency: 7 } as Partial<Account> });
    const body = '{"order":42}';
    const headers = sign(secret, body, 'evt-1');
    const first = await post(body, headers);
    assert.deepEqual(first, { workflow_request_id: eventRequestId(hook.id, 'evt-1'), replayed: false });
    assert.equal(started.length, 1);
    assert.deepEqual(started[0]?.input, {
      workflow_version_id: hook.workflow_version_id,
      entry_node_ids: hook.entry_node_ids,
      payload: { order: 42 },
      metadata: { hook_id: hook.id, webhook_id: 'evt-1' },
    });
    assert.equal(started[0]?.options.id, first.workflow_request_id);
    assert.equal(started[0]?.options.limits.concurrency, 7);
    assert.deepEqual(
      [...guards.items.values()].map((g) => g.state),
      ['started'],
    );

    const again = await post(body, sign(secret, body, 'evt-1'));
    assert.deepEqual(again, { workflow_request_id: first.workflow_request_id, replayed: true });
    assert.equal(started.length, 1);
    // Another hook's event with the same webhook-id is another event.
    assert.notEqual(eventRequestId(newHookId(), 'evt-1'), first.workflow_request_id);
  });

  test('the order of refusals: unknown hook 404, size 413, signature 401, body 400; none claims the event', async () => {
    const hook = baseHook();
    const secret = await secrets.of(hook.id, 1);
    const { deps, post, guards } = fixture(hook);
    await assert.rejects(post('{}', sign(secret, '{}'), newHookId()), refusedWith(404, 'not_found'));
    const big = JSON.stringify({ pad: 'x'.repeat(MAX_EVENT_BYTES) });
    await assert.rejects(receiveEvent(deps, { hookId: hook.id, rawBody: big, bytes: MAX_EVENT_BYTES + 1, headers: {} }), refusedWith(413, 'payload_too_large'));
    await assert.rejects(post('{}', {}), refusedWith(401, 'invalid_signature'));
    await assert.rejects(post('{"a"', sign(secret, '{"a"')), refusedWith(400, 'invalid_json'));
    await assert.rejects(post('', sign(secret, '')), refusedWith(400, 'invalid_json'));
    await assert.rejects(post('[1]', sign(secret, '[1]')), refusedWith(400, 'invalid_body'));
    await assert.rejects(post('null', sign(secret, 'null')), refusedWith(400, 'invalid_body'));
    assert.deepEqual(guards.calls, []);
  });

  test('a refused start (usage, ceiling, suspension, validation) releases the claim, so a redelivery is tried afresh', async () => {
    const hook = baseHook();
    const secret = await secrets.of(hook.id, 1);
    let refusal: Error | undefined = new RateLimitedError('At the ceiling.', 1);
    const { post, started, guards } = fixture(hook, {
      start: async () => {
        if (refusal) throw refusal;
      },
    });
    const body = '{}';
    await assert.rejects(post(body, sign(secret, body, 'evt-9')), refusedWith(429, 'rate_limited'));
    assert.equal(guards.items.size, 0);
    refusal = new ValidationError([]);
    await assert.rejects(post(body, sign(secret, body, 'evt-9')), refusedWith(422, 'validation_failed'));
    assert.equal(guards.items.size, 0);
    refusal = undefined;
    assert.equal((await post(body, sign(secret, body, 'evt-9'))).replayed, false);
    assert.equal(started.length, 1);

    const suspended = fixture(hook, { account: { suspended: true } });
    await assert.rejects(suspended.post(body, sign(secret, body, 'evt-10')), refusedWith(403, 'forbidden'));
    assert.equal(suspended.guards.items.size, 0);
    let admitted = false;
    const blocked = fixture(hook, {
      admit: async () => {
        admitted = true;
        throw new RateLimitedError('window', 5);
      },
    });
    await assert.rejects(blocked.post(body, sign(secret, body, 'evt-11')), refusedWith(429, 'rate_limited'));
    assert.equal(admitted, true);
    assert.equal(blocked.started.length, 0);
    assert.equal(blocked.guards.items.size, 0);
  });

  test('an event counts as one request against its account’s rate: past it, 429 rate_limited before the usage check, the claim released; a replay is not counted', async () => {
    const hook = baseHook();
    const secret = await secrets.of(hook.id, 1);
    let limited = true;
    let admitted = 0;
    const { post, started, guards, rated } = fixture(hook, {
      rate: async () => {
        if (limited) throw new RateLimitedError('The account made more requests than its limit.', 2);
      },
      admit: async () => {
        admitted++;
      },
    });
    const body = '{}';
    await assert.rejects(post(body, sign(secret, body, 'evt-20')), refusedWith(429, 'rate_limited'));
    assert.deepEqual([admitted, started.length, guards.items.size], [0, 0, 0]);
    limited = false;
    assert.equal((await post(body, sign(secret, body, 'evt-20'))).replayed, false);
    assert.equal((await post(body, sign(secret, body, 'evt-20'))).replayed, true);
    assert.deepEqual(rated, [
      { accountId: hook.account_id, burst: 40 },
      { accountId: hook.account_id, burst: 40 },
    ]);
  });

  test('concurrent deliveries of one webhook-id: one starts, the others wait for its answer; a claim never resolved is 409 after the wait', async () => {
    const hook = baseHook();
    const secret = await secrets.of(hook.id, 1);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { deps, started } = fixture(hook, { start: () => gate });
    const polls: number[] = [];
    deps.sleep = async (ms) => {
      polls.push(ms);
      if (polls.length === 3) release();
      await new Promise((resolve) => setTimeout(resolve, 1));
    };
    const body = '{"x":1}';
    const headers = sign(secret, body, 'evt-c');
    const answers = await Promise.all(Array.from({ length: 5 }, () => receiveEvent(deps, { hookId: hook.id, rawBody: body, bytes: body.length, headers })));
    assert.equal(started.length, 1);
    assert.equal(new Set(answers.map((a) => a.workflow_request_id)).size, 1);
    assert.equal(answers.filter((a) => !a.replayed).length, 1);

    // A claim held by a delivery that never answers: the others give up after the wait (409, retry), and take it over after its lease.
    let now = 1_000_000;
    const stuck = fixture(hook, { now: () => new Date(now) });
    await stuck.deps.events.claim(hook.id, (await import('#hooks/receive-event.js')).webhookIdHash('evt-s'), {
      requestId: eventRequestId(hook.id, 'evt-s'),
      token: 'dead',
      now: new Date(now),
      leaseMs: 60_000,
      windowSeconds: 86_400,
    });
    stuck.deps.sleep = async (ms) => {
      now += ms;
    };
    await assert.rejects(stuck.post(body, sign(secret, body, 'evt-s')), (e) => e instanceof EventInFlightError && statusOf(e) === 409);
    now += 60_000;
    assert.deepEqual(await stuck.post(body, sign(secret, body, 'evt-s')), { workflow_request_id: eventRequestId(hook.id, 'evt-s'), replayed: false });
  });
});

describe('creating a hook', () => {
  test('checked as running it is, then shown with its secret once; the idempotency record keeps no secret', async () => {
    const puts: Hook[] = [];
    const hooks = {
      create: async (h: Hook) => {
        puts.push(h);
        return h;
      },
    } as unknown as HooksRepo;
    const checked: unknown[] = [];
    const input = { name: 'orders', workflow_version_id: randomUUID(), entry_node_ids: [randomUUID()] };
    const created = await createHook(
      { hooks, secrets, starter: { check: async (account, i) => void checked.push([account, i]) }, baseUrl: 'https://api.example' },
      'acct-1',
      input,
    );
    assert.deepEqual(checked, [['acct-1', input]]);
    assert.equal(created.secret, await secrets.of(created.id, 1));
    assert.equal(puts[0]?.secret_version, 1);
    assert.equal(JSON.stringify(puts[0]).includes(created.secret.slice(6)), false);
    await assert.rejects(
      createHook(
        {
          hooks,
          secrets,
          starter: {
            check: async () => {
              throw new ValidationError([]);
            },
          },
          baseUrl: '',
        },
        'acct-1',
        input,
      ),
      ValidationError,
    );
    assert.equal(puts.length, 1);

    // What the idempotency store is given has no secret; what the client gets has it, fresh or replayed.
    const storedBodies: string[] = [];
    let record: HttpResult | undefined;
    const run = async (_call: unknown, _context: Context, execute: () => Promise<HttpResult>) => {
      if (!record) {
        record = await execute();
        storedBodies.push(record.body);
      }
      return { ...record, headers: { ...record.headers, 'Idempotency-Replayed': 'true' } };
    };
    const wrapped = hookSecretKeptOut(run, secrets);
    const fresh = { statusCode: 201, headers: {}, body: JSON.stringify(created) };
    const call = { accountId: 'acct-1', route: 'POST /v1/hooks', key: 'k', body: null };
    const first = await wrapped(call, {} as Context, async () => fresh);
    const replay = await wrapped(call, {} as Context, async () => assert.fail('executed twice'));
    assert.equal(storedBodies[0]?.includes('whsec_'), false);
    assert.deepEqual(JSON.parse(first.body), created);
    assert.deepEqual(JSON.parse(replay.body), created);
    assert.deepEqual(Object.keys(JSON.parse(replay.body)).slice(0, 4), ['id', 'name', 'url', 'secret']);
  });
});
