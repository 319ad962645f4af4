import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, test } from 'vitest';
import { requestEventsReader } from '#execution/request-events.js';
import { EVENT_PAGE_BYTES, workflowRequestsRepo } from '#execution/workflow-requests-repository.js';
import { keys } from '#platform/table/keys.js';
import { mockedDynamoDb } from '../helpers/dynamodb-mock.js';

const { mock, table } = mockedDynamoDb();

beforeEach(() => mock.reset());

describe('event log pages', () => {
  test('a flush reserves one seq range and writes its events as one page keyed by the last seq', async () => {
    const id = randomUUID();
    mock.on(UpdateCommand).resolves({ Attributes: { event_seq: 12 } });
    mock.on(BatchWriteCommand).resolves({});
    const events = await workflowRequestsRepo(table).appendEvents(id, [
      { workflow_request: { id } },
      { workflow_request: { id } },
      { workflow_request: { id } },
    ]);
    assert.deepEqual(
      events.map((e) => e.seq),
      [10, 11, 12],
    );
    const update = mock.commandCalls(UpdateCommand)[0]!.args[0].input;
    assert.deepEqual(update.Key, keys.requestEventSeq(id));
    assert.deepEqual(update.ExpressionAttributeValues, { ':n': 3 });
    const puts = mock.commandCalls(BatchWriteCommand).flatMap((c) => c.args[0].input.RequestItems!.t!.map((r) => r.PutRequest!.Item!));
    assert.equal(puts.length, 1);
    assert.equal(puts[0]!.sk, keys.requestEvent(id, 12).sk);
    assert.deepEqual([puts[0]!.first_seq, puts[0]!.last_seq, (puts[0]!.events as unknown[]).length], [10, 12, 3]);
  });

  test('pages never exceed the page size: big events get pages of their own', async () => {
    const id = randomUUID();
    mock.on(UpdateCommand).resolves({ Attributes: { event_seq: 3 } });
    mock.on(BatchWriteCommand).resolves({});
    const big = 'x'.repeat(Math.floor(EVENT_PAGE_BYTES * 0.6));
    await workflowRequestsRepo(table).appendEvents(id, [
      { node_execution: { output_data: big } },
      { node_execution: { output_data: big } },
      { workflow_request: { id } },
    ]);
    const puts = mock.commandCalls(BatchWriteCommand).flatMap((c) => c.args[0].input.RequestItems!.t!.map((r) => r.PutRequest!.Item!));
    assert.deepEqual(
      puts.map((p) => [p.first_seq, p.last_seq]),
      [
        [1, 1],
        [2, 3],
      ],
    );
  });

  test('the reader expands pages and keeps only events after the position, in order', async () => {
    const id = randomUUID();
    const page = (seqs: number[]) => ({
      ...keys.requestEvent(id, seqs.at(-1)!),
      first_seq: seqs[0],
      last_seq: seqs.at(-1),
      events: seqs.map((seq) => ({ seq, created_at: 't', data: { workflow_request: { seq } } })),
    });
    mock.on(QueryCommand).resolves({ Items: [page([5, 6, 7, 8]), page([9, 10])] });
    const result = await requestEventsReader(table).eventsAfter(id, 6, 100);
    assert.deepEqual(
      result.events.map((e) => e.seq),
      [7, 8, 9, 10],
    );
    assert.equal(result.complete, true);
  });
});
