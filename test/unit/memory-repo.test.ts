import assert from 'node:assert/strict';
import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, test } from 'vitest';
import { memoryRepo } from '#memory/memory-repository.js';
import { keys } from '#platform/table/keys.js';
import { cancelled, mockedDynamoDb, throttled } from '../helpers/dynamodb-mock.js';

const { mock, table } = mockedDynamoDb();
const repo = memoryRepo(table);

const accountId = 'acc';
const ctx = 'ctx';
const agent = 'agent';
const exchange = {
  accountId,
  contextMemoryId: ctx,
  agentNodeId: agent,
  order: '2026-01-01T00:00:00.000Z#exec',
  executionId: 'exec',
  user: 'hi',
  assistant: 'hello',
};
const message = (n: number) => ({
  ...keys.memoryMessage(ctx, agent, `o${n}`),
  entity: 'memory_message',
  id: `msg_${n}`,
  role: n % 2 ? 'assistant' : 'user',
  content: `m${n}`,
  context_memory_id: ctx,
  agent_node_id: agent,
  account_id: accountId,
  created_at: 'c',
});

beforeEach(() => mock.reset());

describe('appendExchange', () => {
  test('writes the user and assistant messages at keys derived from the execution, both only if absent', async () => {
    mock.on(TransactWriteCommand).resolves({});
    await repo.appendExchange(exchange);
    const items = mock.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    assert.equal(items.length, 2);
    assert.deepEqual(
      items.map((i) => [i.Put?.TableName, i.Put?.Item?.pk, i.Put?.Item?.sk, i.Put?.ConditionExpression]),
      [0, 1].map((n) => [
        't',
        keys.memoryMessage(ctx, agent, `${exchange.order}#${n}`).pk,
        keys.memoryMessage(ctx, agent, `${exchange.order}#${n}`).sk,
        'attribute_not_exists(pk)',
      ]),
    );
    assert.deepEqual(
      items.map((i) => [i.Put?.Item?.id, i.Put?.Item?.role, i.Put?.Item?.content, i.Put?.Item?.account_id, i.Put?.Item?.entity]),
      [
        ['msg_exec_0', 'user', 'hi', accountId, 'memory_message'],
        ['msg_exec_1', 'assistant', 'hello', accountId, 'memory_message'],
      ],
    );
  });

  test('a retried execution whose exchange is already written writes nothing and does not fail', async () => {
    mock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'ConditionalCheckFailed'));
    await repo.appendExchange(exchange);
    assert.equal(mock.commandCalls(TransactWriteCommand).length, 1);
  });

  test('a cancellation for another reason, or any other failure, propagates unchanged', async () => {
    for (const error of [cancelled('TransactionConflict', 'None'), throttled()]) {
      mock.reset();
      mock.on(TransactWriteCommand).rejects(error);
      await assert.rejects(repo.appendExchange(exchange), (e) => e === error);
    }
  });
});

describe('page', () => {
  test('oldest first in the memory partition, filtered to the caller, reading on until the page is full plus one', async () => {
    mock
      .on(QueryCommand)
      .resolvesOnce({ Items: [message(1)], LastEvaluatedKey: { pk: 'x', sk: 'MSG#o3' } })
      .resolvesOnce({ Items: [message(4), message(5)], LastEvaluatedKey: { pk: 'x', sk: 'MSG#o5' } });
    const page = await repo.page(accountId, ctx, agent, { limit: 2 });
    assert.deepEqual(
      page.messages.map((m) => m.id),
      ['msg_1', 'msg_4'],
    );
    assert.ok(page.messages.every((m) => !('pk' in m) && !('account_id' in m)));
    assert.equal(page.nextAfter, message(4).sk);
    const calls = mock.commandCalls(QueryCommand).map((c) => c.args[0].input);
    assert.equal(calls.length, 2);
    const prefix = keys.memoryPrefix(ctx, agent);
    assert.equal(calls[0]!.KeyConditionExpression, 'pk = :pk AND begins_with(sk, :prefix)');
    assert.equal(calls[0]!.FilterExpression, 'account_id = :account');
    assert.deepEqual(calls[0]!.ExpressionAttributeValues, { ':pk': prefix.pk, ':prefix': prefix.skPrefix, ':account': accountId });
    assert.deepEqual([calls[0]!.Limit, calls[0]!.ConsistentRead, calls[0]!.ScanIndexForward, calls[0]!.ExclusiveStartKey], [3, true, undefined, undefined]);
    assert.deepEqual(calls[1]!.ExclusiveStartKey, { pk: 'x', sk: 'MSG#o3' });
  });

  test('a position starts after that sort key in the rebuilt partition; the last page has no next', async () => {
    mock.on(QueryCommand).resolves({ Items: [message(7)] });
    const page = await repo.page(accountId, ctx, agent, { limit: 2, after: message(6).sk });
    assert.equal(page.nextAfter, undefined);
    assert.deepEqual(mock.commandCalls(QueryCommand)[0]!.args[0].input.ExclusiveStartKey, { pk: keys.memoryPrefix(ctx, agent).pk, sk: message(6).sk });
  });
});

describe('recent', () => {
  test('the newest `max` of the caller’s messages, returned oldest first', async () => {
    mock.on(QueryCommand).resolves({ Items: [message(3), message(2), message(1)] });
    const messages = await repo.recent(accountId, ctx, agent);
    assert.deepEqual(
      messages.map((m) => m.id),
      ['msg_1', 'msg_2', 'msg_3'],
    );
    const input = mock.commandCalls(QueryCommand)[0]!.args[0].input;
    const prefix = keys.memoryPrefix(ctx, agent);
    assert.deepEqual(input.ExpressionAttributeValues, { ':pk': prefix.pk, ':prefix': prefix.skPrefix, ':account': accountId });
    assert.equal(input.FilterExpression, 'account_id = :account');
    assert.deepEqual([input.ScanIndexForward, input.Limit, input.ConsistentRead], [false, 50, true]);
    await repo.recent(accountId, ctx, agent, 4);
    assert.equal(mock.commandCalls(QueryCommand)[1]!.args[0].input.Limit, 4);
  });
});
