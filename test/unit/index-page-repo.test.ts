import assert from 'node:assert/strict';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, test } from 'vitest';
import { newestFirstPage } from '#platform/table/index-page.js';
import { keys } from '#platform/table/keys.js';
import { mockedDynamoDb, throttled } from '../helpers/dynamodb-mock.js';

const { db, mock } = mockedDynamoDb();

const partition = keys.workflowRequestIndexPartition('acc');
const item = (n: number) => ({ ...keys.workflowRequest(`r${n}`), ...keys.workflowRequestIndex('acc', `2026-01-0${n}`, `r${n}`), n });
const filter = { expression: '#status = :status', names: { '#status': 'status' }, values: { ':status': 'failed' } };

beforeEach(() => mock.reset());

describe('newestFirstPage', () => {
  test('queries the gsi1 partition descending for one more than the page, with the filter', async () => {
    mock.on(QueryCommand).resolves({ Items: [item(3), item(2), item(1)], LastEvaluatedKey: { pk: 'x' } });
    const page = await newestFirstPage(db, 't', partition, filter, { limit: 2 });
    assert.deepEqual(
      page.items.map((i) => i.n),
      [3, 2],
    );
    assert.deepEqual(page.next, { gsi1sk: item(2).gsi1sk, pk: item(2).pk, sk: item(2).sk });
    assert.deepEqual(mock.commandCalls(QueryCommand)[0]!.args[0].input, {
      TableName: 't',
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :g',
      FilterExpression: '#status = :status',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':g': partition, ':status': 'failed' },
      ScanIndexForward: false,
      ExclusiveStartKey: undefined,
      Limit: 3,
    });
  });

  test('without a filter only the partition is bound', async () => {
    mock.on(QueryCommand).resolves({ Items: [] });
    const page = await newestFirstPage(db, 't', partition, undefined, { limit: 5 });
    assert.deepEqual(page, { items: [], next: undefined });
    const input = mock.commandCalls(QueryCommand)[0]!.args[0].input;
    assert.deepEqual([input.FilterExpression, input.ExpressionAttributeNames, input.ExpressionAttributeValues], [undefined, undefined, { ':g': partition }]);
  });

  test('reads on from each LastEvaluatedKey while the filter leaves the page short', async () => {
    mock
      .on(QueryCommand)
      .resolvesOnce({ Items: [item(9)], LastEvaluatedKey: { gsi1pk: partition, gsi1sk: 'a', pk: 'p', sk: 's' } })
      .resolvesOnce({ Items: [item(5)], LastEvaluatedKey: { gsi1pk: partition, gsi1sk: 'b', pk: 'p', sk: 's' } })
      .resolvesOnce({ Items: [] });
    const page = await newestFirstPage(db, 't', partition, filter, { limit: 2 });
    assert.deepEqual(
      page.items.map((i) => i.n),
      [9, 5],
    );
    assert.equal(page.next, undefined, 'a full page with nothing after it has no next position');
    const starts = mock.commandCalls(QueryCommand).map((c) => c.args[0].input.ExclusiveStartKey);
    assert.deepEqual(starts, [undefined, { gsi1pk: partition, gsi1sk: 'a', pk: 'p', sk: 's' }, { gsi1pk: partition, gsi1sk: 'b', pk: 'p', sk: 's' }]);
  });

  test('a position becomes the start key in the given partition', async () => {
    mock.on(QueryCommand).resolves({ Items: [item(1)] });
    const after = { gsi1sk: item(2).gsi1sk, pk: item(2).pk, sk: item(2).sk };
    await newestFirstPage(db, 't', partition, undefined, { limit: 2, after });
    assert.deepEqual(mock.commandCalls(QueryCommand)[0]!.args[0].input.ExclusiveStartKey, { gsi1pk: partition, ...after });
  });

  // Positions come from cursors, whose checksum is unkeyed: a forged one may carry a gsi1pk of its own,
  // which must never replace the caller's partition (docs/data-model.md).
  test('the start key’s partition is the caller’s even when the position carries another', async () => {
    mock.on(QueryCommand).resolves({ Items: [] });
    const after = { gsi1sk: 'x', pk: 'p', sk: 's', gsi1pk: keys.workflowRequestIndexPartition('other') };
    await newestFirstPage(db, 't', partition, undefined, { limit: 2, after });
    assert.equal(mock.commandCalls(QueryCommand)[0]!.args[0].input.ExclusiveStartKey?.gsi1pk, partition);
  });

  test('a failed query propagates unchanged', async () => {
    const error = throttled();
    mock.on(QueryCommand).rejects(error);
    await assert.rejects(newestFirstPage(db, 't', partition, undefined, { limit: 2 }), (e) => e === error);
  });
});
