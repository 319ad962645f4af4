import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, test } from 'vitest';
import { MachineBusyError, MachineLimitReachedError } from '#machines/errors.js';
import { createMachine, machineLimit, machineStatus, machineView } from '#machines/machines.js';
import { machinesRepo } from '#machines/machines-repository.js';
import type { Machine } from '#machines/model.js';
import { MACHINE_MEMORY_MB, MACHINE_SIZES } from '#machines/sizes.js';
import { PLANS } from '#platform/config/plans.js';
import { ConflictError, DomainError, NotFoundError, UnavailableError } from '#platform/errors.js';
import { STATUS_OF } from '#platform/http/problem.js';
import { newMachineId } from '#platform/ids.js';
import { keys } from '#platform/table/keys.js';
import { cancelled, mockedDynamoDb, throttled } from '../helpers/dynamodb-mock.js';

const { mock, table } = mockedDynamoDb();
const repo = machinesRepo(table);

const accountId = randomUUID();
const machine = (overrides: Partial<Machine> = {}): Machine => ({
  id: newMachineId(),
  account_id: accountId,
  name: 'builder',
  size: 'small',
  current_run_id: null,
  queued_runs: 0,
  created_at: '2026-01-01T00:00:00.000Z',
  ...overrides,
});
const input = (limit = 3) => ({ id: newMachineId(), accountId, name: 'builder', size: 'medium' as const, now: '2026-02-03T04:05:06.000Z', limit });
const isLimitReached = (limit: number) => (e: unknown) =>
  e instanceof MachineLimitReachedError && e.code === 'machine_limit_reached' && STATUS_OF[e.kind] === 402 && e.options.extensions?.limit === limit;
const isBusy = (e: unknown) => e instanceof MachineBusyError && e.code === 'machine_busy' && STATUS_OF[e.kind] === 409;
const transactions = () => mock.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems!);

beforeEach(() => mock.reset());

describe('create', () => {
  test('one transaction: the counter goes up below the limit, the machine is put on a free key', async () => {
    mock.on(TransactWriteCommand).resolves({});
    const wanted = input(3);
    const created = await repo.create(wanted);
    assert.deepEqual(created, {
      id: wanted.id,
      account_id: accountId,
      name: 'builder',
      size: 'medium',
      current_run_id: null,
      queued_runs: 0,
      created_at: wanted.now,
    });
    const [[counter, put]] = transactions() as [NonNullable<ReturnType<typeof transactions>[number]>];
    assert.deepEqual(counter?.Update?.Key, keys.machineCount(accountId));
    assert.equal(counter?.Update?.UpdateExpression, 'SET entity = :entity, account_id = :account ADD machine_count :one');
    assert.equal(counter?.Update?.ConditionExpression, 'attribute_not_exists(machine_count) OR machine_count < :limit');
    assert.deepEqual(counter?.Update?.ExpressionAttributeValues, { ':entity': 'machine_count', ':account': accountId, ':one': 1, ':limit': 3 });
    assert.deepEqual(put?.Put?.Item, { ...keys.machine(accountId, wanted.id), entity: 'machine', ...created });
    assert.equal(put?.Put?.ConditionExpression, 'attribute_not_exists(pk)');
  });

  test('a failed counter condition is 402 machine_limit_reached, with the limit', async () => {
    mock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None'));
    await assert.rejects(repo.create(input(3)), isLimitReached(3));
    assert.equal(transactions().length, 1);
  });

  test('a limit below one refuses without writing', async () => {
    await assert.rejects(repo.create(input(0)), isLimitReached(0));
    assert.equal(transactions().length, 0);
  });

  test('a taken machine key is a 409 machine_exists', async () => {
    mock.on(TransactWriteCommand).rejects(cancelled('None', 'ConditionalCheckFailed'));
    await assert.rejects(repo.create(input()), (e: unknown) => e instanceof ConflictError && e.code === 'machine_exists');
  });

  test('a collision with a concurrent transaction reads the counter and tries again while there is room', async () => {
    mock.on(TransactWriteCommand).rejectsOnce(cancelled('TransactionConflict', 'None')).resolvesOnce({});
    mock.on(GetCommand).resolves({ Item: { ...keys.machineCount(accountId), machine_count: 2 } });
    await repo.create(input(3));
    assert.equal(transactions().length, 2);
    assert.deepEqual(mock.commandCalls(GetCommand)[0]!.args[0].input, { TableName: 't', Key: keys.machineCount(accountId), ConsistentRead: true });
  });

  test('a collision when the counter is at the limit is 402 at once', async () => {
    mock.on(TransactWriteCommand).rejects(cancelled('TransactionConflict', 'None'));
    mock.on(GetCommand).resolves({ Item: { machine_count: 3 } });
    await assert.rejects(repo.create(input(3)), isLimitReached(3));
    assert.equal(transactions().length, 1);
  });

  test('collisions without end give up with a 503', async () => {
    mock.on(TransactWriteCommand).rejects(cancelled('None', 'TransactionConflict'));
    mock.on(GetCommand).resolves({});
    await assert.rejects(repo.create(input(3)), (e: unknown) => e instanceof UnavailableError && STATUS_OF[e.kind] === 503);
    assert.equal(transactions().length, 12);
  });

  test('any other failure, or cancellation reason, propagates unchanged and is not retried', async () => {
    for (const error of [throttled(), cancelled('ValidationError', 'None')]) {
      mock.reset();
      mock.on(TransactWriteCommand).rejects(error);
      await assert.rejects(repo.create(input()), (e) => e === error);
      assert.equal(transactions().length, 1);
      assert.equal(mock.commandCalls(GetCommand).length, 0);
    }
  });
});

describe('get', () => {
  test('reads consistently under the caller’s account; a malformed id reads nothing', async () => {
    const m = machine({ current_run_id: 'run_1', queued_runs: 2 });
    mock.on(GetCommand).resolves({ Item: { ...keys.machine(accountId, m.id), entity: 'machine', ...m } });
    assert.deepEqual(await repo.get(accountId, m.id), m);
    assert.deepEqual(mock.commandCalls(GetCommand)[0]!.args[0].input, { TableName: 't', Key: keys.machine(accountId, m.id), ConsistentRead: true });
    for (const id of ['', 'not-a-machine', `${m.id}x`, m.id.replace('mch_', 'h_'), randomUUID()]) assert.equal(await repo.get(accountId, id), undefined);
    assert.equal(mock.commandCalls(GetCommand).length, 1);
  });

  test('absent run fields read as none', async () => {
    const { current_run_id: _c, queued_runs: _q, ...bare } = machine();
    mock.on(GetCommand).resolves({ Item: bare });
    const found = await repo.get(accountId, bare.id);
    assert.equal(found?.current_run_id, null);
    assert.equal(found?.queued_runs, 0);
  });
});

describe('list', () => {
  const items = (n: number) => Array.from({ length: n }, () => machine()).map((m) => ({ ...keys.machine(accountId, m.id), ...m }));

  test('newest first from the account partition, consistent, one more than the page to prove has_more', async () => {
    const found = items(3);
    mock.on(QueryCommand).resolves({ Items: found, LastEvaluatedKey: { pk: 'x', sk: 'y' } });
    const page = await repo.list(accountId, { limit: 2 });
    assert.deepEqual(
      page.machines.map((m) => m.id),
      [found[0]!.id, found[1]!.id],
    );
    assert.equal(page.nextAfter, found[1]!.id);
    const query = mock.commandCalls(QueryCommand)[0]!.args[0].input;
    assert.deepEqual(
      [query.KeyConditionExpression, query.ExpressionAttributeValues, query.ScanIndexForward, query.ConsistentRead, query.Limit, query.ExclusiveStartKey],
      ['pk = :pk AND begins_with(sk, :prefix)', { ':pk': `ACCOUNT#${accountId}`, ':prefix': 'MACHINE#' }, false, true, 3, undefined],
    );
  });

  test('a position becomes the start key under the caller’s account; the last page has no next', async () => {
    const last = items(1)[0]!;
    mock.on(QueryCommand).resolves({ Items: [last] });
    const page = await repo.list(accountId, { limit: 2, after: 'mch_0000000000000000000000000' });
    assert.equal(page.nextAfter, undefined);
    assert.deepEqual(mock.commandCalls(QueryCommand)[0]!.args[0].input.ExclusiveStartKey, keys.machine(accountId, 'mch_0000000000000000000000000'));
  });

  test('a short read with more to read reads on', async () => {
    const found = items(3);
    mock
      .on(QueryCommand)
      .resolvesOnce({ Items: found.slice(0, 1), LastEvaluatedKey: { pk: found[0]!.pk, sk: found[0]!.sk } })
      .resolvesOnce({ Items: found.slice(1) });
    const page = await repo.list(accountId, { limit: 2 });
    assert.equal(page.machines.length, 2);
    assert.equal(page.nextAfter, found[1]!.id);
    const second = mock.commandCalls(QueryCommand)[1]!.args[0].input;
    assert.deepEqual([second.ExclusiveStartKey, second.Limit], [{ pk: found[0]!.pk, sk: found[0]!.sk }, 2]);
  });
});

describe('delete', () => {
  const m = machine();

  test('one transaction: the idle machine is deleted and the counter goes down', async () => {
    mock.on(TransactWriteCommand).resolves({});
    await repo.delete(accountId, m.id);
    const [[remove, counter]] = transactions() as [NonNullable<ReturnType<typeof transactions>[number]>];
    assert.deepEqual(remove?.Delete?.Key, keys.machine(accountId, m.id));
    assert.match(remove?.Delete?.ConditionExpression ?? '', /^attribute_exists\(pk\) AND .*current_run_id.*queued_runs <= :zero\)$/);
    assert.deepEqual(remove?.Delete?.ExpressionAttributeValues, { ':null_type': 'NULL', ':zero': 0 });
    assert.deepEqual(counter?.Update?.Key, keys.machineCount(accountId));
    assert.equal(counter?.Update?.UpdateExpression, 'ADD machine_count :minus_one');
    assert.equal(counter?.Update?.ConditionExpression, 'machine_count > :zero');
  });

  test('a malformed id is a 404 without a write', async () => {
    await assert.rejects(repo.delete(accountId, 'mch_nope'), NotFoundError);
    assert.equal(transactions().length, 0);
  });

  test('a failed condition on a machine that is gone is a 404', async () => {
    mock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None'));
    mock.on(GetCommand).resolves({});
    await assert.rejects(repo.delete(accountId, m.id), NotFoundError);
    assert.equal(transactions().length, 1);
  });

  test('a failed condition on a machine with a run on it, or runs waiting, is a 409 machine_busy', async () => {
    mock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None'));
    for (const busy of [machine({ id: m.id, current_run_id: 'run_1' }), machine({ id: m.id, queued_runs: 1 })]) {
      mock.on(GetCommand).resolves({ Item: busy });
      await assert.rejects(repo.delete(accountId, m.id), isBusy);
    }
  });

  test('a machine idle again by the time it is read, or a collision, is tried again', async () => {
    mock
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled('ConditionalCheckFailed', 'None'))
      .rejectsOnce(cancelled('TransactionConflict', 'None'))
      .resolvesOnce({});
    mock.on(GetCommand).resolves({ Item: m });
    await repo.delete(accountId, m.id);
    assert.equal(transactions().length, 3);
  });

  test('a counter not above zero under an existing machine is an internal failure, never a domain answer', async () => {
    mock.on(TransactWriteCommand).rejects(cancelled('None', 'ConditionalCheckFailed'));
    await assert.rejects(repo.delete(accountId, m.id), (e: unknown) => e instanceof Error && !(e instanceof DomainError));
  });

  test('any other failure propagates unchanged', async () => {
    const error = throttled();
    mock.on(TransactWriteCommand).rejects(error);
    await assert.rejects(repo.delete(accountId, m.id), (e) => e === error);
  });
});

describe('machines', () => {
  test('the limit is the plan’s: free 1, pro 3, team 20', async () => {
    assert.deepEqual(await Promise.all((['free', 'pro', 'team'] as const).map((plan) => machineLimit({ accountId, plan }))), [1, 3, 20]);
    assert.deepEqual([PLANS.free.machines, PLANS.pro.machines, PLANS.team.machines], [1, 3, 20]);
    await assert.rejects(machineLimit({ accountId, plan: 'gold' }), /unknown plan/);
  });

  test('create asks the repository for a fresh mch_ id within the principal’s plan limit', async () => {
    mock.on(TransactWriteCommand).resolves({});
    const created = await createMachine(repo, { accountId, plan: 'team' }, { name: 'n', size: 'large' }, new Date('2026-03-04T00:00:00.000Z'));
    assert.match(created.id, /^mch_[0-9a-z]{9}[A-Za-z0-9_-]{16}$/);
    assert.equal(created.created_at, '2026-03-04T00:00:00.000Z');
    assert.equal(transactions()[0]![0]!.Update!.ExpressionAttributeValues![':limit'], 20);
  });

  test('the view: busy while a run holds the machine or runs wait for it', () => {
    assert.equal(machineStatus(machine()), 'idle');
    assert.equal(machineStatus(machine({ current_run_id: 'run_1' })), 'busy');
    assert.equal(machineStatus(machine({ queued_runs: 2 })), 'busy');
    const m = machine();
    assert.deepEqual(machineView(m), {
      id: m.id,
      name: m.name,
      size: m.size,
      status: 'idle',
      current_run_id: null,
      queued_runs: 0,
      created_at: m.created_at,
    });
  });

  test('each size has its agent-loop memory: 1, 2 and 4 GB', () => {
    assert.deepEqual(
      MACHINE_SIZES.map((size) => MACHINE_MEMORY_MB[size]),
      [1024, 2048, 4096],
    );
  });
});
