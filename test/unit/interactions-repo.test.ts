import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, test } from 'vitest';
import { interactionsRepo } from '#interactions/interactions-repository.js';
import type { Interaction } from '#interactions/model.js';
import { keys } from '#platform/table/keys.js';
import { conditionFailed, mockedDynamoDb, throttled } from '../helpers/dynamodb-mock.js';

const { mock, table } = mockedDynamoDb();
const repo = interactionsRepo(table);

const accountId = randomUUID();
const interaction = (overrides: Partial<Interaction> = {}): Interaction => ({
  id: randomUUID(),
  type: 'approval',
  status: 'pending',
  prompt: 'ok?',
  run_id: null,
  workflow_request_id: randomUUID(),
  node_execution_id: randomUUID(),
  node_id: 'n',
  response: null,
  created_at: '2026-01-01T00:00:00.000Z',
  resolved_at: null,
  expires_at: null,
  account_id: accountId,
  ...overrides,
});
const stored = (i: Interaction) => ({ ...keys.interaction(i.id), ...keys.interactionIndex(i.account_id, i.created_at, i.id), entity: 'interaction', ...i });

beforeEach(() => mock.reset());

describe('createOnce', () => {
  test('puts the interaction with its index entry, never over an existing one', async () => {
    mock.on(PutCommand).resolves({});
    const i = interaction();
    assert.deepEqual(await repo.createOnce(i), i);
    assert.deepEqual(mock.commandCalls(PutCommand)[0]!.args[0].input, { TableName: 't', Item: stored(i), ConditionExpression: 'attribute_not_exists(pk)' });
    assert.equal(mock.commandCalls(GetCommand).length, 0);
  });

  test('a redelivery finds it there and gets the stored interaction, not its own copy', async () => {
    const first = interaction({ status: 'answered', response: { approved: true } });
    mock.on(PutCommand).rejects(conditionFailed());
    mock.on(GetCommand).resolves({ Item: stored(first) });
    assert.deepEqual(await repo.createOnce({ ...first, status: 'pending', response: null, created_at: 'later' }), first);
    assert.deepEqual(mock.commandCalls(GetCommand)[0]!.args[0].input, { TableName: 't', Key: keys.interaction(first.id), ConsistentRead: true });
  });

  test('any other failure propagates unchanged', async () => {
    const error = throttled();
    mock.on(PutCommand).rejects(error);
    await assert.rejects(repo.createOnce(interaction()), (e) => e === error);
    assert.equal(mock.commandCalls(GetCommand).length, 0);
  });
});

describe('get', () => {
  test('a consistent read by id, without keys or entity; unknown is undefined', async () => {
    const i = interaction();
    mock.on(GetCommand).resolves({ Item: stored(i) });
    assert.deepEqual(await repo.get(i.id), i);
    assert.deepEqual(mock.commandCalls(GetCommand)[0]!.args[0].input, { TableName: 't', Key: keys.interaction(i.id), ConsistentRead: true });
    mock.on(GetCommand).resolves({});
    assert.equal(await repo.get(i.id), undefined);
  });
});

describe('resolve', () => {
  test('sets status, response and resolved_at only while pending (an answer also only before expires_at), returning the new item', async () => {
    const i = interaction();
    const resolved = { ...i, status: 'answered' as const, response: { approved: true }, resolved_at: 'now' };
    mock.on(UpdateCommand).resolves({ Attributes: stored(resolved) });
    assert.deepEqual(await repo.resolve(i.id, 'answered', { approved: true }), resolved);
    const input = mock.commandCalls(UpdateCommand)[0]!.args[0].input;
    assert.deepEqual(input.Key, keys.interaction(i.id));
    assert.equal(
      input.ConditionExpression,
      '#status = :pending AND (attribute_not_exists(expires_at) OR attribute_type(expires_at, :null_type) OR expires_at > :now)',
    );
    assert.equal(input.UpdateExpression, 'SET #status = :status, #response = :response, resolved_at = :now');
    assert.deepEqual(input.ExpressionAttributeNames, { '#status': 'status', '#response': 'response' });
    const { ':now': at, ...values } = input.ExpressionAttributeValues!;
    assert.deepEqual(values, { ':status': 'answered', ':response': { approved: true }, ':pending': 'pending', ':null_type': 'NULL' });
    assert.ok(!Number.isNaN(Date.parse(at as string)));
    assert.equal(input.ReturnValues, 'ALL_NEW');
  });

  test('no longer pending (the condition failed) is undefined; other failures propagate', async () => {
    mock.on(UpdateCommand).rejects(conditionFailed());
    assert.equal(await repo.resolve(randomUUID(), 'cancelled', null), undefined);
    const error = throttled();
    mock.on(UpdateCommand).rejects(error);
    await assert.rejects(repo.resolve(randomUUID(), 'cancelled', null), (e) => e === error);
  });
});

describe('list', () => {
  const item = (n: number) => stored(interaction({ id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, created_at: `2026-01-01T00:00:0${n}.000Z` }));

  test('the account’s index partition, newest first, filtered on the given fields only, one more than the page', async () => {
    mock.on(QueryCommand).resolves({ Items: [item(9), item(8), item(7)], LastEvaluatedKey: { pk: 'x' } });
    const runId = randomUUID();
    const page = await repo.list(accountId, { run_id: runId, workflow_request_id: undefined, status: 'pending' }, { limit: 2 });
    assert.deepEqual(
      page.interactions.map((i) => i.id.slice(-1)),
      ['9', '8'],
    );
    assert.ok(page.interactions.every((i) => !('pk' in i) && !('gsi1pk' in i) && !('entity' in i)));
    assert.deepEqual(page.next, { gsi1sk: item(8).gsi1sk, pk: item(8).pk, sk: item(8).sk });
    const input = mock.commandCalls(QueryCommand)[0]!.args[0].input;
    assert.deepEqual(
      [input.IndexName, input.KeyConditionExpression, input.ScanIndexForward, input.Limit, input.ExclusiveStartKey],
      ['gsi1', 'gsi1pk = :g', false, 3, undefined],
    );
    // `pending` means not yet expired, as readers see it (statusAt).
    assert.equal(
      input.FilterExpression,
      '#run_id = :run_id AND #status = :pending AND (attribute_not_exists(expires_at) OR attribute_type(expires_at, :null_type) OR expires_at > :now)',
    );
    assert.deepEqual(input.ExpressionAttributeNames, { '#run_id': 'run_id', '#status': 'status' });
    const { ':now': now, ...values } = input.ExpressionAttributeValues!;
    assert.deepEqual(values, { ':g': keys.interactionIndexPartition(accountId), ':run_id': runId, ':pending': 'pending', ':null_type': 'NULL' });
    assert.ok(!Number.isNaN(Date.parse(now as string)));
  });

  test('a position starts the query after it, in the caller’s partition; the last page has no next', async () => {
    mock.on(QueryCommand).resolves({ Items: [item(1)] });
    const after = { gsi1sk: item(2).gsi1sk, pk: item(2).pk, sk: item(2).sk };
    const page = await repo.list(accountId, {}, { limit: 2, after });
    assert.equal(page.next, undefined);
    const input = mock.commandCalls(QueryCommand)[0]!.args[0].input;
    assert.deepEqual(input.ExclusiveStartKey, { gsi1pk: keys.interactionIndexPartition(accountId), ...after });
    assert.equal(input.FilterExpression, undefined);
  });
});
