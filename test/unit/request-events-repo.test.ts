import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, test, vi } from 'vitest';
import { type ReadMeter, requestEventsReader } from '#execution/request-events.js';
import { keys } from '#platform/table/keys.js';
import { mockedDynamoDb, throttled } from '../helpers/dynamodb-mock.js';

const { mock, table } = mockedDynamoDb();

const recorder = () => {
  const reads: Array<[string, number]> = [];
  const meter: ReadMeter = { record: (operation, units) => void reads.push([operation, units]) };
  return { reads, meter };
};
const page = (requestId: string, seqs: number[]) => ({
  ...keys.requestEvent(requestId, seqs.at(-1)!),
  entity: 'request_event_page',
  events: seqs.map((seq) => ({ seq, created_at: 'c', data: { workflow_request: { seq } } })),
});

beforeEach(() => mock.reset());
afterEach(() => vi.useRealTimers());

describe('eventsAfter', () => {
  test('expired pages (TTL passed, not yet deleted) are filtered out by the query itself', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-03-01T00:00:00.900Z'));
    const id = randomUUID();
    mock.on(QueryCommand).resolves({ Items: [] });
    await requestEventsReader(table).eventsAfter(id, 0, 10, true);
    const input = mock.commandCalls(QueryCommand)[0]!.args[0].input;
    assert.equal(input.FilterExpression, '#ttl > :now');
    assert.deepEqual(input.ExpressionAttributeNames, { '#ttl': 'ttl' });
    assert.equal(input.ExpressionAttributeValues?.[':now'], Math.floor(Date.parse('2026-03-01T00:00:00.900Z') / 1000));
    assert.equal(input.ExpressionAttributeValues?.[':pk'], keys.requestEvent(id, 0).pk);
    assert.equal(input.ExpressionAttributeValues?.[':from'], keys.requestEvent(id, 1).sk);
    assert.equal(input.TableName, 't');
  });

  test('a LastEvaluatedKey means more may follow; events come out in seq order', async () => {
    const id = randomUUID();
    mock.on(QueryCommand).resolves({ Items: [page(id, [4, 5]), page(id, [2, 3])], LastEvaluatedKey: keys.requestEvent(id, 5) });
    const result = await requestEventsReader(table).eventsAfter(id, 1, 2, true);
    assert.deepEqual(
      result.events.map((e) => e.seq),
      [2, 3, 4, 5],
    );
    assert.equal(result.complete, false);
  });

  test('past the last seq a sort key can hold there is nothing to read', async () => {
    const result = await requestEventsReader(table).eventsAfter(randomUUID(), 9_999_999_999, 10, true);
    assert.deepEqual(result, { events: [], complete: true });
    assert.equal(mock.commandCalls(QueryCommand).length, 0);
  });

  test('a failed query propagates unchanged', async () => {
    const error = throttled();
    mock.on(QueryCommand).rejects(error);
    await assert.rejects(requestEventsReader(table).eventsAfter(randomUUID(), 0, 10, true), (e) => e === error);
  });
});

describe('requestWithWatermark', () => {
  test('no request item is no request (the watermark is still read first and metered)', async () => {
    const id = randomUUID();
    mock.on(QueryCommand).resolves({ Items: [], ConsumedCapacity: { CapacityUnits: 1 } });
    mock.on(GetCommand).resolves({ ConsumedCapacity: { CapacityUnits: 0.5 } });
    const { reads, meter } = recorder();
    assert.equal(await requestEventsReader(table, meter).requestWithWatermark(id), undefined);
    assert.deepEqual(
      mock.commandCalls(GetCommand).map((c) => c.args[0].input.Key),
      [keys.workflowRequest(id)],
    );
    assert.deepEqual(reads, [
      ['query', 1],
      ['get', 0.5],
    ]);
  });

  test('before any event the watermark is 0', async () => {
    const id = randomUUID();
    mock.on(QueryCommand).resolves({ Items: [] });
    mock
      .on(GetCommand, { Key: keys.workflowRequest(id) })
      .resolves({ Item: { ...keys.workflowRequest(id), ...keys.workflowRequestIndex('a', 'c', id), entity: 'workflow_request', id } });
    assert.deepEqual(await requestEventsReader(table).requestWithWatermark(id), { id, event_seq: 0 });
  });
});

describe('nodes', () => {
  test('the NODE# snapshot, consistent, with each page’s read units metered as queries', async () => {
    const id = randomUUID();
    mock
      .on(QueryCommand)
      .resolves({ Items: [{ ...keys.nodeExecution(id, 'a'), entity: 'node_execution', node_id: 'a' }], ConsumedCapacity: { CapacityUnits: 1.5 } });
    const { reads, meter } = recorder();
    assert.deepEqual(await requestEventsReader(table, meter).nodes(id), [{ node_id: 'a' }]);
    const input = mock.commandCalls(QueryCommand)[0]!.args[0].input;
    assert.deepEqual([input.ExpressionAttributeValues?.[':prefix'], input.ConsistentRead, input.ReturnConsumedCapacity], ['NODE#', true, 'TOTAL']);
    assert.deepEqual(reads, [['query', 1.5]]);
  });
});
