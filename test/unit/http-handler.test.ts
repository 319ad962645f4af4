import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'vitest';
import * as z from 'zod';
import { formatToken } from '#accounts/api-tokens.js';
import { bearerAuth } from '#accounts/bearer-auth.js';
import type { TokensRepo } from '#accounts/tokens-repository.js';
import { limitsInForce } from '#platform/config/plans.js';
import { NotFoundError } from '#platform/errors.js';
import { defineEndpoint, defineTag } from '#platform/http/contract.js';
import { type AuthMiddleware, httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';
import type { ApiContext } from '#platform/http/types.js';
import { makeHandler as makeMint } from '../../functions/api-tokens/create.js';
import { httpEvent } from '../helpers/http-event.js';

const event = httpEvent;
const context = () => ({ getRemainingTimeInMillis: () => 1000 }) as unknown as ApiContext;

const route = { method: 'POST', path: '/v2/x', handler: 'test.ts', table: 'none', undocumented: 'a test' } as const;
const PUBLIC = defineEndpoint({ ...route, id: 'TestPublic', auth: 'none' });
const BEARER = defineEndpoint({ ...route, id: 'TestBearer', auth: 'bearer' });
const MESSAGES = defineEndpoint({ ...route, id: 'TestMessages', auth: 'none', errors: 'message', body: z.strictObject({ a: z.string() }) });

describe('httpHandler', () => {
  test('shapes the answer and adds X-Request-Id and Cache-Control', async () => {
    const handler = httpHandler(PUBLIC, { auth: 'none' }, async () => json(200, { ok: true }));
    const result = await handler(event({ headers: { 'x-request-id': 'r1' } }), context());
    assert.equal(result.statusCode, 200);
    assert.equal(result.headers['X-Request-Id'], 'r1');
    assert.equal(result.headers['Cache-Control'], 'no-store');
  });

  test('DomainErrors become problem documents; others an opaque 500', async () => {
    const notFound = await httpHandler(PUBLIC, { auth: 'none' }, async () => {
      throw new NotFoundError();
    })(event({ headers: { 'X-Request-Id': 'r2' } }), context());
    assert.equal(notFound.statusCode, 404);
    assert.equal(notFound.headers['Content-Type'], 'application/problem+json');
    assert.equal(JSON.parse(notFound.body).trace_id, 'r2');
    const crash = await httpHandler(PUBLIC, { auth: 'none' }, async () => {
      throw new Error('password=hunter2');
    })(event(), context());
    assert.equal(crash.statusCode, 500);
    assert.ok(!crash.body.includes('hunter2'));
    assert.equal(JSON.parse(crash.body).code, 'internal_error');
  });

  test('a client X-Request-Id that is too long or has controls is replaced', async () => {
    const result = await httpHandler(PUBLIC, { auth: 'none' }, async () => json(200, {}))(event({ headers: { 'x-request-id': 'a b' } }), context());
    assert.match(result.headers['X-Request-Id']!, /^[0-9a-f-]{36}$/);
  });

  test('the message format answers {message} with the same status', async () => {
    const result = await httpHandler(MESSAGES, { auth: 'none' }, async () => json(200, {}))(event({ body: '{"b":1}' }), context());
    assert.equal(result.statusCode, 400);
    assert.deepEqual(Object.keys(JSON.parse(result.body)), ['message']);
  });

  test('bearer auth resolves the principal through the token store on every request', async () => {
    const accountId = randomUUID();
    let lookups = 0;
    const tokens = {
      authenticate: async () => {
        lookups++;
        return { token: { id: 'tok_1' }, account: { id: accountId, plan: 'pro', suspended: false } };
      },
    } as unknown as TokensRepo;
    const admitted: string[] = [];
    const handler = httpHandler(BEARER, { auth: bearerAuth(tokens, { admit: async (id) => void admitted.push(id) }) }, async ({ principal }) =>
      json(200, principal),
    );
    const token = formatToken(accountId);
    for (let i = 0; i < 2; i++) {
      const result = await handler(event({ headers: { authorization: `Bearer ${token}` } }), context());
      assert.deepEqual(JSON.parse(result.body), { accountId, tokenId: 'tok_1', plan: 'pro', limits: limitsInForce({ plan: 'pro' }) });
    }
    assert.equal(lookups, 2, 'no cache');
    assert.deepEqual(admitted, [accountId, accountId], 'every authenticated request is checked against the rate limit');
    const missing = await handler(event(), context());
    assert.equal(missing.statusCode, 401);
    assert.equal(missing.headers['WWW-Authenticate'], 'Bearer realm="workflow-service"');
  });
});

describe('httpHandler and its contract', () => {
  test('refuses, when built, an auth step other than its contract names', () => {
    const untagged = { before: async () => undefined } as unknown as AuthMiddleware<'bearer'>;
    assert.throws(() => httpHandler(BEARER, { auth: 'none' } as never, async () => json(200, {})), /TestBearer: its contract's auth is bearer/);
    assert.throws(() => httpHandler(BEARER, { auth: untagged }, async () => json(200, {})), /not a untagged auth middleware/);
    assert.throws(
      () => httpHandler(PUBLIC, { auth: bearerAuth({} as TokensRepo) } as never, async () => json(200, {})),
      /TestPublic: its contract's auth is none/,
    );
    const session = defineEndpoint({ ...route, id: 'TestSession', auth: 'session' });
    assert.doesNotThrow(() => httpHandler(session, { auth: 'none' }, async () => json(200, {})), 'a session contract’s handler reads the cookie itself');
  });

  test('refuses an idempotency implementation its contract does not ask for, and the lack of one it does', () => {
    const run = async () => json(200, {});
    const required = defineEndpoint({ ...route, id: 'TestIdempotent', auth: 'none', idempotency: 'required' });
    assert.throws(() => httpHandler(required, { auth: 'none' } as never, run), /TestIdempotent: .*idempotency/);
    assert.throws(() => httpHandler(PUBLIC, { auth: 'none', idempotency: async () => run() } as never, run), /TestPublic: .*idempotency/);
  });

  test('a required Idempotency-Key is refused when missing; an optional one only when malformed', async () => {
    const calls: string[] = [];
    const replay = async (call: { key: string }, _context: unknown, execute: () => Promise<unknown>) => {
      calls.push(call.key);
      return execute() as never;
    };
    const required = httpHandler(
      defineEndpoint({ ...route, id: 'TestRequired', auth: 'none', idempotency: 'required' }),
      { auth: 'none', idempotency: replay },
      async () => json(200, {}),
    );
    const optional = httpHandler(
      defineEndpoint({ ...route, id: 'TestOptional', auth: 'none', idempotency: 'optional' }),
      { auth: 'none', idempotency: replay },
      async () => json(200, {}),
    );
    assert.equal(JSON.parse((await required(event(), context())).body).code, 'idempotency_key_required');
    assert.equal((await optional(event(), context())).statusCode, 200);
    assert.equal(JSON.parse((await optional(event({ headers: { 'idempotency-key': 'a b' } }), context())).body).code, 'idempotency_key_invalid');
    assert.equal((await required(event({ headers: { 'idempotency-key': 'k1' } }), context())).statusCode, 200);
    assert.deepEqual(calls, ['k1'], 'only a request with a key runs through the idempotency store');
  });

  test('a key is scoped by the path as asked: the same key on two resources of one route is two requests', async () => {
    const scopes: string[] = [];
    const replay = async (call: { route: string }, _context: unknown, execute: () => Promise<unknown>) => {
      scopes.push(call.route);
      return execute() as never;
    };
    const fork = httpHandler(
      defineEndpoint({ ...route, id: 'TestScoped', path: '/v2/runs/{id}/fork', auth: 'none', idempotency: 'required' }),
      { auth: 'none', idempotency: replay },
      async () => json(201, {}),
    );
    for (const id of ['run_a', 'run_b']) {
      const path = `/v2/runs/${id}/fork`;
      await fork(
        event({
          routeKey: 'POST /v2/runs/{id}/fork',
          rawPath: path,
          headers: { 'idempotency-key': 'k1' },
          requestContext: { http: { method: 'POST', path } } as never,
        }),
        context(),
      );
    }
    assert.deepEqual(scopes, ['POST /v2/runs/run_a/fork', 'POST /v2/runs/run_b/fork']);
  });

  test('building and running a handler never loads its contract’s responses', async () => {
    let loaded = 0;
    const documented = defineEndpoint({
      ...PUBLIC,
      undocumented: undefined,
      operationId: 'test',
      summary: 'A test',
      tags: [defineTag('Service', 'A test tag.')],
      responses: async () => {
        loaded++;
        return {};
      },
    });
    await httpHandler(documented, { auth: 'none' }, async () => json(200, {}))(event(), context());
    assert.equal(loaded, 0);
  });
});

describe('mint handler with fake dependencies', () => {
  test('reads the session cookie, mints, answers 201', async () => {
    const accountId = randomUUID();
    const created: unknown[] = [];
    const handler = makeMint({
      accounts: { get: async () => ({ id: accountId, plan: 'pro', balance_micro_usd: 2_000_000, suspended: false }) } as never,
      sessions: { get: async () => ({ account_id: accountId, expires_at: '', created_at: '' }) } as never,
      tokens: { create: async (t: unknown) => void created.push(t) } as never,
      rates: { admit: async () => undefined },
      baseUrl: 'https://svc.example',
    });
    const result = await handler(event({ cookies: ['session=abc'], body: '{"duration_minutes":5}' }), context());
    assert.equal(result.statusCode, 201);
    assert.equal(JSON.parse(result.body).expires_in, 300);
    assert.equal(created.length, 1);
  });
});
