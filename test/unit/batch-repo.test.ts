import assert from 'node:assert/strict';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, test, vi } from 'vitest';
import { batchPut } from '#platform/table/batch.js';
import { keys } from '#platform/table/keys.js';
import { mockedDynamoDb, throttled } from '../helpers/dynamodb-mock.js';

const { db, mock } = mockedDynamoDb();

const item = (n: number) => ({ ...keys.nodeExecution('r', `n${n}`), entity: 'node_execution', n });
const items = (count: number) => Array.from({ length: count }, (_, n) => item(n));
const written = () => mock.commandCalls(BatchWriteCommand).map((c) => c.args[0].input.RequestItems!.t!.map((r) => r.PutRequest!.Item!.n));

beforeEach(() => {
  mock.reset();
  // The backoff between retries is a setTimeout: run it on fake time rather than wait.
  vi.useFakeTimers({ toFake: ['setTimeout'] });
});
afterEach(() => vi.useRealTimers());

describe('batchPut', () => {
  test('nothing to write sends nothing', async () => {
    await batchPut(db, 't', []);
    assert.equal(mock.commandCalls(BatchWriteCommand).length, 0);
  });

  test('puts the items 25 at a time, in order, into the named table', async () => {
    mock.on(BatchWriteCommand).resolves({});
    await batchPut(db, 't', items(60));
    assert.deepEqual(
      written().map((batch) => batch.length),
      [25, 25, 10],
    );
    assert.deepEqual(
      written().flat(),
      items(60).map((i) => i.n),
    );
    assert.deepEqual(mock.commandCalls(BatchWriteCommand)[0]!.args[0].input.RequestItems!.t![0], { PutRequest: { Item: item(0) } });
  });

  test('retries only what DynamoDB left unprocessed', async () => {
    mock
      .on(BatchWriteCommand)
      .resolvesOnce({ UnprocessedItems: { t: [{ PutRequest: { Item: item(1) } }, { PutRequest: { Item: item(2) } }] } })
      .resolvesOnce({ UnprocessedItems: { t: [{ PutRequest: { Item: item(2) } }] } })
      .resolves({});
    const done = batchPut(db, 't', items(3));
    await vi.runAllTimersAsync();
    await done;
    assert.deepEqual(written(), [[0, 1, 2], [1, 2], [2]]);
  });

  test('gives up after nine attempts that all leave items unprocessed', async () => {
    mock.on(BatchWriteCommand).resolves({ UnprocessedItems: { t: [{ PutRequest: { Item: item(0) } }] } });
    const done = assert.rejects(batchPut(db, 't', items(1)), /kept returning unprocessed items/);
    await vi.runAllTimersAsync();
    await done;
    assert.equal(mock.commandCalls(BatchWriteCommand).length, 9);
  });

  test('a failed call propagates unchanged', async () => {
    const error = throttled();
    mock.on(BatchWriteCommand).rejects(error);
    await assert.rejects(batchPut(db, 't', items(2)), (e) => e === error);
  });
});
