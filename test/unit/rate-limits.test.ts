import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { beforeEach, describe, test } from 'vitest';
import * as z from 'zod';
import { formatToken } from '#accounts/api-tokens.js';
import { bearerAuth } from '#accounts/bearer-auth.js';
import { acquireSlot, CONCURRENCY_RETRY_AFTER_SECONDS, concurrencyRefusal, releaseSlot } from '#accounts/index.js';
import { type RateLimiter, requestRateLimiter, resizedLog } from '#accounts/rate-limiter.js';
import type { TokensRepo } from '#accounts/tokens-repository.js';
import { workflowRequests } from '#execution/workflow-requests.js';
import { limitsInForce, PLANS, RATE_WINDOW_MS } from '#platform/config/plans.js';
import { type DomainError, RateLimitedError } from '#platform/errors.js';
import { defineEndpoint } from '#platform/http/contract.js';
import { httpHandler } from '#platform/http/handler.js';
import { STATUS_OF } from '#platform/http/problem.js';
import { json } from '#platform/http/responses.js';
import type { ApiContext } from '#platform/http/types.js';
import { keys } from '#platform/table/keys.js';
import { cancelled, conditionFailed, mockedDynamoDb, throttled } from '../helpers/dynamodb-mock.js';
import { pendingRequest } from '../helpers/pending-request.js';

const { mock, table } = mockedDynamoDb();
beforeEach(() => mock.reset());

const accountId = randomUUID();
const NOW = 1_800_000_000_000;
const pro = limitsInForce({ plan: 'pro' });
const updates = () => mock.commandCalls(UpdateCommand).map((call) => call.args[0].input);
/** The refusal DynamoDB sends when the request asked for the item back: the item in wire form. */
const refusedWithLog = (log?: number[]) => conditionFailed(log ? marshall({ ...keys.rateLog(accountId), admitted_at: log }) : undefined);
const isRateLimited = (seconds: number) => (error: unknown) =>
  error instanceof RateLimitedError && error.code === 'rate_limited' && STATUS_OF[error.kind] === 429 && error.options.retryAfterSeconds === seconds;

describe('limits in force (lib/platform/config/plans.ts)', () => {
  test('the plan’s values: free 5, pro 20, team 100 per second, bursts of twice that; 2, 10, 50 in progress', () => {
    for (const [plan, rps, concurrency] of [
      ['free', 5, 2],
      ['pro', 20, 10],
      ['team', 100, 50],
    ] as const) {
      assert.deepEqual(limitsInForce({ plan }), {
        fiveHourAllowanceMicroUsd: PLANS[plan].fiveHourAllowanceMicroUsd,
        weeklyAllowanceMicroUsd: PLANS[plan].weeklyAllowanceMicroUsd,
        requestsPerSecond: rps,
        burst: 2 * rps,
        concurrency,
      });
    }
  });

  test('an override replaces only its own value; the burst follows an overridden rate', () => {
    assert.deepEqual(limitsInForce({ plan: 'pro', rps: 3, week_allowance: 1_500_000 }), {
      ...pro,
      requestsPerSecond: 3,
      burst: 6,
      weeklyAllowanceMicroUsd: 1_500_000,
    });
    assert.equal(limitsInForce({ plan: 'free', five_hour_allowance: 0 }).fiveHourAllowanceMicroUsd, 0, 'zero is a value, not absence');
  });
});

describe('request rate limiter: a sliding log in one item', () => {
  const limiter = (clock = () => NOW) => requestRateLimiter(table, clock);

  test('admits with one conditional UpdateItem: drop the oldest admission, append now, if the oldest is a window old', async () => {
    mock.on(UpdateCommand).resolves({});
    await limiter().admit(accountId, pro);
    const [update] = updates();
    assert.equal(updates().length, 1);
    assert.deepEqual(update?.Key, keys.rateLog(accountId));
    assert.equal(update?.UpdateExpression, 'REMOVE #log[0] SET #log[40] = :now');
    assert.equal(update?.ConditionExpression, 'size(#log) = :burst AND #log[0] <= :cutoff');
    assert.deepEqual(update?.ExpressionAttributeNames, { '#log': 'admitted_at' });
    assert.deepEqual(update?.ExpressionAttributeValues, { ':now': NOW, ':burst': 40, ':cutoff': NOW - RATE_WINDOW_MS });
    assert.equal(update?.ReturnValuesOnConditionCheckFailure, 'ALL_OLD');
  });

  test('refused when the oldest of the last `burst` admissions is inside the window: 429 with the whole seconds until it leaves', async () => {
    const oldest = NOW - 500; // leaves the 2 s window in 1.5 s: wait 2 s
    mock.on(UpdateCommand).rejects(refusedWithLog([oldest, ...Array.from({ length: 39 }, () => NOW - 100)]));
    await assert.rejects(limiter().admit(accountId, pro), isRateLimited(2));
    assert.equal(updates().length, 1, 'a refusal writes nothing more');
    mock.reset();
    mock.on(UpdateCommand).rejects(refusedWithLog([NOW - RATE_WINDOW_MS + 1, ...Array.from({ length: 39 }, () => NOW)]));
    await assert.rejects(limiter().admit(accountId, pro), isRateLimited(1), 'never less than 1 second');
  });

  test('a missing log is created at the burst size, this admission last, only if still missing', async () => {
    mock.on(UpdateCommand).rejectsOnce(refusedWithLog()).resolves({});
    await limiter().admit(accountId, { requestsPerSecond: 2, burst: 4 });
    const [, rebuild] = updates();
    assert.equal(rebuild?.UpdateExpression, 'SET #log = :next, entity = :entity, account_id = :account');
    assert.equal(rebuild?.ConditionExpression, 'attribute_not_exists(#log)');
    assert.deepEqual(rebuild?.ExpressionAttributeValues, { ':next': [0, 0, 0, NOW], ':entity': 'rate_log', ':account': accountId });
  });

  test('a log sized for other limits is rebuilt at the new burst, keeping its newest admissions, only if unchanged', async () => {
    const old = [NOW - 9000, NOW - 8000, NOW - 5000];
    mock.on(UpdateCommand).rejectsOnce(refusedWithLog(old)).resolves({});
    await limiter().admit(accountId, { requestsPerSecond: 1, burst: 2 });
    const [, rebuild] = updates();
    assert.equal(rebuild?.ConditionExpression, '#log = :old');
    assert.deepEqual(rebuild?.ExpressionAttributeValues?.[':old'], old);
    assert.deepEqual(rebuild?.ExpressionAttributeValues?.[':next'], [NOW - 5000, NOW], 'the newest admission kept, this one appended');
  });

  test('a smaller limit applies at once: the rebuilt log refuses when its burst is spent inside the window', async () => {
    mock.on(UpdateCommand).rejects(refusedWithLog([NOW - 3000, NOW - 1200, NOW - 300]));
    await assert.rejects(limiter().admit(accountId, { requestsPerSecond: 1, burst: 2 }), isRateLimited(1));
    assert.equal(updates().length, 1, 'refused from what the failed write returned: no second write');
  });

  test('a rebuild lost to a concurrent one is retried on the log that won', async () => {
    mock.on(UpdateCommand).rejectsOnce(refusedWithLog()).rejectsOnce(conditionFailed()).resolves({});
    await limiter().admit(accountId, pro);
    assert.deepEqual(
      updates().map((u) => u.ConditionExpression),
      ['size(#log) = :burst AND #log[0] <= :cutoff', 'attribute_not_exists(#log)', 'size(#log) = :burst AND #log[0] <= :cutoff'],
    );
  });

  test('other errors go through unchanged; a nonsense burst is a programming error', async () => {
    mock.on(UpdateCommand).rejects(throttled());
    await assert.rejects(limiter().admit(accountId, pro), (e: Error) => e.name === 'ProvisionedThroughputExceededException');
    await assert.rejects(limiter().admit(accountId, { requestsPerSecond: 0, burst: 0 }), RangeError);
  });

  test('resizedLog keeps the newest entries and pads the front with never-admitted zeros', () => {
    assert.deepEqual(resizedLog([1, 2, 3], 5), [0, 0, 1, 2, 3]);
    assert.deepEqual(resizedLog([1, 2, 3], 2), [2, 3]);
    assert.deepEqual(resizedLog([], 1), [0]);
  });
});

describe('concurrency slots (lib/accounts/concurrency.ts)', () => {
  test('acquire raises the account counter below its limit; release lowers it, never below zero', () => {
    assert.deepEqual(acquireSlot('t', accountId, 10), {
      Update: {
        TableName: 't',
        Key: keys.inProgress(accountId),
        UpdateExpression: 'SET entity = :entity, account_id = :account ADD in_progress :one',
        ConditionExpression: 'attribute_not_exists(in_progress) OR in_progress < :limit',
        ExpressionAttributeValues: { ':entity': 'in_progress', ':account': accountId, ':one': 1, ':limit': 10 },
      },
    });
    assert.deepEqual(releaseSlot('t', accountId), {
      Update: {
        TableName: 't',
        Key: keys.inProgress(accountId),
        UpdateExpression: 'ADD in_progress :minus',
        ConditionExpression: 'in_progress > :zero',
        ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
      },
    });
    assert.throws(() => acquireSlot('t', accountId, 1.5), RangeError);
  });

  test('a refusal of the slot answers 429 rate_limited with a wait (settlement reads it by its part’s name)', () => {
    assert.ok(isRateLimited(CONCURRENCY_RETRY_AFTER_SECONDS)(concurrencyRefusal(10)));
  });

  const repo = workflowRequests(table);

  test('a root request takes a slot in its creating transaction and says so on its item', async () => {
    mock.on(TransactWriteCommand).resolves({});
    mock.on(BatchWriteCommand).resolves({});
    const { request, node } = pendingRequest(accountId);
    await repo.create(request, [node], [], 10);
    const [items] = mock.commandCalls(TransactWriteCommand).map((c) => c.args[0].input.TransactItems!);
    assert.equal(items?.length, 3);
    assert.equal(items?.[0]?.Put?.Item?.concurrency_slot, true);
    assert.deepEqual(items?.[2], acquireSlot('t', accountId, 10));
  });

  test('at its limit nothing is created: 429 rate_limited; a request without a limit (a child) takes no slot', async () => {
    mock.on(TransactWriteCommand).rejects(cancelled('None', 'None', 'ConditionalCheckFailed'));
    await assert.rejects(repo.create(pendingRequest(accountId).request, [], [], 1), isRateLimited(CONCURRENCY_RETRY_AFTER_SECONDS));
    mock.reset();
    mock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None', 'None'));
    await assert.rejects(
      repo.create(pendingRequest(accountId).request, [], [], 1),
      { code: 'workflow_request_exists' },
      'a taken id is not a refusal of the ceiling',
    );
    mock.reset();
    mock.on(TransactWriteCommand).resolves({});
    await repo.create(pendingRequest(accountId).request, []);
    const [items] = mock.commandCalls(TransactWriteCommand).map((c) => c.args[0].input.TransactItems!);
    assert.equal(items?.length, 2);
    assert.equal(items?.[0]?.Put?.Item?.concurrency_slot, undefined);
  });

  test('the end of a request that holds a slot releases it in the same transaction; one that holds none releases nothing', async () => {
    for (const holds of [true, false]) {
      mock.reset();
      const { request } = pendingRequest(accountId);
      mock.on(GetCommand).resolves({ Item: { ...request, ...(holds ? { concurrency_slot: true } : {}), node_count: 0 } });
      mock.on(QueryCommand).resolves({ Items: [] });
      mock.on(TransactWriteCommand).resolves({});
      await repo.endRequest(request.id, ['pending'], { status: 'stopped' });
      const [items] = mock.commandCalls(TransactWriteCommand).map((c) => c.args[0].input.TransactItems!);
      assert.deepEqual(items?.slice(1), holds ? [releaseSlot('t', accountId)] : []);
      assert.equal(items?.[0]?.Update?.UpdateExpression?.endsWith(' REMOVE concurrency_slot'), holds, 'the mark goes with the slot');
    }
  });

  test('a counter already at zero (edited by hand) does not keep a request from ending: it ends without the release', async () => {
    const { request } = pendingRequest(accountId);
    mock.on(GetCommand).resolves({ Item: { ...request, concurrency_slot: true, node_count: 0 } });
    mock.on(QueryCommand).resolves({ Items: [] });
    mock.on(TransactWriteCommand).rejectsOnce(cancelled('None', 'ConditionalCheckFailed')).resolves({});
    assert.ok(await repo.endRequest(request.id, ['pending'], { status: 'stopped' }));
    const [first, second] = mock.commandCalls(TransactWriteCommand).map((c) => c.args[0].input.TransactItems!);
    assert.equal(first?.length, 2);
    assert.equal(second?.length, 1);
    assert.ok(second?.[0]?.Update?.UpdateExpression?.endsWith(' REMOVE concurrency_slot'));
    mock.reset();
    mock.on(GetCommand).resolves({ Item: { ...request, concurrency_slot: true, node_count: 0 } });
    mock.on(QueryCommand).resolves({ Items: [] });
    mock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None'));
    assert.equal(await repo.endRequest(request.id, ['pending'], { status: 'stopped' }), undefined, 'ended by someone else: nothing to do');
    assert.equal(mock.commandCalls(TransactWriteCommand).length, 1);
  });
});

describe('the stack and the rate limit (lib/platform/http/handler.ts)', () => {
  const event = (method: string, overrides: Partial<APIGatewayProxyEventV2> = {}) =>
    ({
      version: '2.0',
      routeKey: `${method} /v2/x`,
      rawPath: '/v2/x',
      rawQueryString: '',
      headers: { authorization: `Bearer ${formatToken(accountId)}` },
      requestContext: { http: { method, path: '/v2/x' } },
      isBase64Encoded: false,
      ...overrides,
    }) as APIGatewayProxyEventV2;
  const context = () => ({ getRemainingTimeInMillis: () => 1000 }) as unknown as ApiContext;
  const tokens = { authenticate: async () => ({ token: { id: 'tok_1' }, account: { id: accountId, plan: 'pro', suspended: false } }) } as unknown as TokensRepo;
  const route = { path: '/v2/x', handler: 'test.ts', table: 'none', undocumented: 'a test', auth: 'bearer' } as const;
  const READ = defineEndpoint({ ...route, id: 'TestRead', method: 'GET', query: z.strictObject({ n: z.coerce.number().optional() }) });
  const WRITE = defineEndpoint({ ...route, id: 'TestWrite', method: 'POST' });
  const MESSAGE_READ = defineEndpoint({ ...route, id: 'TestMessageRead', method: 'GET', errors: 'message' });

  /** A limiter whose answer the test gives when it likes, recording what happened in order. */
  function gate(log: string[]) {
    let settle!: (refused?: DomainError) => void;
    const rates: RateLimiter = {
      admit: (id, limits) => {
        log.push(`admit ${id === accountId} ${limits.burst}`);
        return new Promise<void>((resolve, reject) => {
          settle = (refused) => (refused ? reject(refused) : resolve());
        });
      },
    };
    return { rates, settle: (refused?: DomainError) => setTimeout(() => settle(refused), 20) };
  }

  test('a GET runs beside its rate check, with the limits in force, and is answered once the check admits it', async () => {
    const log: string[] = [];
    const { rates, settle } = gate(log);
    const handler = httpHandler(READ, { auth: bearerAuth(tokens, rates) }, async () => {
      log.push('handler');
      settle();
      return json(200, { ok: true });
    });
    const result = await handler(event('GET'), context());
    assert.equal(result.statusCode, 200);
    assert.deepEqual(log, ['admit true 40', 'handler'], 'the handler ran before the check answered');
  });

  test('a refused GET is 429 rate_limited with Retry-After; what its handler read is dropped', async () => {
    const log: string[] = [];
    const { rates, settle } = gate(log);
    const handler = httpHandler(READ, { auth: bearerAuth(tokens, rates) }, async () => {
      settle(new RateLimitedError('slow down', 3));
      return json(200, { secret: 'read' });
    });
    const result = await handler(event('GET'), context());
    assert.equal(result.statusCode, 429);
    assert.equal(result.headers['Retry-After'], '3');
    assert.equal(result.headers['Content-Type'], 'application/problem+json');
    assert.equal(JSON.parse(result.body).code, 'rate_limited');
    assert.ok(!result.body.includes('secret'));
  });

  test('a refused GET whose query is also malformed is answered 429, not 400', async () => {
    const { rates, settle } = gate([]);
    const handler = httpHandler(READ, { auth: bearerAuth(tokens, rates) }, async () => json(200, {}));
    settle(new RateLimitedError('slow down', 1));
    const result = await handler(event('GET', { queryStringParameters: { bogus: '1' } }), context());
    assert.equal(result.statusCode, 429);
    const admitted = gate([]);
    admitted.settle();
    const malformed = await httpHandler(READ, { auth: bearerAuth(tokens, admitted.rates) }, async () => json(200, {}))(
      event('GET', { queryStringParameters: { bogus: '1' } }),
      context(),
    );
    assert.equal(malformed.statusCode, 400, 'admitted, the query is refused as usual');
  });

  test('a write waits for its rate check before its handler runs; refused, the handler never runs', async () => {
    const log: string[] = [];
    const { rates, settle } = gate(log);
    settle();
    const handler = httpHandler(WRITE, { auth: bearerAuth(tokens, rates) }, async () => {
      log.push('handler');
      return json(201, {});
    });
    assert.equal((await handler(event('POST'), context())).statusCode, 201);
    assert.deepEqual(log, ['admit true 40', 'handler']);
    const refusedLog: string[] = [];
    const refused = gate(refusedLog);
    refused.settle(new RateLimitedError('slow down', 2));
    const answer = await httpHandler(WRITE, { auth: bearerAuth(tokens, refused.rates) }, async () => {
      refusedLog.push('handler');
      return json(201, {});
    })(event('POST'), context());
    assert.equal(answer.statusCode, 429);
    assert.deepEqual(refusedLog, ['admit true 40'], 'nothing ran');
  });

  test('the token calls answer their {message} shape with the same 429 and Retry-After', async () => {
    const { rates, settle } = gate([]);
    settle(new RateLimitedError('The account made more requests than its limit.', 2));
    const result = await httpHandler(MESSAGE_READ, { auth: bearerAuth(tokens, rates) }, async () => json(200, {}))(event('GET'), context());
    assert.equal(result.statusCode, 429);
    assert.equal(result.headers['Retry-After'], '2');
    assert.deepEqual(JSON.parse(result.body), { message: 'The account made more requests than its limit.' });
  });
});
