import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { beforeEach, describe, test } from 'vitest';
import { HookLimitReachedError } from '#hooks/errors.js';
import { hookEventsRepo } from '#hooks/hook-events-repository.js';
import { hooksRepo } from '#hooks/hooks-repository.js';
import { type Hook, MAX_HOOKS_PER_ACCOUNT, newHookId } from '#hooks/model.js';
import { ConflictError, NotFoundError } from '#platform/errors.js';
import { keys } from '#platform/table/keys.js';
import { cancelled, conditionFailed, mockedDynamoDb, throttled } from '../helpers/dynamodb-mock.js';

const { mock, table } = mockedDynamoDb();
const repo = hooksRepo(table);
const events = hookEventsRepo(table);

const accountId = randomUUID();
const hook = (overrides: Partial<Hook> = {}): Hook => ({
  id: newHookId(),
  account_id: accountId,
  name: 'orders',
  workflow_version_id: randomUUID(),
  entry_node_ids: [randomUUID()],
  secret_version: 1,
  previous_secret_version: null,
  previous_valid_until: null,
  secret_rotated_at: null,
  created_at: '2026-03-04T05:06:07.000Z',
  ...overrides,
});
const stored = (h: Hook) => ({ ...keys.hook(h.id), ...keys.hooksIndex(h.account_id, h.created_at, h.id), entity: 'hook', ...h });
const isNotFound = (e: unknown) => e instanceof NotFoundError && e.code === 'not_found';

beforeEach(() => mock.reset());

describe('hooks repository', () => {
  test('create puts one item on a free key, listed through gsi1, with the account’s count below the limit; a taken key is a conflict; no secret is written', async () => {
    mock.on(TransactWriteCommand).resolves({});
    const h = hook();
    assert.deepEqual(await repo.create(h), h);
    const [counter, put] = mock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    assert.deepEqual(put?.Put?.Item, stored(h));
    assert.equal(put?.Put?.ConditionExpression, 'attribute_not_exists(pk)');
    assert.equal(
      Object.keys(put!.Put!.Item!).some((name) => name.includes('secret') && !name.includes('version') && name !== 'secret_rotated_at'),
      false,
    );
    assert.deepEqual(counter?.Update?.Key, keys.hookCount(accountId));
    assert.equal(counter?.Update?.ExpressionAttributeValues?.[':limit'], MAX_HOOKS_PER_ACCOUNT);

    mock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None'));
    await assert.rejects(repo.create(hook()), (e) => e instanceof HookLimitReachedError && e.code === 'hook_limit_reached' && e.kind === 'conflict');
    mock.on(TransactWriteCommand).rejects(cancelled('None', 'ConditionalCheckFailed'));
    await assert.rejects(repo.create(hook()), (e) => e instanceof ConflictError && e.code === 'hook_exists');
    mock.on(TransactWriteCommand).rejects(throttled());
    await assert.rejects(repo.create(hook()), (e: Error) => e.name === 'ProvisionedThroughputExceededException');
  });

  test('get reads the hook by id, consistently, and answers it only to its account; malformed ids read nothing', async () => {
    const h = hook();
    mock.on(GetCommand).resolves({ Item: stored(h) });
    assert.deepEqual(await repo.get(accountId, h.id), h);
    assert.deepEqual(mock.commandCalls(GetCommand)[0]?.args[0].input, { TableName: 't', Key: keys.hook(h.id), ConsistentRead: true });
    assert.equal(await repo.get(randomUUID(), h.id), undefined);
    assert.deepEqual(await repo.find(h.id), h);
    mock.resetHistory();
    assert.equal(await repo.get(accountId, 'nope'), undefined);
    assert.equal(await repo.find(`${h.id}x`), undefined);
    assert.equal(mock.commandCalls(GetCommand).length, 0);
    mock.on(GetCommand).resolves({});
    assert.equal(await repo.find(h.id), undefined);
  });

  test('list queries the account’s gsi1 partition newest first and pages by position', async () => {
    const [a, b, c] = [hook(), hook(), hook()];
    mock.on(QueryCommand).resolves({ Items: [stored(a), stored(b), stored(c)] });
    const page = await repo.list(accountId, { limit: 2 });
    assert.deepEqual(page.hooks, [a, b]);
    assert.equal(page.nextAfter, `${b.created_at}#${b.id}`);
    const input = mock.commandCalls(QueryCommand)[0]?.args[0].input;
    assert.equal(input?.IndexName, 'gsi1');
    assert.equal(input?.ScanIndexForward, false);
    assert.deepEqual(input?.ExpressionAttributeValues, { ':pk': keys.hooksIndexPartition(accountId) });
    assert.equal(input?.Limit, 3);

    mock.reset();
    mock.on(QueryCommand).resolves({ Items: [stored(c)] });
    const last = await repo.list(accountId, { limit: 2, after: page.nextAfter });
    assert.deepEqual(last, { hooks: [c], nextAfter: undefined });
    assert.deepEqual(mock.commandCalls(QueryCommand)[0]?.args[0].input.ExclusiveStartKey, {
      gsi1pk: keys.hooksIndexPartition(accountId),
      gsi1sk: page.nextAfter,
      ...keys.hook(b.id),
    });
  });

  test('delete is conditional on the account: a failed condition (gone, or another account’s) is a 404', async () => {
    mock.on(TransactWriteCommand).resolves({});
    const h = hook();
    await repo.delete(accountId, h.id);
    const [remove, counter] = mock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    const input = remove?.Delete;
    assert.deepEqual(input?.Key, keys.hook(h.id));
    assert.equal(input?.ConditionExpression, 'account_id = :account');
    assert.deepEqual(input?.ExpressionAttributeValues, { ':account': accountId });
    assert.deepEqual(counter?.Update?.Key, keys.hookCount(accountId));
    assert.deepEqual(counter?.Update?.ExpressionAttributeValues, { ':minus_one': -1 });
    mock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None'));
    await assert.rejects(repo.delete(accountId, h.id), isNotFound);
    await assert.rejects(repo.delete(accountId, 'nope'), isNotFound);
  });

  test('rotate moves the version to previous and raises it in one conditional Update, answering the new item', async () => {
    const h = hook({ secret_version: 3 });
    const rotated = {
      ...h,
      secret_version: 4,
      previous_secret_version: 3,
      previous_valid_until: '2026-03-05T00:00:00.000Z',
      secret_rotated_at: '2026-03-04T00:00:00.000Z',
    };
    mock.on(UpdateCommand).resolves({ Attributes: stored(rotated) });
    const answer = await repo.rotate(accountId, h.id, { now: '2026-03-04T00:00:00.000Z', previousValidUntil: '2026-03-05T00:00:00.000Z' });
    assert.deepEqual(answer, rotated);
    const input = mock.commandCalls(UpdateCommand)[0]?.args[0].input;
    assert.deepEqual(input?.Key, keys.hook(h.id));
    assert.equal(
      input?.UpdateExpression,
      'SET previous_secret_version = secret_version, previous_valid_until = :until, secret_version = secret_version + :one, secret_rotated_at = :now',
    );
    assert.equal(input?.ConditionExpression, 'account_id = :account');
    assert.equal(input?.ReturnValues, 'ALL_NEW');
    mock.on(UpdateCommand).rejects(conditionFailed());
    await assert.rejects(repo.rotate(accountId, h.id, { now: 'x', previousValidUntil: 'y' }), isNotFound);
  });
});

describe('hook events repository (the replay guard)', () => {
  const now = new Date('2026-03-04T05:06:07.000Z');
  const claimInput = { requestId: randomUUID(), token: 'tok-1', now, leaseMs: 60_000, windowSeconds: 86_400 };

  test('a claim is a conditional Put: free, expired, or an abandoned claim; with a 24-hour TTL', async () => {
    mock.on(PutCommand).resolves({});
    const h = hook();
    assert.deepEqual(await events.claim(h.id, 'abc', claimInput), { claimed: true });
    const input = mock.commandCalls(PutCommand)[0]?.args[0].input;
    const nowSeconds = Math.floor(now.getTime() / 1000);
    assert.deepEqual(input?.Item, {
      ...keys.hookEvent(h.id, 'abc'),
      entity: 'hook_event',
      hook_id: h.id,
      state: 'claimed',
      request_id: claimInput.requestId,
      claim_token: 'tok-1',
      lease_until: now.getTime() + 60_000,
      expires_at: nowSeconds + 86_400,
      ttl: nowSeconds + 86_400,
      created_at: now.toISOString(),
    });
    assert.equal(input?.ConditionExpression, 'attribute_not_exists(pk) OR expires_at <= :now_s OR (#state = :claimed AND lease_until <= :now_ms)');
    assert.deepEqual(input?.ExpressionAttributeValues, { ':now_s': nowSeconds, ':now_ms': now.getTime(), ':claimed': 'claimed' });
    assert.equal(input?.ReturnValuesOnConditionCheckFailure, 'ALL_OLD');
  });

  test('a refused claim answers the guard that refused it, from the failed condition or read back', async () => {
    const guard = { state: 'started', request_id: randomUUID(), claim_token: 'tok-0', lease_until: 1, expires_at: 2 };
    mock.on(PutCommand).rejects(conditionFailed(marshall({ ...keys.hookEvent('h', 'abc'), ...guard })));
    assert.deepEqual(await events.claim('h', 'abc', claimInput), { claimed: false, guard });
    assert.equal(mock.commandCalls(GetCommand).length, 0);

    mock.reset();
    mock.on(PutCommand).rejects(conditionFailed());
    mock.on(GetCommand).resolves({ Item: { ...keys.hookEvent('h', 'abc'), ...guard, state: 'claimed' } });
    assert.deepEqual(await events.claim('h', 'abc', claimInput), { claimed: false, guard: { ...guard, state: 'claimed' } });
  });

  test('only the claiming delivery marks the event started or releases it; a released guard is deleted only while claimed', async () => {
    mock.on(UpdateCommand).resolves({});
    assert.equal(await events.markStarted('h', 'abc', 'tok-1'), true);
    const update = mock.commandCalls(UpdateCommand)[0]?.args[0].input;
    assert.equal(update?.ConditionExpression, 'claim_token = :token');
    assert.deepEqual(update?.ExpressionAttributeValues, { ':started': 'started', ':token': 'tok-1' });
    mock.on(UpdateCommand).rejects(conditionFailed());
    assert.equal(await events.markStarted('h', 'abc', 'tok-1'), false);

    mock.on(DeleteCommand).resolves({});
    await events.release('h', 'abc', 'tok-1');
    const del = mock.commandCalls(DeleteCommand)[0]?.args[0].input;
    assert.deepEqual(del?.Key, keys.hookEvent('h', 'abc'));
    assert.equal(del?.ConditionExpression, 'claim_token = :token AND #state = :claimed');
    mock.on(DeleteCommand).rejects(conditionFailed());
    await events.release('h', 'abc', 'tok-1');
    mock.on(DeleteCommand).rejects(throttled());
    await assert.rejects(events.release('h', 'abc', 'tok-1'));
  });
});
